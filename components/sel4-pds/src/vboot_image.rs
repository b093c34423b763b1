// Shared by build.rs (which signs the image) and the vboot client PD (which writes the
// same bytes into its image region at run time): one definition, so the two cannot
// drift. No dependencies, so build.rs can `include!` it.

/// Bytes of the demo boot image.
pub const IMAGE_LEN: usize = 48 * 1024 + 37;
/// The demo image's name and version in its manifest.
pub const IMAGE_NAME: &str = "demo-kernel";
pub const IMAGE_VERSION: u32 = 3;
/// The rollback floor the verifier enforces.
pub const ROLLBACK_FLOOR: u32 = 2;
/// The Ed25519 secret seed of the demo signing key. A published test key: it signs the
/// demo image at build time only; the PD image holds the public key and the manifest.
pub const TEST_SEED: [u8; 32] = *b"crypto-pd vboot demo test key!!!";

/// Byte `i` of the demo image (xorshift32 of `i`, a pattern with no long runs, so a
/// digest over a wrong offset or a dropped segment cannot match by accident).
pub const fn image_byte(i: usize) -> u8 {
    let mut x = (i as u32).wrapping_mul(0x9e37_79b9) ^ 0x5bd1_e995;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    (x >> 24) as u8
}
