//! A client that dies holding sessions and comes back (`system/come-back.system`): its
//! first incarnation opens two sessions on the OMAP driver, queues a request and faults
//! (a write to an unmapped address) when the answer's notification arrives; the runner
//! restarts it. The second incarnation (its `Link` announces it in the queue pair) opens
//! one session, encrypts SP 800-38A F.2.1's first block, checks it, closes the session
//! and exits 0. The test reads the driver's trace: the dead incarnation's sessions were
//! closed when the new one arrived, and the power grant given back.
use crypto_client::Completion;
use crypto_client::driver::CipherDriver;
use kat_vectors::hex;
use pd_idl::cipher::{CipherOp, Mode, Path, Request};
use pd_runtime::{ChannelSet, Handler, debug_println, exit, pd_name};
use system_tests::client::Data;

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const IV: &str = "000102030405060708090a0b0c0d0e0f";
const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172a";
const CIPHER: &str = "7649abac8119b246cee98e9b12e9197d";

struct ComeBack {
    driver: CipherDriver,
    data: Data,
    session: u32,
}

fn array<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0; N];
    hex(s, &mut out);
    out
}

impl ComeBack {
    fn open(&mut self) -> u32 {
        let mut key = [0; 32];
        key[..16].copy_from_slice(&array::<16>(KEY));
        self.driver
            .calls
            .open_session(Mode::Cbc, Path::Pio, 16, key, array(IV))
            .unwrap_or_else(|e| panic!("{}: open_session: {e:?}", pd_name()))
    }

    fn encrypt_first_block(&mut self, session: u32) {
        self.data.write(0, &array::<16>(PLAIN));
        let req = Request::over(1, session, CipherOp::Encrypt, &[(0, 16)]);
        self.driver.submit(req).expect("room for one request");
    }
}

impl Handler for ComeBack {
    fn notified(&mut self, _: ChannelSet) {
        let mut answer = None;
        let _ = self.driver.link.poll(|c| {
            if let Completion::Answered(r) = c {
                answer = Some(r);
            }
        });
        let Some(r) = answer else { return };
        if self.driver.link.incarnation() == 1 {
            debug_println!("{}: dying with two sessions open", pd_name());
            // SAFETY: none; the point is the fault: the first page is mapped in no PD.
            unsafe { (8 as *mut u32).write_volatile(0) };
        }
        let mut got = [0u8; 16];
        self.data.read(0, &mut got);
        let ok = r.status.check() == Ok(Ok(())) && got == array::<16>(CIPHER);
        let closed = self.driver.close_session(self.session);
        debug_println!(
            "{}: incarnation {}: F.2.1 block 1 {}; close_session {closed:?}",
            pd_name(),
            self.driver.link.incarnation(),
            if ok { "matches" } else { "WRONG" }
        );
        exit(if ok && closed.is_ok() { 0 } else { 1 });
    }
}

fn init() -> ComeBack {
    let mut c = ComeBack {
        driver: CipherDriver::map(),
        data: Data::map(),
        session: 0,
    };
    let first = c.open();
    if c.driver.link.incarnation() == 1 {
        // A second session, left open too.
        c.open();
    }
    debug_println!(
        "{}: incarnation {}: session {first:#x} open",
        pd_name(),
        c.driver.link.incarnation()
    );
    c.session = first;
    c.encrypt_first_block(first);
    c
}

pd_runtime::protection_domain!(init);
