//! The Aead interface in a whole system booted on the host backend: the CPU engine's
//! Aead driver PD and the known-answer client, CAVP's GCM and SP 800-38C's and CAVP's
//! CCM cases through client -> queue -> driver -> engine, each as a seal, an open and a
//! forgery, then 7 opens and 9 requests that must each get their typed error (bad
//! nonce and tag lengths, short and oversized tags, a bad key, AAD and payload past the
//! region or past a request's limit, overlapping segments). The client checks every
//! answer itself (a forged tag's payload is read back after the refusal and must be
//! zeros; a refused request must leave the region as it was) and exits 0 only when all
//! are right; this test checks it ran what the vector tables hold, and that a message
//! sealed under a nonce the driver drew from the host's Rng driver opened again.

mod common;

use common::{field, lines, run_kat};
use kat_vectors::{CCM, GCM};

#[test]
fn cpu_aead_seals_opens_and_refuses_forgeries_as_published() {
    let out = run_kat("aead-cpu.system");
    let all = || GCM.iter().chain(CCM);
    let with_plain = all().filter(|v| v.plain.is_some()).count() as u64;
    let cases = all().count() as u64;
    let verdict = lines(&out, "kat", "verdict");
    let [line] = verdict.as_slice() else {
        panic!("one verdict: {verdict:?}");
    };
    let typed = 7 + 7;
    // The driver-chosen nonce's round trip (EncryptNewNonce, then an open under it).
    let fresh = 1;
    let total = with_plain + cases + with_plain + typed + fresh;
    assert!(
        line.contains(&format!("all {total} answers passed")),
        "{line}"
    );
    assert_eq!(field(line, "sealed "), with_plain, "{line}");
    assert_eq!(field(line, "opened "), cases, "{line}");
    assert_eq!(field(line, "forgeries refused "), with_plain, "{line}");
    assert_eq!(field(line, "refusals typed "), typed, "{line}");
    assert_eq!(field(line, "new nonces "), fresh, "{line}");
    assert!(
        !lines(
            &out,
            "cpu_aead",
            "randomness of its own from the Rng driver"
        )
        .is_empty(),
        "cpu_aead found its Rng driver"
    );
    assert!(
        !line.contains("refused at open"),
        "the CPU has both: {line}"
    );
    assert!(lines(&out, "kat", "FAIL").is_empty());
}
