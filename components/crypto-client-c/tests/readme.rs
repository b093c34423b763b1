//! The README's C client block ("Add crypto-pd to your Microkit or sDDF system")
//! compiles, freestanding and warnings as errors, against the generated headers and the
//! library's: with a stand-in `microkit.h` (tests/microkit/) here, and with a Microkit
//! SDK's own header for qemu_virt_aarch64 as well when `MICROKIT_SDK` names one (and
//! `aarch64-linux-gnu-gcc` is there), so the README cannot drift from the API.

use std::path::{Path, PathBuf};
use std::process::Command;

use crypto_client_c::{CFLAGS, include_dirs, root};

/// The first ```c block after the README's section on adding crypto-pd.
fn readme_c() -> String {
    let readme = std::fs::read_to_string(root().join("../../README.md")).unwrap();
    let section = readme
        .split("## Add crypto-pd to your Microkit or sDDF system")
        .nth(1)
        .expect("the README has the section");
    let block = section.split("```c\n").nth(1).expect("a C block in it");
    block.split("\n```").next().unwrap().to_string()
}

/// Compiles `source` with `microkit` as a system include directory and `extra` flags
/// after the library's own.
fn compile(cc: &str, microkit: &Path, source: &Path, extra: &[&str]) -> Result<(), String> {
    let mut cmd = Command::new(cc);
    cmd.args(CFLAGS)
        .args(extra)
        .arg("-DCRYPTO_PD_MICROKIT")
        .arg("-isystem")
        .arg(microkit);
    for dir in include_dirs() {
        cmd.arg("-I").arg(dir);
    }
    let out = source.with_extension("o");
    let o = cmd
        .arg("-c")
        .arg(source)
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("{cc}: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

#[test]
fn the_readme_c_client_compiles() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-c");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("client.c");
    let code = readme_c();
    assert!(code.contains("cipher_open_session"), "{code}");
    std::fs::write(&source, &code).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let stand_in = root().join("tests/microkit");
    compile(&cc, &stand_in, &source, &[]).unwrap_or_else(|e| panic!("{e}"));
    if let Some(sdk) = std::env::var_os("MICROKIT_SDK") {
        let include = Path::new(&sdk).join("board/qemu_virt_aarch64/debug/include");
        let cross = "aarch64-linux-gnu-gcc";
        if include.is_dir() && Command::new(cross).arg("--version").output().is_ok() {
            // As the SDK's example PDs are built: GNU C (seL4's headers use `asm` and
            // are not -pedantic clean).
            let gnu = ["-std=gnu11", "-Wno-pedantic"];
            compile(cross, &include, &source, &gnu).unwrap_or_else(|e| panic!("SDK: {e}"));
        }
    }
}
