//! pd-dgst as a sha256sum user meets it: the same inputs given to `sha256sum` itself
//! and to `pd-dgst -a sha256`, and the same exit status, standard output and standard
//! error (the tool's name aside) asked of both: `-c` over several checksum files, BSD
//! and GNU lines, comments, improper lines, `--strict`, `--quiet`, `--status`, `--warn`,
//! `--ignore-missing`, `--tag`; and write errors. Each case's exit status is also
//! written here, so the cases still check pd-dgst where sha256sum is not installed.

use std::path::Path;
use std::process::{Command, Output};

use assert_cmd::prelude::*;

mod common;
use common::Dir;

const EXE: &str = env!("CARGO_BIN_EXE_pd-dgst");

/// The digests of the files every case sees, in the case's directory.
fn files(dir: &Dir) {
    dir.file("a.txt", b"hello\n");
    dir.file("b.txt", b"world\n");
    dir.file("c.txt", b"");
}

fn sha256(dir: &Path, file: &str) -> String {
    let out = Command::new(EXE)
        .args(["-a", "sha256", file])
        .current_dir(dir)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    text.split(' ').next().unwrap().to_string()
}

fn has_sha256sum() -> bool {
    Command::new("sha256sum").arg("--version").output().is_ok()
}

/// Runs `pd-dgst -a sha256 ARGS` and, where installed, `sha256sum ARGS` in `dir`; checks
/// the exit status is `rc` and, against sha256sum, all three of status and streams.
fn same_as_sha256sum(dir: &Path, args: &[&str], rc: i32) -> Output {
    let ours = Command::new(EXE)
        .args(["-a", "sha256"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        ours.status.code(),
        Some(rc),
        "{args:?}: {}",
        String::from_utf8_lossy(&ours.stderr)
    );
    if has_sha256sum() {
        let theirs = Command::new("sha256sum")
            .args(args)
            .current_dir(dir)
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert_eq!(ours.status.code(), theirs.status.code(), "{args:?}: status");
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "{args:?}: stdout"
        );
        assert_eq!(
            String::from_utf8_lossy(&ours.stderr),
            String::from_utf8_lossy(&theirs.stderr).replace("sha256sum: ", "pd-dgst: "),
            "{args:?}: stderr"
        );
    }
    ours
}

/// Checksum files of every kind a user has, from what sha256sum (or pd-dgst) wrote and
/// what people edit by hand.
fn lists(dir: &Dir) {
    let a = sha256(&dir.0, "a.txt");
    let b = sha256(&dir.0, "b.txt");
    let bad_b = format!("0{}", &b[1..]);
    let write = |name: &str, text: String| {
        dir.file(name, text.as_bytes());
    };
    write("good.sha", format!("{a}  a.txt\n"));
    write("bad.sha", format!("{bad_b}  b.txt\n"));
    write("short.sha", "deadbeef  a.txt\n".into());
    write("a.md5", "b1946ac92492d2347c6235b4d2611184  a.txt\n".into());
    write(
        "tag.sha",
        format!("SHA256 (a.txt) = {a}\nSHA256 (b.txt) = {b}\n"),
    );
    write(
        "mixed.sha",
        format!("# made by hand\n{a}  a.txt\ngarbage line\n\n"),
    );
    write("one.sha", format!("{a} a.txt\n{b} b.txt\n"));
    write("mixsp.sha", format!("{a}  a.txt\n{b} b.txt\n"));
    write("miss.sha", format!("{a}  a.txt\n{a}  missing.txt\n"));
    write("allmiss.sha", format!("{a}  missing.txt\n"));
    write(
        "odd.sha",
        format!("  {a}  a.txt\r\n{}  b.txt\n{a} *a.txt\n", b.to_uppercase()),
    );
    write("comments.sha", "# nothing here\n".into());
}

#[test]
fn check_mode_reads_every_file_and_every_kind_of_line_as_sha256sum_does() {
    let dir = Dir::new("coreutils-check");
    files(&dir);
    lists(&dir);
    let cases: &[(&[&str], i32)] = &[
        // Every checksum file given is checked, and any failure fails the run.
        (&["-c", "good.sha", "bad.sha"], 1),
        (&["-c", "good.sha", "nosuch"], 1),
        (&["-c", "good.sha", "tag.sha"], 0),
        // Single-blank lines after a two-blank one, even in an earlier file, are
        // improper: coreutils decides the kind once per run.
        (&["-c", "good.sha", "one.sha"], 1),
        (&["-c", "one.sha", "tag.sha"], 0),
        // A digest of the wrong length is an improper line, not a mismatch.
        (&["-c", "short.sha"], 1),
        (&["-c", "a.md5"], 1),
        // Comments skipped, improper lines warned about, --strict and --warn.
        (&["-c", "mixed.sha"], 0),
        (&["-c", "--strict", "mixed.sha"], 1),
        (&["-c", "-w", "mixed.sha"], 0),
        (&["-c", "comments.sha"], 1),
        (&["-c", "mixsp.sha"], 0),
        (&["-c", "odd.sha"], 0),
        // Missing files: reported, or ignored on request.
        (&["-c", "miss.sha"], 1),
        (&["-c", "--ignore-missing", "miss.sha"], 0),
        (&["-c", "--ignore-missing", "allmiss.sha"], 1),
        // --quiet and --status, and the last of --warn/--quiet/--status wins.
        (&["-c", "--quiet", "good.sha", "bad.sha"], 1),
        (&["-c", "--status", "good.sha", "bad.sha"], 1),
        (&["-c", "--status", "miss.sha"], 1),
        (&["-c", "--warn", "--strict", "--quiet", "mixed.sha"], 1),
    ];
    for (args, rc) in cases {
        same_as_sha256sum(&dir.0, args, *rc);
    }
}

#[test]
fn tag_output_and_a_checksum_list_on_stdin_match_sha256sum() {
    let dir = Dir::new("coreutils-tag");
    files(&dir);
    let out = same_as_sha256sum(&dir.0, &["--tag", "a.txt", "c.txt"], 0);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("SHA256 (a.txt) = "), "{text}");
    // The BSD lines check as they were written, read from standard input too.
    assert_cmd::Command::new(EXE)
        .args(["-a", "sha256", "-c", "-"])
        .current_dir(&dir.0)
        .write_stdin(text)
        .assert()
        .success()
        .stdout("a.txt: OK\nc.txt: OK\n");
    assert_cmd::Command::new(EXE)
        .args(["-a", "sha256", "-c", "-"])
        .current_dir(&dir.0)
        .write_stdin("deadbeef  a.txt\n")
        .assert()
        .code(1)
        .stderr("pd-dgst: 'standard input': no properly formatted checksum lines found\n");
}

/// A write error ends the run with `write error`, status 1, never a panic (status 101)
/// nor a silent success; sha256sum fails the same way.
#[test]
fn write_errors_fail_the_run_as_coreutils_does() {
    let dir = Dir::new("coreutils-write");
    files(&dir);
    for (tool, args) in [
        (EXE, vec!["-a", "sha256", "a.txt"]),
        ("sha256sum", vec!["a.txt"]),
    ] {
        if tool == "sha256sum" && !has_sha256sum() {
            continue;
        }
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(tool)
            .args(&args)
            .current_dir(&dir.0)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{tool} > /dev/full");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(": write error"), "{tool} > /dev/full: {err}");
        // Standard output closed (`>&-`): Rust's runtime puts /dev/null there, which
        // must not pass for success.
        let out = Command::new("sh")
            .args(["-c", "exec \"$0\" \"$@\" >&-", tool])
            .args(&args)
            .current_dir(&dir.0)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{tool} >&-");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(": write error: Bad file descriptor"),
            "{tool} >&-: {err}"
        );
    }
    // With nothing to write, a closed standard output is no error (--status).
    let a = sha256(&dir.0, "a.txt");
    dir.file("good.sha", format!("{a}  a.txt\n").as_bytes());
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" -a sha256 -c --status good.sha >&-", EXE])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// Options that make no sense together are refused before anything boots.
#[test]
fn verify_only_options_need_check_and_tag_refuses_it() {
    for args in [
        &["-a", "sha256", "--status", "x"][..],
        &["-a", "sha256", "--tag", "-c", "x"][..],
        &["-a", "sha256", "--path", "dma", "x"][..],
    ] {
        Command::new(EXE).args(args).assert().code(2);
    }
    let help = Command::new(EXE).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("[possible values: chained, copy, auto]"),
        "{help}"
    );
    assert!(!help.contains("adaptive"), "no cipher path offered: {help}");
}
