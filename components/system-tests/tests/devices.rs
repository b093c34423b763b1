//! The drivers as they run under QEMU, where there is no OMAP, STM32 or talitos silicon:
//! each engine, its DMA and the clock controller are a device PD's model, reached by
//! RegBus calls and raising interrupts as notifications (system/device-*.system). The
//! same driver and power manager binaries as on the host's in-PD models give the
//! published answers on every path, with the same ledger facts.

mod common;

use common::{field, lines, path_line, run_to_exit, trace};
use pd_trace::Kind;

fn verdict<'a>(out: &'a [(String, String)], what: &str) -> &'a str {
    let v = lines(out, "kat", "verdict: ");
    assert_eq!(v.len(), 1, "{out:?}");
    assert!(v[0].contains(what), "{}", v[0]);
    assert!(lines(out, "kat", "FAIL").is_empty());
    v[0]
}

#[test]
fn omap_aes_through_its_device_pd_gives_the_published_answers_on_every_path() {
    let _turn = common::serial();
    let system = common::boot("device-omap.system");
    assert!(system.wait_exit("kat", common::WAIT));
    let out = system
        .wait_until(common::WAIT, |_, o| Some(o.to_vec()))
        .unwrap();
    let v = verdict(&out, "all 72 vectors passed");
    // The caller's segments went to the engine by DMA: the CPU copied none of them.
    assert!(v.contains("Dma 24 (0 B CPU-copied)"), "{v}");
    assert!(path_line(&out, "kat", "Pio").is_some());
    // The interrupts came from the device PD, on the driver's device channel (20).
    let driver = trace(&system, "omap_trace");
    assert!(driver.count(Kind::Interrupt) > 0, "{driver:?}");
    let ring = driver.ring.iter().flatten();
    assert!(
        ring.filter(|e| e.kind == Kind::Interrupt)
            .all(|e| e.arg == 20)
    );
    // The power manager gated and ungated through the device PD's clock window.
    let power = trace(&system, "power_trace");
    assert_eq!(power.count(Kind::PowerOn), 1, "{power:?}");
    assert_eq!(power.count(Kind::Refused), 0, "{power:?}");
}

#[test]
fn stm32_cryp_through_its_device_pd_gives_the_published_answers_on_every_path() {
    let _turn = common::serial();
    let out = run_to_exit("device-stm32.system", "kat");
    let v = verdict(&out, "all 72 vectors passed");
    assert!(v.contains("Dma 24 (0 B CPU-copied)"), "{v}");
}

#[test]
fn sec1_through_its_device_pd_chains_and_copies_at_most_two_blocks_per_update() {
    let _turn = common::serial();
    let out = run_to_exit("device-sec1.system", "kat");
    verdict(&out, "all 57 digests passed");
    // The talitos chaining change: at most two blocks (2 x 64 B) copied per update; the
    // copy path (before it) copies whole updates.
    let chained = path_line(&out, "kat", "Chained").expect("the chained path ran");
    assert!(field(chained, "max_update_copy") <= 2 * 64, "{chained}");
    let copy = path_line(&out, "kat", "Copy").expect("the copy path ran");
    assert!(field(copy, "max_update_copy") > 2 * 64, "{copy}");
}

/// A device PD serves each side only its own windows: the driver the engine and DMA,
/// the power manager the clock controller; a gated engine answers `Gated`; a window the
/// board lacks, an offset past a window and one not word-aligned are refused with their
/// errors.
#[test]
fn a_device_pd_serves_each_caller_only_its_own_windows() {
    let _turn = common::serial();
    let out = run_to_exit("device-prober.system", "prober");
    assert_eq!(lines(&out, "prober", "as owed").len(), 9, "{out:?}");
    assert!(lines(&out, "prober", "WRONG").is_empty(), "{out:?}");
}
