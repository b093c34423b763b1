//! What the driver does when the device, the configuration or the caller is wrong: a
//! clear error, and a driver that either still works or says it is broken, never a hang.

mod rig;

use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};
use rig::{Rig, rig, session, try_rig};
use virtio_crypto_driver::wire::{cipher_algo, status};
use virtio_crypto_driver::{Direction, Error, TransportError, regs};
use virtio_crypto_model::{Faults, ModelConfig};

const KEY: [u8; 16] = [0x2b; 16];
const IV: [u8; 16] = [0; 16];

#[test]
fn bad_key_sizes_are_refused() {
    let mut r = rig();
    // 20 bytes: the device refuses the session (QEMU's builtin backend answers ERR).
    assert_eq!(
        r.dev
            .create_session(cipher_algo::AES_CBC, Direction::Encrypt, &[1; 20]),
        Err(Error::Device {
            status: status::ERR
        })
    );
    // Longer than the device's max_cipher_key_len, or empty: refused before the device.
    assert_eq!(
        r.dev
            .create_session(cipher_algo::AES_CBC, Direction::Encrypt, &[1; 65]),
        Err(Error::BadKeySize)
    );
    assert_eq!(
        r.dev
            .create_session(cipher_algo::AES_CBC, Direction::Encrypt, &[]),
        Err(Error::BadKeySize)
    );
    // Through the engine: a 20-byte key (the service checks sizes first, but an engine
    // must not trust that) fails the request, and the driver still works.
    let mut s = session(Mode::Cbc, &[1; 20], &IV);
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 16)]),
        Err(CipherError::EngineFault)
    );
    let mut s = session(Mode::Cbc, &KEY, &IV);
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 16)]),
        Ok(Path::Dma)
    );
}

#[test]
fn modes_the_device_lacks_are_unsupported() {
    // A backend without ECB (and advertising only CBC, as QEMU's does).
    let config = ModelConfig {
        implemented: 1 << cipher_algo::AES_CBC | 1 << cipher_algo::AES_CTR,
        ..Default::default()
    };
    let r = try_rig(config).unwrap();
    assert_eq!(
        r.supports(&session(Mode::Ecb, &KEY, &IV)),
        Err(CipherError::UnsupportedMode)
    );
    // CTR is not advertised but works: found at start-up by a trial session.
    assert_eq!(r.supports(&session(Mode::Ctr, &KEY, &IV)), Ok(()));
    assert_eq!(r.dev.info().cipher_algos, 1 << cipher_algo::AES_CBC);
    let mut s = session(Mode::Cbc, &KEY, &IV);
    s.path = Path::Cpu;
    assert_eq!(r.supports(&s), Err(CipherError::UnsupportedPath));
}

#[test]
fn a_failure_status_is_an_engine_fault_and_the_driver_goes_on() {
    let mut r = rig();
    let mut s = session(Mode::Cbc, &KEY, &IV);
    r.data()[..32].fill(7);
    r.model().faults.status = Some(status::ERR as u8);
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 32)]),
        Err(CipherError::EngineFault)
    );
    assert_eq!(s.iv, IV, "a failed request leaves the session's IV alone");
    assert_eq!(&r.data()[..32], &[7; 32], "and the data");
    r.model().faults.status = Some(status::NOTSUPP as u8);
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 32)]),
        Err(CipherError::UnsupportedMode)
    );
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 32)]),
        Ok(Path::Dma)
    );
    assert!(!r.dev.is_broken());
}

/// A rig whose device, given `fault` after start-up, fails a request of `mode` with
/// EngineFault and leaves the driver broken.
fn broken_by(mode: Mode, fault: impl FnOnce(&mut Faults)) -> Rig {
    let mut r = rig();
    let mut s = session(mode, &KEY, &IV);
    fault(&mut r.model().faults);
    assert_eq!(
        r.crypt(&mut s, CipherOp::Encrypt, &[(0, 16)]),
        Err(CipherError::EngineFault)
    );
    assert!(
        r.dev.is_broken(),
        "the device may still own the chain: nothing is reused"
    );
    r
}

#[test]
fn a_device_that_never_answers_times_out_and_breaks_the_driver() {
    let mut r = broken_by(Mode::Ctr, |f| f.hang = true);
    assert_eq!(
        r.dev
            .create_session(cipher_algo::AES_CBC, Direction::Encrypt, &KEY),
        Err(Error::Broken)
    );
}

#[test]
fn a_device_that_needs_a_reset_breaks_the_driver() {
    let mut r = broken_by(Mode::Cbc, |f| f.needs_reset = true);
    assert_ne!(r.model().status() & regs::status::DEVICE_NEEDS_RESET, 0);
}

#[test]
fn unknown_sessions_are_refused_by_the_device() {
    let mut r = rig();
    // QEMU aborts on this (an assert in its builtin backend), so only the model tests it.
    assert_eq!(
        r.dev.destroy_session(1000),
        Err(Error::Device {
            status: status::ERR
        })
    );
    let mut bufs = [virtio_crypto_driver::DmaBuf {
        phys: rig::DATA_PHYS,
        len: 16,
    }];
    let dst = bufs;
    assert_eq!(
        r.dev.cipher(
            1000,
            cipher_algo::AES_CBC,
            Direction::Encrypt,
            Some(&IV),
            &bufs,
            &dst
        ),
        Err(Error::Device {
            status: status::INVSESS
        })
    );
    bufs[0].len = 32;
    assert_eq!(
        r.dev.cipher(
            0,
            cipher_algo::AES_CBC,
            Direction::Encrypt,
            Some(&IV),
            &bufs,
            &dst
        ),
        Err(Error::BadLength),
        "src and dst differ"
    );
    assert!(!r.dev.is_broken());
}

#[test]
fn transports_the_driver_cannot_use_are_refused() {
    let legacy = ModelConfig {
        version: 1,
        ..Default::default()
    };
    assert_eq!(
        try_rig(legacy).err(),
        Some(Error::Transport(TransportError::Legacy { version: 1 }))
    );
    let no_v1 = ModelConfig {
        features: 0,
        ..Default::default()
    };
    assert_eq!(
        try_rig(no_v1).err(),
        Some(Error::Transport(TransportError::NoVersion1))
    );
    let not_ready = ModelConfig {
        hw_ready: false,
        ..Default::default()
    };
    assert_eq!(try_rig(not_ready).err(), Some(Error::NotReady));
}

#[test]
fn a_region_without_a_dma_address_is_refused() {
    let mut r = rig();
    let s = session(Mode::Cbc, &KEY, &IV);
    let mut bytes = [0u8; 64];
    let req = pd_idl::cipher::Request {
        id: 0,
        session: 0,
        op: CipherOp::Encrypt.into(),
        nsegs: 1,
        reserved: [0; 6],
        segs: [pd_idl::cipher::Segment { offset: 0, len: 16 }; 6],
    };
    let segs = cipher_service::validate(&req, 64, Mode::Cbc).unwrap();
    let job = cipher_service::Job::one(
        s,
        CipherOp::Encrypt,
        segs,
        cipher_service::ClientData {
            region: shm_queue::SharedRegion::new(&mut bytes),
            phys: None,
        },
    );
    assert_eq!(
        cipher_service::run_polled(&mut r.dev, &job, 4),
        Err(CipherError::UnsupportedPath)
    );
}
