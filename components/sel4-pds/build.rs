//! Signs the verified-boot demo image (`src/vboot_image.rs`) with the published test
//! key, as `tools/vboot-sign` would, and writes the encoded manifest and the public key
//! into OUT_DIR for `vboot-client-pd` to `include_bytes!`. Signing at build time keeps
//! the secret seed out of every PD image.
use ed25519_dalek::{Signer, SigningKey};
use sha2::{Digest, Sha256};

#[allow(dead_code)]
mod demo {
    include!("src/vboot_image.rs");
}
use demo::*;

fn main() {
    println!("cargo:rerun-if-changed=src/vboot_image.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let image: Vec<u8> = (0..IMAGE_LEN).map(image_byte).collect();
    let sha256: [u8; 32] = Sha256::digest(&image).into();
    let body = vboot::ManifestBody::new(IMAGE_NAME, IMAGE_LEN as u64, sha256, IMAGE_VERSION);
    let key = SigningKey::from_bytes(&TEST_SEED);
    let signature = key.sign(&body.encode()).to_bytes();
    let manifest = vboot::Manifest { body, signature }.encode();
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    std::fs::write(out.join("vboot_manifest.bin"), manifest).unwrap();
    std::fs::write(out.join("vboot_pubkey.bin"), key.verifying_key().to_bytes()).unwrap();
}
