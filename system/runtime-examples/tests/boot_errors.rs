//! A system that cannot boot says why, naming the file, line or PD, within seconds.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use host_runner::{BootError, Options, System};

/// Writes `xml` to a file of its own in the temp directory.
fn system_file(name: &str, xml: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("{}-{name}", std::process::id()));
    std::fs::write(&path, xml).expect("temp file");
    path
}

fn one_pd(image: &str) -> String {
    format!(
        r#"<system>
    <protection_domain name="lonely" priority="1">
        <program_image path="{image}" />
    </protection_domain>
</system>"#
    )
}

fn boot_err(path: &PathBuf, opts: Options) -> BootError {
    let result = System::boot(path, opts);
    let _ = std::fs::remove_file(path);
    match result {
        Ok(_) => panic!("{} booted", path.display()),
        Err(e) => e,
    }
}

/// Fails unless the error's message contains every one of `parts`.
fn assert_says(e: &BootError, parts: &[&str]) {
    let text = e.to_string();
    for part in parts {
        assert!(text.contains(part), "{part:?} in {text}");
    }
}

#[test]
fn bad_system_file_is_refused_with_its_line() {
    let xml = "<system>\n  <protection_domain name=\"a\" priority=\"1\">\n    \
               <program_image path=\"ex-pong.elf\" />\n    \
               <map mr=\"nowhere\" vaddr=\"0x1000000\" />\n  </protection_domain>\n</system>\n";
    let path = system_file("bad.system", xml);
    let e = boot_err(&path, Options::default());
    let BootError::Desc(errors) = &e else {
        panic!("{e}");
    };
    assert_eq!(errors.len(), 1, "{e}");
    assert_eq!(errors[0].loc.line, 4, "{e}");
    assert_says(&e, &["bad.system:4:", "nowhere"]);
}

#[test]
fn missing_binary_names_the_pd_and_the_path() {
    let path = system_file("missing.system", &one_pd("no-such-pd.elf"));
    let e = boot_err(&path, Options::default());
    assert!(
        matches!(&e, BootError::MissingBinaries(m) if m.len() == 1 && m[0].0 == "lonely"),
        "{e}"
    );
    assert_says(&e, &["PD lonely", "no-such-pd"]);
}

#[test]
fn pd_that_never_finishes_init_is_named_within_the_deadline() {
    let path = system_file("hang.system", &one_pd("ex-init-hang.elf"));
    let start = Instant::now();
    let e = boot_err(
        &path,
        Options {
            init_timeout: Duration::from_millis(500),
            ..Options::default()
        },
    );
    assert!(
        matches!(&e, BootError::InitTimeout { pd, .. } if pd == "lonely"),
        "{e}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_says(&e, &["PD lonely did not finish init"]);
}

#[test]
fn pd_that_faults_in_init_is_named_with_its_cause() {
    let path = system_file("panic.system", &one_pd("ex-init-panic.elf"));
    let e = boot_err(&path, Options::default());
    assert!(
        matches!(&e, BootError::InitFault { pd, .. } if pd == "lonely"),
        "{e}"
    );
    assert_says(&e, &["PD lonely faulted during init: panicked"]);
}

/// A PD started with a boot descriptor that is not open (by hand, or a stale number)
/// ends with the typed cannot-boot status 70 and says why, never an abort (SIGABRT,
/// "IO Safety violation").
#[test]
fn a_boot_descriptor_that_is_not_open_is_the_cannot_boot_status() {
    for fd in ["57", "-1", "x"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ex-pong"))
            .env("PD_BOOT_FD", fd)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(70), "PD_BOOT_FD={fd}: {stderr}");
        assert!(stderr.contains("cannot boot"), "PD_BOOT_FD={fd}: {stderr}");
    }
}
