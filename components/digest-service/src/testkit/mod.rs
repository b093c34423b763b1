//! Test support shared by every Digest engine's tests (feature `testkit`, host only): an
//! in-process stand-in for a client and a driver sharing queues and a data region, the
//! published vectors, and a conformance suite each engine runs on each of its paths.

pub mod suite;
pub mod vectors;

use std::vec;
use std::vec::Vec;

use crate::{Digest, DigestEngine};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath, OpenSessionArgs, Request};
use pd_idl::wire::Caller;
pub use queued_service::testkit::{CLIENT, Region};

/// Where the rig puts a request's first segment, and the gap between segments: odd, so
/// segments are neither aligned nor contiguous.
pub const FIRST: u32 = 3;
pub const GAP: u32 = 37;

/// A client, its queue pair and data region, and a driver serving them with engine `E`
/// (`queued-service`'s rig, which it derefs to).
pub struct Rig<E: DigestEngine> {
    rig: queued_service::testkit::Rig<Digest<E>>,
    next_id: u32,
}

queued_service::rig_wraps!(Rig<E: DigestEngine> => Digest<E>);

impl<E: DigestEngine> Rig<E> {
    pub fn new(engine: E, data: Region, phys: Option<u64>) -> Self {
        Rig {
            rig: queued_service::testkit::Rig::new(engine, data, phys),
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
        self.rig.open_as(owner, OpenSessionArgs { algorithm, path })
    }

    /// A request with the next id.
    pub fn request(&mut self, session: u32, op: DigestOp, segs: &[(u32, u32)]) -> Request {
        let id = self.next_id;
        self.next_id += 1;
        Request::over(id, session, op, segs)
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
        self.service.close(CLIENT, s)?;
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
