//! The AES datapath shared by the OMAP and STM32 models: key schedule, one block through
//! ECB, CBC or CTR, with the chaining value (IV register) updated as the silicon does.

use aes::{Aes128, Aes192, Aes256};
use cipher::{BlockDecrypt, BlockEncrypt, KeyInit, generic_array::GenericArray};
use cost_ledger::{Event, Ledger};

/// Nominal engine cycles per block: one per round plus two for load and store. Neither
/// source resolves engine time from bus time; boards price the cycle at the engine clock.
pub fn cycles_per_block(rounds: u32) -> u64 {
    u64::from(rounds) + 2
}

/// Counts in `ledger` key material coming into an engine's registers or leaving them:
/// `held` before a register write or context load, `holds` after (`KeyLoaded`,
/// `KeyCleared`; nothing when neither changed).
pub fn key_moved(ledger: &Ledger, held: bool, holds: bool) {
    match (held, holds) {
        (true, false) => ledger.add(Event::KeyCleared, 1),
        (false, true) => ledger.add(Event::KeyLoaded, 1),
        _ => {}
    }
}

/// An expanded AES key of any of the three sizes.
#[derive(Clone)]
pub enum AesKey {
    K128(Aes128),
    K192(Aes192),
    K256(Aes256),
}

impl AesKey {
    /// Expands a 16-, 24- or 32-byte key; other lengths give `None`.
    pub fn new(key: &[u8]) -> Option<Self> {
        Some(match key.len() {
            16 => Self::K128(Aes128::new_from_slice(key).ok()?),
            24 => Self::K192(Aes192::new_from_slice(key).ok()?),
            32 => Self::K256(Aes256::new_from_slice(key).ok()?),
            _ => return None,
        })
    }

    pub fn rounds(&self) -> u32 {
        match self {
            Self::K128(_) => 10,
            Self::K192(_) => 12,
            Self::K256(_) => 14,
        }
    }

    fn encrypt(&self, b: &mut [u8; 16]) {
        self.run(b, true)
    }

    fn decrypt(&self, b: &mut [u8; 16]) {
        self.run(b, false)
    }

    /// One block through the cipher, whichever key size it was expanded for.
    fn run(&self, b: &mut [u8; 16], encrypt: bool) {
        fn with<C: BlockEncrypt + BlockDecrypt>(c: &C, b: &mut [u8; 16], encrypt: bool) {
            let b = GenericArray::from_mut_slice(b);
            if encrypt {
                c.encrypt_block(b)
            } else {
                c.decrypt_block(b)
            }
        }
        match self {
            Self::K128(c) => with(c, b, encrypt),
            Self::K192(c) => with(c, b, encrypt),
            Self::K256(c) => with(c, b, encrypt),
        }
    }
}

/// Chaining mode of the datapath.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ecb,
    Cbc,
    /// Counter mode; the low `width_bits` of the counter block (big-endian) increment.
    Ctr {
        width_bits: u32,
    },
}

/// Runs one block through `mode`, updating the chaining value `iv` in place.
pub fn process_block(
    key: &AesKey,
    mode: Mode,
    encrypt: bool,
    iv: &mut [u8; 16],
    block: &mut [u8; 16],
) {
    match mode {
        Mode::Ecb if encrypt => key.encrypt(block),
        Mode::Ecb => key.decrypt(block),
        Mode::Cbc if encrypt => {
            xor(block, iv);
            key.encrypt(block);
            *iv = *block;
        }
        Mode::Cbc => {
            let c = *block;
            key.decrypt(block);
            xor(block, iv);
            *iv = c;
        }
        Mode::Ctr { width_bits } => {
            let mut ks = *iv;
            key.encrypt(&mut ks);
            xor(block, &ks);
            increment(iv, width_bits);
        }
    }
}

fn xor(a: &mut [u8; 16], b: &[u8; 16]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

/// Adds one to the low `width_bits` of a big-endian counter block, wrapping within them.
fn increment(ctr: &mut [u8; 16], width_bits: u32) {
    let v = u128::from_be_bytes(*ctr);
    let mask = if width_bits >= 128 {
        u128::MAX
    } else {
        (1u128 << width_bits) - 1
    };
    let low = (v & mask).wrapping_add(1) & mask;
    *ctr = ((v & !mask) | low).to_be_bytes();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_wraps_within_its_width() {
        let mut c = [0xff; 16];
        increment(&mut c, 32);
        assert_eq!(&c[12..], &[0, 0, 0, 0]);
        assert_eq!(&c[..12], &[0xff; 12]);
        let mut c = [0xff; 16];
        increment(&mut c, 128);
        assert_eq!(c, [0; 16]);
        assert!(AesKey::new(&[0; 15]).is_none());
        assert_eq!(AesKey::new(&[0; 24]).unwrap().rounds(), 12);
    }
}
