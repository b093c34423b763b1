#![cfg_attr(target_os = "none", no_std, no_main)]
//! Writes a known word into the region `shared` (mapped rw here) and tells the reader.
use pd_runtime::{Channel, Handler, debug_println, memory_region};

const READER: Channel = Channel::new(0);
pub const MAGIC: u64 = 0x5eed_c0de_0000_0001;

struct Writer;
impl Handler for Writer {}

fn init() -> Writer {
    let region = memory_region!(shared);
    assert!(region.writable);
    // SAFETY: the region is mapped rw, page-aligned and at least 8 bytes; volatile
    // because another PD reads it.
    unsafe { (region.vaddr as *mut u64).write_volatile(MAGIC) };
    debug_println!("writer: wrote {MAGIC:#x}");
    READER.notify();
    Writer
}

pd_runtime::protection_domain!(init);
