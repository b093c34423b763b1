//! What the shared ledger and the PDs' traces show in whole systems: no CPU copy
//! of client bytes on DMA paths, at most two blocks copied per SEC1 update on the chained
//! path, one power acquire per session burst (not per request), and the crossover each
//! driver calibrated at init within SOURCES.md's range.

mod common;

use common::{WAIT, args, field, lines, path_line, run_kat, trace, wait_trace};
use pd_idl::digest::Algorithm;
use pd_trace::Kind;

/// The calibrated crossovers (bytes) a driver printed, one per mode and key size.
fn crossover_bytes(out: &[(String, String)], pd: &str) -> Vec<u64> {
    lines(out, pd, "crossover")
        .iter()
        .map(|l| {
            let bytes = l.rsplit_once(" B (").expect("crossover line").0;
            bytes.rsplit(' ').next().unwrap().parse().unwrap()
        })
        .collect()
}

/// `pd` calibrated a crossover for every mode and key size, each within `bytes`.
fn crossovers_within(out: &[(String, String)], pd: &str, bytes: std::ops::RangeInclusive<u64>) {
    let x = crossover_bytes(out, pd);
    assert_eq!(x.len(), 9, "every mode and key size: {x:?}");
    assert!(x.iter().all(|b| bytes.contains(b)), "{x:?}");
}

#[test]
fn dma_paths_copy_no_client_bytes_and_omap_crossover_is_8_to_10_blocks() {
    let out = run_kat("cipher-omap.system");
    for path in ["Dma", "Adaptive"] {
        let line = path_line(&out, "kat", path).unwrap();
        assert!(field(line, "dma requests") > 0, "{line}");
        assert_eq!(field(line, "cpu_copy"), 0, "{line}");
    }
    // SOURCES.md (am335x): "Crossover PIO/DMA: about 130-155 B (8-10 blocks)".
    crossovers_within(&out, "omap_aes", 128..=160);
}

#[test]
fn stm32_dma_copies_no_client_bytes_and_crossover_is_in_costs_range() {
    let out = run_kat("cipher-stm32.system");
    let line = path_line(&out, "kat", "Dma").unwrap();
    assert_eq!(field(line, "dma requests"), 24, "{line}");
    assert_eq!(field(line, "cpu_copy"), 0, "{line}");
    // SOURCES.md (stm32mp1): "Crossover: ~22 B (tcrypt) to ~77-86 B (openssl via AF_ALG)".
    crossovers_within(&out, "stm32_cryp", 22..=86);
}

#[test]
fn sec1_copies_at_most_two_blocks_per_chained_update() {
    let out = run_kat("digest-sec1.system");
    let chained = path_line(&out, "kat", "Chained").unwrap();
    let auto = path_line(&out, "kat", "Auto").unwrap();
    let copy = path_line(&out, "kat", "Copy").unwrap();
    for line in [chained, auto] {
        // Every update is one segment; SHA-1's million in 4000-byte updates leaves a
        // partial block each time: the worst case for copying.
        assert!(field(line, "updates") >= 250, "{line}");
        assert!(field(line, "max_update_copy") <= 2 * 64, "{line}");
        // Whole-block updates (SHA-256's million in 4096-byte updates) copy one block:
        // the one kept so that the final has data to pad (SEC1 cannot pad an empty
        // message; upstream talitos keeps it too). Never the update's bulk.
        let whole = field(line, "whole-block updates");
        assert!(whole >= 245, "{line}");
        assert!(field(line, "whole_copy") <= 64 * whole, "{line}");
    }
    // The copy strategy (before the talitos chaining change) copies whole updates: the difference is real.
    assert!(field(copy, "max_update_copy") > 2 * 64, "{copy}");
    assert!(
        field(copy, "cpu_copy") > 10 * field(chained, "cpu_copy"),
        "{copy} / {chained}"
    );
}

#[test]
fn one_power_acquire_per_session_burst_not_per_request() {
    let _turn = common::serial();
    let system = common::boot("cipher-omap.system");
    assert!(system.wait_exit("kat", common::WAIT));
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
    // The client's burst of 32 requests on one session, bracketed by its own lines:
    // the power manager logged one acquire and one release between them (the order of
    // lines is the one thing the counters below cannot show).
    let begin = out
        .iter()
        .position(|(p, l)| p == "kat" && l.contains("burst begin"))
        .expect("burst ran");
    let end = out
        .iter()
        .position(|(p, l)| p == "kat" && l.contains("burst end"))
        .expect("burst ended");
    let burst = &out[begin..end];
    let acquires = lines(burst, "power", "power: acquire").len();
    let releases = lines(burst, "power", "power: release").len();
    assert_eq!((acquires, releases), (1, 1), "{burst:#?}");
    assert_eq!(field(&out[end].1, "end:"), 32);

    let (driver, power) = (trace(&system, "omap_trace"), trace(&system, "power_trace"));
    // The driver takes its grant at a first open and gives it back at the last close
    // (the client opens a session per vector, one after another: a grant each), and the
    // manager granted each; autosuspend outlasts the gaps, so the engine was ungated
    // once for the whole run.
    // (One grant more: the driver's self-test.)
    let grants = driver.count(Kind::PowerAcquire);
    let opened = driver.count(Kind::SessionOpened);
    assert!(grants >= 2 && grants <= 1 + opened, "{driver:?}");
    assert_eq!(driver.count(Kind::PowerRelease), grants, "{driver:?}");
    assert_eq!(power.count(Kind::Granted), grants, "{power:?}");
    assert_eq!(power.count(Kind::TakenBack), grants, "{power:?}");
    assert_eq!(power.count(Kind::PowerOn), 1, "{power:?}");
    assert_eq!(power.count(Kind::Refused), 0, "{power:?}");
}

/// An open the engine must refuse (kat-digest asks SEC1 for SHA-384 and SHA-512, which
/// its MDEU-A lacks) is refused before the driver takes power: it costs no grant, so
/// the grants still number at most one per session opened, plus the self-test's.
#[test]
fn an_open_the_engine_refuses_takes_no_power_grant() {
    let _turn = common::serial();
    let system = common::boot("digest-sec1.system");
    assert!(system.wait_exit("kat", common::WAIT));
    let out = system.output("kat");
    assert!(out.iter().any(|l| l.contains("verdict: all")), "{out:#?}");
    let (driver, power) = (trace(&system, "sec1_trace"), trace(&system, "power_trace"));
    let grants = driver.count(Kind::PowerAcquire);
    let opened = driver.count(Kind::SessionOpened);
    let refused = kat_vectors::FIPS180_4
        .iter()
        .filter(|v| matches!(v.0, Algorithm::Sha384 | Algorithm::Sha512))
        .count();
    assert!(refused > 0, "the client asks for what SEC1 lacks");
    assert!(opened > 0 && grants <= 1 + opened, "{driver:?}");
    assert_eq!(power.count(Kind::Granted), grants, "{power:?}");
}

#[test]
fn autosuspend_gates_the_engine_after_its_delay_not_between_sessions() {
    let _turn = common::serial();
    let system = common::boot("cipher-stm32.system");
    assert!(system.wait_exit("kat", common::WAIT));
    let (gated, power) = wait_trace(&system, "power_trace", common::WAIT, |t| {
        t.count(Kind::Gated) > 0
    });
    assert!(
        gated,
        "the timer PD ticks the power manager until CRYP1 is gated: {power:?}"
    );
    let power = power.unwrap();
    let released_at = *args(&power, Kind::TakenBack).last().unwrap();
    let gate = args(&power, Kind::Gated);
    assert_eq!(gate.len(), 1, "one power-off for the whole run: {power:?}");
    // stm32mp1 CRYP1: 50 ms autosuspend (board::stm32mp1, as Linux's stm32-cryp); the
    // timer ticks every 10 ms, so the gate falls within a few ticks after the deadline.
    assert!(
        (50..=250).contains(&(gate[0] - released_at)),
        "released at {released_at} ms, gated at {} ms",
        gate[0]
    );
    // Sessions followed each other faster than the delay: powered on once.
    assert_eq!(power.count(Kind::PowerOn), 1, "{power:?}");
}
