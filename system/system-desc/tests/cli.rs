//! `system-check` exits 0 with a summary on good files, non-zero with every error on bad.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn system_check(files: &[PathBuf]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_system-check"))
        .args(files)
        .output()
        .expect("system-check runs")
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: memory region 'spare'"),
        "{stderr}"
    );
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

fn temp(name: &str, xml: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
    std::fs::write(&p, xml).unwrap();
    p
}

/// A truncated file is located where it ends, once per line of output.
#[test]
fn a_truncated_file_is_located_at_its_end_once() {
    let p = temp(
        "trunc.system",
        "<system>\n  <protection_domain name=\"a\" priority=\"1\">\n    <program_image path=\"x.elf\" />\n",
    );
    let out = system_check(std::slice::from_ref(&p));
    let _ = std::fs::remove_file(&p);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("trunc.system:3:35: error: the file ends before the root element is closed"),
        "{err}"
    );
    let p = temp("dup.system", "<system>\n <a b=\"1\" b=\"2\"/>\n</system>\n");
    let out = system_check(std::slice::from_ref(&p));
    let _ = std::fs::remove_file(&p);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dup.system:2:11: error: attribute 'b' is already defined\n"),
        "{err}"
    );
}

/// With --bin-dir, a program image with no binary there is a warning, not "ok" alone.
#[test]
fn a_missing_program_image_is_a_warning_with_bin_dir() {
    let p = temp(
        "nobin.system",
        "<system>\n <protection_domain name=\"a\" priority=\"1\">\n  <program_image path=\"nope.elf\" />\n </protection_domain>\n</system>\n",
    );
    let dir = std::env::temp_dir();
    let out = Command::new(env!("CARGO_BIN_EXE_system-check"))
        .arg("--bin-dir")
        .arg(&dir)
        .arg(&p)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&p);
    assert!(out.status.success(), "a warning does not fail the check");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nobin.system:3:3: warning: PD 'a': program image nope.elf is not in"),
        "{err}"
    );
}
