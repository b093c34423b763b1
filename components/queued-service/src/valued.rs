//! What the interfaces whose jobs run on a session's engine context and whose final
//! hands back a value written into the client's region (Digest's digest, Mac's tag)
//! share: the value, what a job in flight holds of its session, the write of the value
//! at its output place, and the parts of the answer.

use pd_idl::common::Segment;
use pd_trace::Kind;

use crate::{ClientData, Step};

/// A finished value of at most `N` bytes (a digest, a tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value<const N: usize> {
    bytes: [u8; N],
    len: u8,
}

impl<const N: usize> Value<N> {
    /// `bytes` must be at most `N` long (longer is cut: no algorithm has one). Inlined,
    /// so that an engine's fixed-size value is copied in fixed-size moves, not through
    /// memcpy.
    #[inline]
    pub fn new(bytes: &[u8]) -> Self {
        let n = bytes.len().min(N);
        let mut v = Value {
            bytes: [0; N],
            len: n as u8,
        };
        v.bytes[..n].copy_from_slice(&bytes[..n]);
        v
    }

    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// What a job holds beside its engine's job: the session it is of, where a final's
/// value goes (its last request's output place, checked), and, while it is in flight,
/// its own copy of the session's engine context `C` (so it can finish if its session
/// closes meanwhile).
pub struct Held<C> {
    pub session: u32,
    pub output: Option<Segment>,
    pub ctx: Option<C>,
}

impl<C: Clone> Held<C> {
    pub const EMPTY: Held<C> = Held {
        session: 0,
        output: None,
        ctx: None,
    };

    /// The engine was started on the session's context `ctx`: a job left pending keeps
    /// a copy of it for its interrupts.
    #[inline]
    pub fn started<T, E>(&mut self, step: Step<T, E>, ctx: &C) -> Step<T, E> {
        if matches!(step, Step::Pending) {
            self.ctx = Some(ctx.clone());
        }
        step
    }

    /// An interrupt for the job: `f` advances it on its copy of the context; a job never
    /// left pending has none and is `fault`.
    #[inline]
    pub fn interrupt<T, E>(
        &mut self,
        fault: E,
        f: impl FnOnce(&mut C) -> Step<T, E>,
    ) -> Step<T, E> {
        match &mut self.ctx {
            Some(ctx) => f(ctx),
            None => Step::Done(Err(fault)),
        }
    }

    /// Writes a final's value at its output place in `data`. Called from the
    /// interface's `finish`, for every engine, so none can forget it, and before the
    /// answer is built (both ways a job ends pass there first): the client reads the
    /// value when it sees the answer. Also for a session closed meanwhile: the final
    /// was accepted.
    #[inline]
    pub fn write_output<const N: usize, E>(
        &self,
        data: &ClientData<'_>,
        result: &Result<Option<Value<N>>, E>,
    ) {
        if let (Ok(Some(v)), Some(out)) = (result, self.output) {
            // Checked inside the region, and at least this long: cannot fail.
            let inside = data.region.write_bytes(out.offset as usize, v.as_bytes());
            debug_assert!(inside);
        }
    }
}

/// An answer's parts for a job that ended with `result`, over `bytes`: its status, the
/// bytes done, and the length of the value written (the last request's alone: requests
/// joined ahead of it have none of their own).
#[inline]
pub fn answer_parts<const N: usize, E: Copy>(
    bytes: u32,
    result: &Result<Option<Value<N>>, E>,
    last: bool,
) -> (Result<(), E>, u32, u8) {
    match result {
        Ok(v) => {
            let len = v.filter(|_| last).map_or(0, |v| v.len);
            (Ok(()), bytes, len)
        }
        Err(e) => (Err(*e), 0, 0),
    }
}

/// How an answer goes in the trace: `done` if its status is `Ok`, else refused with
/// its error `code`.
#[inline]
pub fn outcome(done: Kind, ok: bool, code: u16) -> (Kind, u32) {
    match ok {
        true => (done, 0),
        false => (Kind::Refused, u32::from(code)),
    }
}
