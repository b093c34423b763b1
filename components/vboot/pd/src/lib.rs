//! The verified-boot client PD: checks a signed boot image with `vboot`, hashing it
//! through a Digest driver PD (channel 0: calls by PPC, requests over the queue pair in
//! `queues`), and reports its verdict. One source for the host and seL4.
//!
//! The image is [`image::IMAGE`] (system/images/demo.img), which the PD writes into its
//! region `image`, standing in for a boot loader that would have placed a kernel there;
//! its manifest was signed with the published demo key, and only the manifest and the
//! public key are in this PD. Checks, each of which must come out as stated:
//! 1. the genuine manifest passes `vboot::precheck` (signature, rollback floor, length)
//!    and the image's SHA-256 from the Digest driver (8 scattered segments) matches it
//!    (`vboot::compare`);
//! 2. a manifest with one signature bit flipped is refused (`BadSignature`), and the
//!    genuine one under a higher rollback floor is refused (`Rollback`);
//! 3. the image with one byte changed hashes to something else (`DigestMismatch`).
//!
//! The verdict goes to the debug console, to the region `report` if the system maps one
//! ([`report`], read by the seL4 test client, which is notified on channel 1), and to
//! the PD's exit status (0 only if every check held; on seL4 `exit` parks the PD).
#![no_std]

pub mod image;

use core::fmt;

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

/// A fixed buffer for a verdict's text.
pub struct Text {
    buf: [u8; report::TEXT_MAX],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            buf: [0; report::TEXT_MAX],
            len: 0,
        }
    }
}

impl Text {
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("?")
    }
}

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Cut at the buffer's end, on a char boundary (the text is ASCII anyway).
        for c in s.chars() {
            let mut b = [0; 4];
            let b = c.encode_utf8(&mut b).as_bytes();
            if self.len + b.len() > self.buf.len() {
                break;
            }
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        }
        Ok(())
    }
}

/// Host tests of what the PDs share: the embedded manifest against the image the vboot
/// client writes, and the report round trip.
#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use pd_runtime::MemoryRegion;
    use sha2::Digest as _;

    #[test]
    fn the_signed_manifest_matches_the_image_the_pd_writes() {
        let body = vboot::precheck(
            image::MANIFEST,
            &image::TRUSTED_KEY,
            image::ROLLBACK_FLOOR,
            image::IMAGE_LEN as u64,
        )
        .expect("genuine manifest");
        let digest: [u8; 32] = sha2::Sha256::digest(image::IMAGE).into();
        assert_eq!(vboot::compare(&body, &digest), Ok(()));
        assert_eq!(body.version, image::IMAGE_VERSION);
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
