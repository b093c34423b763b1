//! The CPU Digest engine through the whole service path (client -> queue -> service ->
//! engine -> response): the shared conformance suite on its one path, `Auto`, with every
//! algorithm of the interface.

use cpu_engine::hash::CpuDigest;
use digest_service::testkit::{Region, Rig, suite};
use pd_idl::digest::{Algorithm, DigestError, HashPath};

/// Room for a 100 KB message in segments apart from each other.
const DATA: usize = 128 << 10;

fn rig() -> Rig<CpuDigest> {
    Rig::new(CpuDigest::default(), Region::new(DATA), None)
}

#[test]
fn published_vectors() {
    suite::published_vectors(&mut rig(), HashPath::Auto, &suite::ALGORITHMS);
}

#[test]
fn digests_land_at_their_output_place() {
    suite::output_places(&mut rig(), HashPath::Auto, &suite::ALGORITHMS);
}

#[test]
fn million_a() {
    suite::million_a(&mut rig(), HashPath::Auto, &suite::ALGORITHMS);
}

#[test]
fn splits_at_every_byte() {
    let mut rig = rig();
    for alg in suite::ALGORITHMS {
        suite::splits(&mut rig, HashPath::Auto, alg);
    }
}

#[test]
fn long_segments() {
    let mut rig = rig();
    suite::long_segments(&mut rig, HashPath::Auto, &suite::ALGORITHMS);
    assert_eq!(
        rig.service.engine.bytes,
        suite::ALGORITHMS.len() as u64 * 100_000,
        "every byte hashed once"
    );
}

#[test]
fn interleaved_sessions() {
    suite::interleaved(&mut rig(), HashPath::Auto, &suite::ALGORITHMS);
}

#[test]
fn queued_updates_match_one_at_a_time() {
    suite::queued_updates_match_one_at_a_time(&mut rig(), HashPath::Auto, &suite::ALGORITHMS);
}

#[test]
fn hostile_requests() {
    suite::hostile(&mut rig(), HashPath::Auto);
}

#[test]
fn session_limits() {
    suite::session_limits(&mut rig(), HashPath::Auto);
}

#[test]
fn hardware_paths_are_refused_at_open() {
    let mut rig = rig();
    for path in [HashPath::Chained, HashPath::Copy] {
        assert_eq!(
            rig.open(Algorithm::Sha1, path),
            Err(DigestError::UnsupportedPath)
        );
    }
    assert_eq!(rig.service.sessions.open_count(), 0);
}
