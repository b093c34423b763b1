#![cfg_attr(target_os = "none", no_std, no_main)]
//! Maps the region `shared` read-only: reads the writer's word, then tries to write
//! through the map, which must fault (SIGSEGV on the host, a VM fault on seL4). If the
//! write goes through, the map was not read-only: it exits with status 3, a different
//! fault, so a test can tell the two apart. On the host it first tries to make the map
//! writable with `mprotect`, which must be refused (the runtime maps a read-only region
//! from a read-only descriptor); if it is not, it exits with status 4.
use pd_runtime::{ChannelSet, Handler, debug_println, memory_region};

struct Reader;

impl Handler for Reader {
    fn notified(&mut self, _: ChannelSet) {
        let region = memory_region!(shared);
        let word = region.vaddr as *mut u64;
        // SAFETY: mapped readable, aligned, at least 8 bytes.
        let seen = unsafe { word.read_volatile() };
        debug_println!("reader: read {seen:#x}; map writable: {}", region.writable);
        #[cfg(not(target_os = "none"))]
        {
            // SAFETY: mprotect on the region's own pages; on success the map would only
            // become writable, which is the attack this checks is refused.
            let upgraded = unsafe {
                libc::mprotect(
                    region.vaddr.cast(),
                    region.size,
                    libc::PROT_READ | libc::PROT_WRITE,
                )
            } == 0;
            if upgraded {
                debug_println!("reader: mprotect made the read-only map writable");
                pd_runtime::exit(4);
            }
            debug_println!("reader: mprotect to writable refused");
        }
        debug_println!("reader: writing through the read-only map");
        // SAFETY: deliberately unsound-looking but defined at the OS level: the page is
        // mapped without PROT_WRITE, so the store traps before any memory changes.
        unsafe { word.write_volatile(!seen) };
        debug_println!("reader: the write went through: the map is NOT read-only");
        pd_runtime::exit(3);
    }
}

fn init() -> Reader {
    Reader
}

pd_runtime::protection_domain!(init);
