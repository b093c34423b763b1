//! The Mac interface in a whole system booted on the host backend: the CPU engine's Mac
//! driver PD and the known-answer client, RFC 2202 and RFC 4231 through client -> queue
//! -> driver -> engine, each example as a tag, a verify and a mismatch. The client
//! checks every answer itself and exits 0 only when all are right; this test checks it
//! ran what the vector table holds.

mod common;

use common::{field, lines, run_kat};
use kat_vectors::HMAC;

#[test]
fn cpu_mac_gives_the_published_tags_verifies_and_mismatches() {
    let out = run_kat("mac-cpu.system");
    let n = HMAC.len() as u64;
    let verdict = lines(&out, "kat", "verdict");
    let [line] = verdict.as_slice() else {
        panic!("one verdict: {verdict:?}");
    };
    assert!(
        line.contains(&format!("all {} answers passed", 3 * n)),
        "{line}"
    );
    for way in ["tags", "verified", "mismatches"] {
        assert_eq!(field(line, &format!("{way} ")), n, "{way}: {line}");
    }
    assert!(
        !line.contains("refused at open"),
        "the CPU has them all: {line}"
    );
    assert!(lines(&out, "kat", "FAIL").is_empty());
}
