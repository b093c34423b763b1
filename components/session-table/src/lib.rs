//! A fixed-size table of sessions, each owned by the client (caller) that opened it.
//!
//! A session id is `generation << 16 | slot`: closing a session bumps its slot's
//! generation, so a stale id is refused instead of silently naming someone else's later
//! session in the same slot. Lookups check the owner, so a client can never use (or learn
//! by probing whether it names a live session) another client's session: both answer
//! [`Unknown`].
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

/// Up to `N` sessions of type `S` (`N` at most 65536: the slot is the id's low half).
#[derive(Debug)]
pub struct Table<S, const N: usize> {
    slots: [Option<(Caller, S)>; N],
    generation: [u16; N],
    /// Most sessions one owner may hold at once.
    quota: usize,
}

impl<S, const N: usize> Default for Table<S, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S, const N: usize> Table<S, N> {
    const FITS: () = assert!(N <= 1 << 16, "slot must fit the id's low 16 bits");

    pub const fn new() -> Self {
        Self::starting_at(0)
    }

    /// A table whose ids start at `generation`: a restarted server passes its
    /// incarnation, so no id it hands out names a session of its predecessor that a
    /// client may still hold.
    pub const fn starting_at(generation: u16) -> Self {
        let () = Self::FITS;
        Table {
            slots: [const { None }; N],
            generation: [generation; N],
            quota: N,
        }
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
        Ok(u32::from(self.generation[i]) << 16 | i as u32)
    }

    /// The session `id` of `owner`, and its slot index.
    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<(usize, &mut S), Unknown> {
        let i = self.index(owner, id)?;
        match &mut self.slots[i] {
            Some((_, s)) => Ok((i, s)),
            None => Err(Unknown),
        }
    }

    pub fn close(&mut self, owner: Caller, id: u32) -> Result<S, Unknown> {
        let i = self.index(owner, id)?;
        self.generation[i] = self.generation[i].wrapping_add(1);
        self.slots[i].take().map(|(_, s)| s).ok_or(Unknown)
    }

    /// Closes every session of `owner` (a client that died or was cut off).
    pub fn close_all(&mut self, owner: Caller) -> usize {
        self.close_all_with(owner, drop)
    }

    /// Closes every session of `owner`, handing each to `closed` (an engine that keeps
    /// state per session forgets it).
    pub fn close_all_with(&mut self, owner: Caller, mut closed: impl FnMut(S)) -> usize {
        let mut n = 0;
        for i in 0..N {
            if self.slots[i].as_ref().is_some_and(|(o, _)| *o == owner) {
                if let Some((_, s)) = self.slots[i].take() {
                    closed(s);
                }
                self.generation[i] = self.generation[i].wrapping_add(1);
                n += 1;
            }
        }
        n
    }

    pub fn open_count(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    fn index(&self, owner: Caller, id: u32) -> Result<usize, Unknown> {
        let i = (id & 0xFFFF) as usize;
        let generation = (id >> 16) as u16;
        match self.slots.get(i) {
            Some(Some((o, _))) if *o == owner && self.generation[i] == generation => Ok(i),
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

    #[test]
    fn a_restarted_table_does_not_reissue_its_predecessors_ids() {
        let mut before = Table::<u8, 2>::new();
        let old = open(&mut before, A, 1).unwrap();
        let mut after = Table::<u8, 2>::starting_at(1);
        let new = open(&mut after, A, 1).unwrap();
        assert_eq!(new & 0xFFFF, old & 0xFFFF, "same slot");
        assert_ne!(new, old);
        assert_eq!(after.get_mut(A, old).err(), Some(Unknown));
    }

    #[test]
    fn sessions_answer_only_their_owner_and_ids_are_not_reused() {
        let mut t = Table::<u8, 2>::new();
        let a = open(&mut t, A, 7).unwrap();
        assert_eq!(t.get_mut(A, a).map(|(_, v)| *v), Ok(7));
        assert_eq!(t.get_mut(B, a).err(), Some(Unknown));
        assert_eq!(t.close(B, a), Err(Unknown));
        assert_eq!(t.close(A, a), Ok(7));
        let again = open(&mut t, A, 8).unwrap();
        assert_eq!(again & 0xFFFF, a & 0xFFFF, "same slot");
        assert_ne!(again, a, "new generation");
        assert_eq!(t.get_mut(A, a).err(), Some(Unknown));
        assert_eq!(t.get_mut(A, 0xFFFF).err(), Some(Unknown));
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
}
