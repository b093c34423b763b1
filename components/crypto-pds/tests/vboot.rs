//! Verified boot as a whole system: the client checks the shipped image against its
//! signed manifest, hashing it through the CPU engine's Digest driver PD. (Every way an
//! image can fail is tested on the `vboot` crate and the `vboot-sign` CLI; here the
//! point is the path through the driver.)

mod common;

use common::{lines, run_to_exit};

#[test]
fn the_shipped_image_verifies_through_the_digest_driver() {
    let out = run_to_exit("vboot.system", "vboot");
    let verified = lines(&out, "vboot", "boot image verified");
    assert_eq!(verified.len(), 1, "{out:?}");
    assert!(verified[0].contains("demo-kernel version 3 (floor 2), 39164 bytes"));
    assert!(lines(&out, "vboot", "NOT verified").is_empty());
}
