//! The Cipher session table: `session-table` holding each session's engine context.

use pd_idl::cipher::{CipherError, Mode, Path};
use pd_idl::wire::Caller;
use session_table::Table;

/// Sessions one driver holds at once, across all its clients.
pub const MAX_SESSIONS: usize = 16;

/// One open session: the engine context that is saved here and loaded into the engine
/// for each request, so sessions of different clients interleave.
///
/// IV and key first, at 16-byte-aligned offsets of a 16-byte-aligned struct: every copy
/// of a session (into a job, out of a finished one) is then whole 16-byte moves. Left to
/// the default layout the IV sat at an odd offset and was copied in overlapping 2- and
/// 8-byte pieces, and reading it back stalled store-to-load forwarding on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Session {
    /// The IV for the next request (chaining carries over between requests).
    pub iv: [u8; 16],
    pub key: [u8; 32],
    pub owner: Caller,
    pub mode: Mode,
    pub path: Path,
    pub key_len: u8,
}

impl Session {
    /// A session of nothing: no key, owned by nobody (what a job is filled from).
    pub const EMPTY: Session = Session {
        iv: [0; 16],
        key: [0; 32],
        owner: Caller(0),
        mode: Mode::Ecb,
        path: Path::Adaptive,
        key_len: 0,
    };

    pub fn key(&self) -> &[u8] {
        &self.key[..usize::from(self.key_len).min(32)]
    }

    /// Whether this session's key is `key_len` bytes of `key` (an engine's cached key
    /// state, say): every byte compared whatever the first difference, so the time
    /// says nothing about where keys differ.
    pub fn has_key(&self, key_len: u8, key: &[u8; 32]) -> bool {
        let diff = self.key.iter().zip(key).fold(0u8, |d, (a, b)| d | (a ^ b));
        self.key_len == key_len && diff == 0
    }
}

/// Sessions by id; ids carry a generation and answer only their owner (see
/// `session-table`).
#[derive(Debug, Default)]
pub struct Sessions {
    table: Table<Session, MAX_SESSIONS>,
}

impl Sessions {
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

    /// Opens a session after checking the key size; the engine checks the rest.
    pub fn open(
        &mut self,
        session: Session,
        supported: impl FnOnce(&Session) -> Result<(), CipherError>,
    ) -> Result<u32, CipherError> {
        if !matches!(session.key_len, 16 | 24 | 32) {
            return Err(CipherError::BadKeySize);
        }
        supported(&session)?;
        self.table
            .open(session.owner, CipherError::TooManySessions, |_| Ok(session))
    }

    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<&mut Session, CipherError> {
        let unknown = self.unknown(id);
        self.table
            .get_mut(owner, id)
            .map(|(_, s)| s)
            .map_err(|_| unknown)
    }

    /// Closes session `id`; the session as it was.
    pub fn close(&mut self, owner: Caller, id: u32) -> Result<Session, CipherError> {
        let unknown = self.unknown(id);
        self.table.close(owner, id).map_err(|_| unknown)
    }

    /// The refusal of an id no live session of the caller has: `ServerRestarted` if
    /// it is not of this incarnation (its session died with an earlier one), else
    /// `UnknownSession`.
    fn unknown(&self, id: u32) -> CipherError {
        if self.table.of_another_incarnation(id) {
            CipherError::ServerRestarted
        } else {
            CipherError::UnknownSession
        }
    }

    /// Closes every session of `owner` (a client that died or was cut off).
    pub fn close_all(&mut self, owner: Caller) -> usize {
        self.table.close_all(owner)
    }

    /// Closes every session of `owner`, handing each to `closed`.
    pub fn close_all_with(&mut self, owner: Caller, closed: impl FnMut(Session)) -> usize {
        self.table.close_all_with(owner, closed)
    }

    pub fn open_count(&self) -> usize {
        self.table.open_count()
    }
}
