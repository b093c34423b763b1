//! C PDs written to the Microkit manual and nothing else (`tests/c/ping.c`, `pong.c`:
//! a protected call, a shared region by setvar, notifications both ways), built with the
//! system's `cc` against this crate's `microkit.h` and static library, booted under
//! host-runner from `tests/c/ping-pong.system`: ping's verdict is its own computation
//! (the sum pong returned, the notifications pong counted), printed through
//! `microkit_dbg_puts`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Cargo's output directory for this profile (this test is `<dir>/deps/<test>`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// The static library, built if it is not (a `--bins` build leaves it out).
fn static_lib() -> PathBuf {
    let lib = profile_dir().join("libhost_libmicrokit.a");
    if !lib.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "host-libmicrokit"])
            .status()
            .unwrap();
        assert!(status.success(), "building host-libmicrokit");
    }
    lib
}

/// `source` built into the PD binary `out`, as a Microkit PD is (freestanding C11,
/// warnings as errors), with libmicrokit's defaults and the static library.
fn build_pd(source: &Path, lib: &Path, out: &Path) {
    let o = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args([
            "-std=c11",
            "-ffreestanding",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
        ])
        .arg("-I")
        .arg(root().join("include"))
        .arg(source)
        .arg(root().join("c/defaults.c"))
        .arg(lib)
        // Exported, so that the library's `dlsym` finds the setvar globals; and what
        // Rust's standard library needs of the system.
        .args([
            "-rdynamic",
            "-lpthread",
            "-ldl",
            "-lm",
            "-lrt",
            "-lutil",
            "-lgcc_s",
        ])
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cc {}: {}",
        source.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn c_pds_written_to_the_microkit_manual_run_on_the_host() {
    let lib = static_lib();
    let bins = std::env::temp_dir().join(format!("host-libmicrokit-{}", std::process::id()));
    std::fs::create_dir_all(&bins).unwrap();
    for pd in ["ping", "pong"] {
        build_pd(
            &root().join(format!("tests/c/{pd}.c")),
            &lib,
            &bins.join(format!("c-{pd}")),
        );
    }
    let runner = profile_dir().join("host-runner");
    assert!(
        runner.exists(),
        "host-runner is built (make test builds the bins first)"
    );
    let out = Command::new(runner)
        .arg("--bin-dir")
        .arg(&bins)
        .args(["--seconds", "1"])
        .arg(root().join("tests/c/ping-pong.system"))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_dir_all(&bins);
    assert!(text.contains("[pong] pong: ready"), "{text}");
    // The call: pong read the ten bytes ping wrote through the region setvar'd into
    // both, and answered in the message registers.
    assert!(text.contains("[ping] ping: pong summed 55"), "{text}");
    // Three notifications each way, and the second call's count of them.
    assert!(
        text.contains("[ping] ping: PASS: notifications each way: 3"),
        "{text}"
    );
    assert!(!text.contains("FAIL"), "{text}");
}
