//! The C library needs nothing from libc at any optimisation level a PD's build may
//! use: at -O3 and -Os a compiler turns loops into `memcpy` and `memset` calls it then
//! expects someone to define, which -O2 alone (what `CLib::build` uses) does not show.
//! Each level is built freestanding into a shared object linked with nothing
//! (`-nostdlib -Wl,-z,defs`): an undefined symbol fails the link.

use std::path::PathBuf;
use std::process::Command;

use crypto_client_c::{CFLAGS, include_dirs, sources};

#[test]
fn the_library_links_with_nothing_at_every_optimisation_level() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("freestanding");
    std::fs::create_dir_all(&dir).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    for level in ["-O0", "-O1", "-O2", "-O3", "-Os"] {
        let out = dir.join(format!("lib{}.so", &level[1..]));
        let mut cmd = Command::new(&cc);
        // The level last: it overrides the library's own -O2.
        cmd.args(CFLAGS)
            .arg(level)
            .args(["-fPIC", "-shared", "-Wl,-z,defs", "-o"])
            .arg(&out);
        for inc in include_dirs() {
            cmd.arg("-I").arg(inc);
        }
        let o = cmd.args(sources()).output().expect("run cc");
        assert!(
            o.status.success(),
            "{level}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
