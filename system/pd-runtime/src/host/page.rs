//! The kernel objects of the host backend: what seL4 keeps in the kernel (a PD's
//! notification and fault endpoint, the endpoint a channel's calls go through) kept in
//! shared pages, laid out so that no PD can write what another PD reads as the kernel's
//! word.
//!
//! * A [`PdPage`] per PD: its state, the events the runner and its own threads raise
//!   (child faults, interrupts), and what it has already taken. Written by the PD and
//!   the runner; peers map it **read-only** (they read whether it is alive or asleep).
//! * An [`EndPage`] per channel end: what that end sends: its notifications, its calls
//!   and its replies. Written by the end's PD and the runner; the other end maps it
//!   **read-only**. So a PD can forge nothing: a notification or call it makes arrives
//!   on the channel it was made on, the one whose page it can write, and the receiver
//!   knows that channel by its own id (the caller identity seL4's badge gives). A PD has
//!   no page for a channel it does not have, and a receiver ignores calls and
//!   notifications its peer's end has no right to make (`pp`, `notify`).
//!
//! Read-only maps come from read-only descriptors and the writable ones are closed
//! (see `map`), so a PD cannot `mprotect` its way to writing a peer's page.
//!
//! # Waking
//!
//! A PD sleeps on several words at once (`futex_waitv`): its own page's [`PdPage::wake`]
//! and the [`EndPage::bell`] of each channel's other end. A sender changes its data,
//! then bumps its bell, then calls `FUTEX_WAKE` only if the receiver's
//! [`PdPage::sleepers`] says it sleeps (a Dekker handshake, see [`wait`]), so a message
//! to a spinning PD costs no system call.
//!
//! # Protected procedure calls
//!
//! Each caller has its own request slot (its end's page), so callers need no lock and a
//! server takes them one at a time, round-robin ([`next_call`]). `call` and `reply` hold
//! `seq << 3 | state`:
//!
//! ```text
//! caller (its EndPage)                server (its EndPage)               runner
//!   call := WRITING(s); write req;      see CALL(s), reply != s:
//!   call := CALL(s); ring               copy req; re-check call (seqlock)
//!   wait until reply is REPLY(s)        handle; write rep;                 server died:
//!     or DIED(s)                        reply := REPLY(s); wake caller       reply := DIED(s)
//! ```
//!
//! A caller that dies mid-call needs nothing: its next incarnation's first call starts
//! with WRITING(s + 1), which the server's re-check sees if it was copying the old one.
//! A caller re-checks the server's state after publishing CALL (Dekker against the
//! runner, which marks the server dead before failing its calls), so a call to a dead
//! server fails at once.

use core::sync::atomic::{
    AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, SeqCst},
    fence,
};

use pd_idl::wire::{MSG_WORDS, ServerDied};
use rustix::thread::futex;

pub const PAGE_SIZE: usize = 4096;

/// [`PdPage::state`] values.
pub const BOOTING: u32 = 0;
pub const RUNNING: u32 = 1;
pub const DEAD: u32 = 2;

const IDLE: u32 = 0;
const CALL: u32 = 1;
const REPLY: u32 = 2;
const DIED: u32 = 3;
const WRITING: u32 = 4;
/// A reply whose words the server clears once the caller has read them (a key store's
/// key): the caller then marks its call `IDLE` and rings the server.
const REPLY_SECRET: u32 = 5;

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

/// A PD's own page (see the module docs).
#[repr(C, align(64))]
pub struct PdPage {
    /// Bumped for an event raised by the runner or this PD's own threads.
    pub wake: AtomicU32,
    /// Nonzero while the PD's thread sleeps: wakers skip `FUTEX_WAKE` otherwise.
    pub sleepers: AtomicU32,
    /// [`BOOTING`], [`RUNNING`] or [`DEAD`]; written by the runner and the PD.
    pub state: AtomicU32,
    /// Starts of the PD (1 at its first): bumped by the runner at each [`reset`](Self::reset).
    pub starts: AtomicU32,
    /// Child ids with a fault not yet delivered (written by the runner).
    pub faults: AtomicU64,
    /// Interrupt channels raised and not yet delivered (written by the PD's models).
    pub irqs: AtomicU64,
    /// Per child id: fault kind in the high 32 bits, detail in the low 32.
    pub fault_info: [AtomicU64; 64],
    /// Per channel id: the peer's [`EndPage::notes`] already delivered. Kept here, not
    /// in the process, so a notification sent while the PD restarts is not lost.
    pub seen: [AtomicU32; 64],
}

/// What one channel end sends (see the module docs).
#[repr(C, align(64))]
pub struct EndPage {
    /// Bumped on every notification and call: the word the other end sleeps on.
    pub bell: AtomicU32,
    /// Notifications sent.
    pub notes: AtomicU32,
    /// This end's call: `seq << 3 | state`.
    pub call: AtomicU32,
    /// This end's reply to the other end's call `seq`: `seq << 3 | state`.
    pub reply: AtomicU32,
    pub req: Slot,
    pub rep: Slot,
}

const _: () = assert!(core::mem::size_of::<PdPage>() <= PAGE_SIZE);
const _: () = assert!(core::mem::size_of::<EndPage>() <= PAGE_SIZE);

/// A page of shared memory seen as `T`.
///
/// # Safety
/// `ptr` must point to a readable mapping of [`PAGE_SIZE`] bytes that stays mapped for
/// `'a`, page-aligned. Any contents are fine: every field is an atomic integer. Through
/// a read-only mapping, only loads may be made (a store is a SIGSEGV, never undefined
/// behaviour of this process's memory model: the fault ends the PD).
pub unsafe fn page_at<'a, T: SharedPage>(ptr: *mut u8) -> &'a T {
    // SAFETY: per the contract.
    unsafe { &*(ptr as *const T) }
}

/// Types that live in one shared page and are made only of atomics.
pub trait SharedPage {}
impl SharedPage for PdPage {}
impl SharedPage for EndPage {}

/// After changing `word` (SeqCst): wakes `pd` if it sleeps (on `word` among others).
fn wake(word: &AtomicU32, pd: &PdPage) {
    if pd.sleepers.load(SeqCst) != 0 {
        // FUTEX_WAKE takes an int count: i32::MAX means all.
        let _ = futex::wake(word, futex::Flags::empty(), i32::MAX as u32);
    }
}

/// Spins between yields of the CPU (see [`wait`]).
///
/// A PD that spins while more PDs are runnable than there are CPUs takes the CPU a
/// peer with work needs: two speed clients and a driver on 2 cores did 0.64 M requests
/// a second at 16 B with pure spinning (shares 61/39), 0.91 M never spinning, and
/// 1.28 M spinning with a `sched_yield` every 64 spins (shares within 3 points of even);
/// one client alone loses nothing measurable (~270 ns a request at depth 32 either
/// way), and a notification round trip 0.19 -> 0.22 us. 256 gave no better latency and
/// worse shares.
const YIELD_EVERY: u32 = 64;

/// Waits, as the PD whose page is `me`, until `ready` returns `Some`: spins `spin`
/// times (yielding the CPU every [`YIELD_EVERY`]), then sleeps on `words` until one of
/// them changes. `ready` must only turn
/// `Some` after a change its waker follows with a change of one of `words` (SeqCst)
/// and [`wake`]: either this re-check comes after the change, or the waker's load of
/// `sleepers` comes after our increment and it wakes us; a change between our loads
/// and the sleep makes the kernel refuse to sleep.
pub fn wait<T>(
    me: &PdPage,
    spin: u32,
    words: &[&AtomicU32],
    mut ready: impl FnMut() -> Option<T>,
) -> T {
    // Filled only when the spin ends without news: a wait answered while spinning
    // (the common case under load) allocates nothing.
    let mut waiters = std::vec::Vec::new();
    loop {
        for i in 0..spin {
            if let Some(v) = ready() {
                return v;
            }
            if i % YIELD_EVERY == YIELD_EVERY - 1 {
                std::thread::yield_now();
            } else {
                core::hint::spin_loop();
            }
        }
        waiters.clear();
        for w in words {
            let mut v = futex::Wait::new();
            v.val = u64::from(w.load(SeqCst));
            v.uaddr = futex::WaitPtr::new(w.as_ptr().cast());
            v.flags = futex::WaitFlags::SIZE_U32;
            waiters.push(v);
        }
        me.sleepers.fetch_add(1, SeqCst);
        let got = ready();
        if got.is_none() {
            // EAGAIN (a word moved), EINTR: look again.
            let _ = futex::waitv(
                &waiters,
                futex::WaitvFlags::empty(),
                None,
                rustix::time::ClockId::Monotonic,
            );
        }
        me.sleepers.fetch_sub(1, SeqCst);
        if let Some(v) = got {
            return v;
        }
    }
}

impl PdPage {
    /// Wakes this PD for an event recorded in its page (by the runner or its threads).
    pub fn raise(&self) {
        self.wake.fetch_add(1, SeqCst);
        wake(&self.wake, self);
    }

    /// Marks the PD as booting, before its process is (re)started. Undelivered
    /// notifications, interrupts and child faults stay, as a seL4 notification object
    /// and fault endpoint outlive a Microkit restart.
    pub fn reset(&self) {
        self.sleepers.store(0, SeqCst);
        self.starts.fetch_add(1, SeqCst);
        self.state.store(BOOTING, SeqCst);
    }

    /// Runner side: child `id` faulted with `kind` and `detail`; wakes its parent.
    pub fn child_faulted(&self, id: u8, kind: u64, detail: u32) {
        let id = id & 63;
        self.fault_info[usize::from(id)].store(kind << 32 | u64::from(detail), SeqCst);
        self.faults.fetch_or(1 << id, SeqCst);
        self.raise();
    }

    /// This PD's own thread: interrupt channel `ch` is pending.
    pub fn raise_irq(&self, ch: u8) {
        self.irqs.fetch_or(1 << (ch & 63), SeqCst);
        self.raise();
    }

    /// Notifications on channel `ch` whose sending end is `from`: whether any arrived
    /// since the last look (and takes them).
    pub fn take_notes(&self, ch: u8, from: &EndPage) -> bool {
        let sent = from.notes.load(SeqCst);
        let seen = &self.seen[usize::from(ch & 63)];
        sent != seen.load(Relaxed) && {
            seen.store(sent, Relaxed);
            true
        }
    }
}

impl EndPage {
    /// Wakes the other end (`peer`) after a change to this page.
    fn ring(&self, peer: &PdPage) {
        self.bell.fetch_add(1, SeqCst);
        wake(&self.bell, peer);
    }

    /// One notification to the other end, whose page is `peer`.
    pub fn notify(&self, peer: &PdPage) {
        self.notes.fetch_add(1, SeqCst);
        self.ring(peer);
    }
}

/// One channel as one of its ends sees it: the page it writes, the page the other end
/// writes, and the other end's PD page.
#[derive(Clone, Copy)]
pub struct Link<'a> {
    pub out: &'a EndPage,
    pub inp: &'a EndPage,
    pub peer: &'a PdPage,
}

impl Link<'_> {
    /// Caller side: one call, as the PD whose page is `me`. `words` holds the request
    /// and receives the reply.
    pub fn call(
        &self,
        me: &PdPage,
        spin: u32,
        label: u64,
        words: &mut [u64; MSG_WORDS],
        count: usize,
    ) -> Result<(u64, usize), ServerDied> {
        let out = self.out;
        let seq = unpack(out.call.load(SeqCst)).0.wrapping_add(1) & (u32::MAX >> 3);
        out.call.store(pack(seq, WRITING), SeqCst);
        out.req.label.store(label, Relaxed);
        out.req.count.store(count as u64, Relaxed);
        for (dst, src) in out.req.words.iter().zip(&words[..count]) {
            dst.store(*src, Relaxed);
        }
        out.call.store(pack(seq, CALL), SeqCst);
        if self.peer.state.load(SeqCst) == DEAD {
            let _ = out
                .call
                .compare_exchange(pack(seq, CALL), pack(seq, IDLE), SeqCst, SeqCst);
            return Err(ServerDied);
        }
        out.ring(self.peer);
        let reply = &self.inp.reply;
        let ok = wait(me, spin, &[reply], || match reply.load(Acquire) {
            v if v == pack(seq, REPLY) || v == pack(seq, REPLY_SECRET) => Some(true),
            v if v == pack(seq, DIED) => Some(false),
            _ => None,
        });
        if !ok {
            return Err(ServerDied);
        }
        // Answered: the server has copied the request. Its words stay in this page,
        // which the server maps, until cleared; on seL4 the kernel copies a call into
        // the server's IPC buffer and nothing of the caller's stays in its reach. A
        // call may carry a key (an import into a key store): clear them.
        for w in &out.req.words[..count] {
            w.store(0, Relaxed);
        }
        let rep = &self.inp.rep;
        let label = rep.label.load(Relaxed);
        let count = (rep.count.load(Relaxed) as usize).min(MSG_WORDS);
        for (dst, src) in words[..count].iter_mut().zip(&rep.words) {
            *dst = src.load(Relaxed);
        }
        if reply.load(SeqCst) == pack(seq, REPLY_SECRET) {
            // Read: the server may clear it now (see `clear_reply`).
            out.call.store(pack(seq, IDLE), SeqCst);
            out.ring(self.peer);
        }
        Ok((label, count))
    }

    /// Server side: the other end's pending call, if any, as (seq, label, count), with
    /// the request copied into `into`.
    pub fn take_call(&self, into: &mut [u64; MSG_WORDS]) -> Option<(u32, u64, usize)> {
        let v = self.inp.call.load(SeqCst);
        let (seq, st) = unpack(v);
        if st != CALL || answered(self.out.reply.load(Relaxed), seq) {
            return None;
        }
        let req = &self.inp.req;
        let label = req.label.load(Relaxed);
        let count = (req.count.load(Relaxed) as usize).min(MSG_WORDS);
        for (dst, src) in into[..count].iter_mut().zip(&req.words) {
            *dst = src.load(Relaxed);
        }
        // Seqlock: if the word still says CALL(seq), the caller wrote nothing while we
        // copied (it marks WRITING before it touches the request).
        fence(Acquire);
        (self.inp.call.load(Relaxed) == v).then_some((seq, label, count))
    }

    /// Server side: the reply to call `seq`; `secret`: its words are to be cleared
    /// once the caller has read them ([`clear_reply`](Self::clear_reply)).
    pub fn reply(&self, seq: u32, label: u64, words: &[u64], secret: bool) {
        let out = self.out;
        out.rep.label.store(label, Relaxed);
        out.rep.count.store(words.len() as u64, Relaxed);
        for (dst, src) in out.rep.words.iter().zip(words) {
            dst.store(*src, Relaxed);
        }
        let state = if secret { REPLY_SECRET } else { REPLY };
        out.reply.store(pack(seq, state), SeqCst);
        wake(&out.reply, self.peer);
    }

    /// Server side: clears the secret reply to call `seq` if its caller has said it
    /// read it (its call word `IDLE(seq)`) or died: whether it is gone. A caller that
    /// called again has read it too, but then the server is about to reply in the same
    /// words: it clears them when it takes that call ([`clear_words`](Self::clear_words)),
    /// never after (that would zero the new reply under its reader). On seL4 the
    /// kernel copies a reply out of the server's IPC buffer, which the server then
    /// overwrites itself; here the words wait in this end's page, which the caller
    /// maps, until it has them.
    pub fn clear_reply(&self, seq: u32) -> bool {
        let read = self.inp.call.load(SeqCst) == pack(seq, IDLE);
        if !read && self.peer.state.load(SeqCst) != DEAD {
            return false;
        }
        self.clear_words();
        true
    }

    /// Server side: zeroes this end's reply words (the caller has read them).
    pub fn clear_words(&self) {
        for w in &self.out.rep.words {
            w.store(0, Relaxed);
        }
    }

    /// Runner side: the PD at this end died; fail the call of the other end it had not
    /// answered, if any. Call after marking the PD [`DEAD`].
    pub fn fail_pending_call(&self) {
        let (seq, st) = unpack(self.inp.call.load(SeqCst));
        if st == CALL && !answered(self.out.reply.load(SeqCst), seq) {
            self.out.reply.store(pack(seq, DIED), SeqCst);
            wake(&self.out.reply, self.peer);
        }
    }
}

/// Server side: the first pending call of `n` channels, looked for round-robin from
/// channel `first` (`take(i)`: channel i's call, if pending); with its channel. Taking
/// the lowest channel first would let a caller that publishes its next call as soon as
/// the last is copied be served for ever, and the server's other callers never (seL4
/// queues an endpoint's callers in order); the caller passes the channel after the one
/// it served last.
pub fn next_call<T>(
    n: usize,
    first: usize,
    mut take: impl FnMut(usize) -> Option<T>,
) -> Option<(usize, T)> {
    // No division: this runs on every spin of a waiting PD.
    let first = if first < n { first } else { 0 };
    (first..n)
        .chain(0..first)
        .find_map(|i| take(i).map(|c| (i, c)))
}

/// Whether reply word `reply` answers call `seq` (replied, or failed by the runner).
fn answered(reply: u32, seq: u32) -> bool {
    reply == pack(seq, REPLY) || reply == pack(seq, REPLY_SECRET) || reply == pack(seq, DIED)
}

#[cfg(test)]
mod tests;
