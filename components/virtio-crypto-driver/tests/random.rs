//! Random requests through the driver and the model against RustCrypto: every mode and
//! key size, 1..=6 segments (as many as a request carries) at random places (some empty,
//! blocks straddling segments), IVs chained across requests, more keys than the driver caches device sessions for,
//! and the bytes between segments left alone.

mod rig;

use aes::{Aes128, Aes192, Aes256};
use cipher::generic_array::GenericArray;
use cipher::{
    BlockCipher, BlockDecrypt, BlockDecryptMut, BlockEncrypt, BlockEncryptMut, KeyInit, KeyIvInit,
    StreamCipher,
};
use pd_idl::cipher::{CipherOp, Mode, Path};
use rig::{rig, session};
use virtio_crypto_driver::CACHED_SESSIONS;

/// A request's `segs`.
const MOST_SEGMENTS: u32 = 6;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
    fn bytes(&mut self, buf: &mut [u8]) {
        buf.iter_mut().for_each(|b| *b = self.next() as u8);
    }
}

fn reference<C>(mode: Mode, op: CipherOp, key: &[u8], iv: [u8; 16], buf: &mut [u8]) -> [u8; 16]
where
    C: BlockCipher<BlockSize = cipher::consts::U16> + BlockEncrypt + BlockDecrypt + KeyInit + Clone,
{
    let last = |b: &[u8]| <[u8; 16]>::try_from(&b[b.len() - 16..]).unwrap();
    match (mode, op) {
        (Mode::Ecb, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            let c = C::new_from_slice(key).unwrap();
            buf.chunks_exact_mut(16)
                .map(GenericArray::from_mut_slice)
                .for_each(|b| c.encrypt_block(b));
            iv
        }
        (Mode::Ecb, CipherOp::Decrypt) => {
            let c = C::new_from_slice(key).unwrap();
            buf.chunks_exact_mut(16)
                .map(GenericArray::from_mut_slice)
                .for_each(|b| c.decrypt_block(b));
            iv
        }
        (Mode::Cbc, CipherOp::Encrypt | CipherOp::EncryptNewIv) => {
            let mut c = cbc::Encryptor::<C>::new_from_slices(key, &iv).unwrap();
            buf.chunks_exact_mut(16)
                .map(GenericArray::from_mut_slice)
                .for_each(|b| c.encrypt_block_mut(b));
            last(buf)
        }
        (Mode::Cbc, CipherOp::Decrypt) => {
            let next = last(buf);
            let mut c = cbc::Decryptor::<C>::new_from_slices(key, &iv).unwrap();
            buf.chunks_exact_mut(16)
                .map(GenericArray::from_mut_slice)
                .for_each(|b| c.decrypt_block_mut(b));
            next
        }
        (Mode::Ctr, _) => {
            ctr::Ctr128BE::<C>::new_from_slices(key, &iv)
                .unwrap()
                .apply_keystream(buf);
            (u128::from_be_bytes(iv) + buf.len().div_ceil(16) as u128).to_be_bytes()
        }
    }
}

#[test]
fn random_requests_match_rustcrypto() {
    let mut r = rig();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut sessions: Vec<_> = (0..CACHED_SESSIONS + 4)
        .map(|i| {
            let mut key = [0u8; 32];
            let mut iv = [0u8; 16];
            rng.bytes(&mut key);
            rng.bytes(&mut iv);
            session(
                [Mode::Ecb, Mode::Cbc, Mode::Ctr][i % 3],
                &key[..[16, 24, 32][i / 3 % 3]],
                &iv,
            )
        })
        .collect();
    for i in 0..400 {
        let s = &mut sessions[rng.below(CACHED_SESSIONS as u32 + 4) as usize];
        let op = [CipherOp::Encrypt, CipherOp::Decrypt][rng.below(2) as usize];
        let len = if s.mode == Mode::Ctr {
            1 + rng.below(512)
        } else {
            16 * (1 + rng.below(32))
        };
        let n = 1 + rng.below(MOST_SEGMENTS) as usize;
        let mut cuts: Vec<u32> = (1..n).map(|_| rng.below(len + 1)).collect();
        cuts.extend([0, len]);
        cuts.sort();
        let mut at = rng.below(1024);
        let segs: Vec<(u32, u32)> = cuts
            .windows(2)
            .map(|w| {
                let seg = (at, w[1] - w[0]);
                at += seg.1 + 1 + rng.below(64);
                seg
            })
            .collect();
        let mut want = Vec::new();
        for &(o, l) in &segs {
            let (o, l) = (o as usize, l as usize);
            rng.bytes(&mut r.data()[o..o + l]);
            r.data()[o + l] = 0x5a;
            want.extend_from_slice(&r.data()[o..o + l]);
        }
        let key = s.key[..s.key_len as usize].to_vec();
        let next = match s.key_len {
            16 => reference::<Aes128>(s.mode, op, &key, s.iv, &mut want),
            24 => reference::<Aes192>(s.mode, op, &key, s.iv, &mut want),
            _ => reference::<Aes256>(s.mode, op, &key, s.iv, &mut want),
        };
        assert_eq!(r.crypt(s, op, &segs), Ok(Path::Dma), "#{i}");
        let got: Vec<u8> = segs
            .iter()
            .flat_map(|&(o, l)| r.data()[o as usize..(o + l) as usize].to_vec())
            .collect();
        assert_eq!(
            got, want,
            "#{i}: {:?} {op:?} key {} segs {segs:?}",
            s.mode, s.key_len
        );
        assert_eq!(s.iv, next, "#{i}: chained IV");
        assert!(
            segs.iter()
                .all(|&(o, l)| r.data()[(o + l) as usize] == 0x5a),
            "#{i}: a byte outside the segments changed"
        );
    }
    assert_eq!(
        r.dev.cached_sessions(),
        CACHED_SESSIONS,
        "more keys than the cache: it is full, not overfull"
    );
    // Each cached CBC/ECB key holds two device sessions, CTR one; evicted ones were destroyed.
    let open = r.model().sessions.open();
    assert!(
        (CACHED_SESSIONS..=2 * CACHED_SESSIONS).contains(&open),
        "{open} device sessions open"
    );
    r.dev.forget_all().unwrap();
    assert_eq!(
        r.model().sessions.open(),
        0,
        "forget_all destroys every device session"
    );
}
