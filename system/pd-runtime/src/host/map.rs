//! Reading boot information and mapping what it names.

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use rustix::mm::{MapFlags, ProtFlags, mmap};

use super::boot::{BOOT_FD_ENV, BootInfo, PERM_R, PERM_W, PERM_X};

/// Takes ownership of an inherited descriptor named in the boot information.
///
/// Only called for numbers the runner made inheritable for this PD, once each.
pub(super) fn inherited(fd: i32) -> Result<OwnedFd, String> {
    if fd < 0 {
        return Err(format!("bad descriptor {fd} in boot info"));
    }
    // Owning a descriptor that is not open makes std abort the process when it is
    // closed ("IO Safety violation"): a PD started by hand, or with a stale number,
    // must end with the typed cannot-boot status instead.
    // SAFETY: F_GETFD reads the descriptor's flags and touches no memory.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
        return Err(format!(
            "descriptor {fd} is not open: run this PD with host-runner"
        ));
    }
    // SAFETY: the runner left exactly the descriptors named in the boot information open
    // in this process, and nothing else in the PD owns them; each is taken once (the
    // callers deduplicate).
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Reads and decodes the boot information memfd named by `PD_BOOT_FD`, closing it.
pub fn read_boot_info() -> Result<BootInfo, String> {
    let fd: i32 = std::env::var(BOOT_FD_ENV)
        .map_err(|_| format!("{BOOT_FD_ENV} is not set: run this PD with host-runner"))?
        .parse()
        .map_err(|_| format!("{BOOT_FD_ENV} is not a descriptor number"))?;
    let file = File::from(inherited(fd)?);
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut bytes = vec![0; len as usize];
    file.read_exact_at(&mut bytes, 0)
        .map_err(|e| format!("reading boot info: {e}"))?;
    BootInfo::decode(&bytes).map_err(|e| format!("boot info: {}", e.0))
}

/// Maps `len` bytes of `fd` shared with `perms`, at `vaddr` if that range is free
/// (so addresses match the `.system` file), else anywhere. Closes `fd`: the mapping
/// keeps the memfd alive.
///
/// A mapping without write permission comes from a read-only descriptor (the memfd
/// opened again, read-only, through /proc/self/fd), and no writable descriptor of it is
/// left in the PD: so `mprotect` cannot make it writable (the kernel refuses
/// `PROT_WRITE` on a shared mapping of a file not opened for writing).
pub fn map_fd(fd: i32, len: u64, vaddr: u64, perms: u8) -> Result<*mut u8, String> {
    let fd = inherited(fd)?;
    let fd = if perms & PERM_W == 0 {
        let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd));
        let ro = File::open(&path).map_err(|e| format!("{path}: reopening read-only: {e}"))?;
        // The writable descriptor goes now; only the read-only one is mapped.
        drop(fd);
        OwnedFd::from(ro)
    } else {
        fd
    };
    let len = usize::try_from(len).map_err(|_| String::from("region too large"))?;
    let mut prot = ProtFlags::empty();
    for (bit, flag) in [
        (PERM_R, ProtFlags::READ),
        (PERM_W, ProtFlags::WRITE),
        (PERM_X, ProtFlags::EXEC),
    ] {
        if perms & bit != 0 {
            prot |= flag;
        }
    }
    let try_map = |hint: u64, flags: MapFlags| {
        // SAFETY: a new shared mapping of a memfd; with FIXED_NOREPLACE the kernel
        // refuses rather than replace an existing mapping, so no Rust object's memory
        // is touched. It is never unmapped while the PD runs.
        unsafe { mmap(hint as *mut _, len, prot, flags, &fd, 0) }
    };
    let at_vaddr = if vaddr != 0 {
        try_map(vaddr, MapFlags::SHARED | MapFlags::FIXED_NOREPLACE).ok()
    } else {
        None
    };
    let ptr = match at_vaddr {
        Some(p) => p,
        None => try_map(0, MapFlags::SHARED).map_err(|e| format!("mmap: {e}"))?,
    };
    Ok(ptr.cast())
}

/// Maps each distinct descriptor of `rw` read-write and of `ro` read-only, once each;
/// returns its address per descriptor.
pub fn map_pages(
    rw: impl Iterator<Item = i32>,
    ro: impl Iterator<Item = i32>,
) -> Result<Vec<(i32, *mut u8)>, String> {
    let mut mapped: Vec<(i32, *mut u8)> = Vec::new();
    for (fd, perms) in rw
        .map(|fd| (fd, PERM_R | PERM_W))
        .chain(ro.map(|fd| (fd, PERM_R)))
    {
        if !mapped.iter().any(|(f, _)| *f == fd) {
            let ptr = map_fd(fd, super::page::PAGE_SIZE as u64, 0, perms)?;
            mapped.push((fd, ptr));
        }
    }
    Ok(mapped)
}
