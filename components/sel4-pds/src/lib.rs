//! The protection domains of `system/qemu_virt_aarch64.system`, written against
//! `pd-runtime` so that each is a real seL4 Microkit PD (`make pds`, `make image`,
//! `make qemu`) and still compiles as a host binary (`cargo test --workspace` and clippy
//! build every bin; only the seL4 build is meant to run: see each bin's docs).
//!
//! * `power-manager-pd`: passive Power server. QEMU `virt` has no clock controller:
//!   grants are bookkeeping only (holders, generations), nothing is gated.
//!
//! The image's driver PDs are not here: they are the engines' own, built from the same
//! source as on the host (`virtio-crypto` in `components/virtio-crypto-driver/pd`,
//! `cpu-cipher` and `cpu-digest` in `components/cpu-engine/pd`).
//! * `vboot-client-pd`: checks a signed demo image, hashing it through the Digest path.
//! * `test-client-pd`: SP 800-38A CBC/CTR vectors through both Cipher drivers, then one
//!   PASS or FAIL line.
//!
//! This library holds what several of them share: the queue-pair regions (the layout of
//! `crypto_client::pair`), the verified-boot report that `vboot-client-pd` writes for
//! `test-client-pd`, and hex output. Assumes Microkit's model: one thread per PD,
//! regions mapped for the PD's life. `no_std`, no heap.
#![no_std]

pub mod vboot_image;

use core::fmt;

use pd_runtime::MemoryRegion;
use shm_queue::SharedRegion;

/// Slots in each queue of a pair (both interfaces declare 64).
pub const QUEUE_CAPACITY: u32 = pd_idl::cipher::REQUEST_QUEUE_CAPACITY;
const _: () = assert!(
    pd_idl::cipher::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::REQUEST_QUEUE_CAPACITY == QUEUE_CAPACITY
        && pd_idl::digest::RESPONSE_QUEUE_CAPACITY == QUEUE_CAPACITY
);

/// A queue-pair region for the life of the PD, for `crypto_client::pair`.
pub fn queue_region(region: MemoryRegion) -> SharedRegion<'static> {
    // SAFETY: the runtime maps the region once, read-write (the .system file maps every
    // queue region rw), for the life of the PD, and nothing here makes Rust references
    // into it: shm-queue and the pair's control line access it atomically/volatilely.
    unsafe { SharedRegion::from_raw(region.vaddr, region.size) }
}

/// The verified-boot verdict in `vboot_report`, written by `vboot-client-pd` and read by
/// `test-client-pd` after the notification: words at fixed offsets, then a text line.
pub mod report {
    use pd_runtime::MemoryRegion;

    /// Word 0 once a verdict is written ("VBOT").
    pub const MAGIC: u32 = 0x5642_4f54;
    /// Word 1: 1 = the genuine image verified and every forged one was refused.
    pub const PASSED: u32 = 1;
    const TEXT_AT: usize = 16;
    /// Longest verdict text.
    pub const TEXT_MAX: usize = 200;

    fn word(region: MemoryRegion, i: usize) -> *mut u32 {
        assert!(
            region.size >= TEXT_AT + TEXT_MAX,
            "vboot_report region too small"
        );
        region.vaddr.cast::<u32>().wrapping_add(i)
    }

    /// Writes the verdict; the magic goes last (release order), so a reader that sees it
    /// sees the rest.
    pub fn write(region: MemoryRegion, passed: bool, text: &str) {
        let n = text.len().min(TEXT_MAX);
        for (i, b) in text.as_bytes()[..n].iter().enumerate() {
            // SAFETY: inside the region (size asserted in `word`), mapped rw here; volatile
            // because another PD reads it.
            unsafe { region.vaddr.add(TEXT_AT + i).write_volatile(*b) };
        }
        // SAFETY: as above; u32 offsets 1, 2 and 0 are aligned (regions are page-aligned).
        unsafe {
            word(region, 2).write_volatile(n as u32);
            word(region, 1).write_volatile(u32::from(passed));
            core::sync::atomic::fence(core::sync::atomic::Ordering::Release);
            word(region, 0).write_volatile(MAGIC);
        }
    }

    /// The verdict, if one was written: (passed, text) with the text copied into `buf`.
    pub fn read(region: MemoryRegion, buf: &mut [u8; TEXT_MAX]) -> Option<(bool, &str)> {
        // SAFETY: inside the region, mapped (read-only) here; volatile: another PD writes it.
        let (magic, passed, len) = unsafe {
            let magic = word(region, 0).read_volatile();
            core::sync::atomic::fence(core::sync::atomic::Ordering::Acquire);
            (
                magic,
                word(region, 1).read_volatile(),
                word(region, 2).read_volatile() as usize,
            )
        };
        if magic != MAGIC {
            return None;
        }
        let len = len.min(TEXT_MAX);
        for (i, b) in buf[..len].iter_mut().enumerate() {
            // SAFETY: as above.
            *b = unsafe { region.vaddr.add(TEXT_AT + i).read_volatile() };
        }
        let text = core::str::from_utf8(&buf[..len]).unwrap_or("<verdict text not UTF-8>");
        Some((passed == PASSED, text))
    }
}

/// Bytes as lowercase hex in `{}`.
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// Whether this build runs on seL4 (the only place the PDs' devices and regions exist
/// as the .system file describes them).
pub const ON_SEL4: bool = cfg!(target_os = "none");

/// Host tests of what the PDs share: the embedded manifest against the image the vboot
/// client writes, and the report round trip.
#[cfg(test)]
mod tests {
    use super::*;
    use sha2::Digest as _;

    #[test]
    fn the_signed_manifest_matches_the_image_the_pd_writes() {
        let body = vboot::precheck(
            vboot_image::MANIFEST,
            &vboot_image::TRUSTED_KEY,
            vboot_image::ROLLBACK_FLOOR,
            vboot_image::IMAGE_LEN as u64,
        )
        .expect("genuine manifest");
        let digest: [u8; 32] = sha2::Sha256::digest(vboot_image::IMAGE).into();
        assert_eq!(vboot::compare(&body, &digest), Ok(()));
        assert_eq!(body.version, vboot_image::IMAGE_VERSION);
    }

    #[test]
    fn a_report_reads_back_as_written() {
        #[repr(align(8))]
        struct Page([u8; 4096]);
        let mut page = Page([0; 4096]);
        let region = MemoryRegion {
            vaddr: page.0.as_mut_ptr(),
            size: page.0.len(),
            paddr: 0,
            writable: true,
        };
        let mut buf = [0; report::TEXT_MAX];
        assert_eq!(report::read(region, &mut buf), None);
        report::write(region, true, "4 of 4");
        assert_eq!(report::read(region, &mut buf), Some((true, "4 of 4")));
        report::write(region, false, "3 of 4");
        assert_eq!(report::read(region, &mut buf), Some((false, "3 of 4")));
    }
}
