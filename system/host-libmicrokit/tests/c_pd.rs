//! C PDs built with the system's `cc` against this crate's `microkit.h` and static
//! library, booted under host-runner: two written to the Microkit manual and nothing
//! else (`tests/c/ping.c`, `pong.c`: a protected call, a shared region by setvar,
//! notifications both ways; ping's verdict is its own computation, the sum pong
//! returned and the notifications pong counted), and a C client of the Cipher (the CPU
//! engine's, and OMAP AES on its device PD) and Digest driver PDs over crypto-pd's C
//! library (crypto-client-c's
//! `pd/kat_c.c`, which the seL4 image runs too: SP
//! 800-38A F.2.1 and FIPS 180-4's "abc", checked against the published answers).

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

/// `source` (and `extra` sources, `-I` `includes`) built into the PD binary `out`, as a
/// Microkit PD is (freestanding C11, warnings as errors), with libmicrokit's defaults
/// and the static library.
fn build_pd(source: &Path, extra: &[PathBuf], includes: &[PathBuf], lib: &Path, out: &Path) {
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args([
        "-std=c11",
        "-ffreestanding",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
    ])
    .arg("-I")
    .arg(root().join("include"));
    for dir in includes {
        cc.arg("-I").arg(dir);
    }
    let o = cc
        .arg(source)
        .args(extra)
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

/// A directory of PD binaries for one test.
fn bin_dir(name: &str) -> PathBuf {
    let bins = std::env::temp_dir().join(format!("host-libmicrokit-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&bins).unwrap();
    bins
}

/// Boots `system` (in tests/c) for `seconds` with the binaries in `bins`; everything
/// the runner printed.
fn boot(system: &str, bins: &Path, seconds: &str) -> String {
    let runner = profile_dir().join("host-runner");
    assert!(
        runner.exists(),
        "host-runner is built (make test builds the bins first)"
    );
    let out = Command::new(runner)
        .arg("--bin-dir")
        .arg(bins)
        .args(["--seconds", seconds])
        .arg(root().join("tests/c").join(system))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(bins);
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn c_pds_written_to_the_microkit_manual_run_on_the_host() {
    let lib = static_lib();
    let bins = bin_dir("ping-pong");
    for pd in ["ping", "pong"] {
        build_pd(
            &root().join(format!("tests/c/{pd}.c")),
            &[],
            &[],
            &lib,
            &bins.join(format!("c-{pd}")),
        );
    }
    let text = boot("ping-pong.system", &bins, "1");
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

#[test]
fn a_c_client_gets_published_answers_from_the_cipher_and_digest_drivers() {
    let lib = static_lib();
    let c_lib = root().join("../../components/crypto-client-c");
    // The CPU engine's Cipher driver, then OMAP AES on its device PD (its power manager
    // the driver's parent), each beside the CPU engine's Digest driver.
    for (system, drivers, seconds) in [
        ("kat-c.system", &["cpu-cipher", "cpu-digest"][..], "1"),
        (
            "kat-c-omap.system",
            &["omap-aes", "pm-am335x", "dev-am335x", "cpu-digest"][..],
            "2",
        ),
    ] {
        let bins = bin_dir(system);
        build_pd(
            &c_lib.join("pd/kat_c.c"),
            &[
                c_lib.join("src/queue.c"),
                c_lib.join("src/call.c"),
                c_lib.join("src/link.c"),
                c_lib.join("src/console.c"),
            ],
            &[c_lib.join("include"), root().join("../../idl/include")],
            &lib,
            &bins.join("kat-c"),
        );
        // The drivers are the workspace's own host PDs.
        for driver in drivers {
            let built = profile_dir().join(driver);
            assert!(
                built.exists(),
                "{driver} is built (make test builds the bins first)"
            );
            std::os::unix::fs::symlink(built, bins.join(driver)).unwrap();
        }
        let text = boot(system, &bins, seconds);
        for want in [
            "[kat_c] kat_c: pass: SP 800-38A F.2.1 CBC-AES128.Encrypt",
            "[kat_c] kat_c: pass: FIPS 180-4 SHA-256(\"abc\")",
            "[kat_c] kat_c: verdict: PASS: 2 published answers through the drivers",
        ] {
            assert!(text.contains(want), "{system}: {want}\n{text}");
        }
        assert!(!text.contains("FAIL"), "{system}: {text}");
    }
}
