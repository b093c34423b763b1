//! The crypto backend of the model: sessions and AES, behaving as QEMU's
//! `cryptodev-backend-builtin` (over nettle) does, including its limits: keys of 16, 24
//! or 32 bytes; ECB, CBC and CTR; whole blocks only (CTR too); an IV of exactly 16 bytes
//! for CBC and CTR and none for ECB; failures answered with VIRTIO_CRYPTO_ERR.
//!
//! Data is processed block by block from the source stream to the destination stream,
//! so in-place requests work as on QEMU (which copies the whole source first); a
//! destination that overlaps the source at a different offset would differ, and no
//! driver here does that.

use engine_models::aes_core::{AesKey, Mode, process_block};
use virtio_crypto_driver::wire::{cipher_algo, session_op, status};

/// Sessions the model holds at once (QEMU's builtin backend: 256).
pub const MAX_SESSIONS: usize = 64;

#[derive(Clone)]
pub struct Session {
    algo: u32,
    encrypt: bool,
    key: AesKey,
}

/// What `implemented` algorithms the backend runs (bit n = algorithm n).
pub const IMPLEMENTED: u64 =
    1 << cipher_algo::AES_ECB | 1 << cipher_algo::AES_CBC | 1 << cipher_algo::AES_CTR;

/// The session table.
pub struct Sessions {
    slots: [Option<Session>; MAX_SESSIONS],
    /// Algorithms this backend runs (a subset of [`IMPLEMENTED`]).
    pub implemented: u64,
}

impl Sessions {
    pub fn new(implemented: u64) -> Self {
        Self {
            slots: [const { None }; MAX_SESSIONS],
            implemented: implemented & IMPLEMENTED,
        }
    }

    /// Creates a session; `Err(status)` as the device reports it.
    pub fn create(&mut self, algo: u32, op: u32, key: &[u8]) -> Result<u64, u32> {
        if algo >= 64 || self.implemented & (1 << algo) == 0 {
            return Err(status::ERR);
        }
        let encrypt = match op {
            session_op::ENCRYPT => true,
            session_op::DECRYPT => false,
            _ => return Err(status::ERR),
        };
        let key = AesKey::new(key).ok_or(status::ERR)?;
        let i = self
            .slots
            .iter()
            .position(Option::is_none)
            .ok_or(status::ERR)?;
        self.slots[i] = Some(Session { algo, encrypt, key });
        Ok(i as u64)
    }

    /// Destroys a session. QEMU's builtin backend asserts on an unknown id (the whole VM
    /// aborts); the model answers ERR instead so tests can see it.
    pub fn destroy(&mut self, id: u64) -> Result<(), u32> {
        let slot = self
            .slots
            .get_mut(usize::try_from(id).map_err(|_| status::ERR)?)
            .ok_or(status::ERR)?;
        slot.take().map(|_| ()).ok_or(status::ERR)
    }

    pub fn get(&self, id: u64) -> Result<&Session, u32> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.slots.get(i))
            .and_then(Option::as_ref)
            .ok_or(status::INVSESS)
    }

    pub fn open(&self) -> usize {
        self.slots.iter().flatten().count()
    }
}

/// A cipher in progress over a stream of blocks.
pub struct Run<'s> {
    session: &'s Session,
    iv: [u8; 16],
}

impl<'s> Run<'s> {
    /// Checks the IV against the mode as nettle's QEMU glue does.
    pub fn start(session: &'s Session, iv: &[u8]) -> Result<Self, u32> {
        let mut v = [0u8; 16];
        match (session.algo, iv.len()) {
            (cipher_algo::AES_ECB, 0) => {}
            (cipher_algo::AES_CBC | cipher_algo::AES_CTR, 16) => v.copy_from_slice(iv),
            _ => return Err(status::ERR),
        }
        Ok(Self { session, iv: v })
    }

    /// Processes one block in place. The session's direction decides, not the request's
    /// opcode, as in QEMU.
    pub fn block(&mut self, b: &mut [u8; 16]) {
        let mode = match self.session.algo {
            cipher_algo::AES_ECB => Mode::Ecb,
            cipher_algo::AES_CBC => Mode::Cbc,
            // CTR: the IV is a 128-bit big-endian counter (nettle's ctr_crypt).
            _ => Mode::Ctr { width_bits: 128 },
        };
        process_block(
            &self.session.key,
            mode,
            self.session.encrypt,
            &mut self.iv,
            b,
        );
    }
}
