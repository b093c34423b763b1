//! The generated code for the project's interfaces, compared with checked-in copies, so
//! any change to what the compiler emits is seen in review. `UPDATE_GOLDEN=1 cargo test -p
//! idlc` rewrites the copies. They are `tests/golden/*.golden`: expected output (Rust
//! text), data for this test, not code any crate compiles.

use std::path::Path;

fn check(name: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = root.join("../../idl").join(format!("{name}.idl"));
    let golden = root.join("tests/golden").join(format!("{name}.golden"));
    let code = idlc::compile_file(&source).unwrap_or_else(|e| panic!("{e}"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &code).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", golden.display()));
    assert!(
        code == want,
        "{name}.idl generates different code from {}; review and run with UPDATE_GOLDEN=1",
        golden.display()
    );
}

#[test]
fn common() {
    check("common");
}

#[test]
fn power() {
    check("power");
}

#[test]
fn cipher() {
    check("cipher");
}

#[test]
fn digest() {
    check("digest");
}

#[test]
fn mac() {
    check("mac");
}

#[test]
fn rng() {
    check("rng");
}

#[test]
fn keys() {
    check("keys");
}
