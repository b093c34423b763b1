//! Host plumbing: a private temporary directory and FIFOs in it, so that a client PD
//! (a separate process that inherits none of the tool's descriptors) can stream the
//! tool's stdin and stdout.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// A directory removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> io::Result<TempDir> {
        let base = std::env::temp_dir();
        for n in 0..1000u32 {
            let p = base.join(format!("pd-tools-{tag}-{}-{n}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::other("no free temporary directory name"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes a FIFO at `path` (mode 0600).
pub fn make(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a valid NUL-terminated path; mkfifo reads it and keeps nothing.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Copies `from` into the FIFO at `path` on a thread (opening a FIFO for writing waits
/// for its reader, the client PD).
pub fn feed(path: PathBuf, mut from: impl Read + Send + 'static) -> JoinHandle<io::Result<u64>> {
    std::thread::spawn(move || {
        let mut f = File::options().write(true).open(path)?;
        io::copy(&mut from, &mut f)
    })
}

/// Copies the FIFO at `path` into `to` on a thread, until its writer closes it.
pub fn drain(path: PathBuf, mut to: impl Write + Send + 'static) -> JoinHandle<io::Result<u64>> {
    std::thread::spawn(move || {
        let mut f = File::open(path)?;
        let n = io::copy(&mut f, &mut to)?;
        to.flush()?;
        Ok(n)
    })
}
