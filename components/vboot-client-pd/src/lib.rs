//! The verified-boot client PD: checks a signed boot image with `vboot`, hashing it
//! through a Digest driver PD (channel 0: calls by PPC, requests over the queue pair in
//! `queues`), and reports its verdict. One source for the host and seL4.
//!
//! The image is [`image::IMAGE`] (system/images/demo.img), which the PD writes into its
//! region `image`, standing in for a boot loader that would have placed a kernel there;
//! its manifest was signed with the published demo key, and only the manifest and the
//! public key are in this PD. Checks, each of which must come out as stated:
//! 1. the genuine manifest passes `vboot::precheck` (signature, rollback floor, length)
//!    and the image's SHA-256 from the Digest driver (in as many scattered segments as
//!    a request carries) matches it (`vboot::compare`); a driver that restarts under
//!    the hash is asked again in a new session, at most twice;
//! 2. a manifest with one signature bit flipped is refused (`BadSignature`), and the
//!    genuine one under a higher rollback floor is refused (`Rollback`);
//! 3. the image with one byte changed hashes to something else (`DigestMismatch`).
//!
//! The verdict goes to the debug console, to the region `report` if the system maps one
//! (`crypto_client::verdict`, read by the seL4 test client, which is notified on
//! channel 1), and to
//! the PD's exit status (0 only if every check held; on seL4 `exit` parks the PD).
#![no_std]

pub mod image;

use core::fmt;

pub use crypto_client::verdict::{Text, report};

/// Bytes as lowercase hex in `{}`.
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
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
