//! The session table: fixed size, each session owned by the client that opened it.

use pd_idl::cipher::{CipherError, Mode, Path};
use pd_idl::wire::Caller;

/// Sessions one driver holds at once, across all its clients.
pub const MAX_SESSIONS: usize = 16;

/// One open session: the engine context that is saved here and loaded into the engine
/// for each request, so sessions of different clients interleave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Session {
    pub owner: Caller,
    pub mode: Mode,
    pub path: Path,
    pub key_len: u8,
    pub key: [u8; 32],
    /// The IV for the next request (chaining carries over between requests).
    pub iv: [u8; 16],
}

impl Session {
    pub fn key(&self) -> &[u8] {
        &self.key[..usize::from(self.key_len).min(32)]
    }
}

/// Session ids carry a generation in their upper bits, so a closed session's id is not
/// silently reused for someone else's session.
#[derive(Debug)]
pub struct Sessions {
    slots: [Option<Session>; MAX_SESSIONS],
    generation: [u16; MAX_SESSIONS],
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            slots: [None; MAX_SESSIONS],
            generation: [0; MAX_SESSIONS],
        }
    }
}

impl Sessions {
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
        let i = self
            .slots
            .iter()
            .position(Option::is_none)
            .ok_or(CipherError::TooManySessions)?;
        self.slots[i] = Some(session);
        Ok(u32::from(self.generation[i]) << 16 | i as u32)
    }

    pub fn get_mut(&mut self, owner: Caller, id: u32) -> Result<&mut Session, CipherError> {
        let i = self.index(owner, id)?;
        self.slots[i].as_mut().ok_or(CipherError::UnknownSession)
    }

    pub fn close(&mut self, owner: Caller, id: u32) -> Result<(), CipherError> {
        let i = self.index(owner, id)?;
        self.slots[i] = None;
        self.generation[i] = self.generation[i].wrapping_add(1);
        Ok(())
    }

    /// Closes every session of `owner` (a client that died or was cut off).
    pub fn close_all(&mut self, owner: Caller) -> usize {
        let mut n = 0;
        for i in 0..MAX_SESSIONS {
            if self.slots[i].is_some_and(|s| s.owner == owner) {
                self.slots[i] = None;
                self.generation[i] = self.generation[i].wrapping_add(1);
                n += 1;
            }
        }
        n
    }

    pub fn open_count(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    fn index(&self, owner: Caller, id: u32) -> Result<usize, CipherError> {
        let i = (id & 0xFFFF) as usize;
        let generation = (id >> 16) as u16;
        match self.slots.get(i) {
            Some(Some(s)) if s.owner == owner && self.generation[i] == generation => Ok(i),
            _ => Err(CipherError::UnknownSession),
        }
    }
}
