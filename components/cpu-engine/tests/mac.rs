//! The CPU Mac engine through the whole service path (client -> queue -> service ->
//! engine -> response): `mac-service`'s conformance suite over RFC 2202 and RFC 4231,
//! every algorithm of the interface.

use cpu_engine::mac::CpuMac;
use kat_vectors::HMAC;
use mac_service::testkit::{Region, Rig, suite};

/// Room for the longest key and a few segments past it.
const DATA: usize = 16 << 10;

fn rig() -> Rig<CpuMac> {
    Rig::new(CpuMac::default(), Region::new(DATA))
}

#[test]
fn published_vectors() {
    let mut rig = rig();
    let ran = suite::published_vectors(&mut rig, &suite::ALGORITHMS);
    assert_eq!(ran, HMAC.len(), "every published example");
    // Each example's data twice (a final, a verify): every byte fed once each time.
    let fed: usize = HMAC.iter().map(|v| 2 * v.data.len()).sum();
    assert_eq!(rig.service.engine.bytes, fed as u64);
}

#[test]
fn tags_land_at_their_output_place() {
    suite::output_places(&mut rig(), &suite::ALGORITHMS);
}

#[test]
fn splits_at_every_byte() {
    let mut rig = rig();
    for alg in suite::ALGORITHMS {
        suite::splits(&mut rig, alg);
    }
}

#[test]
fn wrong_tags_are_mismatches_and_leak_nothing() {
    let mut rig = rig();
    for alg in suite::ALGORITHMS {
        suite::wrong_tags(&mut rig, alg);
    }
}

#[test]
fn keys_are_copied_at_open_and_long_ones_hashed() {
    suite::keys(&mut rig());
}

#[test]
fn hostile_requests() {
    suite::hostile(&mut rig());
}

#[test]
fn session_limits_and_cut_off() {
    suite::session_limits(&mut rig());
}

#[test]
fn calls_through_the_wire() {
    suite::calls_through_the_wire(&mut rig());
}
