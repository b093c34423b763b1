//! Test support shared by every Mac engine's tests (feature `testkit`, host only):
//! `queued-service`'s in-process client and driver with Mac's calls and requests, and a
//! conformance suite ([`suite`]) over the published vectors (`kat-vectors`' RFC 2202 and
//! RFC 4231) that each engine runs.

pub mod suite;

use std::vec::Vec;

use crate::{MAX_TAG, Mac, MacEngine, Open, tag_len};
use pd_idl::mac::{MacAlgorithm, MacError, MacOp, Request};
use pd_idl::wire::Caller;
pub use queued_service::testkit::{CLIENT, Region};
use queued_service::testkit::{OutputPlace, feed};

/// Where the rig puts a session's key (odd: keys need no alignment).
pub const KEY_AT: u32 = 1;
/// Where it puts a request's first segment, past the longest key, and the gap between
/// segments: odd, so segments are neither aligned nor contiguous.
pub const FIRST: u32 = KEY_AT + crate::MAX_KEY as u32 + 2;
pub const GAP: u32 = 37;

/// A final's output place, as the rig reserves it: room for any tag and more (the
/// driver must write exactly the tag's length), near the region's end
/// (`queued-service`'s [`OutputPlace`], with its canaries).
pub const OUTPUT_LEN: u32 = MAX_TAG as u32 + 5;
pub const CANARY: u8 = OutputPlace::CANARY;

/// A client, its queue pair and data region, and a driver serving them with engine `E`
/// (`queued-service`'s rig, which it derefs to).
pub struct Rig<E: MacEngine> {
    rig: queued_service::testkit::Rig<Mac<E>>,
    next_id: u32,
}

queued_service::rig_wraps!(Rig<E: MacEngine> => Mac<E>);

impl<E: MacEngine> Rig<E> {
    pub fn new(engine: E, data: Region) -> Self {
        Rig {
            rig: queued_service::testkit::Rig::new(engine, data, None),
            next_id: 0,
        }
    }

    /// Opens a session keyed with `key`, written at [`KEY_AT`] first.
    pub fn open(&mut self, algorithm: MacAlgorithm, key: &[u8]) -> Result<u32, MacError> {
        self.data.write(KEY_AT as usize, key);
        self.open_at(CLIENT, algorithm, KEY_AT, key.len() as u32)
    }

    /// Opens a session of `owner` keyed with the `len` bytes at `offset`, through the
    /// check a PD makes before it takes power, as the call would.
    pub fn open_at(
        &mut self,
        owner: Caller,
        algorithm: MacAlgorithm,
        offset: u32,
        len: u32,
    ) -> Result<u32, MacError> {
        let args = Open::in_region(
            pd_idl::mac::OpenSessionArgs {
                algorithm,
                key_offset: offset,
                key_len: len,
            },
            Some(self.client_data()),
        );
        <Mac<E> as queued_service::Interface>::precheck(&self.service.engine, &args)?;
        self.rig.open_as(owner, args)
    }

    /// A request with the next id.
    pub fn request(&mut self, session: u32, op: MacOp, segs: &[(u32, u32)]) -> Request {
        let id = self.next_id;
        self.next_id += 1;
        Request::over(id, session, op, segs)
    }

    /// Where the rig's finals put their tag: (offset, length).
    pub fn output_place(&self) -> (u32, u32) {
        OutputPlace::near_end(&self.data, OUTPUT_LEN).seg()
    }

    /// Puts `msg` in the data region as segments of the `split` lengths (apart, at odd
    /// offsets) and, for a verify, `tag` as the last segment (for a final, the rig's
    /// output place); sends one `op` request and checks its answer's shape; returns the
    /// tag of a final, read where it was written (checking nothing around it changed).
    pub fn send(
        &mut self,
        session: u32,
        op: MacOp,
        msg: &[u8],
        split: &[usize],
        tag: &[u8],
    ) -> Result<Option<Vec<u8>>, MacError> {
        let (mut segs, at) = self.data.scatter(FIRST as usize, GAP as usize, msg, split);
        if op == MacOp::Verify {
            self.data.write(at, tag);
            segs.push((at as u32, tag.len() as u32));
        }
        let place = OutputPlace::near_end(&self.data, OUTPUT_LEN);
        place.guard(&mut self.data);
        if op == MacOp::Final {
            segs.push(place.seg());
        }
        let algorithm = self
            .service
            .sessions
            .get_mut(CLIENT, session)
            .map(|s| s.algorithm);
        let before = self.data.bytes().to_vec();
        let req = self.request(session, op, &segs);
        let resp = self.exchange(CLIENT, &[req]);
        assert_eq!(resp.len(), 1, "one answer per request");
        let r = resp[0];
        assert_eq!(r.id, req.id);
        let status = r.status.check().expect("a status the interface defines");
        if op != MacOp::Final || status.is_err() {
            // No tag leaves but a final's: not a verify's, matched or not, and nothing
            // of a refused request is written.
            assert_eq!(r.tag_len, 0, "{op:?} {status:?}");
            assert!(self.data.bytes() == &before[..], "{op:?} {status:?} wrote");
        }
        status?;
        assert_eq!(r.bytes_done as usize, msg.len());
        if op != MacOp::Final {
            return Ok(None);
        }
        let n = usize::from(r.tag_len);
        let alg = algorithm.expect("a final answered on an open session");
        assert_eq!(n, tag_len(alg), "{alg:?}: the tag's length answered");
        let out = place.at as usize;
        let bytes = self.data.bytes();
        assert!(
            bytes[..out].iter().eq(&before[..out])
                && bytes[out + n..].iter().eq(&before[out + n..]),
            "{alg:?}: exactly the tag written at its place, nothing else"
        );
        Ok(Some(bytes[out..out + n].to_vec()))
    }

    /// MACs `msg` under `key` in a fresh session: one request per entry of `requests`
    /// (each a list of segment lengths), the last the final; closes the session.
    pub fn mac(
        &mut self,
        algorithm: MacAlgorithm,
        key: &[u8],
        msg: &[u8],
        requests: &[&[usize]],
    ) -> Result<Vec<u8>, MacError> {
        let s = self.open(algorithm, key)?;
        let result = self.feed(s, msg, requests, MacOp::Final, &[]);
        self.service.close(CLIENT, s)?;
        Ok(result?.expect("a final answers its tag"))
    }

    /// As [`mac`](Self::mac), ending with a verify of `tag`.
    pub fn verify(
        &mut self,
        algorithm: MacAlgorithm,
        key: &[u8],
        msg: &[u8],
        requests: &[&[usize]],
        tag: &[u8],
    ) -> Result<(), MacError> {
        let s = self.open(algorithm, key)?;
        let result = self.feed(s, msg, requests, MacOp::Verify, tag);
        self.service.close(CLIENT, s)?;
        result.map(|_| ())
    }

    fn feed(
        &mut self,
        s: u32,
        msg: &[u8],
        requests: &[&[usize]],
        last: MacOp,
        tag: &[u8],
    ) -> Result<Option<Vec<u8>>, MacError> {
        let out = feed(msg, requests, |is_last, part, split| {
            let op = if is_last { last } else { MacOp::Update };
            self.send(s, op, part, split, tag)
        })?;
        Ok(out.flatten())
    }
}
