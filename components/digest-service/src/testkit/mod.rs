//! Test support shared by every Digest engine's tests (feature `testkit`, host only): an
//! in-process stand-in for a client and a driver sharing queues and a data region, the
//! published vectors, and a conformance suite each engine runs on each of its paths.

pub mod suite;
pub mod vectors;

use std::vec;
use std::vec::Vec;

use crate::{Digest, DigestEngine, MAX_DIGEST, digest_len};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath, OpenSessionArgs, Request};
use pd_idl::wire::Caller;
pub use queued_service::testkit::{CLIENT, Region};

/// Where the rig puts a request's first segment, and the gap between segments: odd, so
/// segments are neither aligned nor contiguous.
pub const FIRST: u32 = 3;
pub const GAP: u32 = 37;

/// A final's output place, as the rig reserves it: room for any digest and more (the
/// driver must write exactly the digest's length), at an odd offset near the region's
/// end, away from the data that grows from [`FIRST`], with [`CANARY`] bytes on both
/// sides that must survive every final.
pub const OUTPUT_LEN: u32 = MAX_DIGEST as u32 + 5;
pub const CANARY: u8 = 0xc5;
const AROUND: usize = 7;

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

    /// Where the rig's finals put their digest: (offset, length).
    pub fn output_place(&self) -> (u32, u32) {
        let at = self.data.len() - OUTPUT_LEN as usize - AROUND;
        (at as u32, OUTPUT_LEN)
    }

    /// A final over `segs` with the rig's output place after them, whose bytes and
    /// the [`CANARY`] bytes around it are set now (see [`take_digest`](Self::take_digest)).
    pub fn final_request(&mut self, session: u32, segs: &[(u32, u32)]) -> Request {
        let (at, len) = self.output_place();
        let around = at as usize - AROUND..(at + len) as usize + AROUND;
        self.data.bytes_mut()[around].fill(CANARY);
        let mut all = segs.to_vec();
        all.push((at, len));
        self.request(session, DigestOp::Final, &all)
    }

    /// The digest an answered final of the rig wrote, checking that it is `alg`'s
    /// length and that nothing around it (in its place or past it) changed.
    pub fn take_digest(&self, alg: Algorithm, digest_len_answered: u8) -> Vec<u8> {
        let n = usize::from(digest_len_answered);
        assert_eq!(n, digest_len(alg), "{alg:?}: the digest's length answered");
        let (at, len) = self.output_place();
        let (at, len) = (at as usize, len as usize);
        let bytes = self.data.bytes();
        assert!(
            bytes[at - AROUND..at].iter().all(|&b| b == CANARY),
            "nothing written before the output place"
        );
        assert!(
            bytes[at + n..at + len + AROUND]
                .iter()
                .all(|&b| b == CANARY),
            "{alg:?}: exactly the digest written, nothing past it"
        );
        bytes[at..at + n].to_vec()
    }

    /// The algorithm of `caller`'s open session `session`.
    fn algorithm_of(&mut self, caller: Caller, session: u32) -> Algorithm {
        self.service
            .sessions
            .get_mut(caller, session)
            .unwrap()
            .algorithm
    }

    /// Puts `msg` in the data region as segments of the `split` lengths (apart, at odd
    /// offsets), sends one `op` request (a final with the rig's output place) and checks
    /// its response; returns the digest of a final, read where it was written.
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
        let req = match op {
            DigestOp::Update => self.request(session, op, &segs),
            DigestOp::Final => self.final_request(session, &segs),
        };
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
            DigestOp::Final => {
                let alg = self.algorithm_of(CLIENT, session);
                Some(self.take_digest(alg, resp[0].digest_len))
            }
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
