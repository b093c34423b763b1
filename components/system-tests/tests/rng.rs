//! The Rng interface in a whole system booted on the host backend: the host's Rng
//! driver PD (the service over the getrandom-fed entropy model) and kat-rng, which
//! fills, reseeds, sends bad requests, then turns the model stuck, biased and erroring
//! through its control region and checks that every fill fails closed, writing nothing,
//! with `health` naming the check that failed, and that fills pass again once the
//! source is good. The client checks every answer itself and exits 0 only when all are
//! right; this test checks the verdict counted each kind and the driver's log and trace
//! kinds said what happened.

mod common;

use common::{field, lines, run_kat};
use pd_trace::Kind;

#[test]
fn host_rng_fills_refuses_fails_closed_and_recovers() {
    let out = run_kat("rng-host.system");
    let verdict = lines(&out, "kat", "verdict");
    let [line] = verdict.as_slice() else {
        panic!("one verdict: {verdict:?}");
    };
    assert!(line.contains("all 12 answers passed"), "{line}");
    // Fill, fill again, recovered plain; out of range, too long; stuck, biased,
    // erroring; two recoveries of the prediction-resistant session (the first good
    // resistant fill counts as a fill).
    for (what, n) in [
        ("fills", 5),
        ("refused", 2),
        ("closed", 3),
        ("recovered", 2),
    ] {
        assert_eq!(field(line, &format!("{what} ")), n, "{what}: {line}");
    }
    assert!(
        line.contains("stuck, biased and erroring source injected"),
        "{line}"
    );
    assert!(
        !lines(&out, "host_rng", "model fed from the host's getrandom").is_empty(),
        "the driver says what its device is"
    );
    // The host model has no detector of its own: the service's tests name the fault.
    let closed: Vec<&str> = lines(&out, "kat", "closed by");
    assert!(closed[0].contains("RepetitionCount"), "{closed:?}");
    assert!(lines(&out, "kat", "FAIL").is_empty());
}

#[test]
fn stm32_rng_through_its_device_pd_fails_closed_by_its_own_detector_and_by_the_service() {
    let _turn = common::serial();
    let system = common::boot("rng-stm32.system");
    let done = system.wait_exit("kat", common::WAIT);
    let out = common::output(&system);
    assert!(done, "{}", common::show(&out, &system.events()));
    // The driver's trace: each fill refused for the source recorded as such, apart from
    // the two bad requests; seven fills answered (a reseed among them).
    let trace = system.trace("rng_trace").expect("the driver keeps a trace");
    assert_eq!(trace.count(Kind::EntropyFailure), 3, "{trace:?}");
    assert_eq!(trace.count(Kind::Refused), 2, "{trace:?}");
    assert_eq!(trace.count(Kind::Filled), 7, "{trace:?}");
    let verdict = lines(&out, "kat", "verdict");
    let [line] = verdict.as_slice() else {
        panic!("one verdict: {verdict:?}");
    };
    assert!(line.contains("all 12 answers passed"), "{line}");
    // Stuck: RNG1's seed-error detector fires first; biased: only the service's
    // proportion test sees it; the clock error: the device's.
    let closed: Vec<&str> = lines(&out, "kat", "closed by");
    assert_eq!(closed.len(), 3, "{closed:?}");
    assert!(
        closed[0].contains("mode 1") && closed[0].contains("DeviceError"),
        "{closed:?}"
    );
    assert!(
        closed[1].contains("mode 2") && closed[1].contains("AdaptiveProportion"),
        "{closed:?}"
    );
    assert!(
        closed[2].contains("mode 3") && closed[2].contains("DeviceError"),
        "{closed:?}"
    );
    assert!(!lines(&out, "stm32_rng", "RNG1 up through its device PD").is_empty());
    assert!(lines(&out, "kat", "FAIL").is_empty());
}
