//! The test harness of crypto-pd's C client library (`include/crypto_pd/*.h`,
//! `src/*.c` beside this file): freestanding C11, as libmicrokit PDs are built, over the
//! C headers idlc generates (`idl/include/crypto_pd/`).
//!
//! * `queue.h`: shm-queue's layout, signalling protocol and hostile-peer checks.
//! * `call.h`: `crypto_pd_invoke`, which every generated call stub hands its op's
//!   descriptor and arguments to (the one encoder and decoder of the call encoding),
//!   and a transport over `microkit_ppcall` (with `-DCRYPTO_PD_MICROKIT`, against a
//!   `microkit.h`).
//!
//! [`CLib::build`] compiles the library (and any test C files) with the system's `cc`
//! into a shared object linked with nothing (`-nostdlib -Wl,-z,defs`: a reference to
//! libc, such as a `memcpy` the compiler made up, fails the build) and loads it, so that
//! tests call the C on memory the Rust side shares. The project has no `cc` crate, so
//! this is the system compiler called directly, as idlc's header test does.
//!
//! * `console.h`: a PD's lines into its console queue for the serial driver PD, Rust's
//!   `pd_runtime::console::ConsoleWriter` in C.
//! * `link.h`: the client's link over its queue pair, Rust's `crypto_client::Link` in C
//!   (the client's incarnation announced and carried in request ids, the response
//!   signal re-armed at attach, a driver restart's lost requests reported).
//!
//! The seL4 build of the same sources against a Microkit SDK's libmicrokit is the
//! Makefile's `c-pds` (run by `make image`).

use std::ffi::{CString, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags a freestanding PD's objects are built with, and warnings as errors.
pub const CFLAGS: &[&str] = &[
    "-std=c11",
    "-ffreestanding",
    "-nostdlib",
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-pedantic",
];

/// This crate's directory.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The include directories a C client needs: the library's and idlc's headers.
pub fn include_dirs() -> [PathBuf; 2] {
    [root().join("include"), root().join("../../idl/include")]
}

/// The library's C sources.
pub fn sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("src"))
        .expect("src/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

/// The library, built and loaded.
pub struct CLib {
    handle: *mut c_void,
}

impl CLib {
    /// Compiles the library and `extra` C files into `out` (a shared object) and loads
    /// it; the compiler's diagnostics if it fails.
    pub fn build(out: &Path, extra: &[PathBuf]) -> Result<CLib, String> {
        let mut cmd = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
        cmd.args(CFLAGS)
            .args(["-fPIC", "-shared", "-Wl,-z,defs", "-o"])
            .arg(out);
        for dir in include_dirs() {
            cmd.arg("-I").arg(dir);
        }
        cmd.args(sources()).args(extra);
        let o = cmd.output().map_err(|e| format!("running cc: {e}"))?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        let path = CString::new(out.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: a library we just built, whose initialisers are none (freestanding C
        // with no constructors).
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!("dlopen {}", out.display()));
        }
        Ok(CLib { handle })
    }

    /// The address of symbol `name`, as a function pointer type `F`.
    ///
    /// # Safety
    /// `F` must be an `extern "C" fn` type matching the C declaration.
    pub unsafe fn sym<F: Copy>(&self, name: &str) -> F {
        assert_eq!(size_of::<F>(), size_of::<*mut c_void>());
        let c = CString::new(name).expect("symbol name");
        // SAFETY: a live handle; the symbol is looked up, not called.
        let p = unsafe { libc::dlsym(self.handle, c.as_ptr()) };
        assert!(!p.is_null(), "no symbol {name} in the C library");
        // SAFETY: the caller vouches that F matches; a pointer-sized function pointer.
        unsafe { core::mem::transmute_copy(&p) }
    }
}
