//! The Makefile's package lists come from each package's `[package.metadata.crypto-pd]`
//! (tools/packages.py): every package whose library is `no_std` must be in `no-std`
//! (or be a PD package, whose PD builds cover it), and every package with a PD binary
//! (`protection_domain!`) in `sel4-test-client` or `host-pds`, so that no crate is left out of
//! the aarch64 builds by forgetting a key.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The list `key` as the Makefile sees it.
fn list(key: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let meta = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root())
        .output()
        .expect("cargo metadata");
    assert!(meta.status.success());
    let mut py = Command::new("python3")
        .arg(root().join("tools/packages.py"))
        .arg(key)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    py.stdin.take().unwrap().write_all(&meta.stdout).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "packages.py {key}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .filter(|w| *w != "-p")
        .map(String::from)
        .collect()
}

/// Each workspace member: (package name, folder).
fn members() -> Vec<(String, PathBuf)> {
    let top = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let start = top.find("members = [").expect("a members list");
    let end = start + top[start..].find(']').unwrap();
    top[start..end]
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .map(|dir| {
            let manifest = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|n| n.split('"').next())
                .expect("a package name")
                .to_string();
            (name, root().join(dir))
        })
        .collect()
}

fn sources(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect()
}

#[test]
fn every_no_std_library_and_every_pd_package_is_in_a_list() {
    let (no_std, sel4, host) = (list("no-std"), list("sel4-test-client"), list("host-pds"));
    let mut missing = Vec::new();
    for (name, dir) in members() {
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap_or_default();
        let is_no_std = lib.lines().any(|l| {
            l.starts_with("#![no_std]") || l.starts_with("#![cfg_attr(not(test), no_std)]")
        });
        let has_pd = sources(&dir.join("src/bin"))
            .iter()
            .any(|s| s.contains("protection_domain!("));
        if has_pd && !sel4.contains(&name) && !host.contains(&name) {
            missing.push(format!(
                "{name}: has PD binaries, in neither sel4-test-client nor host-pds"
            ));
        }
        if is_no_std && !has_pd && !no_std.contains(&name) {
            missing.push(format!("{name}: a no_std library, not in no-std"));
        }
    }
    assert!(missing.is_empty(), "{missing:#?}");
    assert!(no_std.contains("driver-pd") && sel4.contains("omap-aes-pd"));
}
