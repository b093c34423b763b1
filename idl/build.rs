//! Compiles every interface file in this directory into OUT_DIR.

use std::path::PathBuf;

const INTERFACES: [&str; 10] = [
    "common", "power", "cipher", "digest", "mac", "aead", "rng", "regbus", "keys", "serial",
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    for name in INTERFACES {
        let file = format!("{name}.idl");
        println!("cargo::rerun-if-changed={file}");
        let code = idlc::compile_file(file.as_ref()).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(out.join(format!("{name}.rs")), code).expect("write generated code");
    }
}
