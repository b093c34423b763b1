//! Property tests against RustCrypto's own modes and digests: random keys, IVs, data and
//! split points through the models give the reference answers.

mod common;

use board::{am335x, mpc885};
use cipher::{BlockEncryptMut, KeyIvInit, StreamCipher, block_padding::NoPadding};
use common::sec1::{Path, Session};
use common::{Arena, Job, Mode, set_clock};
use cost_ledger::Ledger;
use engine_models::mdeu::{HashAlg, Mdeu};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use proptest::prelude::*;

fn reference_digest(alg: HashAlg, data: &[u8]) -> Vec<u8> {
    use md5::Digest;
    match alg {
        HashAlg::Md5 => md5::Md5::digest(data).to_vec(),
        HashAlg::Sha1 => sha1::Sha1::digest(data).to_vec(),
        HashAlg::Sha256 => sha2::Sha256::digest(data).to_vec(),
    }
}

fn alg() -> impl Strategy<Value = HashAlg> {
    prop_oneof![
        Just(HashAlg::Md5),
        Just(HashAlg::Sha1),
        Just(HashAlg::Sha256)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Saving the MDEU context after any number of blocks and restoring it changes
    /// nothing: the basis of interleaved sessions.
    #[test]
    fn mdeu_context_round_trips(alg in alg(), data in prop::collection::vec(any::<u8>(), 0..400), cut in 0usize..7) {
        let whole = data.len() / 64;
        let cut = cut.min(whole);
        let mut m = Mdeu::init(alg);
        for b in data[..cut * 64].chunks_exact(64) {
            m.block(b.try_into().unwrap());
        }
        let mut m = Mdeu::restore(alg, &m.save());
        for b in data[cut * 64..whole * 64].chunks_exact(64) {
            m.block(b.try_into().unwrap());
        }
        let d = m.finish(&data[whole * 64..]);
        prop_assert_eq!(&d[..alg.digest_len()], &reference_digest(alg, &data)[..]);
    }

    /// Any update pattern through the SEC1 model, either path, gives the reference.
    #[test]
    fn sec1_sessions_match_reference(alg in alg(), chained in any::<bool>(), data in prop::collection::vec(any::<u8>(), 0..600), cuts in prop::collection::vec(0usize..600, 0..4)) {
        let (gates, ledger) = (GateBlock::new(), Ledger::new());
        set_clock(&gates, &ledger, mpc885::SEC.gate.unwrap(), true);
        let mut ram = vec![0u8; 128 << 10];
        let mem = PhysMap::new();
        mem.add(0x10_0000, &mut ram);
        let soc = engine_models::mpc885::mpc885(&mem, &gates, &ledger);
        common::sec1::init(&soc);
        let mut arena = Arena::new(0x10_0000, 128 << 10);
        let path = if chained { Path::Chained } else { Path::Copy };
        let mut s = Session::new(&mut arena, alg, path);
        let at = arena.put(&mem, &data, 4);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
        cuts.sort_unstable();
        let mut prev = 0;
        for c in cuts {
            s.update(&soc, &mem, &ledger, at + prev as u32, c - prev, false).unwrap();
            prev = c;
        }
        s.update(&soc, &mem, &ledger, at + prev as u32, data.len() - prev, true).unwrap();
        prop_assert_eq!(s.digest(&mem), reference_digest(alg, &data));
    }

    /// OMAP PIO CBC and CTR over random keys of every size agree with RustCrypto.
    #[test]
    fn omap_pio_matches_cbc_and_ctr(key_words in 0usize..3, key in prop::array::uniform32(any::<u8>()), iv in prop::array::uniform16(any::<u8>()), blocks in 1usize..6, seed in any::<u8>()) {
        let key = &key[..16 + 8 * key_words];
        let data: Vec<u8> = (0..blocks * 16).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
        let (gates, ledger) = (GateBlock::new(), Ledger::new());
        set_clock(&gates, &ledger, am335x::AES0.gate.unwrap(), true);
        let mem = PhysMap::new();
        let soc = engine_models::am335x::am335x(&mem, &gates, &ledger);
        let cbc = common::omap::pio(&soc, &ledger, &Job::new(key, Some(&iv), Mode::Cbc, true), &data).unwrap();
        let ctr = common::omap::pio(&soc, &ledger, &Job::new(key, Some(&iv), Mode::Ctr, true), &data).unwrap();
        let (mut want_cbc, mut want_ctr) = (data.clone(), data.clone());
        match key.len() {
            16 => {
                cbc::Encryptor::<aes::Aes128>::new(key.into(), &iv.into()).encrypt_padded_mut::<NoPadding>(&mut want_cbc, data.len()).unwrap();
                ctr::Ctr128BE::<aes::Aes128>::new(key.into(), &iv.into()).apply_keystream(&mut want_ctr);
            }
            24 => {
                cbc::Encryptor::<aes::Aes192>::new(key.into(), &iv.into()).encrypt_padded_mut::<NoPadding>(&mut want_cbc, data.len()).unwrap();
                ctr::Ctr128BE::<aes::Aes192>::new(key.into(), &iv.into()).apply_keystream(&mut want_ctr);
            }
            _ => {
                cbc::Encryptor::<aes::Aes256>::new(key.into(), &iv.into()).encrypt_padded_mut::<NoPadding>(&mut want_cbc, data.len()).unwrap();
                ctr::Ctr128BE::<aes::Aes256>::new(key.into(), &iv.into()).apply_keystream(&mut want_ctr);
            }
        }
        prop_assert_eq!(cbc, want_cbc);
        prop_assert_eq!(ctr, want_ctr);
    }
}
