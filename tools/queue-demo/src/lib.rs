//! Two processes sharing a memfd region, the way two protection domains share a memory
//! region on the host backend, with a request and a response queue in it. Used by the
//! `queue-demo` binary and the queue benchmark. Linux only (memfd, mmap).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, Command};

use rustix::fs::{MemfdFlags, ftruncate, memfd_create};
use rustix::mm::{MapFlags, ProtFlags, mmap};
use shm_queue::{CACHE_LINE, SharedRegion};

/// A memfd mapped shared and read-write; stays mapped until the process exits.
pub struct Shared {
    pub fd: OwnedFd,
    pub region: SharedRegion<'static>,
}

impl Shared {
    /// A new zeroed region of `len` bytes, inheritable by children (no CLOEXEC).
    pub fn create(name: &str, len: usize) -> std::io::Result<Self> {
        let fd = memfd_create(name, MemfdFlags::empty())?;
        ftruncate(&fd, len as u64)?;
        Self::map(fd, len)
    }

    /// Maps a region a parent passed down as `fd`.
    ///
    /// # Safety
    /// `fd` must be an inherited descriptor nothing else in this process owns.
    pub unsafe fn inherit(fd: i32, len: usize) -> std::io::Result<Self> {
        // SAFETY: per this function's contract.
        Self::map(unsafe { OwnedFd::from_raw_fd(fd) }, len)
    }

    fn map(fd: OwnedFd, len: usize) -> std::io::Result<Self> {
        // SAFETY: a fresh shared mapping; no Rust reference to it exists and it is never
        // unmapped, so the 'static region stays valid.
        let region = unsafe {
            let ptr = mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )?;
            SharedRegion::from_raw(ptr.cast(), len)
        };
        Ok(Shared { fd, region })
    }

    /// Re-runs this executable with `args`, passing the region's descriptor in `--fd`.
    pub fn spawn_peer(&self, args: &[&str]) -> std::io::Result<Child> {
        Command::new(std::env::current_exe()?)
            .args(args)
            .arg("--fd")
            .arg(self.fd.as_raw_fd().to_string())
            .spawn()
    }
}

/// Offsets of two queues in one region, each starting on a cache line.
pub fn two_queues(first: usize, second: usize) -> (usize, usize, usize) {
    let second_at = first.next_multiple_of(CACHE_LINE);
    (0, second_at, second_at + second)
}
