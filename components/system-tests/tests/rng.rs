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
    assert!(lines(&out, "kat", "FAIL").is_empty());
}
