//! Verified boot as a whole system: the client checks the shipped image against its
//! signed manifest, hashing it through a Digest driver PD: the CPU engine on the host
//! board, the talitos SEC1 on mpc885. (Every way an
//! image can fail is tested on the `vboot` crate and the `vboot-sign` CLI; here the
//! point is the path through the driver.)

mod common;

use common::{lines, run_to_exit};

fn verifies(system: &str) -> Vec<(String, String)> {
    let out = run_to_exit(system, "vboot");
    let verified = lines(&out, "vboot", "boot image verified");
    assert_eq!(verified.len(), 1, "{system}: {out:?}");
    assert!(verified[0].contains("demo-kernel version 3 (floor 2), 39164 bytes"));
    assert!(lines(&out, "vboot", "NOT verified").is_empty());
    out
}

#[test]
fn the_shipped_image_verifies_through_the_cpu_digest_driver() {
    let _turn = common::serial();
    verifies("vboot.system");
}

#[test]
fn the_shipped_image_verifies_through_the_sec1_engine_on_mpc885() {
    let _turn = common::serial();
    let out = verifies("vboot-mpc885.system");
    // The hash really ran on the SEC1: its driver held the engine for the session.
    assert!(!lines(&out, "sec1", "Sec1 acquired").is_empty(), "{out:?}");
}

/// The Digest driver dies with the image's hash request queued (its test build faults
/// on the verifier's first notification) and is restarted by its parent: the verifier,
/// told the request was lost with its session, hashes again in a new session and still
/// reaches its verdict, every check as expected.
#[test]
fn the_verifier_hashes_again_when_its_digest_driver_restarts() {
    let _turn = common::serial();
    let out = verifies("vboot-crash.system");
    assert_eq!(
        lines(&out, "digest_crash", "TEST FAULT").len(),
        1,
        "{out:?}"
    );
    assert_eq!(
        lines(&out, "vboot", "driver restarted; lost request").len(),
        1,
        "{out:?}"
    );
    assert_eq!(lines(&out, "vboot", "4 of 4 checks as expected").len(), 1);
}
