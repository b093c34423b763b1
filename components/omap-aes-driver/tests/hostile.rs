//! A hostile or careless client, two clients interleaved, a broken engine: typed errors,
//! the engine keeps working, and a driver whose self-test fails serves nobody. What both
//! engines check alike is `pio_dma_driver::testkit::hostile_suite`.

mod rig;

use pio_dma_driver::testkit as kit;

use mmio::{BusFault, RegisterBus, omap_aes};
use omap_aes_driver::Route;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Board, CLIENT, hex, request};

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

#[test]
fn the_hostile_cases_both_engines_survive() {
    kit::hostile_suite::<rig::Omap>();
}

/// An AES bus whose first soft reset is still running for the next `reads` SYSSTATUS
/// reads (a slow interface clock).
struct SlowReset<B> {
    bus: B,
    reads: u32,
    left: u32,
    seen_reset: bool,
}

impl<B: RegisterBus> RegisterBus for SlowReset<B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        if offset == omap_aes::SYSSTATUS && self.left > 0 {
            self.left -= 1;
            return Ok(0);
        }
        self.bus.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        if offset == omap_aes::SYSCONFIG
            && value & omap_aes::sysconfig::SOFTRESET != 0
            && !self.seen_reset
        {
            self.seen_reset = true;
            self.left = self.reads;
        }
        self.bus.write32(offset, value)
    }
}

#[test]
fn a_reset_not_finished_when_the_next_request_starts_fails_that_request_alone() {
    let board = Board::new();
    let slow = SlowReset {
        bus: board.soc.aes(),
        reads: 1,
        left: 0,
        seen_reset: false,
    };
    let mut driver = board.driver_with(slow);
    driver.init().expect("self-test and calibration pass");
    let mut rig = rig::rig(&board, driver);
    let s = rig.open(Mode::Cbc, Path::Dma, &hex(KEY), &[0; 16]).unwrap();
    let good = rig.phys;
    rig.phys = Some(0x1000);
    let failed = rig.crypt(s, CipherOp::Encrypt, &[1; 64], &[64], rig::Layout::Aligned);
    assert_eq!(failed, Err(CipherError::EngineFault), "DMA to nowhere");
    rig.phys = good;
    // The reset that followed is still running: the next request is refused at once,
    // not waited on, and the engine is reset again.
    let refused = rig.crypt(s, CipherOp::Encrypt, &[1; 64], &[64], rig::Layout::Aligned);
    assert_eq!(refused, Err(CipherError::EngineFault));
    let p = rig.open(Mode::Cbc, Path::Pio, &hex(KEY), &[0; 16]).unwrap();
    let want = rig.crypt(p, CipherOp::Encrypt, &[1; 64], &[64], rig::Layout::Aligned);
    let again = rig.crypt(s, CipherOp::Encrypt, &[1; 64], &[64], rig::Layout::Aligned);
    assert!(want.is_ok());
    assert_eq!(again, want, "served again once the reset has finished");
}

#[test]
fn a_self_test_failure_refuses_service() {
    // The first vector, on the first route.
    let board = Board::new();
    let driver = board.driver_with(kit::StuckBit(board.soc.aes(), omap_aes::key(0)));
    kit::a_wrong_answer_refuses_service(&board, driver, Route::Pio, CipherOp::Encrypt);
}

/// A client that rewrites its own data while its PIO request is between blocks spoils
/// only its own result: the driver copies each block out of the shared region as it
/// feeds the engine, so it never computes on bytes that change under it, nothing
/// outside the request's segments is touched, and the next request is right again.
#[test]
fn a_client_scribbling_on_its_data_mid_request_spoils_only_its_own_result() {
    use cipher_service::{CipherEngine, ClientData, Job, Session, Step, validate};
    use shm_queue::SharedRegion;

    let board = Board::new();
    let mut driver = board.driver();
    let mut mem = vec![0u8; 4096];
    let plain: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
    mem[512..768].copy_from_slice(&plain);
    let region = SharedRegion::new(&mut mem);
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&hex(KEY));
    let session = Session {
        owner: CLIENT,
        mode: Mode::Cbc,
        path: Path::Pio,
        key_len: 16,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
        key,
        iv: [0; 16],
    };
    let req = request(1, 0, &[(512, 256)]);
    let job = Job::one(
        session,
        CipherOp::Encrypt,
        validate(&req, 4096, Mode::Cbc).unwrap(),
        ClientData { region, phys: None },
    );
    let run = |driver: &mut rig::Driver, scribble: bool| {
        let mut step = driver.start(&job);
        let mut interrupts = 0;
        while step == Step::Pending {
            interrupts += 1;
            assert!(interrupts < 1000, "the request never finished");
            if scribble && interrupts == 8 {
                // Mid-request (the fourth block is in the engine): the client rewrites
                // the second half of its request.
                job.data.region.write_bytes(640, &[0xee; 128]);
            }
            step = driver.interrupt(&job);
        }
        step
    };
    let Step::Done(Ok(clean)) = run(&mut driver, false) else {
        panic!("a clean run finishes")
    };
    let mut want = vec![0u8; 256];
    job.data.region.read_bytes(512, &mut want);
    job.data.region.write_bytes(512, &plain);
    let Step::Done(Ok(spoilt)) = run(&mut driver, true) else {
        panic!("a scribbled request still finishes: the driver does not fault")
    };
    let mut got = vec![0u8; 256];
    job.data.region.read_bytes(512, &mut got);
    assert_ne!(spoilt.next_iv(), clean.next_iv());
    assert_eq!(got[..128], want[..128], "the untouched first half is right");
    assert_ne!(got[128..], want[128..], "the scribbled half is not");
    let mut around = vec![0u8; 4096];
    job.data.region.read_bytes(0, &mut around);
    assert!(
        around[..512].iter().chain(&around[768..]).all(|&b| b == 0),
        "nothing outside the request's segment was written"
    );
    // The engine is sound: the same request again gives the clean answer.
    job.data.region.write_bytes(512, &plain);
    let Step::Done(Ok(again)) = run(&mut driver, false) else {
        panic!("the next request finishes")
    };
    job.data.region.read_bytes(512, &mut got);
    assert_eq!((got, again), (want, clean));
}
