#![cfg_attr(target_os = "none", no_std, no_main)]
//! The boot loader stand-in: the stage before the verifier, which placed the boot image
//! in memory. At init it writes the demo image into its region `image` and notifies the
//! verified-boot client on the channel `verifier`, so the verifier checks an image it
//! does not carry in its own binary. Nothing to do after that.
use pd_runtime::{Channel, Handler, debug_println, memory_region, pd_name, var};
use vboot_client_pd::image::IMAGE;

struct Loaded;

impl Handler for Loaded {}

fn init() -> Loaded {
    let region = memory_region!(image);
    assert!(
        region.writable && region.size >= IMAGE.len(),
        "{}: the image region must be rw and hold {} bytes",
        pd_name(),
        IMAGE.len()
    );
    for (i, b) in IMAGE.iter().enumerate() {
        // SAFETY: i < IMAGE.len() <= region.size; mapped rw here; volatile because the
        // verifier and the Digest driver read it.
        unsafe { region.vaddr.add(i).write_volatile(*b) };
    }
    debug_println!(
        "{}: placed the boot image ({} bytes)",
        pd_name(),
        IMAGE.len()
    );
    Channel::new(u8::try_from(var!(verifier)).expect("a channel id")).notify();
    Loaded
}

pd_runtime::protection_domain!(init);
