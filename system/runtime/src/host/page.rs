//! The kernel page: the host backend's stand-in for a PD's seL4 objects (its
//! notification, its endpoint with a one-call-at-a-time reply slot, its fault endpoint).
//!
//! One page per PD, a memfd mapped shared by the PD, by every PD with a channel to it
//! (to notify or call it) and by the runner. Every field is atomic, so any bytes a
//! broken peer leaves there are still well-defined values. *Departure from seL4*: a PD
//! that maps a peer's page could forge notifications or a caller identity on it; the host
//! backend isolates memory regions, not kernel objects, and is not a security boundary.
//!
//! # Protected procedure calls
//!
//! Calls to one server are serialised by `call_lock` (holder's PD index, 0 = free), as
//! seL4 serialises callers on the server's endpoint. `call` holds `seq << 3 | state`:
//!
//! ```text
//! caller (holds lock)      server                       runner
//!   write req, CALL(s) ->  copy req, check CALL(s)
//!   wait for REPLY/DEAD    handle; write rep;
//!                          CAS CALL(s) -> REPLY(s)       server died: CAS CALL(s) -> DEAD(s)
//!   read rep, unlock                                     caller died:  CAS CALL(s) -> ORPHAN(s),
//!                          CAS failed on ORPHAN(s):                    or unlock if no call
//!                            IDLE(s), unlock
//! ```
//!
//! A dead caller's lock is released only once its call is finished, so the next caller
//! never overwrites a request the server is still copying. `state` says whether the
//! server is alive; a caller re-checks it after publishing CALL (Dekker, as in
//! [`futex`](super::futex)) so a call to a dead server fails at once.

use core::sync::atomic::{
    AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, SeqCst},
    fence,
};

use pd_idl::wire::{MSG_WORDS, ServerDied};

use super::futex::Futex;

pub const PAGE_SIZE: usize = 4096;

/// [`PdPage::state`] values.
pub const BOOTING: u32 = 0;
pub const RUNNING: u32 = 1;
pub const DEAD: u32 = 2;

const IDLE: u32 = 0;
const CALL: u32 = 1;
const REPLY: u32 = 2;
const CALLEE_DIED: u32 = 3;
const ORPHAN: u32 = 4;

fn pack(seq: u32, st: u32) -> u32 {
    seq << 3 | st
}

fn unpack(v: u32) -> (u32, u32) {
    (v >> 3, v & 7)
}

/// A message in a page: label, count, words.
#[repr(C)]
pub struct Slot {
    pub label: AtomicU64,
    pub count: AtomicU64,
    pub words: [AtomicU64; MSG_WORDS],
}

#[repr(C, align(64))]
pub struct PdPage {
    /// Counts wake-ups of this PD: notification, call, child fault, interrupt.
    pub wake: Futex,
    /// [`BOOTING`], [`RUNNING`] or [`DEAD`]; written by the runner and the PD.
    pub state: AtomicU32,
    /// Notified channels not yet delivered (bit = channel id).
    pub pending: AtomicU64,
    /// Child ids with a fault not yet delivered.
    pub faults: AtomicU64,
    /// Per child id: fault kind in the high 32 bits, detail in the low 32.
    pub fault_info: [AtomicU64; 64],
    pub call: Futex,
    pub call_lock: Futex,
    /// The server's channel id for the current caller.
    pub caller: AtomicU32,
    pub req: Slot,
    pub rep: Slot,
}

const _: () = assert!(core::mem::size_of::<PdPage>() <= PAGE_SIZE);

impl PdPage {
    /// The page at `ptr`.
    ///
    /// # Safety
    /// `ptr` must point to a readable and writable mapping of [`PAGE_SIZE`] bytes that
    /// stays mapped for `'a`. Any contents are fine: every field is an atomic integer.
    pub unsafe fn at<'a>(ptr: *mut u8) -> &'a PdPage {
        // SAFETY: per the contract; alignment holds because mappings are page-aligned.
        unsafe { &*(ptr as *const PdPage) }
    }

    /// Makes a notification pending and wakes the PD.
    pub fn notify(&self, channel: u8) {
        self.pending.fetch_or(1 << (channel & 63), SeqCst);
        self.wake.signal();
    }

    /// Marks the PD as booting, before its process is (re)started. Pending
    /// notifications and child faults stay, as a seL4 notification object and fault
    /// endpoint outlive a Microkit restart: a peer may have notified this PD before its
    /// process ran, and that must not be lost. The call slot stays too: a caller may
    /// still own it (see the module docs).
    pub fn reset(&self) {
        self.state.store(BOOTING, SeqCst);
    }

    /// Server side: the pending call, if any, as (seq, caller channel), with the request
    /// copied into `into` (label, count, words).
    pub fn take_call(&self, into: &mut [u64; MSG_WORDS]) -> Option<(u32, u8, u64, usize)> {
        // SeqCst: this is the re-check of the futex protocol (see `futex`).
        let v = self.call.word.load(SeqCst);
        let (seq, st) = unpack(v);
        if st != CALL {
            return None;
        }
        let caller = self.caller.load(Relaxed) as u8;
        let label = self.req.label.load(Relaxed);
        let count = (self.req.count.load(Relaxed) as usize).min(MSG_WORDS);
        for (dst, src) in into[..count].iter_mut().zip(&self.req.words) {
            *dst = src.load(Relaxed);
        }
        // Seqlock-style: if the word still says CALL(seq), nobody wrote the request
        // while we copied it (a new caller writes only after this call ends).
        fence(Acquire);
        (self.call.word.load(Relaxed) == v).then_some((seq, caller, label, count))
    }

    /// Server side: the reply to call `seq`.
    pub fn reply(&self, seq: u32, label: u64, words: &[u64]) {
        self.rep.label.store(label, Relaxed);
        self.rep.count.store(words.len() as u64, Relaxed);
        for (dst, src) in self.rep.words.iter().zip(words) {
            dst.store(*src, Relaxed);
        }
        let done =
            self.call
                .word
                .compare_exchange(pack(seq, CALL), pack(seq, REPLY), SeqCst, SeqCst);
        if done == Err(pack(seq, ORPHAN)) {
            // The caller died during the call: we finish its cleanup.
            self.call.word.store(pack(seq, IDLE), SeqCst);
            self.unlock_any();
        }
        self.call.wake();
    }

    /// Caller side: one call from the PD with index `me`, which the server knows as
    /// channel `caller`. `words` holds the request and receives the reply.
    pub fn call(
        &self,
        me: u32,
        caller: u8,
        spin: u32,
        label: u64,
        words: &mut [u64; MSG_WORDS],
        count: usize,
    ) -> Result<(u64, usize), ServerDied> {
        self.call_lock.wait(spin, || {
            self.call_lock
                .word
                .compare_exchange(0, me, SeqCst, SeqCst)
                .ok()
        });
        let result = self.call_locked(caller, spin, label, words, count);
        if self
            .call_lock
            .word
            .compare_exchange(me, 0, SeqCst, SeqCst)
            .is_ok()
        {
            self.call_lock.wake();
        }
        result
    }

    fn call_locked(
        &self,
        caller: u8,
        spin: u32,
        label: u64,
        words: &mut [u64; MSG_WORDS],
        count: usize,
    ) -> Result<(u64, usize), ServerDied> {
        let seq = unpack(self.call.word.load(SeqCst)).0.wrapping_add(1) & (u32::MAX >> 3);
        self.caller.store(u32::from(caller), Relaxed);
        self.req.label.store(label, Relaxed);
        self.req.count.store(count as u64, Relaxed);
        for (dst, src) in self.req.words.iter().zip(&words[..count]) {
            dst.store(*src, Relaxed);
        }
        self.call.word.store(pack(seq, CALL), SeqCst);
        if self.state.load(SeqCst) == DEAD {
            let _ =
                self.call
                    .word
                    .compare_exchange(pack(seq, CALL), pack(seq, IDLE), SeqCst, SeqCst);
            return Err(ServerDied);
        }
        self.wake.signal();
        let ok = self
            .call
            .wait(spin, || match unpack(self.call.word.load(Acquire)) {
                (s, CALL) if s == seq => None,
                (s, REPLY) if s == seq => Some(true),
                // DEAD, or a word a broken server scribbled: the call is lost.
                _ => Some(false),
            });
        if !ok {
            return Err(ServerDied);
        }
        let label = self.rep.label.load(Relaxed);
        let count = (self.rep.count.load(Relaxed) as usize).min(MSG_WORDS);
        for (dst, src) in words[..count].iter_mut().zip(&self.rep.words) {
            *dst = src.load(Relaxed);
        }
        Ok((label, count))
    }

    /// Runner side: this page's PD died. Marks it dead and fails the call in progress.
    pub fn server_died(&self) {
        self.state.store(DEAD, SeqCst);
        loop {
            let v = self.call.word.load(SeqCst);
            let (seq, st) = unpack(v);
            let next = match st {
                CALL => pack(seq, CALLEE_DIED),
                ORPHAN => pack(seq, IDLE),
                _ => break,
            };
            if self
                .call
                .word
                .compare_exchange(v, next, SeqCst, SeqCst)
                .is_ok()
            {
                if st == ORPHAN {
                    self.unlock_any();
                }
                break;
            }
        }
        self.call.wake();
    }

    /// Runner side: the PD with index `dead` died; if it held this page's call lock,
    /// release it now or, if the server is still working on its call, when it replies.
    pub fn caller_died(&self, dead: u32) {
        if self.call_lock.word.load(SeqCst) != dead {
            return;
        }
        loop {
            let v = self.call.word.load(SeqCst);
            let (seq, st) = unpack(v);
            if st != CALL {
                self.unlock_any();
                return;
            }
            let orphaned = pack(seq, ORPHAN);
            if self
                .call
                .word
                .compare_exchange(v, orphaned, SeqCst, SeqCst)
                .is_ok()
            {
                return;
            }
        }
    }

    fn unlock_any(&self) {
        self.call_lock.word.store(0, SeqCst);
        self.call_lock.wake();
    }

    /// Runner side: child `id` faulted with `kind` and `detail`; wakes its parent.
    pub fn child_faulted(&self, id: u8, kind: u64, detail: u32) {
        let id = id & 63;
        self.fault_info[usize::from(id)].store(kind << 32 | u64::from(detail), SeqCst);
        self.faults.fetch_or(1 << id, SeqCst);
        self.wake.signal();
    }
}

#[cfg(test)]
mod tests;
