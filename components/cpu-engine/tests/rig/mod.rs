//! An in-process stand-in for a client and a driver sharing queues and a data region.

#![allow(dead_code)]

use cipher_service::{ClientData, Session, Sessions, serve};
use cpu_engine::CpuEngine;
use pd_idl::cipher::{self, CipherError, CipherOp, Mode, Path, Request, Response, Segment};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion};
use zerocopy::FromZeros;

pub const CLIENT: Caller = Caller(4);
pub const DATA: usize = 4096;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

pub struct Rig {
    reqs: Vec<Line>,
    resps: Vec<Line>,
    pub data: Vec<u8>,
    pub sessions: Sessions,
    pub engine: CpuEngine,
    next_id: u32,
    pub last_path: Option<Path>,
}

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

fn region(lines: &mut [Line]) -> SharedRegion<'_> {
    // SAFETY: `lines` is plain bytes we own for the region's lifetime.
    unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64) }
}

impl Rig {
    pub fn new() -> Self {
        Rig {
            reqs: lines(cipher::REQUEST_QUEUE_BYTES),
            resps: lines(cipher::RESPONSE_QUEUE_BYTES),
            data: vec![0; DATA],
            sessions: Sessions::default(),
            engine: CpuEngine::default(),
            next_id: 0,
            last_path: None,
        }
    }

    pub fn open(&mut self, mode: Mode, key: &[u8], iv: &[u8]) -> Result<u32, CipherError> {
        self.open_as(CLIENT, mode, Path::Adaptive, key, iv)
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
        self.sessions.open(session, |s| {
            cipher_service::CipherEngine::supports(engine, s)
        })
    }

    pub fn cipher_bytes(&self) -> u64 {
        self.engine.bytes
    }

    /// Sends raw requests and serves them once; returns the responses.
    pub fn exchange(&mut self, caller: Caller, requests: &[Request]) -> Vec<Response> {
        let mut tx =
            Producer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .unwrap();
        let sent = tx.enqueue_many(requests).unwrap();
        assert_eq!(sent, requests.len());
        let mut rx =
            Consumer::<Request>::attach(region(&mut self.reqs), cipher::REQUEST_QUEUE_CAPACITY)
                .unwrap();
        let mut out =
            Producer::<Response>::attach(region(&mut self.resps), cipher::RESPONSE_QUEUE_CAPACITY)
                .unwrap();
        let mut data = ClientData {
            bytes: &mut self.data,
            phys: None,
        };
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

    /// Puts `input` in the data region as segments of `split` lengths (spread apart, so
    /// they are not contiguous), runs one request, returns the output gathered back.
    pub fn crypt(
        &mut self,
        session: u32,
        op: CipherOp,
        input: &[u8],
        split: &[u32],
    ) -> Result<Vec<u8>, CipherError> {
        let mut req = Request::new_zeroed();
        req.id = self.next_id;
        self.next_id += 1;
        req.session = session;
        req.op = op.into();
        req.nsegs = split.len() as u8;
        let (mut at, mut from) = (3u32, 0usize);
        for (i, &len) in split.iter().enumerate() {
            req.segs[i] = Segment { offset: at, len };
            self.data[at as usize..(at + len) as usize]
                .copy_from_slice(&input[from..from + len as usize]);
            from += len as usize;
            at += len + 37;
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
            out.extend_from_slice(&self.data[s.offset as usize..(s.offset + s.len) as usize]);
        }
        Ok(out)
    }
}
