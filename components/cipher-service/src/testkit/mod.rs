//! Test support shared by every Cipher engine's tests (feature `testkit`, host only): an
//! in-process stand-in for a client and a driver sharing queues and a data region, and
//! helpers for building requests and reading answers. Each engine's tests add only what
//! is theirs: the board their engine sits on and the paths they exercise.

pub mod suite;

use std::boxed::Box;
use std::string::String;
use std::vec;
use std::vec::Vec;

use crate::{CipherEngine, ClientData, Service, Session, Sessions};
use pd_idl::cipher::{self, CipherError, CipherOp, Mode, Path, Request, Response, Segment};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion};
use zerocopy::FromZeros;

/// The client the rig plays by default.
pub const CLIENT: Caller = Caller(4);
/// Bytes in the client's data region.
pub const DATA: usize = 4096;
/// Interrupt polls per request before the rig's watchdog cancels it.
const POLLS: u32 = 1 << 16;

/// Where [`Rig::crypt`] puts a request's segments in the client's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Odd offsets, gaps between segments: no DMA engine can take them.
    Scattered,
    /// Block-aligned offsets, gaps between segments.
    Aligned,
    /// Word-aligned offsets (4 past a block boundary), gaps between segments.
    Words,
    /// 8-byte aligned offsets (8 past a block boundary), gaps between segments.
    Doubles,
}

impl Layout {
    /// Every layout.
    pub const ALL: [Layout; 4] = [
        Layout::Scattered,
        Layout::Aligned,
        Layout::Words,
        Layout::Doubles,
    ];
}

impl Layout {
    /// (first offset, gap between segments, alignment of each segment's start).
    fn placement(self) -> (u32, u32, u32) {
        match self {
            Layout::Scattered => (3, 37, 1),
            Layout::Aligned => (64, 48, 16),
            Layout::Words => (68, 48, 16),
            Layout::Doubles => (72, 48, 16),
        }
    }
}

/// Bytes of a hex string (whitespace ignored).
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// An encrypt request for `segs` of (offset, length).
pub fn request(id: u32, session: u32, segs: &[(u32, u32)]) -> Request {
    Request::over(id, session, CipherOp::Encrypt, segs)
}

/// A response's status, which must be one the interface defines.
pub fn status(r: &Response) -> Result<(), CipherError> {
    r.status.check().expect("a status the interface defines")
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

fn region(lines: &mut [Line]) -> SharedRegion<'_> {
    // SAFETY: `lines` is plain bytes the rig owns for the region's lifetime, reached
    // only through the queue handles made here.
    unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64) }
}

/// Client, queues, service and an engine. The data region is leaked so that a device
/// model may reach it by physical address for the rest of the test (see [`Rig::data_ptr`]).
pub struct Rig<E> {
    reqs: Vec<Line>,
    resps: Vec<Line>,
    data: *mut u8,
    /// The region's physical address as the driver is told it (`None`: no DMA).
    pub phys: Option<u64>,
    /// The engine behind the service the rig plays the driver with.
    pub service: Service<'static, E>,
    next_id: u32,
    /// The path the driver reported for the last request [`Rig::crypt`] ran.
    pub last_path: Option<Path>,
}

impl<E: CipherEngine> Rig<E> {
    /// A rig whose data region has no physical address; give it one by registering
    /// [`Rig::data_ptr`] with the board's DMA map and setting `phys`.
    pub fn new(engine: E) -> Self {
        let data = Box::leak(vec![0u8; DATA].into_boxed_slice()).as_mut_ptr();
        Rig {
            reqs: lines(cipher::REQUEST_QUEUE_BYTES),
            resps: lines(cipher::RESPONSE_QUEUE_BYTES),
            data,
            phys: None,
            service: Service::new(engine, Sessions::default()),
            next_id: 0,
            last_path: None,
        }
    }

    /// The data region's base, valid for [`DATA`] bytes for the rest of the process.
    pub fn data_ptr(&self) -> *mut u8 {
        self.data
    }

    /// The client's data region.
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: a leaked allocation of DATA bytes; `&mut self` makes this the only
        // reference the test holds, and models reach it only inside the driver's calls.
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
        let n = key.len().min(32);
        k[..n].copy_from_slice(&key[..n]);
        let session = Session {
            owner,
            mode,
            path,
            key_len: key.len() as u8,
            key: k,
            iv: iv.try_into().expect("a 16-byte IV"),
        };
        let Service {
            engine, sessions, ..
        } = &mut self.service;
        sessions.open(session, |s| engine.supports(s))
    }

    /// Sends raw requests as `caller`, serves them once, returns the responses.
    pub fn exchange(&mut self, caller: Caller, requests: &[Request]) -> Vec<Response> {
        let mut tx =
            Producer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .expect("layout");
        assert_eq!(tx.enqueue_many(requests).expect("queue"), requests.len());
        let mut rx =
            Consumer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .expect("layout");
        let mut out =
            Producer::<Response>::attach(region(&mut self.resps), cipher::RESPONSE_QUEUE_CAPACITY)
                .expect("layout");
        // SAFETY: a leaked allocation of DATA bytes, for the rest of the process; the
        // rig makes no reference to it while the driver works.
        let shared = unsafe { SharedRegion::from_raw(self.data, DATA) };
        let data = ClientData {
            region: shared,
            phys: self.phys,
        };
        // Interrupts are polled, bounded, as init code does: the models finish work on
        // the register access that starts it and raise the line at once.
        let mut polls = 0;
        loop {
            self.service
                .serve(caller, &mut rx, &mut out, data)
                .expect("the rig's queues are sound");
            if !self.service.busy() {
                break;
            }
            polls += 1;
            let answer = |to, response| {
                assert_eq!(to, caller, "answers go to the requester");
                out.enqueue(response).expect("room was checked");
            };
            // The watchdog a PD would run: an engine whose interrupt never comes.
            if polls < POLLS {
                self.service.interrupt(answer);
            } else {
                polls = 0;
                self.service.expire(answer);
            }
        }
        let mut back =
            Consumer::<Response>::attach(region(&mut self.resps), cipher::RESPONSE_QUEUE_CAPACITY)
                .expect("layout");
        let mut got = vec![Response::new_zeroed(); requests.len() + 1];
        let n = back.dequeue_many(&mut got).expect("queue");
        got.truncate(n);
        got
    }

    /// Puts `input` in the region as segments of `split` lengths placed by `layout` (never
    /// contiguous), runs one request, checks it was answered once and whole, and returns
    /// the output gathered back.
    pub fn crypt(
        &mut self,
        session: u32,
        op: CipherOp,
        input: &[u8],
        split: &[u32],
        layout: Layout,
    ) -> Result<Vec<u8>, CipherError> {
        let (start, gap, align) = layout.placement();
        let mut req = request(self.next_id, session, &[]);
        self.next_id += 1;
        req.op = op.into();
        req.nsegs = split.len() as u8;
        let (mut at, mut from) = (start, 0usize);
        for (i, &len) in split.iter().enumerate() {
            req.segs[i] = Segment { offset: at, len };
            self.bytes()[at as usize..(at + len) as usize]
                .copy_from_slice(&input[from..from + len as usize]);
            from += len as usize;
            at = (at + len + gap).next_multiple_of(align) + (start % align);
        }
        assert_eq!(from, input.len(), "split covers the input");
        let resp = self.exchange(CLIENT, &[req]);
        assert_eq!(resp.len(), 1, "one answer per request");
        assert_eq!(resp[0].id, req.id);
        status(&resp[0])?;
        assert_eq!(resp[0].bytes_done as usize, input.len());
        self.last_path = resp[0].path.get().ok();
        let mut out = Vec::new();
        for s in &req.segs[..split.len()] {
            out.extend_from_slice(&self.bytes()[s.offset as usize..(s.offset + s.len) as usize]);
        }
        Ok(out)
    }
}
