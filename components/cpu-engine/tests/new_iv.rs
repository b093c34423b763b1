//! `EncryptNewIv` on the CPU engine, through queue, service and engine: the IV the
//! driver draws is written over the request's last segment, the data is encrypted
//! under it (CBC and CTR, as RustCrypto encrypts it), and the session chains on from it;
//! a drawn IV joins no other request. ECB has no IV to draw; an engine with no Rng
//! service answers `NoRandomness`, writing nothing.
use cipher::{BlockEncryptMut, KeyIvInit, StreamCipher};
use cpu_engine::CpuEngine;
use pd_idl::cipher::{CipherError, CipherOp, Mode, OpenSessionArgs, Path, Request};
use queued_service::testkit::{CLIENT, Region, Rig};

const KEY: [u8; 16] = [0x2b; 16];
const DATA_AT: u32 = 64;
const IV_AT: u32 = 2048 + 3;

/// A stand-in for the PD's Rng service: a fixed, recognisable IV.
fn drawn(out: &mut [u8]) -> bool {
    for (i, b) in out.iter_mut().enumerate() {
        *b = 0x30 + i as u8;
    }
    true
}

fn open(rig: &mut Rig<cipher_service::Cipher<CpuEngine>>, mode: Mode) -> u32 {
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&KEY);
    let args = OpenSessionArgs {
        mode,
        path: Path::Adaptive,
        key_len: 16,
        key,
        iv: [0; 16],
    };
    rig.open_as(CLIENT, args.into()).unwrap()
}

fn status(r: &pd_idl::cipher::Response) -> Result<u32, CipherError> {
    match r.status.check() {
        Ok(Ok(())) => Ok(r.bytes_done),
        Ok(Err(e)) => Err(e),
        Err(raw) => panic!("{raw:?}"),
    }
}

#[test]
fn a_drawn_iv_is_written_back_and_encrypts_as_rustcrypto_does() {
    let plain: Vec<u8> = (0..64u8).collect();
    let mut iv = [0u8; 16];
    drawn(&mut iv);
    for mode in [Mode::Cbc, Mode::Ctr] {
        let mut rig = Rig::new(CpuEngine::with_random(drawn), Region::new(4096), None);
        let s = open(&mut rig, mode);
        rig.data.write(DATA_AT as usize, &plain);
        rig.data.write(IV_AT as usize, &[0xee; 16]);
        let new = Request::over(1, s, CipherOp::EncryptNewIv, &[(DATA_AT, 32), (IV_AT, 16)]);
        // The next request of the session continues the chain from the drawn IV.
        let next = Request::over(2, s, CipherOp::Encrypt, &[(DATA_AT + 32, 32)]);
        let r = rig.exchange(CLIENT, &[new, next]);
        assert_eq!(
            r.iter().map(status).collect::<Vec<_>>(),
            [Ok(32), Ok(32)],
            "{mode:?}"
        );
        let b = rig.data.bytes();
        assert_eq!(
            &b[IV_AT as usize..IV_AT as usize + 16],
            &iv,
            "{mode:?}: the IV read back"
        );
        let mut want = plain.clone();
        match mode {
            Mode::Cbc => {
                let mut c = cbc::Encryptor::<aes::Aes128>::new(&KEY.into(), &iv.into());
                for block in want.chunks_exact_mut(16) {
                    c.encrypt_block_mut(block.into());
                }
            }
            _ => ctr::Ctr128BE::<aes::Aes128>::new(&KEY.into(), &iv.into())
                .apply_keystream(&mut want),
        }
        assert_eq!(
            &b[DATA_AT as usize..DATA_AT as usize + 64],
            &want[..],
            "{mode:?}"
        );
    }
}

#[test]
fn ecb_a_short_place_and_no_rng_service_are_refused_writing_nothing() {
    let mut rig = Rig::new(CpuEngine::with_random(drawn), Region::new(4096), None);
    let ecb = open(&mut rig, Mode::Ecb);
    let cbc = open(&mut rig, Mode::Cbc);
    let before = rig.data.bytes().to_vec();
    let r = rig.exchange(
        CLIENT,
        &[
            Request::over(
                1,
                ecb,
                CipherOp::EncryptNewIv,
                &[(DATA_AT, 32), (IV_AT, 16)],
            ),
            Request::over(2, cbc, CipherOp::EncryptNewIv, &[(DATA_AT, 32), (IV_AT, 8)]),
            Request::over(
                3,
                cbc,
                CipherOp::EncryptNewIv,
                &[(DATA_AT, 32), (DATA_AT + 16, 16)],
            ),
        ],
    );
    assert_eq!(
        r.iter().map(status).collect::<Vec<_>>(),
        [
            Err(CipherError::UnsupportedMode),
            Err(CipherError::BadLength),
            Err(CipherError::OverlappingSegments)
        ]
    );
    assert_eq!(rig.data.bytes(), &before[..]);

    let mut bare = Rig::new(CpuEngine::default(), Region::new(4096), None);
    let s = open(&mut bare, Mode::Cbc);
    let before = bare.data.bytes().to_vec();
    let r = bare.exchange(
        CLIENT,
        &[Request::over(
            1,
            s,
            CipherOp::EncryptNewIv,
            &[(DATA_AT, 32), (IV_AT, 16)],
        )],
    );
    assert_eq!(status(&r[0]), Err(CipherError::NoRandomness));
    assert_eq!(bare.data.bytes(), &before[..]);
}
