//! The kernel objects of a booted system: a memfd per memory region and a kernel page
//! per PD. All are close-on-exec; a PD inherits exactly the ones its boot information
//! names (see `spawn`). The runner maps every page to mark PDs dead and deliver faults.

use std::io;
use std::os::fd::OwnedFd;

use pd_runtime::host::page::{PAGE_SIZE, PdPage};
use rustix::fs::{MemfdFlags, ftruncate, memfd_create};
use rustix::mm::{MapFlags, ProtFlags, mmap, munmap};

use crate::plan::Plan;

/// One PD's kernel page, mapped in the runner.
pub struct Page {
    pub fd: OwnedFd,
    ptr: *mut u8,
}

// SAFETY: the mapping is shared memory used only through `PdPage`, whose fields are all
// atomics; the pointer stays valid until drop.
unsafe impl Send for Page {}
// SAFETY: as above.
unsafe impl Sync for Page {}

impl Page {
    fn create(name: &str) -> io::Result<Page> {
        let fd = memfd(&format!("pd-page:{name}"), PAGE_SIZE as u64)?;
        // SAFETY: a fresh shared mapping of our own memfd; unmapped only in drop.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                PAGE_SIZE,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )?
        };
        Ok(Page {
            fd,
            ptr: ptr.cast(),
        })
    }

    pub fn get(&self) -> &PdPage {
        // SAFETY: PAGE_SIZE bytes mapped read-write for the life of self.
        unsafe { PdPage::at(self.ptr) }
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // SAFETY: mapped in `create`, no reference into it outlives self (get borrows self).
        let _ = unsafe { munmap(self.ptr.cast(), PAGE_SIZE) };
    }
}

pub struct Objects {
    pub regions: Vec<OwnedFd>,
    pub pages: Vec<Page>,
}

/// A zero-filled close-on-exec memfd of `len` bytes.
pub fn memfd(name: &str, len: u64) -> io::Result<OwnedFd> {
    let fd = memfd_create(name, MemfdFlags::CLOEXEC)?;
    ftruncate(&fd, len)?;
    Ok(fd)
}

pub fn create(plan: &Plan) -> io::Result<Objects> {
    let regions = plan
        .regions
        .iter()
        .map(|r| memfd(&format!("pd-region:{}", r.name), r.size))
        .collect::<io::Result<_>>()?;
    let pages = plan
        .pds
        .iter()
        .map(|pd| Page::create(&pd.name))
        .collect::<io::Result<_>>()?;
    Ok(Objects { regions, pages })
}
