//! The kernel objects of a booted system: a memfd per memory region, a PD page per PD
//! and an end page per channel end (`pd_runtime::host::page`). All are close-on-exec;
//! a PD inherits exactly the ones its boot information names (see `spawn`) and maps
//! the pages it must not write read-only. The runner maps every page to mark PDs dead,
//! fail their pending calls and deliver faults.

use std::io;
use std::os::fd::OwnedFd;

use pd_runtime::host::page::{DEAD, EndPage, Link, PAGE_SIZE, PdPage, page_at};
use rustix::fs::{MemfdFlags, ftruncate, memfd_create};
use rustix::mm::{MapFlags, ProtFlags, mmap, munmap};

use crate::plan::Plan;

/// One kernel page, mapped in the runner.
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

    /// This page as a PD page.
    pub fn get(&self) -> &PdPage {
        // SAFETY: PAGE_SIZE bytes mapped read-write for the life of self.
        unsafe { page_at(self.ptr) }
    }

    /// This page as a channel end's page.
    pub fn end(&self) -> &EndPage {
        // SAFETY: as in `get`.
        unsafe { page_at(self.ptr) }
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
    /// Per PD, its PD page.
    pub pages: Vec<Page>,
    /// Per PD, the page of each of its channel ends, in the order of its plan's channels.
    pub ends: Vec<Vec<Page>>,
}

impl Objects {
    /// Channel `c` (its position in the plan) of PD `i`, as PD `i` sees it.
    pub fn link(&self, plan: &Plan, i: usize, c: usize) -> Link<'_> {
        let ch = &plan.pds[i].channels[c];
        let back = plan.pds[ch.remote]
            .channels
            .iter()
            .position(|b| b.remote == i && b.id == ch.remote_id)
            .expect("a channel has two ends");
        Link {
            out: self.ends[i][c].end(),
            inp: self.ends[ch.remote][back].end(),
            peer: self.pages[ch.remote].get(),
        }
    }

    /// What the kernel does when PD `i` dies: it is dead to callers, and every call made
    /// to it and not answered fails.
    pub fn pd_died(&self, plan: &Plan, i: usize) {
        self.pages[i]
            .get()
            .state
            .store(DEAD, std::sync::atomic::Ordering::SeqCst);
        for c in 0..plan.pds[i].channels.len() {
            self.link(plan, i, c).fail_pending_call();
        }
    }
}

/// A zero-filled close-on-exec memfd of `len` bytes.
pub fn memfd(name: &str, len: u64) -> io::Result<OwnedFd> {
    let fd = memfd_create(name, MemfdFlags::CLOEXEC)?;
    ftruncate(&fd, len)?;
    Ok(fd)
}

/// Writes `path`'s bytes at the start of region `r` (Microkit's `prefill_path`): a file
/// longer than the region, or empty, is refused, as Microkit's tool refuses it.
fn prefill(fd: &OwnedFd, r: &crate::plan::RegionPlan, path: &std::path::Path) -> io::Result<()> {
    let bytes = std::fs::read(path)
        .map_err(|e| io::Error::new(e.kind(), format!("prefill {}: {e}", path.display())))?;
    if bytes.is_empty() || bytes.len() as u64 > r.size {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "prefill {}: {} bytes for region {} of {}",
                path.display(),
                bytes.len(),
                r.name,
                r.size
            ),
        ));
    }
    let written = rustix::io::pwrite(fd, &bytes, 0)?;
    if written != bytes.len() {
        return Err(io::Error::new(
            io::ErrorKind::WriteZero,
            "prefill: short write",
        ));
    }
    Ok(())
}

pub fn create(plan: &Plan) -> io::Result<Objects> {
    let regions = plan
        .regions
        .iter()
        .map(|r| {
            let fd = memfd(&format!("pd-region:{}", r.name), r.size)?;
            if let Some(path) = &r.prefill {
                prefill(&fd, r, path)?;
            }
            Ok(fd)
        })
        .collect::<io::Result<_>>()?;
    let pages = plan
        .pds
        .iter()
        .map(|pd| Page::create(&pd.name))
        .collect::<io::Result<_>>()?;
    let ends = plan
        .pds
        .iter()
        .map(|pd| {
            pd.channels
                .iter()
                .map(|c| Page::create(&format!("{}:{}", pd.name, c.id)))
                .collect::<io::Result<_>>()
        })
        .collect::<io::Result<_>>()?;
    Ok(Objects {
        regions,
        pages,
        ends,
    })
}
