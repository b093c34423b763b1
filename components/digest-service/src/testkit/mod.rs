//! Test support shared by every Digest engine's tests (feature `testkit`, host only): an
//! in-process stand-in for a client and a driver sharing queues and a data region, the
//! published vectors, and a conformance suite each engine runs on each of its paths.

pub mod suite;
pub mod vectors;

use crate::{ClientData, DigestEngine, Service, Sessions};
use pd_idl::digest::{self, Algorithm, DigestError, DigestOp, HashPath, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion};
use std::boxed::Box;
use std::vec;
use std::vec::Vec;
use zerocopy::FromZeros;

/// The client the rig plays by default.
pub const CLIENT: Caller = Caller(4);
/// Where the rig puts a request's first segment, and the gap between segments: odd, so
/// segments are neither aligned nor contiguous.
pub const FIRST: u32 = 3;
pub const GAP: u32 = 37;

/// Memory that a device model may reach by address while the rig also uses it (as a
/// client's data region is reached by the client, the driver and DMA): owned through a
/// raw pointer, never a Rust reference held across a model's access.
pub struct Region {
    ptr: *mut u8,
    len: usize,
}

impl Region {
    pub fn new(len: usize) -> Self {
        let mem: Box<[u8]> = vec![0u8; len].into_boxed_slice();
        Region {
            ptr: Box::into_raw(mem).cast(),
            len,
        }
    }

    /// For `PhysMap::add_raw`: valid for `len()` bytes for the region's life.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes `bytes` at `offset` (between requests, as a client fills its region).
    pub fn write(&mut self, offset: usize, bytes: &[u8]) {
        assert!(offset + bytes.len() <= self.len, "write outside the region");
        #[allow(unsafe_code)]
        // SAFETY: in bounds (checked); no reference into the region is alive (`&mut self`).
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(offset), bytes.len())
        };
    }

    /// The region's bytes, as a driver reads them. Models only read a client's region.
    pub fn bytes(&self) -> &[u8] {
        #[allow(unsafe_code)]
        // SAFETY: the allocation lives as long as `self`; writers need `&mut self`.
        unsafe {
            core::slice::from_raw_parts(self.ptr, self.len)
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: `ptr`/`len` came from `Box::into_raw` of a boxed slice of `len` bytes.
        drop(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
    }
}

/// Queue memory (cache-line aligned, as the shared regions are).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

fn queue(lines: &mut [Line]) -> SharedRegion<'_> {
    #[allow(unsafe_code)]
    // SAFETY: `lines` is plain bytes we own for the region's lifetime.
    unsafe {
        SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64)
    }
}

/// Interrupt polls per request before the rig's watchdog cancels it.
const POLLS: u32 = 1 << 16;

/// A client, its queue pair and data region, and a driver serving them with engine `E`.
pub struct Rig<E: DigestEngine> {
    reqs: Vec<Line>,
    resps: Vec<Line>,
    pub data: Region,
    /// The data region's physical address, as the driver is told it.
    pub phys: Option<u64>,
    /// The engine behind the service the rig plays the driver with.
    pub service: Service<'static, E>,
    next_id: u32,
}

impl<E: DigestEngine> Rig<E> {
    pub fn new(engine: E, data: Region, phys: Option<u64>) -> Self {
        Rig {
            reqs: lines(digest::REQUEST_QUEUE_BYTES),
            resps: lines(digest::RESPONSE_QUEUE_BYTES),
            data,
            phys,
            service: Service::new(engine, Sessions::default()),
            next_id: 0,
        }
    }

    pub fn open(&mut self, algorithm: Algorithm, path: HashPath) -> Result<u32, DigestError> {
        self.open_as(CLIENT, algorithm, path)
    }

    pub fn open_as(
        &mut self,
        owner: Caller,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<u32, DigestError> {
        let Service {
            engine, sessions, ..
        } = &mut self.service;
        sessions.open(owner, algorithm, path, engine)
    }

    /// A request with the next id.
    pub fn request(&mut self, session: u32, op: DigestOp, segs: &[(u32, u32)]) -> Request {
        let id = self.next_id;
        self.next_id += 1;
        Request::over(id, session, op, segs)
    }

    /// Sends raw requests as `caller` and serves them once; returns the responses.
    pub fn exchange(&mut self, caller: Caller, requests: &[Request]) -> Vec<Response> {
        self.run(caller, requests, true)
    }

    /// Sends raw requests as `caller` and makes one serving pass, taking no interrupt
    /// (a job it starts stays in flight); returns the responses given at once.
    pub fn serve_once(&mut self, caller: Caller, requests: &[Request]) -> Vec<Response> {
        self.run(caller, requests, false)
    }

    /// Takes the engine's interrupt once: how many jobs finished, and the answers
    /// given (queued for the client, and returned with the client they went to).
    pub fn interrupt(&mut self) -> (usize, Vec<(Caller, Response)>) {
        let cap = digest::RESPONSE_QUEUE_CAPACITY;
        let mut out = Producer::<Response>::attach(queue(&mut self.resps), cap).unwrap();
        let mut given = Vec::new();
        let finished = self.service.interrupt(|to, response| {
            out.enqueue(response).expect("room was checked");
            given.push((to, response));
        });
        (finished, given)
    }

    fn run(&mut self, caller: Caller, requests: &[Request], interrupts: bool) -> Vec<Response> {
        let cap = digest::REQUEST_QUEUE_CAPACITY;
        let mut tx = Producer::<Request>::attach(queue(&mut self.reqs), cap).unwrap();
        assert_eq!(tx.enqueue_many(requests).unwrap(), requests.len());
        let mut rx = Consumer::<Request>::attach(queue(&mut self.reqs), cap).unwrap();
        let cap = digest::RESPONSE_QUEUE_CAPACITY;
        let mut out = Producer::<Response>::attach(queue(&mut self.resps), cap).unwrap();
        #[allow(unsafe_code)]
        // SAFETY: the region's allocation lives as long as the rig, which holds no
        // reference into it while the driver works (`&mut self`).
        let shared = unsafe { SharedRegion::from_raw(self.data.as_ptr(), self.data.len()) };
        let data = ClientData {
            region: shared,
            phys: self.phys,
        };
        // Interrupts are polled, bounded, as init code does: the models finish work on
        // the register access that starts it and raise the line at once.
        let mut polls = 0u32;
        loop {
            self.service.serve(caller, &mut rx, &mut out, data).unwrap();
            if !interrupts || !self.service.busy() {
                break;
            }
            polls += 1;
            // The watchdog a PD would run: an engine whose interrupt never comes.
            let answer = |to: Caller, response: Response| {
                assert_eq!(to, caller, "answers go to the requester");
                out.enqueue(response).expect("room was checked");
            };
            if polls < POLLS {
                self.service.interrupt(answer);
            } else {
                polls = 0;
                self.service.expire(answer);
            }
        }
        let mut back = Consumer::<Response>::attach(queue(&mut self.resps), cap).unwrap();
        let mut got = vec![Response::new_zeroed(); cap as usize];
        let n = back.dequeue_many(&mut got).unwrap();
        got.truncate(n);
        got
    }

    /// Puts `msg` in the data region as segments of the `split` lengths (apart, at odd
    /// offsets), sends one `op` request and checks its response; returns the digest of a
    /// final.
    pub fn send(
        &mut self,
        session: u32,
        op: DigestOp,
        msg: &[u8],
        split: &[usize],
    ) -> Result<Option<Vec<u8>>, DigestError> {
        let mut segs = Vec::new();
        let (mut at, mut from) = (FIRST as usize, 0usize);
        for &len in split {
            self.data.write(at, &msg[from..from + len]);
            segs.push((at as u32, len as u32));
            from += len;
            at += len + GAP as usize;
        }
        assert_eq!(from, msg.len(), "split covers the message");
        let req = self.request(session, op, &segs);
        let resp = self.exchange(CLIENT, &[req]);
        assert_eq!(resp.len(), 1, "one answer per request");
        assert_eq!(resp[0].id, req.id);
        resp[0]
            .status
            .check()
            .expect("a status the interface defines")?;
        assert_eq!(resp[0].bytes_done as usize, msg.len());
        Ok(match op {
            DigestOp::Update => {
                assert_eq!(resp[0].digest_len, 0, "no digest before the final");
                None
            }
            DigestOp::Final => Some(resp[0].digest[..usize::from(resp[0].digest_len)].to_vec()),
        })
    }

    /// Hashes `msg` in a fresh session: one request per entry of `requests` (each a list
    /// of segment lengths), the last one the final; closes the session.
    pub fn hash(
        &mut self,
        algorithm: Algorithm,
        path: HashPath,
        msg: &[u8],
        requests: &[&[usize]],
    ) -> Result<Vec<u8>, DigestError> {
        let s = self.open(algorithm, path)?;
        let mut from = 0;
        let mut digest = None;
        for (i, split) in requests.iter().enumerate() {
            let len: usize = split.iter().sum();
            let op = if i + 1 == requests.len() {
                DigestOp::Final
            } else {
                DigestOp::Update
            };
            digest = self.send(s, op, &msg[from..from + len], split)?;
            from += len;
        }
        assert_eq!(from, msg.len(), "requests cover the message");
        self.service.sessions.close(CLIENT, s)?;
        Ok(digest.expect("the last request is the final"))
    }

    /// Hashes `msg` as updates of `chunk` bytes (one segment each) and an empty final.
    pub fn hash_chunked(
        &mut self,
        algorithm: Algorithm,
        path: HashPath,
        msg: &[u8],
        chunk: usize,
    ) -> Result<Vec<u8>, DigestError> {
        let mut requests: Vec<Vec<usize>> = msg.chunks(chunk).map(|c| vec![c.len()]).collect();
        requests.push(Vec::new());
        let refs: Vec<&[usize]> = requests.iter().map(Vec::as_slice).collect();
        self.hash(algorithm, path, msg, &refs)
    }
}
