//! The bodies of crypto-pd's fuzz targets, one function per target taking the fuzzer's
//! bytes: cargo-fuzz runs them under libFuzzer (`make fuzz`, which needs a nightly
//! toolchain: `tools/fuzz-targets/fuzz`), and `cargo test` runs each on a few thousand
//! generated inputs as a smoke test on stable (CI).
//!
//! Each states the property it checks: no input crashes the code a hostile peer feeds
//! (the decoders, the queue consumer, a driver's serving path, the `.system` parser,
//! the host boot information, the verified-boot manifest), every request a driver takes
//! is answered once, and a hardware engine's model gives the CPU engine's bytes.
//!
//! Assumes the host (std); the targets keep their rigs in thread-locals, built once.

use std::cell::RefCell;

use arbitrary::{Arbitrary, Unstructured};
use cipher_service::Cipher;
use cipher_service::testkit::{CLIENT, DATA, Layout, Rig};
use pd_idl::cipher::{self, CipherError, CipherOp, Mode, Path, Request};
use pd_idl::wire::{Caller, MSG_WORDS, Message};
use pd_idl::{digest, power, regbus};
use shm_queue::{Consumer, QueueError, SharedRegion};
use zerocopy::FromBytes;

/// IDL dispatch: any message to any interface's generated `dispatch` is either decoded
/// and handed to the server, or answered with a protocol error; never a panic, and the
/// reply fits a message.
pub fn idl_dispatch(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let (Ok(label), Ok(words)) = (u.arbitrary::<u64>(), u.int_in_range(0..=MSG_WORDS)) else {
        return;
    };
    let mut msg = Message {
        label: label % 8,
        words,
        mrs: [0; MSG_WORDS],
    };
    for w in &mut msg.mrs[..words] {
        *w = u.arbitrary().unwrap_or(0);
    }
    let caller = Caller(u.arbitrary::<u8>().unwrap_or(0).into());
    for reply in [
        cipher::dispatch(&mut Anything, caller, &msg),
        digest::dispatch(&mut Anything, caller, &msg),
        power::dispatch(&mut Anything, caller, &msg),
        regbus::dispatch(&mut Anything, caller, &msg),
    ] {
        assert!(reply.words <= MSG_WORDS, "a reply of {} words", reply.words);
    }
    // The driver PDs answer through queued-service's one dispatch, not the IDL's: for
    // the same answers behind it, it replies as the IDL's does, word for word.
    let ours =
        queued_service::dispatch::<Cipher<cpu_engine::CpuEngine>>(&mut Anything, caller, &msg);
    let idl = cipher::dispatch(&mut Anything, caller, &msg);
    assert_eq!(
        (ours.label, &ours.mrs[..ours.words]),
        (idl.label, &idl.mrs[..idl.words]),
        "queued_service::dispatch and the IDL's disagree on {msg:?}"
    );
}

impl queued_service::Calls<Cipher<cpu_engine::CpuEngine>> for Anything {
    fn open(&mut self, _: Caller, _: cipher_service::Open) -> Result<u32, CipherError> {
        Ok(1)
    }
    fn close(&mut self, _: Caller, _: u32) -> Result<(), CipherError> {
        Ok(())
    }
    fn capabilities(&mut self, _: Caller) -> Result<u64, CipherError> {
        Ok(u64::MAX)
    }
}

/// A server of every interface that accepts whatever reaches it.
struct Anything;

impl cipher::Server for Anything {
    fn open_session(
        &mut self,
        _: Caller,
        _: Mode,
        _: Path,
        _: u8,
        _: [u8; 32],
        _: [u8; 16],
    ) -> Result<u32, CipherError> {
        Ok(1)
    }
    /// As the PD with no key store answers it (`Calls::fetch_key`'s default).
    fn open_session_by_key(
        &mut self,
        _: Caller,
        _: Mode,
        _: Path,
        _: u32,
        _: u8,
        _: [u8; 16],
    ) -> Result<u32, CipherError> {
        Err(CipherError::NoKeyStore)
    }
    fn close_session(&mut self, _: Caller, _: u32) -> Result<(), CipherError> {
        Ok(())
    }
    fn capabilities(&mut self, _: Caller) -> Result<u64, CipherError> {
        Ok(u64::MAX)
    }
}

impl digest::Server for Anything {
    fn open_session(
        &mut self,
        _: Caller,
        _: digest::Algorithm,
        _: digest::HashPath,
    ) -> Result<u32, digest::DigestError> {
        Ok(1)
    }
    fn capabilities(&mut self, _: Caller) -> Result<u64, digest::DigestError> {
        Ok(u64::MAX)
    }
    fn close_session(&mut self, _: Caller, _: u32) -> Result<(), digest::DigestError> {
        Ok(())
    }
}

impl power::Server for Anything {
    fn acquire(&mut self, _: Caller, e: power::Engine) -> Result<power::Grant, power::PowerError> {
        Ok(power::Grant {
            engine: e.into(),
            reserved: [0; 3],
            generation: 1,
        })
    }
    fn release(&mut self, _: Caller, _: power::Grant) -> Result<(), power::PowerError> {
        Ok(())
    }
}

impl regbus::Server for Anything {
    fn read32(&mut self, _: Caller, _: u8, _: u32) -> Result<u32, regbus::BusError> {
        Ok(0)
    }
    fn write32(&mut self, _: Caller, _: u8, _: u32, _: u32) -> Result<(), regbus::BusError> {
        Ok(())
    }
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

/// The queue consumer under a hostile peer: a region whose indices, signal word and
/// slots are whatever the peer wrote. Every call returns a value or a typed error, the
/// queue never claims more than its capacity, and a corrupt index stays an error.
pub fn queue_consumer(data: &[u8]) {
    let capacity = cipher::REQUEST_QUEUE_CAPACITY;
    let bytes = shm_queue::region_size::<Request>(capacity);
    let mut lines = vec![Line([0; 64]); bytes.div_ceil(64)];
    // SAFETY: plain memory of this function, reached only through the consumer (which
    // uses atomics and volatile copies) and the byte copy below, one at a time.
    let region = unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), bytes) };
    region.write_bytes(0, &data[..data.len().min(bytes)]);
    let Ok(mut rx) = Consumer::<Request>::attach(region, capacity) else {
        return;
    };
    for _ in 0..2 * capacity {
        match rx.len() {
            Ok(n) => assert!(n <= capacity, "{n} items in a queue of {capacity}"),
            Err(QueueError::Corrupt { .. }) => {
                assert!(matches!(rx.dequeue(), Err(QueueError::Corrupt { .. })));
                return;
            }
            Err(e) => panic!("len: {e:?}"),
        }
        match rx.dequeue() {
            Ok(_) => {}
            Err(QueueError::Empty) => break,
            Err(QueueError::Corrupt { .. }) => return,
            Err(e) => panic!("dequeue: {e:?}"),
        }
    }
    let _ = rx.arm_signal();
}

thread_local! {
    static CPU: RefCell<Option<Rig<cpu_engine::CpuEngine>>> = const { RefCell::new(None) };
}

/// A driver's serving path: requests made of the fuzzer's bytes (any op, session,
/// segment count and segments) through the Cipher service over the CPU engine, with one
/// real session open. Every request is answered exactly once, in order. Returns how
/// many were served with bytes, for the smoke test to see the engine is reached.
pub fn driver_serve(data: &[u8]) -> usize {
    CPU.with(|cell| {
        let mut rig = cell.borrow_mut();
        let rig = rig.get_or_insert_with(|| Rig::new(cpu_engine::CpuEngine::default()));
        let Ok(session) = rig.open(Mode::Cbc, Path::Adaptive, &[7; 16], &[0; 16]) else {
            panic!("a CBC session opens");
        };
        let size = size_of::<Request>();
        let mut requests: Vec<Request> = data
            .chunks_exact(size)
            .take(16)
            .filter_map(|c| Request::read_from_bytes(c).ok())
            .collect();
        for (i, r) in requests.iter_mut().enumerate() {
            r.id = i as u32;
            // Half aimed at the real session and shaped towards what validation takes
            // (a real op, at most six segments inside the region, in whole blocks,
            // which may still overlap), so that they reach the engine; the rest raw.
            if i % 2 == 0 {
                r.session = session;
                r.op.0 = r.op.0 % 2 + 1;
                r.nsegs %= r.segs.len() as u8 + 1;
                for g in &mut r.segs {
                    g.offset = (g.offset % DATA as u32) & !15;
                    g.len = (g.len % (DATA as u32 - g.offset + 1)) & !15;
                }
            }
        }
        let answers = rig.exchange(CLIENT, &requests);
        assert_eq!(answers.len(), requests.len(), "every request answered once");
        for (a, r) in answers.iter().zip(&requests) {
            assert_eq!(a.id, r.id, "in order");
        }
        rig.service.close(CLIENT, session).expect("close");
        answers
            .iter()
            .filter(|a| a.status.check() == Ok(Ok(())) && a.bytes_done > 0)
            .count()
    })
}

/// The `.system` parser and checker: any text is a description or a list of errors.
pub fn system_parser(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = system_desc::parse(&text, "fuzz.system");
}

/// The host's boot information, which the runner writes and a PD decodes before
/// anything else: any bytes decode or are refused.
pub fn boot_info(data: &[u8]) {
    let _ = pd_runtime::host::boot::BootInfo::decode(data);
}

/// The verified-boot manifest: any bytes are refused or pass the checks; and the
/// shipped manifest with any one byte changed is refused (signature or structure).
pub fn vboot_manifest(data: &[u8]) {
    use vboot_client_pd::image::{MANIFEST, ROLLBACK_FLOOR, TRUSTED_KEY};
    let _ = vboot::precheck(data, &TRUSTED_KEY, ROLLBACK_FLOOR, 1 << 20);
    let mut u = Unstructured::new(data);
    let (Ok(at), Ok(x)) = (u.int_in_range(0..=MANIFEST.len() - 1), u.arbitrary::<u8>()) else {
        return;
    };
    let mut forged = MANIFEST.to_vec();
    forged[at] ^= x;
    let verdict = vboot::precheck(&forged, &TRUSTED_KEY, ROLLBACK_FLOOR, 1 << 20);
    if x != 0 {
        assert!(verdict.is_err(), "byte {at} ^ {x:#x} passed as genuine");
    }
}

/// What the differential target asks for: one request to both engines.
#[derive(Arbitrary, Debug)]
struct Case {
    key: [u8; 32],
    key_size: u8,
    iv: [u8; 16],
    mode: u8,
    path: u8,
    decrypt: bool,
    blocks: u8,
    fill: u8,
}

thread_local! {
    static OMAP: RefCell<Option<omap::OmapRig>> = const { RefCell::new(None) };
}

/// Engine against CPU: the OMAP AES driver on its model (PIO, DMA or adaptive) and the
/// CPU engine give the same bytes for the same key, mode, IV and data.
pub fn engine_differential(data: &[u8]) {
    let Ok(case) = Case::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    let key = &case.key[..[16, 24, 32][usize::from(case.key_size % 3)]];
    let mode = [Mode::Ecb, Mode::Cbc, Mode::Ctr][usize::from(case.mode % 3)];
    let path = [Path::Pio, Path::Dma, Path::Adaptive][usize::from(case.path % 3)];
    let op = if case.decrypt {
        CipherOp::Decrypt
    } else {
        CipherOp::Encrypt
    };
    let len = 16 * (1 + usize::from(case.blocks % 32));
    let input: Vec<u8> = (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ case.fill)
        .collect();
    fn run<E: cipher_service::CipherEngine>(
        rig: &mut Rig<E>,
        (mode, path, key, iv): (Mode, Path, &[u8], &[u8; 16]),
        op: CipherOp,
        input: &[u8],
    ) -> Result<Vec<u8>, CipherError> {
        let s = rig.open(mode, path, key, iv).expect("a session opens");
        let out = rig.crypt(s, op, input, &[input.len() as u32], Layout::Aligned);
        rig.service.close(CLIENT, s).expect("close");
        out
    }
    let cpu = CPU.with(|cell| {
        let mut rig = cell.borrow_mut();
        let rig = rig.get_or_insert_with(|| Rig::new(cpu_engine::CpuEngine::default()));
        run(rig, (mode, Path::Adaptive, key, &case.iv), op, &input)
    });
    let engine = OMAP.with(|cell| {
        let mut rig = cell.borrow_mut();
        let rig = rig.get_or_insert_with(omap::rig);
        run(&mut rig.0, (mode, path, key, &case.iv), op, &input)
    });
    assert_eq!(
        engine,
        cpu,
        "{mode:?}/{} bits {op:?} on {path:?}",
        key.len() * 8
    );
}

mod omap {
    //! The OMAP AES driver on the am335x model, as its own tests build it.
    use super::*;
    use board::am335x;
    use cost_ledger::Ledger;
    use engine_models::am335x::Am335xMachine;
    use engine_models::phys::PhysMap;
    use engine_models::power::{ClockController, GateBlock};
    use engine_models::soc::Port;
    use mmio::RegisterBus;
    use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
    use omap_aes_driver::OmapAesDriver;
    use pio_dma_driver::LedgerMeter;

    type Bus = Port<'static, Am335xMachine<'static>>;
    pub struct OmapRig(pub Rig<OmapAesDriver<'static, Bus, Bus, LedgerMeter<'static>>>);

    fn leak(n: usize) -> &'static mut [u8] {
        Box::leak(vec![0u8; n].into_boxed_slice())
    }

    pub fn rig() -> OmapRig {
        let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
        let gates: &'static GateBlock = Box::leak(Box::new(GateBlock::new()));
        for dev in [am335x::AES0, am335x::EDMA] {
            ClockController::new(gates, ledger)
                .write32(
                    clkctrl::clkctrl(dev.gate.expect("gated")),
                    MODULEMODE.val(MODULEMODE_ENABLE),
                )
                .expect("clocked");
        }
        let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
        let soc = Box::leak(Box::new(engine_models::am335x::am335x(mem, gates, ledger)));
        let scratch_phys = am335x::DDR.phys + 0x20_0000;
        let scratch = leak(pio_dma_driver::SCRATCH_BYTES);
        // SAFETY: leaked (lives for 'static), reached only by the model and the driver.
        unsafe { mem.add_raw(scratch_phys, scratch.as_mut_ptr(), scratch.len()) };
        let meter = LedgerMeter {
            ledger,
            costs: &am335x::COSTS,
        };
        let engine = omap_aes_driver::Engine::new(omap_aes_driver::AM335X, soc.aes(), soc.edma());
        let mut driver = OmapAesDriver::new(
            engine,
            meter,
            cipher_service::ClientData {
                region: SharedRegion::new(scratch),
                phys: Some(scratch_phys),
            },
        );
        driver.init().expect("self-test and calibration pass");
        let mut rig = Rig::new(driver);
        let client_phys = am335x::DDR.phys + 0x10_0000;
        // SAFETY: the testkit leaks the region; the model and the rig reach it in turn.
        unsafe { mem.add_raw(client_phys, rig.data_ptr(), DATA) };
        rig.phys = Some(client_phys);
        OmapRig(rig)
    }
}
