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
use queued_service::testkit::{OutputPlace, feed};

/// Where the rig puts a request's first segment, and the gap between segments: odd, so
/// segments are neither aligned nor contiguous.
pub const FIRST: u32 = 3;
pub const GAP: u32 = 37;

/// A final's output place, as the rig reserves it: room for any digest and more (the
/// driver must write exactly the digest's length), near the region's end
/// (`queued-service`'s [`OutputPlace`], with its canaries).
pub const OUTPUT_LEN: u32 = MAX_DIGEST as u32 + 5;
pub const CANARY: u8 = OutputPlace::CANARY;

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
        self.place().seg()
    }

    fn place(&self) -> OutputPlace {
        OutputPlace::near_end(&self.data, OUTPUT_LEN)
    }

    /// A final over `segs` with the rig's output place after them, whose bytes and
    /// the [`CANARY`] bytes around it are set now (see [`take_digest`](Self::take_digest)).
    pub fn final_request(&mut self, session: u32, segs: &[(u32, u32)]) -> Request {
        let place = self.place();
        place.guard(&mut self.data);
        let mut all = segs.to_vec();
        all.push(place.seg());
        self.request(session, DigestOp::Final, &all)
    }

    /// The digest an answered final of the rig wrote, checking that it is `alg`'s
    /// length and that nothing around it (in its place or past it) changed.
    pub fn take_digest(&self, alg: Algorithm, digest_len_answered: u8) -> Vec<u8> {
        let n = usize::from(digest_len_answered);
        assert_eq!(n, digest_len(alg), "{alg:?}: the digest's length answered");
        self.place().take(&self.data, n)
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
        let (segs, _) = self.data.scatter(FIRST as usize, GAP as usize, msg, split);
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
        let digest = feed(msg, requests, |last, part, split| {
            let op = if last {
                DigestOp::Final
            } else {
                DigestOp::Update
            };
            self.send(s, op, part, split)
        })?;
        self.service.close(CLIENT, s)?;
        Ok(digest.flatten().expect("the last request is the final"))
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
