//! Hostile clients and a failing engine: typed errors, the driver keeps serving, a driver
//! whose engine fails its self-test serves no one.

mod common;

use core::cell::Cell;
use digest_service::testkit::suite;
use digest_service::testkit::vectors::{ABC, pattern, reference};
use mmio::talitos::{self as t, cccr, ccpsr};
use mmio::{BusFault, RegisterBus};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};
use sec1_hash_driver::{Fault, InitError, SelfTestError};

/// A register bus that can break the engine: drop CCCR.NE (the channel no longer
/// follows chained descriptors) or swallow fetch-FIFO writes (nothing ever runs).
struct Breakable<'c, B> {
    bus: B,
    no_chaining: bool,
    stall: &'c Cell<bool>,
}

/// The wrap for `sec1!` that puts the SEC's registers behind a [`Breakable`].
fn breakable<'c, B>(
    no_chaining: bool,
    stall: &'c Cell<bool>,
) -> impl FnOnce(B) -> Breakable<'c, B> {
    move |bus| Breakable {
        bus,
        no_chaining,
        stall,
    }
}

impl<B: RegisterBus> RegisterBus for Breakable<'_, B> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.bus.read32(offset)
    }
    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        match offset {
            t::CCCR_LO if self.no_chaining => self.bus.write32(offset, value & !cccr::NE),
            t::FF_LO if self.stall.get() => Ok(()),
            _ => self.bus.write32(offset, value),
        }
    }
}

#[test]
fn bad_requests_get_typed_errors_chained_and_copy() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::hostile(&mut rig, path);
    }
    suite::session_limits(&mut rig, HashPath::Auto);
}

#[test]
fn a_cut_off_clients_job_frees_the_engine_chained_and_copy() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::a_cut_off_clients_job_frees_the_engine(&mut rig, path);
    }
}

/// SHA-384 and SHA-512 need MDEU-B (SEC2 only): refused at open on every path before
/// the engine does anything (no register, descriptor or DMA event), never a wrong
/// digest; the driver goes on serving what it has.
#[test]
fn sha384_and_sha512_are_refused_at_open() {
    sec1!(rig, ledger);
    for path in [HashPath::Auto, HashPath::Chained, HashPath::Copy] {
        let before = ledger.snapshot();
        for alg in [Algorithm::Sha384, Algorithm::Sha512] {
            assert_eq!(rig.open(alg, path), Err(DigestError::UnsupportedAlgorithm));
        }
        assert_eq!(
            ledger.snapshot().since(&before),
            cost_ledger::Counts::default(),
            "{path:?}: no work"
        );
        suite::refused_at_open(
            &mut rig,
            path,
            &[Algorithm::Sha384, Algorithm::Sha512],
            Algorithm::Sha224,
        );
    }
}

/// A scratch shorter than the driver needs is refused at init (the engine reaches it
/// by physical address only, so nothing else would notice until a chain overran it).
#[test]
fn a_short_scratch_is_refused() {
    let short = sec1_hash_driver::SCRATCH_BYTES - 1;
    sec1!(rig, ledger, init, |bus| bus, short);
    assert!(matches!(init, Err(InitError::Scratch)), "{init:?}");
    assert!(!rig.service.engine.ready());
}

#[test]
fn a_self_test_failure_refuses_service() {
    let stall = Cell::new(false);
    sec1!(rig, ledger, init, breakable(true, &stall));
    // The first known answer that chains (MD5 of RFC 1321's digits, buffered block then
    // data) fails on the chained path: the channel stopped after the first descriptor.
    assert!(
        matches!(
            init,
            Err(InitError::SelfTest(SelfTestError {
                algorithm: Algorithm::Md5,
                path: HashPath::Chained,
                ..
            }))
        ),
        "{init:?}"
    );
    assert!(!rig.service.engine.ready());
    for path in [HashPath::Auto, HashPath::Chained, HashPath::Copy] {
        assert_eq!(
            rig.open(Algorithm::Sha256, path),
            Err(DigestError::EngineFault)
        );
    }
    assert_eq!(rig.service.sessions.open_count(), 0);
}

#[test]
fn a_stalled_engine_fails_a_rerun_self_test() {
    let stall = Cell::new(false);
    sec1!(rig, ledger, init, breakable(false, &stall));
    init.unwrap();
    // A working driver: now break the fetch FIFO and run the self-tests again.
    stall.set(true);
    let again = rig.service.engine.init();
    assert!(
        matches!(
            again,
            Err(InitError::SelfTest(SelfTestError {
                fault: Some(Fault::Stalled),
                ..
            }))
        ),
        "{again:?}"
    );
    assert_eq!(
        rig.open(Algorithm::Md5, HashPath::Auto),
        Err(DigestError::EngineFault)
    );
}

#[test]
fn an_engine_fault_fails_only_that_session() {
    let stall = Cell::new(false);
    sec1!(rig, ledger, init, breakable(false, &stall));
    init.unwrap();
    let msg = pattern(300);
    let s = rig.open(Algorithm::Sha1, HashPath::Chained).unwrap();
    rig.send(s, DigestOp::Update, &msg[..100], &[100]).unwrap();
    stall.set(true);
    assert_eq!(
        rig.send(s, DigestOp::Update, &msg[100..], &[200]),
        Err(DigestError::EngineFault)
    );
    assert_eq!(rig.service.engine.last_fault, Some(Fault::Stalled));
    stall.set(false);
    // Its hash state is unknown: it never answers a digest again.
    assert_eq!(
        rig.send(s, DigestOp::Final, &[], &[]),
        Err(DigestError::EngineFault)
    );
    // The engine itself recovered (the channel was reset): new sessions are right.
    let got = rig.hash(Algorithm::Sha1, HashPath::Chained, &msg, &[&[100], &[200]]);
    assert_eq!(got.unwrap(), reference(Algorithm::Sha1, &msg));
}

#[test]
fn a_region_dma_cannot_reach_goes_through_the_copy() {
    sec1!(rig, ledger);
    rig.phys = None;
    let msg = pattern(1000);
    let before = common::copied(&ledger);
    let got = rig.hash(Algorithm::Sha256, HashPath::Chained, &msg, &[&[1000]]);
    assert_eq!(got.unwrap(), reference(Algorithm::Sha256, &msg));
    assert_eq!(
        common::copied(&ledger) - before,
        1000,
        "every byte by the CPU"
    );
    let got = rig.hash(Algorithm::Md5, HashPath::Auto, ABC, &[&[3]]);
    assert_eq!(got.unwrap(), reference(Algorithm::Md5, ABC));
}

#[test]
fn a_channel_error_is_reported_and_cleared() {
    // A segment that passes the service's bounds check but that the board's DMA cannot
    // reach (the region told to the driver is larger than what is mapped): the channel
    // stops with MDTE, the request fails, and the channel works again afterwards.
    sec1!(rig, ledger);
    rig.phys = Some(common::DATA_PHYS + (common::DATA as u64) / 2);
    let msg = pattern(common::DATA / 2);
    let split = [msg.len() - 4096, 4096];
    let s = rig.open(Algorithm::Sha256, HashPath::Chained).unwrap();
    let r = rig.send(s, DigestOp::Final, &msg, &split);
    assert_eq!(r, Err(DigestError::EngineFault));
    assert!(
        matches!(rig.service.engine.last_fault, Some(Fault::Channel(bits)) if bits & ccpsr::MDTE != 0)
    );
    rig.phys = Some(common::DATA_PHYS);
    let got = rig.hash(Algorithm::Sha256, HashPath::Chained, ABC, &[&[3]]);
    assert_eq!(got.unwrap(), reference(Algorithm::Sha256, ABC));
}
