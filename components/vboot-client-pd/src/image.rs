//! The verified-boot demo image, its signed manifest and the trusted public key: the
//! same files as the host demo's (system/images, made with `tools/vboot-sign`). The
//! image is embedded in the boot loader stand-in (`boot-loader`), which places it in
//! memory as a real boot chain's earlier stage does; the verifier carries only the
//! manifest and the key, as one with a key fused into it would.

/// The demo boot image.
pub const IMAGE: &[u8] = include_bytes!("../../../system/images/demo.img");
/// Bytes of the demo boot image.
pub const IMAGE_LEN: usize = IMAGE.len();
/// Its manifest, signed by the demo key.
pub const MANIFEST: &[u8] = include_bytes!("../../../system/images/demo.manifest");
/// The key the verifier trusts.
pub const TRUSTED_KEY: [u8; 32] = hex32(include_str!("../../../system/images/demo.pub"));
/// The version the manifest gives the image.
pub const IMAGE_VERSION: u32 = 3;
/// The rollback floor the verifier enforces.
pub const ROLLBACK_FLOOR: u32 = 2;

/// The first 64 hex digits of `s` as 32 bytes, at compile time (a bad key file fails the
/// build).
const fn hex32(s: &str) -> [u8; 32] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("demo.pub: not a hex digit"),
        }
    }
    let s = s.as_bytes();
    assert!(s.len() >= 64, "demo.pub: fewer than 64 hex digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = nibble(s[2 * i]) << 4 | nibble(s[2 * i + 1]);
        i += 1;
    }
    out
}
