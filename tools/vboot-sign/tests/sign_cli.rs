//! What a user of `vboot-sign` meets at the prompt: an existing manifest is not
//! replaced without --force, and verify says which rollback floor it applied, which
//! it is always told.

use std::path::Path;

use assert_cmd::Command;

mod common;
use common::Dir;

fn vboot_sign() -> Command {
    Command::cargo_bin("vboot-sign").unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A key pair and an image in `d`: (secret, public, image).
fn key_and_image(d: &Dir) -> (String, String, String) {
    let (secret, public, image) = (d.path("k.key"), d.path("k.pub"), d.path("img"));
    vboot_sign()
        .args(["keygen", "--secret", &secret, "--public", &public])
        .assert()
        .success();
    std::fs::write(&image, b"an image of some bytes").unwrap();
    (secret, public, image)
}

fn sign(secret: &str, version: &str, image: &str, manifest: &str) -> Command {
    let mut c = vboot_sign();
    c.args(["sign", "--secret", secret, "--name", "demo", "--version"])
        .args([version, "--image", image, "--manifest", manifest]);
    c
}

/// A key pair and image in `d`, the image signed as `version` into `m`: (secret,
/// public, image, manifest).
fn signed(d: &Dir, version: &str) -> (String, String, String, String) {
    let (secret, public, image) = key_and_image(d);
    let manifest = d.path("m");
    sign(&secret, version, &image, &manifest).assert().success();
    (secret, public, image, manifest)
}

#[test]
fn sign_refuses_to_replace_a_manifest_without_force() {
    let d = Dir::new("sign");
    let (secret, public, image, manifest) = signed(&d, "3");
    let signed = std::fs::read(&manifest).unwrap();

    let out = sign(&secret, "1", &image, &manifest).assert().code(1);
    let err = text(&out.get_output().stderr);
    assert_eq!(
        err,
        format!("vboot-sign: {manifest}: File exists (sign --force replaces it)\n")
    );
    assert!(out.get_output().stdout.is_empty());
    assert_eq!(
        std::fs::read(&manifest).unwrap(),
        signed,
        "the version 3 manifest is untouched"
    );

    sign(&secret, "1", &image, &manifest)
        .arg("--force")
        .assert()
        .success();
    let out = vboot_sign()
        .args([
            "verify", "--public", &public, "--floor", "0", "--image", &image,
        ])
        .args(["--manifest", &manifest])
        .assert()
        .success();
    assert!(
        text(&out.get_output().stdout).contains("version 1, floor 0,"),
        "replaced with --force: {}",
        text(&out.get_output().stdout)
    );
}

#[test]
fn sign_into_a_missing_directory_says_why_in_strerror_words() {
    let d = Dir::new("nodir");
    let (secret, _, image) = key_and_image(&d);
    let manifest = d.path("no/such/dir/m");
    let out = sign(&secret, "1", &image, &manifest).assert().code(1);
    assert_eq!(
        text(&out.get_output().stderr),
        format!("vboot-sign: {manifest}: No such file or directory\n")
    );
    assert!(!Path::new(&manifest).exists());
}

#[test]
fn verify_needs_a_floor_and_says_which_it_applied() {
    let d = Dir::new("floor");
    let (_, public, image, manifest) = signed(&d, "4");

    let help = vboot_sign().args(["verify", "--help"]).assert().success();
    let help = text(&help.get_output().stdout);
    assert!(help.contains("--floor <VERSION>"), "{help}");
    assert!(help.contains("rollback floor"), "{help}");

    // No floor given: refused (exit 2, clap's usage error), nothing verified.
    let out = vboot_sign()
        .args(["verify", "--public", &public, "--image", &image])
        .args(["--manifest", &manifest])
        .assert()
        .code(2);
    let err = text(&out.get_output().stderr);
    assert!(err.contains("--floor <VERSION>"), "{err}");
    assert!(out.get_output().stdout.is_empty());

    let verify = |floor: &str| {
        let mut c = vboot_sign();
        c.args(["verify", "--public", &public, "--floor", floor])
            .args(["--image", &image, "--manifest", &manifest]);
        c
    };
    let ok = verify("4").assert().success();
    assert_eq!(
        text(&ok.get_output().stdout),
        format!("{image}: verified (demo, version 4, floor 4, 22 bytes)\n")
    );
    let refused = verify("5").assert().code(1);
    assert_eq!(
        text(&refused.get_output().stderr),
        format!("vboot-sign: {image}: not verified: rollback: version 4 is below the floor 5\n")
    );
}
