//! An in-process client, queues, cipher service and the STM32 CRYP driver on the
//! stm32mp1 model. Everything the model borrows is leaked: a test is short and this keeps the
//! driver's buses `'static`.
#![allow(dead_code)]

use boards::stm32mp1;
use cipher_service::{CipherEngine, ClientData, Session, Sessions, serve};
use cost_ledger::{Event, Ledger};
use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use engine_models::soc::Port;
use engine_models::stm32mp1::{Stm32mp1, Stm32mp1Machine};
use mmio::RegisterBus;
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_ENABLE};
use pd_idl::cipher::{self, CipherError, CipherOp, Mode, Path, Request, Response, Segment};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion};
use stm32_cryp_driver::{Config, IrqSource, LedgerMeter, SCRATCH_BYTES, Stm32CrypDriver};
use zerocopy::FromZeros;

pub const CLIENT: Caller = Caller(4);
pub const DATA: usize = 4096;
/// Where the client's data region and the driver's scratch sit in DDR.
pub const CLIENT_PHYS: u64 = stm32mp1::DDR.phys + 0x10_0000;
pub const SCRATCH_PHYS: u64 = stm32mp1::DDR.phys + 0x20_0000;

pub type Bus = Port<'static, Stm32mp1Machine<'static>>;
pub type Driver<A = Bus, D = Bus> = Stm32CrypDriver<'static, A, D, Irqs, LedgerMeter<'static>>;

/// Interrupt delivery from the model, as the host runtime gives it to the PD.
pub struct Irqs(pub &'static Stm32mp1<'static>);

impl IrqSource for Irqs {
    fn wait(&mut self, irq: u32) -> bool {
        self.0.irq_pending(irq)
    }
    fn ack(&mut self, irq: u32) {
        self.0.irq_ack(irq);
    }
}

/// The modelled board: ledger, gates, physical map, the SoC.
pub struct Board {
    pub ledger: &'static Ledger,
    pub gates: &'static GateBlock,
    pub mem: &'static PhysMap<'static>,
    pub soc: &'static Stm32mp1<'static>,
}

fn leak_bytes(n: usize) -> &'static mut [u8] {
    Box::leak(vec![0u8; n].into_boxed_slice())
}

impl Board {
    /// stm32mp1 with CRYP1 and its DMA clocked, and DDR windows for the scratch buffer (the
    /// client's region is added by the rig).
    pub fn new() -> Self {
        let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
        let gates: &'static GateBlock = Box::leak(Box::new(GateBlock::new()));
        for dev in [stm32mp1::CRYP1, stm32mp1::DMA] {
            ClockController::new(gates, ledger)
                .write32(
                    clkctrl::clkctrl(dev.gate.unwrap()),
                    MODULEMODE.val(MODULEMODE_ENABLE),
                )
                .unwrap();
        }
        let mem: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
        let soc = Box::leak(Box::new(engine_models::stm32mp1::stm32mp1(
            mem, gates, ledger,
        )));
        Board {
            ledger,
            gates,
            mem,
            soc,
        }
    }

    /// A driver over `cryp` (the model's port, or a wrapper around it), not yet `init`ed.
    pub fn driver_with<A: RegisterBus>(&self, cryp: A) -> Driver<A> {
        self.driver_with_buses(cryp, self.soc.dma())
    }

    /// A driver over the given engine and DMA buses, not yet `init`ed.
    pub fn driver_with_buses<A: RegisterBus, D: RegisterBus>(
        &self,
        cryp: A,
        dma: D,
    ) -> Driver<A, D> {
        let scratch = leak_bytes(SCRATCH_BYTES);
        // SAFETY: leaked, so it stays mapped for 'static; the driver touches it only
        // while EDMA is idle.
        unsafe {
            self.mem
                .add_raw(SCRATCH_PHYS, scratch.as_mut_ptr(), scratch.len())
        };
        let meter = LedgerMeter {
            ledger: self.ledger,
            costs: &stm32mp1::COSTS,
        };
        stm32_cryp_driver::new(
            Config::STM32MP1,
            cryp,
            dma,
            Irqs(self.soc),
            meter,
            ClientData {
                bytes: scratch,
                phys: Some(SCRATCH_PHYS),
            },
        )
    }

    /// A self-tested, calibrated driver.
    pub fn driver(&self) -> Driver {
        let mut d = self.driver_with(self.soc.cryp());
        d.init().expect("self-test and calibration pass");
        d
    }
}

/// Where `crypt` puts the segments of a request in the client's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Odd offsets, gaps between segments: DMA cannot take them.
    Scattered,
    /// Block-aligned offsets, gaps between segments.
    Aligned,
    /// Word-aligned offsets (4 past a block boundary), gaps between segments.
    Words,
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

fn region(lines: &mut [Line]) -> SharedRegion<'_> {
    // SAFETY: `lines` is plain bytes we own for the region's lifetime.
    unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64) }
}

pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Client, queues, service and an engine, with the client's region DMA-reachable.
pub struct Rig<E> {
    reqs: Vec<Line>,
    resps: Vec<Line>,
    data: *mut u8,
    /// The region's physical address as the driver is told it.
    pub phys: Option<u64>,
    pub sessions: Sessions,
    pub engine: E,
    next_id: u32,
    pub last_path: Option<Path>,
}

impl<E: CipherEngine> Rig<E> {
    pub fn new(board: &Board, engine: E) -> Self {
        let data = leak_bytes(DATA).as_mut_ptr();
        // SAFETY: leaked, so mapped for 'static. The model and `bytes()` both reach it,
        // never at the same time (work completes inside the driver's calls).
        unsafe { board.mem.add_raw(CLIENT_PHYS, data, DATA) };
        Rig {
            reqs: lines(cipher::REQUEST_QUEUE_BYTES),
            resps: lines(cipher::RESPONSE_QUEUE_BYTES),
            data,
            phys: Some(CLIENT_PHYS),
            sessions: Sessions::default(),
            engine,
            next_id: 0,
            last_path: None,
        }
    }

    /// The client's data region.
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: leaked allocation of DATA bytes; `&mut self` makes this the only
        // reference the test holds.
        unsafe { std::slice::from_raw_parts_mut(self.data, DATA) }
    }

    pub fn open(
        &mut self,
        mode: Mode,
        path: Path,
        key: &[u8],
        iv: &[u8],
    ) -> Result<u32, CipherError> {
        self.open_as(CLIENT, mode, path, key, iv)
    }

    pub fn open_as(
        &mut self,
        owner: Caller,
        mode: Mode,
        path: Path,
        key: &[u8],
        iv: &[u8],
    ) -> Result<u32, CipherError> {
        let mut k = [0; 32];
        k[..key.len().min(32)].copy_from_slice(&key[..key.len().min(32)]);
        let session = Session {
            owner,
            mode,
            path,
            key_len: key.len() as u8,
            key: k,
            iv: iv.try_into().unwrap(),
        };
        let engine = &self.engine;
        self.sessions.open(session, |s| engine.supports(s))
    }

    /// Sends raw requests and serves them once; returns the responses.
    pub fn exchange(&mut self, caller: Caller, requests: &[Request]) -> Vec<Response> {
        let mut tx =
            Producer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .unwrap();
        assert_eq!(tx.enqueue_many(requests).unwrap(), requests.len());
        let mut rx =
            Consumer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .unwrap();
        let mut out =
            Producer::<Response>::attach(region(&mut self.resps), cipher::RESPONSE_QUEUE_CAPACITY)
                .unwrap();
        let phys = self.phys;
        // SAFETY: as in `bytes`.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.data, DATA) };
        let mut data = ClientData { bytes, phys };
        serve(
            &mut self.engine,
            &mut self.sessions,
            caller,
            &mut rx,
            &mut out,
            &mut data,
        )
        .unwrap();
        let mut back =
            Consumer::<Response>::attach(region(&mut self.resps), cipher::RESPONSE_QUEUE_CAPACITY)
                .unwrap();
        let mut got = vec![Response::new_zeroed(); requests.len() + 1];
        let n = back.dequeue_many(&mut got).unwrap();
        got.truncate(n);
        got
    }

    /// Puts `input` in the region as segments of `split` lengths laid out by `layout`,
    /// runs one request, returns the output gathered back.
    pub fn crypt(
        &mut self,
        session: u32,
        op: CipherOp,
        input: &[u8],
        split: &[u32],
        layout: Layout,
    ) -> Result<Vec<u8>, CipherError> {
        let (start, gap) = match layout {
            Layout::Scattered => (3u32, 37u32),
            Layout::Aligned => (64, 48),
            Layout::Words => (68, 48),
        };
        let mut req = Request::new_zeroed();
        req.id = self.next_id;
        self.next_id += 1;
        req.session = session;
        req.op = op.into();
        req.nsegs = split.len() as u8;
        let (mut at, mut from) = (start, 0usize);
        for (i, &len) in split.iter().enumerate() {
            req.segs[i] = Segment { offset: at, len };
            self.bytes()[at as usize..(at + len) as usize]
                .copy_from_slice(&input[from..from + len as usize]);
            from += len as usize;
            at += (len + gap).next_multiple_of(if layout == Layout::Scattered { 1 } else { 16 });
        }
        assert_eq!(from, input.len(), "split covers the input");
        let resp = self.exchange(CLIENT, &[req]);
        assert_eq!(resp.len(), 1, "one answer per request");
        assert_eq!(resp[0].id, req.id);
        resp[0].status.check().unwrap()?;
        assert_eq!(resp[0].bytes_done as usize, input.len());
        self.last_path = resp[0].path.get().ok();
        let mut out = Vec::new();
        for s in &req.segs[..split.len()] {
            out.extend_from_slice(&self.bytes()[s.offset as usize..(s.offset + s.len) as usize]);
        }
        Ok(out)
    }
}

/// Ledger counts of what `f` did.
pub fn counted<R>(ledger: &Ledger, f: impl FnOnce() -> R) -> (R, cost_ledger::Counts) {
    let before = ledger.snapshot();
    let r = f();
    (r, ledger.snapshot().since(&before))
}

/// CPU-copied client bytes in a count.
pub fn copied(c: &cost_ledger::Counts) -> u64 {
    c.get(Event::CpuCopyByte)
}
