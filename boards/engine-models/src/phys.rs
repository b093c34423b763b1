//! Physical memory as DMA masters see it: a map of windows the board lets them reach.
//!
//! Each window is a physical base and length backed by memory of this process (on the
//! host, a shared-memory region mapped here and owned by someone else). A DMA access that
//! does not fall wholly inside one window is a [`DmaFault`], reported by the DMA model to
//! the driver as the hardware's bus error; it never touches host memory.

use core::cell::Cell;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// Most windows one map holds.
pub const MAX_WINDOWS: usize = 16;

/// A DMA access that hit no window (or ran past the end of one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaFault {
    pub addr: u64,
    pub len: usize,
}

#[derive(Clone, Copy, Debug)]
struct Window {
    phys: u64,
    base: NonNull<u8>,
    len: usize,
}

/// The windows of physical memory reachable by DMA, and the CPU's view of them.
///
/// Reads and writes go through raw pointers (`&self` methods), because the same bytes are
/// also reached by the driver and, on the host, by other processes. `!Sync`: one map
/// belongs to one driver thread.
pub struct PhysMap<'a> {
    windows: [Cell<Option<Window>>; MAX_WINDOWS],
    _memory: PhantomData<&'a mut [u8]>,
}

impl Default for PhysMap<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> PhysMap<'a> {
    /// An empty map: every DMA access faults.
    pub fn new() -> Self {
        Self {
            windows: [const { Cell::new(None) }; MAX_WINDOWS],
            _memory: PhantomData,
        }
    }

    /// Adds a window at physical `phys` backed by `memory`, borrowed for the map's life.
    ///
    /// Panics if the map is full or the window overlaps another (a board description
    /// error, found at start-up).
    pub fn add(&self, phys: u64, memory: &'a mut [u8]) {
        let len = memory.len();
        let base = NonNull::new(memory.as_mut_ptr()).expect("slice at null");
        self.insert(Window { phys, base, len });
    }

    /// Adds a window at physical `phys` backed by `len` bytes at `base`.
    ///
    /// # Safety
    /// `base..base + len` must stay mapped, readable and writable for `'a`. Others (the
    /// driver, another process) may access it concurrently: the model copies bytes in and
    /// out and never forms references into it, so they see torn data at worst, as with a
    /// real DMA master; they must not rely on it staying unchanged while a transfer runs.
    pub unsafe fn add_raw(&self, phys: u64, base: *mut u8, len: usize) {
        let base = NonNull::new(base).expect("window at null");
        self.insert(Window { phys, base, len });
    }

    fn insert(&self, w: Window) {
        let end = w.phys.checked_add(w.len as u64).expect("window wraps");
        for slot in &self.windows {
            if let Some(o) = slot.get() {
                assert!(
                    end <= o.phys || o.phys + o.len as u64 <= w.phys,
                    "DMA window {:#x}+{:#x} overlaps {:#x}+{:#x}",
                    w.phys,
                    w.len,
                    o.phys,
                    o.len
                );
            }
        }
        let free = self.windows.iter().find(|s| s.get().is_none());
        free.expect("too many DMA windows").set(Some(w));
    }

    /// The host pointer for `[addr, addr + len)`, if one window holds it all.
    fn resolve(&self, addr: u64, len: usize) -> Result<*mut u8, DmaFault> {
        let fault = DmaFault { addr, len };
        let end = addr.checked_add(len as u64).ok_or(fault)?;
        for w in self.windows.iter().filter_map(Cell::get) {
            if addr >= w.phys && end <= w.phys + w.len as u64 {
                // In bounds: the offset is below `w.len`, a `usize`.
                let off = (addr - w.phys) as usize;
                return Ok(w.base.as_ptr().wrapping_add(off));
            }
        }
        Err(fault)
    }

    /// Whether `[addr, addr + len)` is reachable.
    pub fn contains(&self, addr: u64, len: usize) -> bool {
        self.resolve(addr, len).is_ok()
    }

    /// Copies `buf.len()` bytes from physical `addr` into `buf`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaFault> {
        let src = self.resolve(addr, buf.len())?;
        // SAFETY: `resolve` checked that the range lies inside a window, which `add` or
        // `add_raw`'s contract keeps valid for 'a; `buf` is a distinct Rust allocation
        // (the map never hands out references into windows).
        unsafe { core::ptr::copy(src, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    /// Copies `data` to physical `addr`.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), DmaFault> {
        let dst = self.resolve(addr, data.len())?;
        // SAFETY: as in `read`.
        unsafe { core::ptr::copy(data.as_ptr(), dst, data.len()) };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_stay_inside_windows() {
        let mut a = [0u8; 64];
        let mut b = [0u8; 16];
        let map = PhysMap::new();
        map.add(0x1000, &mut a);
        map.add(0x2000, &mut b);
        map.write(0x1010, &[1, 2, 3]).unwrap();
        let mut out = [0u8; 3];
        map.read(0x1010, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3]);
        assert_eq!(
            map.write(0x103f, &[0, 0]),
            Err(DmaFault {
                addr: 0x103f,
                len: 2
            })
        );
        assert!(map.read(0x1040, &mut out).is_err());
        assert!(map.read(u64::MAX - 1, &mut out).is_err());
        assert!(map.contains(0x2000, 16));
        assert!(!map.contains(0x2000, 17));
    }

    #[test]
    #[should_panic(expected = "overlaps")]
    fn overlapping_windows_are_refused() {
        let mut a = [0u8; 64];
        let mut b = [0u8; 64];
        let map = PhysMap::new();
        map.add(0x1000, &mut a);
        map.add(0x1020, &mut b);
    }
}
