//! Two roles, by PD name, for the test that a driver goes on answering while its engine
//! is busy (`system/busy.system`):
//!
//! * `loader` puts one long request on the OMAP engine's PIO path (16 KiB in four
//!   segments: 1024 blocks, two interrupts each), tells the prober it is submitted
//!   (channel 1), and checks that decrypting its answer in place restores its data.
//! * `prober` waits (bounded) until the driver's trace says a request is in flight, then
//!   opens a session by PPC and queues a request of its own, and checks the answer.
//!
//! Each exits 0 only if its checks held; the test reads the driver's trace counters
//! (calls and notifications handled while busy) rather than these PDs' words.
use crypto_client::{CipherLink, Completion};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY, Request};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, debug_println, exit, memory_region, pd_name};
use pd_trace::Snapshot;
use std::time::{Duration, Instant};
use system_tests::client::{DRIVER, Data, link};

/// Between the loader and the prober.
const PEER: Channel = Channel::new(1);
const SEGMENTS: u32 = 4;
const SEGMENT: u32 = 4096;
const KEY: [u8; 32] = [0x2b; 32];

struct Busy {
    calls: cipher::Client<PpcTransport>,
    link: CipherLink<'static>,
    data: Data,
    /// The loader's encrypt and decrypt sessions (the prober uses the first).
    sessions: [u32; 2],
    /// Requests answered so far.
    answered: u32,
}

fn pattern(i: u32) -> u8 {
    (i.wrapping_mul(31) ^ (i >> 7)) as u8
}

fn request(id: u32, session: u32, op: CipherOp, segments: u32, len: u32) -> Request {
    let list: [(u32, u32); 6] = core::array::from_fn(|k| (k as u32 * len, len));
    Request::over(id, session, op, &list[..segments as usize])
}

impl Busy {
    fn submit(&mut self, r: Request) {
        if self.link.submit(r).expect("room in the queue") {
            DRIVER.notify();
        }
    }

    fn open(&mut self, path: Path) -> u32 {
        self.calls
            .open_session(Mode::Cbc, path, 16, KEY, [0; 16])
            .unwrap_or_else(|e| fail(&format!("open_session: {e:?}")))
    }

    /// The loader, once its request came back: decrypt in place, or check and finish.
    fn loader_answered(&mut self) {
        match self.answered {
            1 => {
                let r = request(2, self.sessions[1], CipherOp::Decrypt, SEGMENTS, SEGMENT);
                self.submit(r);
            }
            _ => {
                let mut back = vec![0u8; (SEGMENTS * SEGMENT) as usize];
                self.data.read(0, &mut back);
                if back
                    .iter()
                    .enumerate()
                    .any(|(i, b)| *b != pattern(i as u32))
                {
                    fail("decrypting the PIO answer did not restore the data");
                }
                debug_println!(
                    "loader: {} bytes through PIO and back: ok",
                    SEGMENTS * SEGMENT
                );
                exit(0);
            }
        }
    }

    /// The prober: wait for the driver to be busy, then call and queue a request.
    fn probe(&mut self) {
        let trace = memory_region!(trace);
        let busy = || {
            let mut bytes = vec![0u8; trace.size];
            for (i, b) in bytes.iter_mut().enumerate() {
                // SAFETY: inside the region, mapped read-only here; volatile: the
                // driver writes it.
                *b = unsafe { trace.vaddr.add(i).read_volatile() };
            }
            Snapshot::parse(&bytes).is_some_and(|t| t.busy)
        };
        let end = Instant::now() + Duration::from_secs(5);
        while !busy() {
            if Instant::now() > end {
                fail("the driver was never seen busy");
            }
        }
        // The call and the notification both reach the driver while it works.
        let s = self.open(Path::Adaptive);
        self.sessions[0] = s;
        self.data.write(0, &[7; 32]);
        self.submit(request(9, s, CipherOp::Encrypt, 1, 32));
        debug_println!("prober: called and queued while the driver was busy");
    }
}

fn fail(why: &str) -> ! {
    debug_println!("{}: FAIL: {why}", pd_name());
    exit(1)
}

impl Handler for Busy {
    fn notified(&mut self, channels: ChannelSet) {
        if pd_name() == "prober" && channels.contains(PEER) && self.sessions[0] == 0 {
            self.probe();
        }
        let mut got = Vec::new();
        if self.link.poll(|c| got.push(c)).expect("response queue") {
            DRIVER.notify();
        }
        for c in got {
            let Completion::Answered(r) = c else {
                fail("the driver restarted");
            };
            if r.status.check() != Ok(Ok(())) {
                fail(&format!("request {} answered {:?}", r.id, r.status));
            }
            self.answered += 1;
            if pd_name() == "loader" {
                if r.path.get() != Ok(Path::Pio) {
                    fail("the long request did not take the PIO path");
                }
                self.loader_answered();
            } else {
                debug_println!("prober: its request was answered after the long one");
                exit(0);
            }
        }
    }
}

fn init() -> Busy {
    let mut b = Busy {
        calls: cipher::Client::new(PpcTransport(DRIVER)),
        link: link(REQUEST_QUEUE_CAPACITY),
        data: Data::map(),
        sessions: [0; 2],
        answered: 0,
    };
    if pd_name() == "loader" {
        let bytes: Vec<u8> = (0..SEGMENTS * SEGMENT).map(pattern).collect();
        b.data.write(0, &bytes);
        b.sessions = [b.open(Path::Pio), b.open(Path::Pio)];
        b.submit(request(
            1,
            b.sessions[0],
            CipherOp::Encrypt,
            SEGMENTS,
            SEGMENT,
        ));
        PEER.notify();
    }
    b
}

pd_runtime::protection_domain!(init);
