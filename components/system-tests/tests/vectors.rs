//! Every engine and path gives the published answers (FIPS-197 C, SP 800-38A F.1/F.2/F.5,
//! FIPS 180-4, RFC 1321) through the full client -> queue -> driver -> engine path, in
//! whole systems booted on the host backend. The clients check every answer themselves
//! and exit 0 only when all match; these tests also check which paths really ran.

mod common;

use common::{field, lines, path_line, run_kat};
use kat_vectors::{FIPS180_4, RFC1321};
use pd_idl::digest::Algorithm;

/// kat-digest's cases (FIPS 180-4's and RFC 1321's) of the algorithms in `offered`.
fn digest_cases(offered: impl Fn(Algorithm) -> bool) -> u64 {
    let fips = FIPS180_4.iter().filter(|v| offered(v.0)).count();
    (fips + RFC1321.len()) as u64
}

/// What SEC1's MDEU-A runs: all but SHA-384 and SHA-512.
fn sec1_offers(a: Algorithm) -> bool {
    !matches!(a, Algorithm::Sha384 | Algorithm::Sha512)
}

/// `path` ran `n` vectors for `client` and every request took `taken` (e.g. "dma=").
fn ran(out: &[(String, String)], path: &str, n: u64, taken: &str) {
    let line = path_line(out, "kat", path).unwrap_or_else(|| panic!("path {path} did not run"));
    assert_eq!(field(line, &format!("{path}: ")), n, "{line}");
    assert_eq!(field(line, taken), n, "{line}");
}

fn all_passed(out: &[(String, String)], what: &str, n: u64) {
    let done = lines(out, "kat", "passed");
    assert!(
        done.iter()
            .any(|l| l.contains(&format!("verdict: all {n} {what} passed"))),
        "{done:?}"
    );
    assert!(lines(out, "kat", "FAIL").is_empty());
}

/// Runs a PIO/DMA engine's kat system: the forced paths each ran all 24 vectors their
/// own way and all 72 answers passed. Returns the Adaptive path's line, whose split
/// between the two is the engine's own.
fn pio_and_dma_ran(system: &str) -> String {
    let out = run_kat(system);
    ran(&out, "Pio", 24, "pio=");
    ran(&out, "Dma", 24, "dma=");
    all_passed(&out, "vectors", 72);
    path_line(&out, "kat", "Adaptive")
        .expect("adaptive ran")
        .to_string()
}

#[test]
fn cpu_cipher_gives_the_published_answers() {
    let out = run_kat("cipher-cpu.system");
    ran(&out, "Cpu", 24, "cpu=");
    ran(&out, "Adaptive", 24, "cpu=");
    all_passed(&out, "vectors", 48);
}

#[test]
fn omap_aes_gives_the_published_answers_on_pio_dma_and_adaptive() {
    let adaptive = pio_and_dma_ran("cipher-omap.system");
    // Below the crossover PIO, the 256-byte ECB case (both ways) by DMA.
    assert_eq!(field(&adaptive, "dma="), 2, "{adaptive}");
    assert_eq!(field(&adaptive, "pio="), 22, "{adaptive}");
}

#[test]
fn stm32_cryp_gives_the_published_answers_on_pio_dma_and_adaptive() {
    let adaptive = pio_and_dma_ran("cipher-stm32.system");
    assert!(field(&adaptive, "dma=") >= 2, "{adaptive}");
}

#[test]
fn cpu_digest_gives_the_published_digests() {
    let out = run_kat("digest-cpu.system");
    let auto = path_line(&out, "kat", "Auto").expect("auto ran");
    let n = digest_cases(|_| true);
    assert_eq!(field(auto, "Auto: "), n, "{auto}");
    all_passed(&out, "digests", n);
    assert!(
        lines(&out, "kat", "refused at open").is_empty(),
        "the CPU has them all"
    );
}

#[test]
fn sec1_gives_the_published_digests_chained_and_copied() {
    let out = run_kat("digest-sec1.system");
    for path in ["Auto", "Chained", "Copy"] {
        let line = path_line(&out, "kat", path).unwrap_or_else(|| panic!("{path} ran"));
        assert_eq!(
            field(line, &format!("{path}: ")),
            digest_cases(sec1_offers),
            "{line}"
        );
    }
    all_passed(&out, "digests", 3 * digest_cases(sec1_offers));
    let refused = lines(&out, "kat", "verdict");
    assert!(
        refused
            .iter()
            .any(|l| l.contains("refused at open: Sha384, Sha512")),
        "{refused:?}"
    );
}
