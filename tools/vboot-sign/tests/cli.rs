//! The signer and the host-side verifier: a good image verifies; a flipped bit, a
//! truncated image, one with bytes after it, a wrong key, a corrupted manifest and a
//! rollback each fail with their own reason.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::Dir;

fn tool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vboot-sign"))
        .args(args)
        .output()
        .expect("run vboot-sign")
}

/// Fails unless the tool failed and its stderr says `why`.
fn fails_saying(out: &Output, why: &str) {
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(why), "{err}");
}

fn keygen(d: &Dir, name: &str) -> (String, String) {
    let (s, p) = (
        d.path(&format!("{name}.key")),
        d.path(&format!("{name}.pub")),
    );
    assert!(
        tool(&["keygen", "--secret", &s, "--public", &p])
            .status
            .success()
    );
    (s, p)
}

fn verify(public: &str, floor: u32, image: &str, manifest: &str) -> Result<String, String> {
    let out = tool(&[
        "verify",
        "--public",
        public,
        "--floor",
        &floor.to_string(),
        "--image",
        image,
        "--manifest",
        manifest,
    ]);
    let text = String::from_utf8_lossy(if out.status.success() {
        &out.stdout
    } else {
        &out.stderr
    })
    .into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

fn setup(d: &Dir) -> (String, String, String, String) {
    let (secret, public) = keygen(d, "k");
    let image = d.path("image.bin");
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
    std::fs::write(&image, &data).unwrap();
    let manifest = d.path("image.manifest");
    let out = tool(&[
        "sign",
        "--secret",
        &secret,
        "--name",
        "kernel",
        "--version",
        "5",
        "--image",
        &image,
        "--manifest",
        &manifest,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (secret, public, image, manifest)
}

#[test]
fn a_good_image_verifies() {
    let d = Dir::new("good");
    let (_, public, image, manifest) = setup(&d);
    let ok = verify(&public, 5, &image, &manifest).unwrap();
    assert!(
        ok.contains("verified (kernel, version 5, floor 5, 10000 bytes)"),
        "{ok}"
    );
    assert_eq!(
        std::fs::metadata(&manifest).unwrap().len() as usize,
        vboot::MANIFEST_LEN
    );
}

#[test]
fn each_failure_has_its_reason() {
    let d = Dir::new("bad");
    let (_, public, image, manifest) = setup(&d);
    let data = std::fs::read(&image).unwrap();

    let mut flipped = data.clone();
    flipped[4321] ^= 0x10;
    std::fs::write(d.path("flipped.bin"), &flipped).unwrap();
    assert!(
        verify(&public, 0, &d.path("flipped.bin"), &manifest)
            .unwrap_err()
            .contains("digest mismatch")
    );

    std::fs::write(d.path("short.bin"), &data[..9999]).unwrap();
    let e = verify(&public, 0, &d.path("short.bin"), &manifest).unwrap_err();
    assert!(
        e.contains("truncated image: 9999 bytes, manifest says 10000"),
        "{e}"
    );

    // A signed image with anything after it is not the signed image.
    let mut long = data.clone();
    long.push(0);
    std::fs::write(d.path("long.bin"), &long).unwrap();
    let e = verify(&public, 0, &d.path("long.bin"), &manifest).unwrap_err();
    assert!(
        e.contains("trailing data: 10001 bytes, manifest signs 10000"),
        "{e}"
    );

    let (_, other) = keygen(&d, "other");
    assert!(
        verify(&other, 0, &image, &manifest)
            .unwrap_err()
            .contains("bad signature")
    );

    let mut m = std::fs::read(&manifest).unwrap();
    m[50] ^= 1; // inside the signed body (the digest): decodes, but the signature fails
    std::fs::write(d.path("tampered.manifest"), &m).unwrap();
    assert!(
        verify(&public, 0, &image, &d.path("tampered.manifest"))
            .unwrap_err()
            .contains("bad signature")
    );
    m.truncate(m.len() - 1);
    std::fs::write(d.path("short.manifest"), &m).unwrap();
    assert!(
        verify(&public, 0, &image, &d.path("short.manifest"))
            .unwrap_err()
            .contains("corrupt manifest")
    );
    let mut m = std::fs::read(&manifest).unwrap();
    m[0] = b'X'; // magic
    std::fs::write(d.path("magic.manifest"), &m).unwrap();
    assert!(
        verify(&public, 0, &image, &d.path("magic.manifest"))
            .unwrap_err()
            .contains("corrupt manifest")
    );

    let e = verify(&public, 6, &image, &manifest).unwrap_err();
    assert!(
        e.contains("rollback: version 5 is below the floor 6"),
        "{e}"
    );
}

#[test]
fn bad_keys_and_names_are_refused() {
    let d = Dir::new("keys");
    let (_, _, image, manifest) = setup(&d);
    std::fs::write(d.path("junk.pub"), "not hex at all").unwrap();
    assert!(
        verify(&d.path("junk.pub"), 0, &image, &manifest)
            .unwrap_err()
            .contains("not a key")
    );
    let (secret, _) = keygen(&d, "n");
    let long = "x".repeat(33);
    let out = tool(&[
        "sign",
        "--secret",
        &secret,
        "--name",
        &long,
        "--version",
        "1",
        "--image",
        &image,
        "--manifest",
        &d.path("m"),
    ]);
    assert!(!out.status.success());
    assert!(!Path::new(&d.path("m")).exists());
}

#[test]
fn the_shipped_demo_image_matches_its_manifest() {
    // The verified-boot client PD embeds these files. The signing key is not in the
    // repository: if the image changes, make a key of your own (`vboot-sign keygen
    // --secret ~/demo.key --public system/images/demo.pub --force`) and re-sign
    // (`vboot-sign sign --secret ~/demo.key --name demo-kernel --version 3 --image
    // system/images/demo.img --manifest system/images/demo.manifest`).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../system/images");
    let p = |f: &str| dir.join(f).to_string_lossy().into_owned();
    let ok = verify(&p("demo.pub"), 2, &p("demo.img"), &p("demo.manifest")).unwrap();
    assert!(ok.contains("verified (demo-kernel, version 3"), "{ok}");
}

#[test]
fn each_key_is_refused_where_the_other_kind_is_needed() {
    let d = Dir::new("kinds");
    let (secret, public) = keygen(&d, "k");
    std::fs::write(d.path("img"), b"an image").unwrap();
    let sign = |key: &str| {
        tool(&[
            "sign",
            "--secret",
            key,
            "--name",
            "n",
            "--version",
            "1",
            "--image",
            &d.path("img"),
            "--manifest",
            &d.path("m"),
        ])
    };
    let out = sign(&public);
    fails_saying(&out, "this is a public key; signing needs the secret key");
    assert!(
        !Path::new(&d.path("m")).exists(),
        "no manifest from a public key"
    );
    assert!(sign(&secret).status.success());
    let err = verify(&secret, 0, &d.path("img"), &d.path("m")).unwrap_err();
    assert!(
        err.contains("this is a secret key; verifying needs the public key"),
        "{err}"
    );
    assert!(verify(&public, 0, &d.path("img"), &d.path("m")).is_ok());
}

#[test]
fn secret_keys_are_private_and_never_silently_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let d = Dir::new("keygen");
    let (secret, public) = keygen(&d, "k");
    let mode = |p: &str| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode(&secret),
        0o600,
        "the secret is readable by its owner only"
    );
    assert_eq!(mode(&public), 0o644);
    let before = std::fs::read_to_string(&secret).unwrap();
    let again = tool(&["keygen", "--secret", &secret, "--public", &public]);
    fails_saying(&again, "File exists (keygen --force replaces it)");
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        before,
        "untouched"
    );
    // Replacing is asked for, and a world-readable file left in the way becomes private.
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let forced = tool(&[
        "keygen", "--secret", &secret, "--public", &public, "--force",
    ]);
    assert!(forced.status.success());
    assert_ne!(
        std::fs::read_to_string(&secret).unwrap(),
        before,
        "a new key"
    );
    assert_eq!(mode(&secret), 0o600);
}
