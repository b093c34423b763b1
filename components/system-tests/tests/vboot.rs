//! Verified boot as a whole system: the client checks the shipped image against its
//! signed manifest, hashing it through a Digest driver PD: the CPU engine on the host
//! board, the talitos SEC1 on mpc885. (Every way an
//! image can fail is tested on the `vboot` crate and the `vboot-sign` CLI; here the
//! point is the path through the driver.)

mod common;

use common::{lines, run_to_exit};

fn verifies(system: &str) -> Vec<(String, String)> {
    verifies_at(system, 2)
}

fn verifies_at(system: &str, floor: u32) -> Vec<(String, String)> {
    let out = run_to_exit(system, "vboot");
    let verified = lines(&out, "vboot", "boot image verified");
    assert_eq!(verified.len(), 1, "{system}: {out:?}");
    let says = format!("demo-kernel version 3 (floor {floor}), 39164 bytes");
    assert!(verified[0].contains(&says), "{verified:?}");
    assert!(lines(&out, "vboot", "NOT verified").is_empty());
    out
}

#[test]
fn the_shipped_image_verifies_through_the_cpu_digest_driver() {
    let _turn = common::serial();
    verifies("vboot.system");
}

/// The key and floor from the key store (a provisioned, verify-only key), not the
/// verifier's image: its floor of 3 is the store's.
#[test]
fn the_verifier_takes_its_key_and_floor_from_the_key_store() {
    let _turn = common::serial();
    let out = verifies_at("vboot-keys.system", 3);
    assert_eq!(
        lines(&out, "vboot", "trusted key and floor 3: KeyStore").len(),
        1,
        "{out:?}"
    );
}

/// A store whose provisioned key signed nothing: the genuine manifest is refused (the
/// key built into the verifier, which would pass, is not used), and the verdict fails.
#[test]
fn a_wrong_key_in_the_store_fails_verified_boot_closed() {
    let _turn = common::serial();
    let system = common::boot("vboot-wrong-key.system");
    use host_runner::{Cause, Event};
    // Its failed verdict is exit status 1, which the runner sees as a fault.
    let failed = system.wait_until(common::WAIT, |events, _| {
        events
            .iter()
            .any(|e| matches!(e, Event::Faulted { pd, cause: Cause::Exit(1) } if pd == "vboot"))
            .then_some(())
    });
    let out = common::output(&system);
    assert!(failed.is_some(), "{}", common::show(&out, &system.events()));
    let refused = lines(&out, "vboot", "genuine manifest refused");
    assert!(
        refused.len() == 1 && refused[0].contains("signature"),
        "{out:?}"
    );
    assert!(lines(&out, "vboot", "boot image verified").is_empty());
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
