//! Test support shared by every Cipher engine's tests (feature `testkit`, host only):
//! `queued-service`'s rig (a client and a driver sharing queues and a data region) with
//! Cipher's calls and requests. Each engine's tests add only what is theirs: the board
//! their engine sits on and the paths they exercise.

pub mod suite;

use std::string::String;
use std::vec::Vec;

use crate::{Cipher, CipherEngine};
use pd_idl::cipher::{
    CipherError, CipherOp, Mode, OpenSessionArgs, Path, Request, Response, Segment,
};
use pd_idl::wire::Caller;
pub use queued_service::testkit::{CLIENT, Region};

/// Bytes in the client's data region.
pub const DATA: usize = 4096;
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

/// Client, queues, service and an engine (`queued-service`'s rig, which it derefs to).
/// The data region has no physical address; give it one by registering
/// [`Rig::data_ptr`] with the board's DMA map and setting `phys`.
pub struct Rig<E: CipherEngine> {
    rig: queued_service::testkit::Rig<Cipher<E>>,
    next_id: u32,
    /// The path the driver reported for the last request [`Rig::crypt`] ran.
    pub last_path: Option<Path>,
}

queued_service::rig_wraps!(Rig<E: CipherEngine> => Cipher<E>);

impl<E: CipherEngine> Rig<E> {
    pub fn new(engine: E) -> Self {
        Rig {
            rig: queued_service::testkit::Rig::new(engine, Region::new(DATA), None),
            next_id: 0,
            last_path: None,
        }
    }

    /// The data region's base, valid for [`DATA`] bytes for the rest of the process.
    pub fn data_ptr(&self) -> *mut u8 {
        self.rig.data.as_ptr()
    }

    /// The client's data region.
    pub fn bytes(&mut self) -> &mut [u8] {
        self.rig.data.bytes_mut()
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
        self.rig
            .open_as(owner, open_args(mode, path, key, iv).into())
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

/// `open_session`'s arguments for `key` (at most 32 bytes; its length is the key size
/// asked for) and a 16-byte `iv`.
pub fn open_args(mode: Mode, path: Path, key: &[u8], iv: &[u8]) -> OpenSessionArgs {
    let mut k = [0; 32];
    let n = key.len().min(32);
    k[..n].copy_from_slice(&key[..n]);
    OpenSessionArgs {
        mode,
        path,
        key_len: key.len() as u8,
        key: k,
        iv: iv.try_into().expect("a 16-byte IV"),
    }
}
