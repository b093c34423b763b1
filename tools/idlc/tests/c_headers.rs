//! The C headers idlc generates, committed in `idl/include/crypto_pd/` so that a C
//! protection domain (a Microkit Makefile, an sDDF build) uses them without running
//! cargo, and so that any change in them is seen in review. This test fails when a
//! committed header differs from what idlc makes of its `.idl` file now (`UPDATE_GOLDEN=1
//! cargo test -p idlc --test c_headers` rewrites them), and compiles every header with
//! the system's C compiler as libmicrokit PDs are built (`-std=c11 -ffreestanding
//! -nostdlib`), so that each `_Static_assert` of a size, alignment or offset is checked
//! against the C compiler's own layout. pd-idl's `c_headers` test checks the same numbers
//! against rustc's layout of the Rust types.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn include_dir() -> PathBuf {
    root().join("idl/include/crypto_pd")
}

/// Every interface file's stem, in name order.
fn interfaces() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("idl"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().ok()?;
            Some(name.strip_suffix(".idl")?.to_string())
        })
        .collect();
    names.sort();
    assert!(names.len() >= 5, "interface files found: {names:?}");
    names
}

/// Each header idlc makes now, one per interface (`wire.h`, which they include, is
/// written by hand).
fn generated() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in interfaces() {
        let file = root().join("idl").join(format!("{name}.idl"));
        let header = idlc::compile_c_file(&file).unwrap_or_else(|e| panic!("{e}"));
        out.push((format!("{name}.h"), header));
    }
    out
}

#[test]
fn committed_headers_are_what_idlc_generates() {
    let dir = include_dir();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    for (name, header) in generated() {
        let path = dir.join(&name);
        if update {
            std::fs::write(&path, &header).unwrap();
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
        assert!(
            committed == header,
            "{} differs from what idlc generates; review and run with UPDATE_GOLDEN=1",
            path.display()
        );
    }
}

/// Compiles `source` (a C file) freestanding, warnings as errors; the compiler's
/// diagnostics on failure.
fn cc(source: &Path, out: &Path) -> Result<(), String> {
    let o = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args([
            "-std=c11",
            "-ffreestanding",
            "-nostdlib",
            "-Wall",
            "-Wextra",
        ])
        .args(["-Werror", "-pedantic", "-c", "-o"])
        .arg(out)
        .arg("-I")
        .arg(include_dir())
        .arg(source)
        .output()
        .expect("run the system C compiler (cc)");
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// A C file including every generated header and calling nothing: each header's
/// asserts are checked, and the headers together declare nothing twice.
fn includes_all(dir: &Path, include: &Path) -> PathBuf {
    let mut text = format!("#include \"{}\"\n", include.join("wire.h").display());
    for (name, _) in generated() {
        text.push_str(&format!("#include \"{}\"\n", include.join(name).display()));
    }
    text.push_str("int crypto_pd_headers_compiled;\n");
    let file = dir.join("all.c");
    std::fs::write(&file, text).unwrap();
    file
}

/// A fresh directory for one test's files (under the target directory's tmp).
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("c_headers-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn headers_compile_freestanding_with_their_asserts() {
    let dir = scratch("compile");
    let file = includes_all(&dir, &include_dir());
    cc(&file, &dir.join("all.o")).unwrap_or_else(|e| panic!("{e}"));
}

/// A header whose stated offset is not what the C compiler lays out fails to compile:
/// the asserts bite (here, the Cipher request's segments moved by 4 bytes).
#[test]
fn a_wrong_layout_fails_to_compile() {
    let dir = scratch("wrong");
    for (name, header) in generated() {
        let header = if name == "cipher.h" {
            let right = "offsetof(cipher_request_t, segs) == 16";
            assert!(
                header.contains(right),
                "cipher.h states the segments' offset"
            );
            header.replace(right, "offsetof(cipher_request_t, segs) == 20")
        } else {
            header
        };
        std::fs::write(dir.join(name), header).unwrap();
    }
    std::fs::write(dir.join("wire.h"), idlc::c_wire_header()).unwrap();
    let file = includes_all(&dir, &dir);
    let e = cc(&file, &dir.join("all.o")).expect_err("a wrong offset must not compile");
    assert!(e.contains("cipher_request_t, segs"), "{e}");
}
