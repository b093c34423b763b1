//! On seL4 (`target_os = "none"`), links every binary that uses pd-runtime with
//! `microkit.ld`. `cargo:rustc-link-arg` would reach only this package's own targets;
//! a native library does reach every binary that links this crate, so the script is
//! passed as one: `-l:microkit.ld`, which the linker (rust-lld) reads as a linker
//! script because it is not an object or archive (the same as `-T`).
fn main() {
    println!("cargo:rerun-if-changed=microkit.ld");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("none") {
        let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("ld");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::copy("microkit.ld", out.join("microkit.ld")).unwrap();
        println!("cargo:rustc-link-search=native={}", out.display());
        println!("cargo:rustc-link-lib=dylib:+verbatim=microkit.ld");
    }
}
