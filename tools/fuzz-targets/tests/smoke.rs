//! Each fuzz target on generated inputs, on stable, as CI's smoke run (the long runs are
//! `make fuzz`, under libFuzzer). A failing input is shrunk by proptest and printed.

use proptest::collection::vec;
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn idl_dispatch(data in vec(any::<u8>(), 0..600)) {
        fuzz_targets::idl_dispatch(&data);
    }

    #[test]
    fn queue_consumer(data in vec(any::<u8>(), 0..8192)) {
        fuzz_targets::queue_consumer(&data);
    }

    #[test]
    fn system_parser(data in vec(any::<u8>(), 0..2048)) {
        fuzz_targets::system_parser(&data);
    }

    #[test]
    fn boot_info(data in vec(any::<u8>(), 0..2048)) {
        fuzz_targets::boot_info(&data);
    }

    #[test]
    fn vboot_manifest(data in vec(any::<u8>(), 0..512)) {
        fuzz_targets::vboot_manifest(&data);
    }
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn driver_serve(data in vec(any::<u8>(), 0..2048)) {
        fuzz_targets::driver_serve(&data);
    }

    #[test]
    fn engine_differential(data in vec(any::<u8>(), 64..128)) {
        fuzz_targets::engine_differential(&data);
    }
}

/// The queue target's indices are the peer's: a region claiming more items than the
/// capacity must come out as Corrupt, not a read past the slots (a fixed input, beside
/// the random ones, so the case is surely reached).
#[test]
fn a_consumer_facing_indices_beyond_its_capacity() {
    let mut region = vec![0u8; 256];
    region[..4].copy_from_slice(&1000u32.to_ne_bytes()); // tail far ahead of head 0
    fuzz_targets::queue_consumer(&region);
}

/// The serving target reaches the engine, not only validation: over inputs of random
/// bytes (a fixed seed), its shaped requests are served with bytes.
#[test]
fn the_serving_target_reaches_the_engine() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut served = 0;
    for _ in 0..50 {
        let data: Vec<u8> = (0..1024)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        served += fuzz_targets::driver_serve(&data);
    }
    assert!(served >= 50, "{served} requests of 800 served with bytes");
}
