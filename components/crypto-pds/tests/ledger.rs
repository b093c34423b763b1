//! What the shared ledger and the power manager's log show in whole systems: no CPU copy
//! of client bytes on DMA paths, at most two blocks copied per SEC1 update on the chained
//! path, one power acquire per session burst (not per request), and the crossover each
//! driver calibrated at init within SOURCES.md's range.

mod common;

use common::{field, lines, path_line, run_to_exit};

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

#[test]
fn dma_paths_copy_no_client_bytes_and_omap_crossover_is_8_to_10_blocks() {
    let _turn = common::serial();
    let out = run_to_exit("cipher-omap.system", "kat");
    for path in ["Dma", "Adaptive"] {
        let line = path_line(&out, "kat", path).unwrap();
        assert!(field(line, "dma requests") > 0, "{line}");
        assert_eq!(field(line, "cpu_copy"), 0, "{line}");
    }
    // SOURCES.md (am335x): "Crossover PIO/DMA: about 130-155 B (8-10 blocks)".
    let x = crossover_bytes(&out, "omap_aes");
    assert_eq!(x.len(), 9, "every mode and key size: {x:?}");
    assert!(x.iter().all(|b| (128..=160).contains(b)), "{x:?}");
}

#[test]
fn stm32_dma_copies_no_client_bytes_and_crossover_is_in_costs_range() {
    let _turn = common::serial();
    let out = run_to_exit("cipher-stm32.system", "kat");
    let line = path_line(&out, "kat", "Dma").unwrap();
    assert_eq!(field(line, "dma requests"), 24, "{line}");
    assert_eq!(field(line, "cpu_copy"), 0, "{line}");
    // SOURCES.md (stm32mp1): "Crossover: ~22 B (tcrypt) to ~77-86 B (openssl via AF_ALG)".
    let x = crossover_bytes(&out, "stm32_cryp");
    assert_eq!(x.len(), 9, "{x:?}");
    assert!(x.iter().all(|b| (22..=86).contains(b)), "{x:?}");
}

#[test]
fn sec1_copies_at_most_two_blocks_per_chained_update() {
    let _turn = common::serial();
    let out = run_to_exit("digest-sec1.system", "kat");
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
    let out = run_to_exit("cipher-omap.system", "kat");
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
    let requests = field(&out[end].1, "end:");
    assert_eq!(requests, 32);
    // Across the whole run the engine was ungated once (autosuspend outlasts the gaps
    // between sessions), and no acquire was refused.
    assert_eq!(lines(&out, "power", "resumed true").len(), 1);
    assert!(lines(&out, "power", "refused").is_empty());
}

#[test]
fn autosuspend_gates_the_engine_after_its_delay_not_between_sessions() {
    let _turn = common::serial();
    let system = common::boot("cipher-stm32.system");
    assert!(system.wait_exit("kat", common::WAIT));
    let gated = system.wait_until(common::WAIT, |_, out| {
        out.iter()
            .any(|(p, l)| p == "power" && l.contains("autosuspend gated"))
            .then(|| out.to_vec())
    });
    let out = gated.expect("the timer PD ticks the power manager until CRYP1 is gated");
    let last_release = lines(&out, "power", "power: release");
    let released_at = field(last_release.last().unwrap(), " at ");
    let gate = lines(&out, "power", "autosuspend gated 1 engine(s)");
    assert_eq!(gate.len(), 1, "one power-off for the whole run: {gate:?}");
    let gated_at = field(gate[0], " at ");
    // stm32mp1 CRYP1: 50 ms autosuspend (boards::stm32mp1, as Linux's stm32-cryp); the
    // timer ticks every 10 ms, so the gate falls within a few ticks after the deadline.
    assert!(
        (50..=250).contains(&(gated_at - released_at)),
        "released at {released_at} ms, gated at {gated_at} ms"
    );
    // Sessions followed each other faster than the delay: powered on once.
    assert_eq!(lines(&out, "power", "resumed true").len(), 1);
}
