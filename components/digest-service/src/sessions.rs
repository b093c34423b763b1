//! Digest sessions: the service's part of each (algorithm, path, progress), the engine's
//! part (`C`: buffered bytes, saved hash context), in a [`session_table::Table`].

use crate::DigestEngine;
use pd_idl::digest::{Algorithm, DigestError, HashPath};
use pd_idl::wire::Caller;
use session_table::Table;

/// Sessions one driver holds at once, across all its clients.
pub const MAX_SESSIONS: usize = 16;

/// Where a session is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Takes updates and a final; after its final it starts a new message (so a client
    /// hashes one message after another, each a single final request, with no call).
    Open,
    /// Not entered by this service any more (a session restarts after its final); kept
    /// so an engine or an old client that sees `SessionFinished` still reads it.
    Finished,
    /// The engine failed in the middle of one of its requests, so its hash state is
    /// unknown; further requests are `EngineFault`.
    Failed,
}

/// One open session.
#[derive(Clone, Debug)]
pub struct Session<C> {
    pub algorithm: Algorithm,
    pub path: HashPath,
    /// Bytes hashed so far (every accepted update and final).
    pub bytes: u64,
    pub state: State,
    /// What the engine keeps for this session between requests.
    pub engine: C,
}

/// The session table of one driver.
#[derive(Debug)]
pub struct Sessions<C> {
    table: Table<Session<C>, MAX_SESSIONS>,
}

impl<C> Default for Sessions<C> {
    fn default() -> Self {
        Sessions {
            table: Table::new(),
        }
    }
}

impl<C> Sessions<C> {
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

    /// Opens a session after the engine has accepted the algorithm and path.
    pub fn open<E: DigestEngine<Context = C>>(
        &mut self,
        owner: Caller,
        algorithm: Algorithm,
        path: HashPath,
        engine: &mut E,
    ) -> Result<u32, DigestError> {
        self.table
            .open(owner, DigestError::TooManySessions, |slot| {
                Ok(Session {
                    algorithm,
                    path,
                    bytes: 0,
                    state: State::Open,
                    engine: engine.open(slot, algorithm, path)?,
                })
            })
    }

    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<&mut Session<C>, DigestError> {
        self.slot_mut(owner, id).map(|(_, s)| s)
    }

    /// As [`get_mut`](Self::get_mut), with the session's slot (its engine's index).
    pub fn slot_mut(
        &mut self,
        owner: Caller,
        id: u32,
    ) -> Result<(usize, &mut Session<C>), DigestError> {
        let unknown = self.unknown(id);
        self.table.get_mut(owner, id).map_err(|_| unknown)
    }

    pub fn close(&mut self, owner: Caller, id: u32) -> Result<(), DigestError> {
        let unknown = self.unknown(id);
        self.table.close(owner, id).map(drop).map_err(|_| unknown)
    }

    /// The refusal of an id no live session of the caller has: `ServerRestarted` if
    /// it is not of this incarnation (its session died with an earlier one), else
    /// `UnknownSession`.
    fn unknown(&self, id: u32) -> DigestError {
        if self.table.of_another_incarnation(id) {
            DigestError::ServerRestarted
        } else {
            DigestError::UnknownSession
        }
    }

    /// Closes every session of `owner` (a client that died or was cut off).
    pub fn close_all(&mut self, owner: Caller) -> usize {
        self.table.close_all(owner)
    }

    pub fn open_count(&self) -> usize {
        self.table.open_count()
    }
}
