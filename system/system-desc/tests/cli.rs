//! `system-check` exits 0 with a summary on good files, non-zero with every error on bad.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn system_check(files: &[PathBuf]) -> Output {
    system_check_with(&[], files)
}

fn system_check_with(flags: &[&std::ffi::OsStr], files: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_system-check"))
        .args(flags)
        .args(files)
        .output()
        .expect("system-check runs")
}

/// Fails unless `stream` (the check's stdout or stderr) contains `needle`.
fn assert_shows(stream: &[u8], needle: &str) {
    let text = String::from_utf8_lossy(stream);
    assert!(text.contains(needle), "{needle:?} in:\n{text}");
}

#[test]
fn good_files_pass_with_one_summary_line_each() {
    let out = system_check(&[fixture("ping-pong.system"), fixture("full.system")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].contains("ping-pong.system: ok: 2 protection domains"),
        "{stdout}"
    );
    assert!(
        lines[1].contains("4 protection domains (2 children)"),
        "{stdout}"
    );
    // full.system's unused region is a warning, not a failure.
    assert_shows(&out.stderr, "warning: memory region 'spare'");
}

#[test]
fn a_bad_file_fails_and_lists_every_error() {
    let bad = fixture("bad.system");
    let out = system_check(&[fixture("ping-pong.system"), bad.clone()]);
    assert!(!out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let shown = bad.display().to_string();
    for line in [4, 6, 13] {
        let at = format!("{shown}:{line}:");
        assert!(stderr.contains(&at), "no error at {at} in:\n{stderr}");
    }
    assert!(stderr.contains("3 errors"), "{stderr}");
}

#[test]
fn a_missing_file_fails() {
    let out = system_check(&[fixture("no-such.system")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

/// Checks `xml` written to a temp file of its own (removed after), with `flags` first.
fn check_text(name: &str, xml: &str, flags: &[&std::ffi::OsStr]) -> Output {
    let p = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
    std::fs::write(&p, xml).unwrap();
    let out = system_check_with(flags, std::slice::from_ref(&p));
    let _ = std::fs::remove_file(&p);
    out
}

/// A truncated file is located where it ends, once per line of output.
#[test]
fn a_truncated_file_is_located_at_its_end_once() {
    let out = check_text(
        "trunc.system",
        "<system>\n  <protection_domain name=\"a\" priority=\"1\">\n    <program_image path=\"x.elf\" />\n",
        &[],
    );
    assert!(!out.status.success());
    assert_shows(
        &out.stderr,
        "trunc.system:3:35: error: the file ends before the root element is closed",
    );
    let out = check_text(
        "dup.system",
        "<system>\n <a b=\"1\" b=\"2\"/>\n</system>\n",
        &[],
    );
    assert_shows(
        &out.stderr,
        "dup.system:2:11: error: attribute 'b' is already defined\n",
    );
}

/// With --bin-dir, a program image with no binary there is a warning, not "ok" alone.
#[test]
fn a_missing_program_image_is_a_warning_with_bin_dir() {
    let dir = std::env::temp_dir();
    let out = check_text(
        "nobin.system",
        "<system>\n <protection_domain name=\"a\" priority=\"1\">\n  <program_image path=\"nope.elf\" />\n </protection_domain>\n</system>\n",
        &["--bin-dir".as_ref(), dir.as_os_str()],
    );
    assert!(out.status.success(), "a warning does not fail the check");
    assert_shows(
        &out.stderr,
        "nobin.system:3:3: warning: PD 'a': program image nope.elf is not in",
    );
}
