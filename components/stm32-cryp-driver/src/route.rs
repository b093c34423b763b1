//! The per-request choice between CPU (IT) mode and DMA: plain functions over plain data.
//!
//! Upstream's rule (stm32-cryp.c, "use dma when possible", 2024; SOURCES.md): DMA only for
//! AES (all this driver does), more than 16 bytes, every segment starting on a 4-byte
//! boundary, every segment but the last a whole number of blocks. A last segment that is
//! not block-aligned (CTR) goes DMA for its aligned part and CPU for the tail. Anything
//! else goes CPU mode; it is never copied into a buffer that DMA could take.

use cipher_service::{BLOCK, Segments};
use pio_dma_driver::edma;

/// Whether upstream's rule lets DMA take `segs` of a region at physical `phys` (each
/// segment one the DMA controller reaches: `pio_dma_driver::edma::reaches`, upstream's
/// 4-byte width).
pub fn dma_capable(segs: &Segments, phys: Option<u64>) -> bool {
    let Some(base) = phys else { return false };
    let list = segs.as_slice();
    let Some((_, init)) = list.split_last() else {
        return false;
    };
    segs.total() > BLOCK
        && init.iter().all(|s| s.len % BLOCK == 0)
        && list.iter().all(|s| edma::reaches(base, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pd_idl::cipher::{CipherError, Path};
    use pio_dma_driver::Route;
    use pio_dma_driver::testkit::{route_under, segs};

    const PHYS: Option<u64> = Some(0xc010_0000);

    #[test]
    fn upstreams_rule() {
        assert!(dma_capable(&segs(&[(0, 32)]), PHYS));
        assert!(
            dma_capable(&segs(&[(4, 16), (100, 21)]), PHYS),
            "last may be partial"
        );
        assert!(!dma_capable(&segs(&[(0, 16)]), PHYS), "16 bytes or fewer");
        assert!(
            !dma_capable(&segs(&[(0, 8), (64, 24)]), PHYS),
            "non-last partial"
        );
        assert!(!dma_capable(&segs(&[(2, 32)]), PHYS), "misaligned");
        assert!(!dma_capable(&segs(&[(0, 32)]), None), "no physical address");
    }

    #[test]
    fn adaptive_uses_the_crossover_and_forced_paths_are_obeyed() {
        let choose = |path, segs: &Segments, from| route_under(dma_capable, path, segs, PHYS, from);
        let big = segs(&[(0, 85)]);
        assert_eq!(choose(Path::Adaptive, &big, 80), Ok(Route::Dma));
        assert_eq!(choose(Path::Adaptive, &big, 96), Ok(Route::Pio));
        assert_eq!(choose(Path::Pio, &big, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Dma, &big, u32::MAX), Ok(Route::Dma));
        let short = segs(&[(0, 16)]);
        assert_eq!(
            choose(Path::Dma, &short, 0),
            Err(CipherError::UnsupportedPath)
        );
        assert_eq!(
            choose(Path::Cpu, &big, 0),
            Err(CipherError::UnsupportedPath)
        );
    }
}
