//! pd-enc as an `openssl enc` user meets it: encryption by default, openssl's own
//! spellings (`-aes-128-cbc -K .. -iv .. -in .. -out .. -nopad`) giving what openssl
//! gives where it is installed, no silent all-zero IV, the input never truncated by
//! naming it as the output, and errors in one style (`pd-enc: NAME: reason`).

use std::process::Command;

use assert_cmd::prelude::*;

mod common;
use common::{Dir, bytes, path_str};

const EXE: &str = env!("CARGO_BIN_EXE_pd-enc");
const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const IV: &str = "000102030405060708090a0b0c0d0e0f";

fn pd_enc(args: &[&str]) -> Command {
    let mut c = Command::new(EXE);
    c.args(args);
    c
}

/// pd-enc in its own spelling, AES-128-CBC, then `extra`.
fn cbc(extra: &[&str]) -> Command {
    let mut c = pd_enc(&["-a", "aes-128-cbc", "--key", KEY, "--iv", IV]);
    c.args(extra);
    c
}

/// pd-enc spelt as openssl enc: AES-128-CBC from file `from` to file `to`.
/// Fails unless the tool exited 1 and its stderr says `why`.
fn fails_saying(o: std::process::Output, why: &str) {
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains(why), "{err}");
}

fn openssl_way(op: &str, from: &std::path::Path, to: &std::path::Path) {
    pd_enc(&[op, "-aes-128-cbc", "-K", KEY, "-iv", IV, "-nopad", "-in"])
        .arg(from)
        .arg("-out")
        .arg(to)
        .assert()
        .success();
}

/// pd-enc with `input` on its standard input, as a user's pipe gives it.
fn piped(args: &[&str], input: &[u8]) -> std::process::Output {
    assert_cmd::Command::new(EXE)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .unwrap()
}

#[test]
fn openssl_spellings_give_what_openssl_gives_and_encrypting_is_the_default() {
    let dir = Dir::new("openssl-habits");
    let input = dir.file("in", &bytes(7, 4096));
    let ours = dir.0.join("ours");
    openssl_way("-e", &input, &ours);
    // The tool's own spelling, without -e: the same bytes.
    let own = cbc(&["-i", path_str(&input)]).output().unwrap();
    assert!(own.status.success());
    let ours = std::fs::read(&ours).unwrap();
    assert_eq!(own.stdout, ours);
    assert_eq!(ours.len(), 4096);
    let openssl = Command::new("openssl")
        .args(["enc", "-aes-128-cbc", "-K", KEY, "-iv", IV, "-nopad", "-in"])
        .arg(&input)
        .output();
    if let Some(o) = openssl.ok().filter(|o| o.status.success()) {
        assert_eq!(o.stdout, ours, "byte-identical to openssl enc");
    }
    // And back, openssl's way.
    let back = dir.0.join("back");
    let ct = dir.0.join("ours");
    openssl_way("-d", &ct, &back);
    assert_eq!(
        std::fs::read(&back).unwrap(),
        std::fs::read(&input).unwrap()
    );
}

#[test]
fn openssl_spelling_without_nopad_is_refused_with_a_hint() {
    let out = piped(&["-aes-128-cbc", "-K", KEY, "-iv", IV], &[0; 16]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("pd-enc never pads; add -nopad"), "{err}");
    // CTR needs no padding, so openssl's spelling needs no -nopad.
    let out = piped(&["-aes-128-ctr", "-K", KEY, "-iv", IV], b"any length");
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 10);
}

#[test]
fn cbc_and_ctr_without_an_iv_are_refused_as_openssl_refuses() {
    for alg in ["aes-128-cbc", "aes-128-ctr"] {
        let out = piped(&["-a", alg, "--key", KEY], &[0; 16]);
        assert_eq!(out.status.code(), Some(1), "{alg}");
        assert!(out.stdout.is_empty(), "{alg}: nothing encrypted");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.starts_with("pd-enc: --iv: "), "{alg}: {err}");
        assert!(err.contains("needs an IV"), "{alg}: {err}");
    }
    // ECB has no IV to forget.
    let out = piped(&["-a", "aes-128-ecb", "--key", KEY], &[0; 16]);
    assert!(out.status.success());
    assert_eq!(out.stdout.len(), 16);
}

#[test]
fn the_input_named_as_the_output_is_refused_and_kept() {
    let dir = Dir::new("openssl-same");
    let data = bytes(3, 64);
    let f = dir.file("f", &data);
    let link = dir.0.join("link");
    std::os::unix::fs::symlink(&f, &link).unwrap();
    for out in [&f, &link] {
        let o = cbc(&["-i", path_str(&f), "-o", path_str(out)])
            .output()
            .unwrap();
        fails_saying(o, "is the input file");
        assert_eq!(std::fs::read(&f).unwrap(), data, "the input is intact");
    }
}

/// One style, coreutils': `pd-enc: NAME: reason`, the reason in strerror's words.
#[test]
fn errors_name_the_file_and_say_why_in_one_style() {
    let dir = Dir::new("openssl-errors");
    let nosuch = dir.0.join("nosuch");
    let o = pd_enc(&["-a", "aes-128-ecb", "--key", KEY, "-i", path_str(&nosuch)])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("pd-enc: {}: No such file or directory\n", path_str(&nosuch))
    );
    // A full disk and a closed standard output are write errors, status 1.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let input = dir.file("in", &[0; 64]);
    let o = pd_enc(&["-a", "aes-128-ecb", "--key", KEY, "-i", path_str(&input)])
        .stdout(full)
        .output()
        .unwrap();
    fails_saying(o, "pd-enc: write error: No space left on device");
    let o = Command::new("sh")
        .args([
            "-c",
            "exec \"$0\" \"$@\" >&-",
            EXE,
            "-a",
            "aes-128-ecb",
            "--key",
            KEY,
        ])
        .args(["-i", path_str(&input)])
        .output()
        .unwrap();
    fails_saying(o, "pd-enc: write error: Bad file descriptor");
}

/// Each tool offers only its own kind of `--path`.
#[test]
fn help_offers_only_cipher_paths() {
    let help = pd_enc(&["--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("[possible values: pio, dma, adaptive, cpu]"),
        "{help}"
    );
    assert!(!help.contains("chained"), "{help}");
    pd_enc(&["-a", "aes-128-ecb", "--key", KEY, "--path", "chained"])
        .assert()
        .code(2);
}
