//! The session table of one driver: `session-table` holding each session's state, with
//! the refusals of ids no live session has.

use pd_idl::wire::Caller;
use session_table::Table;

use crate::Refusal;

/// Sessions one driver holds at once, across all its clients.
pub const MAX_SESSIONS: usize = 16;

/// Sessions by id; ids carry a generation and answer only their owner (see
/// `session-table`).
#[derive(Debug)]
pub struct Sessions<S> {
    table: Table<S, MAX_SESSIONS>,
}

impl<S> Default for Sessions<S> {
    fn default() -> Self {
        Sessions {
            table: Table::new(),
        }
    }
}

impl<S> Sessions<S> {
    /// A table whose ids cannot name a session of an earlier incarnation `incarnation`
    /// of this driver (see `session_table::Table::starting_at`).
    pub fn for_incarnation(incarnation: u32) -> Self {
        Sessions {
            table: Table::starting_at(incarnation),
        }
    }

    /// Shares the table among `clients` clients: none may hold more than its share, so
    /// none can lock the others out.
    pub fn share_among(&mut self, clients: usize) {
        self.table.set_quota(MAX_SESSIONS / clients.max(1));
    }

    /// Opens a session of `owner` made by `make` (given its slot), unless `owner` holds
    /// its share (`too_many`).
    pub fn open<E>(
        &mut self,
        owner: Caller,
        too_many: E,
        make: impl FnOnce(usize) -> Result<S, E>,
    ) -> Result<u32, E> {
        self.table.open(owner, too_many, make)
    }

    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<&mut S, Refusal> {
        self.slot_mut(owner, id).map(|(_, s)| s)
    }

    /// The session `id` of `owner`, to read (a call that reports on it).
    pub fn get(&self, owner: Caller, id: u32) -> Result<&S, Refusal> {
        let unknown = self.unknown(id);
        self.table.get(owner, id).map_err(|_| unknown)
    }

    /// As [`get_mut`](Self::get_mut), with the session's slot.
    pub fn slot_mut(&mut self, owner: Caller, id: u32) -> Result<(usize, &mut S), Refusal> {
        let unknown = self.unknown(id);
        self.table.get_mut(owner, id).map_err(|_| unknown)
    }

    /// Closes session `id` (dropped where it lies).
    pub fn close(&mut self, owner: Caller, id: u32) -> Result<(), Refusal> {
        self.close_with(owner, id, |_| ())
    }

    /// Closes session `id`, showing it to `closed` before it is dropped where it lies.
    pub fn close_with<R>(
        &mut self,
        owner: Caller,
        id: u32,
        closed: impl FnOnce(&mut S) -> R,
    ) -> Result<R, Refusal> {
        let unknown = self.unknown(id);
        self.table
            .close_with(owner, id, closed)
            .map_err(|_| unknown)
    }

    /// The refusal of an id no live session of the caller has: `ServerRestarted` if it is
    /// not of this incarnation (its session died with an earlier one).
    fn unknown(&self, id: u32) -> Refusal {
        if self.table.of_another_incarnation(id) {
            Refusal::ServerRestarted
        } else {
            Refusal::UnknownSession
        }
    }

    /// Closes every session of `owner` (a client that died or was cut off), handing
    /// each to `closed`; how many.
    pub fn close_all_with(&mut self, owner: Caller, closed: impl FnMut(&mut S)) -> usize {
        self.table.close_all_with(owner, closed)
    }

    /// Closes every session of `owner`; how many.
    pub fn close_all(&mut self, owner: Caller) -> usize {
        self.table.close_all(owner)
    }

    pub fn open_count(&self) -> usize {
        self.table.open_count()
    }
}
