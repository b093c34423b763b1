//! A fixed-size table of sessions, each owned by the client (caller) that opened it.
//!
//! A session id is `generation << SLOT_BITS | slot`, the slot taking as few bits as `N`
//! needs. A generation is the table's incarnation (a restarted server's count, in the
//! bits the slot and the count leave, at least [`INCARNATION_BITS`]) above a count of the
//! slot's closes (its low [`CLOSE_BITS`]): closing a session bumps the count, so a stale
//! id is refused instead of silently naming a later session in the same slot (until that
//! slot has been closed 65536 times), and a restarted server's ids never name a session
//! of any of its last 4095 predecessors (more for a table of fewer than 16 slots),
//! however often they closed theirs. Lookups check the owner, so a client can never use
//! (or learn by probing whether it names a live session) another client's session: both
//! answer [`Unknown`].
//!
//! The slot index is handed to the session's constructor at open time, so an engine can
//! keep per-session hardware state (a saved context, a buffered block) in a fixed array of
//! its own DMA memory indexed the same way.
//!
//! A quota ([`Table::set_quota`]) bounds how many sessions one owner may hold, so one
//! client cannot take every slot and lock the others out.
//!
//! Generic over the session value so the Cipher and Digest services share it. `no_std`,
//! no heap.
#![no_std]
#![forbid(unsafe_code)]

use pd_idl::wire::Caller;

/// No live session of this caller has this id (services map it to their interface's
/// `UnknownSession`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unknown;

/// Bits of a generation that count a slot's closes within one incarnation.
pub const CLOSE_BITS: u32 = u16::BITS;
/// Bits of a generation that hold the incarnation, at the least (a table of fewer slots
/// keeps more).
pub const INCARNATION_BITS: u32 = 12;

/// Up to `N` sessions of type `S` (`N` at most 16: the id holds the slot, a close count
/// and the incarnation).
#[derive(Debug)]
pub struct Table<S, const N: usize> {
    slots: [Option<(Caller, S)>; N],
    /// Each slot's close count (wrapping): the low bits of its generation.
    closes: [u16; N],
    /// Most sessions one owner may hold at once.
    quota: usize,
    /// The incarnation its ids carry (already cut to its bits).
    incarnation: u32,
}

impl<S, const N: usize> Default for Table<S, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S, const N: usize> Table<S, N> {
    /// Bits of an id that hold the slot.
    const SLOT_BITS: u32 = usize::BITS - N.saturating_sub(1).leading_zeros();
    const FITS: () = assert!(
        Self::SLOT_BITS + CLOSE_BITS + INCARNATION_BITS <= u32::BITS,
        "an id must hold the slot, the close count and the incarnation"
    );

    pub const fn new() -> Self {
        Self::starting_at(0)
    }

    /// A table for incarnation `incarnation` of its server: no id it hands out names a
    /// session of an earlier incarnation (one of the last 2^[`INCARNATION_BITS`] - 1)
    /// that a client may still hold.
    pub const fn starting_at(incarnation: u32) -> Self {
        let () = Self::FITS;
        let incarnation_bits = u32::BITS - Self::SLOT_BITS - CLOSE_BITS;
        let incarnation = incarnation & ((1 << incarnation_bits) - 1);
        Table {
            slots: [const { None }; N],
            closes: [0; N],
            quota: N,
            incarnation,
        }
    }

    /// Whether `id` is not of this table's incarnation: an unknown id that an earlier
    /// incarnation of the server may have handed out (its session is gone with that
    /// incarnation; services answer it `ServerRestarted`, not `UnknownSession`, so that a
    /// client tells a restart from its own mistake).
    pub fn of_another_incarnation(&self, id: u32) -> bool {
        id.checked_shr(Self::SLOT_BITS + CLOSE_BITS).unwrap_or(0) != self.incarnation
    }

    /// Slot `i`'s generation: the incarnation above the slot's close count.
    fn generation(&self, i: usize) -> u32 {
        self.incarnation << CLOSE_BITS | u32::from(self.closes[i])
    }

    /// Counts a close of slot `i` (the count wraps within its bits).
    fn bump(&mut self, i: usize) {
        self.closes[i] = self.closes[i].wrapping_add(1);
    }

    /// From now on one owner may hold at most `quota` sessions (at least 1); those it
    /// holds beyond it stay open.
    pub fn set_quota(&mut self, quota: usize) {
        self.quota = quota.clamp(1, N);
    }

    /// Sessions `owner` holds.
    pub fn owned_by(&self, owner: Caller) -> usize {
        self.slots
            .iter()
            .flatten()
            .filter(|(o, _)| *o == owner)
            .count()
    }

    /// Opens a session in a free slot; `make` builds it knowing its slot index and may
    /// refuse (its error passes through, and the slot stays free). A full table, or an
    /// owner at its quota, answers `full`, the service's own error for it.
    pub fn open<E>(
        &mut self,
        owner: Caller,
        full: E,
        make: impl FnOnce(usize) -> Result<S, E>,
    ) -> Result<u32, E> {
        if self.owned_by(owner) >= self.quota {
            return Err(full);
        }
        let Some(i) = self.slots.iter().position(Option::is_none) else {
            return Err(full);
        };
        self.slots[i] = Some((owner, make(i)?));
        Ok(self.generation(i) << Self::SLOT_BITS | i as u32)
    }

    /// The session `id` of `owner`, and its slot index.
    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<(usize, &mut S), Unknown> {
        let i = self.index(owner, id)?;
        match &mut self.slots[i] {
            Some((_, s)) => Ok((i, s)),
            None => Err(Unknown),
        }
    }

    /// The session `id` of `owner`, to read.
    pub fn get(&self, owner: Caller, id: u32) -> Result<&S, Unknown> {
        let i = self.index(owner, id)?;
        self.slots[i].as_ref().map(|(_, s)| s).ok_or(Unknown)
    }

    /// Closes session `id` of `owner`, handing it to `closed` first (which may wipe what
    /// does not wipe itself); what `closed` returned. The session is dropped where it
    /// lies, never moved out: a session whose parts wipe themselves when dropped (keys,
    /// DRBG states) leaves no copy in the table, where a move would have left its bytes
    /// in the slot until reused.
    pub fn close_with<R>(
        &mut self,
        owner: Caller,
        id: u32,
        closed: impl FnOnce(&mut S) -> R,
    ) -> Result<R, Unknown> {
        let i = self.index(owner, id)?;
        let r = self.slots[i]
            .as_mut()
            .map(|(_, s)| closed(s))
            .ok_or(Unknown)?;
        self.bump(i);
        self.slots[i] = None;
        Ok(r)
    }

    pub fn close(&mut self, owner: Caller, id: u32) -> Result<(), Unknown> {
        self.close_with(owner, id, |_| ())
    }

    /// Closes every session of `owner` (a client that died or was cut off).
    pub fn close_all(&mut self, owner: Caller) -> usize {
        self.close_all_with(owner, |_| ())
    }

    /// Closes every session of `owner`, showing each to `closed` first (an engine that
    /// keeps state per session forgets it); each dropped where it lies.
    pub fn close_all_with(&mut self, owner: Caller, closed: impl FnMut(&mut S)) -> usize {
        self.close_where(owner, |_| true, closed)
    }

    /// Closes those sessions of `owner` that `doomed` picks, as
    /// [`close_all_with`](Self::close_all_with) closes them all.
    pub fn close_where(
        &mut self,
        owner: Caller,
        doomed: impl Fn(&S) -> bool,
        mut closed: impl FnMut(&mut S),
    ) -> usize {
        let mut n = 0;
        for i in 0..N {
            if let Some((o, s)) = &mut self.slots[i]
                && *o == owner
                && doomed(s)
            {
                closed(s);
                self.slots[i] = None;
                self.bump(i);
                n += 1;
            }
        }
        n
    }

    pub fn open_count(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    fn index(&self, owner: Caller, id: u32) -> Result<usize, Unknown> {
        let i = (id & ((1 << Self::SLOT_BITS) - 1)) as usize;
        let generation = id.checked_shr(Self::SLOT_BITS).unwrap_or(0);
        match self.slots.get(i) {
            Some(Some((o, _))) if *o == owner && self.generation(i) == generation => Ok(i),
            _ => Err(Unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Caller = Caller(1);
    const B: Caller = Caller(2);

    #[derive(Debug, PartialEq)]
    enum E {
        Full,
        Refused,
    }

    fn open<const N: usize>(t: &mut Table<u8, N>, owner: Caller, v: u8) -> Result<u32, E> {
        t.open(owner, E::Full, |_| Ok(v))
    }

    extern crate std;
    use proptest::prelude::*;
    use std::collections::BTreeSet;
    use std::vec::Vec;

    /// Every id incarnation `incarnation` of a table of `N` hands out over `cycles`
    /// opens and closes of all its slots.
    fn ids_of<const N: usize>(incarnation: u32, cycles: usize) -> BTreeSet<u32> {
        let mut t = Table::<u8, N>::starting_at(incarnation);
        let mut ids = BTreeSet::new();
        for _ in 0..cycles {
            let open_now: Vec<u32> = (0..N).map(|_| open(&mut t, A, 0).unwrap()).collect();
            for id in open_now {
                ids.insert(id);
                t.close(A, id).unwrap();
            }
        }
        ids
    }

    #[test]
    fn a_restarted_table_does_not_reissue_its_predecessors_ids() {
        // However often the predecessor closed its sessions: a generation that was
        // only a count let incarnation 0's second session in a slot have incarnation
        // 1's first id.
        let before = ids_of::<16>(0, 300);
        let after = ids_of::<16>(1, 300);
        assert_eq!((before.len(), after.len()), (16 * 300, 16 * 300));
        assert!(before.is_disjoint(&after));
        let mut t = Table::<u8, 16>::starting_at(1);
        let old = *before.iter().next().unwrap();
        open(&mut t, A, 0).unwrap();
        assert_eq!(t.get_mut(A, old).err(), Some(Unknown));
    }

    #[test]
    fn incarnations_repeat_ids_only_after_their_bits_wrap() {
        let wrap = 1 << (u32::BITS - Table::<u8, 16>::SLOT_BITS - CLOSE_BITS);
        assert!(wrap >= 1 << INCARNATION_BITS);
        assert_eq!(ids_of::<16>(0, 2), ids_of::<16>(wrap, 2));
        assert!(ids_of::<16>(0, 2).is_disjoint(&ids_of::<16>(wrap - 1, 2)));
    }

    #[test]
    fn a_slots_close_count_wraps_within_its_incarnation() {
        let mut t = Table::<u8, 1>::starting_at(5);
        let first = open(&mut t, A, 0).unwrap();
        t.close(A, first).unwrap();
        for _ in 1..1 << CLOSE_BITS {
            let id = open(&mut t, A, 0).unwrap();
            assert_ne!(id, first);
            t.close(A, id).unwrap();
        }
        assert_eq!(open(&mut t, A, 0).unwrap(), first, "65536 closes later");
    }

    /// The ids a table of incarnation `incarnation` hands out over `ops`: (open?, which
    /// live session to close, by A?).
    fn ids_over(incarnation: u32, ops: &[(bool, usize, bool)]) -> BTreeSet<u32> {
        let mut t = Table::<u8, 16>::starting_at(incarnation);
        let mut live: Vec<(Caller, u32)> = Vec::new();
        let mut ids = BTreeSet::new();
        for &(opens, pick, by_a) in ops {
            let owner = if by_a { A } else { B };
            if opens {
                if let Ok(id) = open(&mut t, owner, 0) {
                    ids.insert(id);
                    live.push((owner, id));
                }
            } else if !live.is_empty() {
                let (o, id) = live.swap_remove(pick % live.len());
                assert_eq!(t.close_with(o, id, |s| *s), Ok(0));
            }
        }
        ids
    }

    proptest! {
        /// Any opens and closes by two incarnations of a table, as a restarted
        /// server's clients would make them: no id of one is an id of the other.
        #[test]
        fn two_incarnations_never_share_an_id(
            first in 0u32..5000,
            later in prop_oneof![1u32..8, 8u32..4096],
            ops in prop::collection::vec((any::<bool>(), 0usize..16, any::<bool>()), 1..300),
        ) {
            let seen = [ids_over(first, &ops), ids_over(first + later, &ops)];
            prop_assert!(seen[0].is_disjoint(&seen[1]));
        }
    }

    #[test]
    fn sessions_answer_only_their_owner_and_ids_are_not_reused() {
        let mut t = Table::<u8, 2>::new();
        let a = open(&mut t, A, 7).unwrap();
        assert_eq!(t.get_mut(A, a).map(|(_, v)| *v), Ok(7));
        assert_eq!(t.get_mut(B, a).err(), Some(Unknown));
        assert_eq!(t.close(B, a), Err(Unknown));
        assert_eq!(t.close_with(A, a, |s| *s), Ok(7));
        let again = open(&mut t, A, 8).unwrap();
        assert_eq!(again & 1, a & 1, "same slot");
        assert_ne!(again, a, "new generation");
        assert_eq!(t.get_mut(A, a).err(), Some(Unknown));
        // The live slot under a generation never handed out.
        assert_eq!(t.get_mut(A, again + (5 << 1)).err(), Some(Unknown));
        assert_eq!(t.get_mut(A, again).map(|(_, v)| *v), Ok(8));
    }

    #[test]
    fn full_tables_and_refused_opens_keep_slots_free() {
        let mut t = Table::<u8, 2>::new();
        assert_eq!(t.open(A, E::Full, |_| Err(E::Refused)), Err(E::Refused));
        assert_eq!(t.open_count(), 0);
        let slots: [usize; 2] = core::array::from_fn(|_| {
            let id = open(&mut t, A, 0).unwrap();
            t.get_mut(A, id).unwrap().0
        });
        assert_eq!(slots, [0, 1]);
        assert_eq!(open(&mut t, B, 0), Err(E::Full));
        assert_eq!(t.close_all(A), 2);
        assert_eq!(t.open_count(), 0);
    }

    #[test]
    fn no_owner_holds_more_than_its_quota_so_none_locks_the_others_out() {
        let mut t = Table::<u8, 4>::new();
        t.set_quota(2);
        open(&mut t, A, 1).unwrap();
        open(&mut t, A, 2).unwrap();
        assert_eq!(open(&mut t, A, 3), Err(E::Full), "A at its quota");
        assert_eq!(t.owned_by(A), 2);
        // Slots are left for B, who has its own share.
        open(&mut t, B, 1).unwrap();
        open(&mut t, B, 2).unwrap();
        assert_eq!(open(&mut t, B, 3), Err(E::Full));
        assert_eq!(t.close_all(A), 2);
        open(&mut t, A, 4).unwrap();
        t.set_quota(0);
        assert_eq!(
            open(&mut t, A, 5),
            Err(E::Full),
            "a quota is at least 1: A holds 1"
        );
    }

    #[test]
    fn ids_of_another_incarnation_are_told_apart() {
        let mut old: Table<u8, 16> = Table::starting_at(1);
        let mut new: Table<u8, 16> = Table::starting_at(2);
        let stale = old.open(A, (), |_| Ok(1)).unwrap();
        let fresh = new.open(A, (), |_| Ok(2)).unwrap();
        assert!(new.of_another_incarnation(stale));
        assert!(!new.of_another_incarnation(fresh));
        assert!(!old.of_another_incarnation(stale));
        // Closes change the count, not the incarnation.
        new.close(A, fresh).unwrap();
        let again = new.open(A, (), |_| Ok(3)).unwrap();
        assert!(!new.of_another_incarnation(again) && again != fresh);
    }

    /// A session that says where it was dropped.
    struct Marked<'a>(&'a core::cell::Cell<usize>);

    impl Drop for Marked<'_> {
        fn drop(&mut self) {
            self.0.set(self as *const Self as usize);
        }
    }

    #[test]
    fn a_closed_session_is_dropped_where_it_lies_never_moved_out() {
        // A key that wipes itself on drop must do so in the table's slot: a move out
        // would leave its bytes there until the slot is reused.
        let (one, all) = (core::cell::Cell::new(0), core::cell::Cell::new(0));
        let mut t: Table<Marked<'_>, 4> = Table::new();
        let a = t.open(A, (), |_| Ok(Marked(&one))).unwrap();
        let b = t.open(B, (), |_| Ok(Marked(&all))).unwrap();
        let (at_a, at_b) = (
            t.get(A, a).unwrap() as *const _ as usize,
            t.get(B, b).unwrap() as *const _ as usize,
        );
        t.close_with(A, a, |_| ()).unwrap();
        assert_eq!(one.get(), at_a);
        assert_eq!(t.close_all(B), 1);
        assert_eq!(all.get(), at_b);
    }
}
