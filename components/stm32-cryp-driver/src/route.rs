//! The per-request choice between CPU (IT) mode and DMA: plain functions over plain data.
//!
//! Upstream's rule (stm32-cryp.c, "use dma when possible", 2024; SOURCES.md): DMA only for
//! AES (all this driver does), more than 16 bytes, every segment starting on a 4-byte
//! boundary, every segment but the last a whole number of blocks. A last segment that is
//! not block-aligned (CTR) goes DMA for its aligned part and CPU for the tail. Anything
//! else goes CPU mode; it is never copied into a buffer that DMA could take.

use cipher_service::Segments;
use mmio::edma::p;
use mmio::stm32_cryp::BLOCK;

/// DMA bus width in bytes (upstream: 4-byte width, burst 4).
pub const DMA_WORD: u64 = 4;

/// Whether upstream's rule lets DMA take `segs` of a region at physical `phys`.
pub fn dma_capable(segs: &Segments, phys: Option<u64>) -> bool {
    let Some(base) = phys else { return false };
    let max_frames = u64::from(p::CCNT_FIELD.mask() >> p::CCNT_FIELD.shift);
    let block = BLOCK as u64;
    let list = segs.as_slice();
    let Some((_, init)) = list.split_last() else {
        return false;
    };
    u64::from(segs.total()) > block
        && init.iter().all(|s| u64::from(s.len) % block == 0)
        && list.iter().all(|s| {
            let len = u64::from(s.len);
            len / block <= max_frames
                && base.checked_add(u64::from(s.offset)).is_some_and(|a| {
                    a % DMA_WORD == 0 && a.checked_add(len).is_some_and(|e| e <= 1 << 32)
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pd_idl::cipher::{CipherError, Path};
    use pio_dma_driver::Route;

    /// The shared choice, over this engine's DMA rule.
    fn choose(
        path: Path,
        segs: &Segments,
        phys: Option<u64>,
        from: u32,
    ) -> Result<Route, CipherError> {
        pio_dma_driver::route::choose(path, segs, dma_capable(segs, phys), from)
    }
    use cipher_service::validate;
    use pd_idl::cipher::{CipherOp, Mode, Request};

    const PHYS: Option<u64> = Some(0xc010_0000);

    fn segs(list: &[(u32, u32)]) -> Segments {
        let request = Request::over(0, 0, CipherOp::Encrypt, list);
        validate(&request, 1 << 16, Mode::Ctr).unwrap()
    }

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
        let big = segs(&[(0, 85)]);
        assert_eq!(choose(Path::Adaptive, &big, PHYS, 80), Ok(Route::Dma));
        assert_eq!(choose(Path::Adaptive, &big, PHYS, 96), Ok(Route::Pio));
        assert_eq!(choose(Path::Pio, &big, PHYS, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Dma, &big, PHYS, u32::MAX), Ok(Route::Dma));
        let short = segs(&[(0, 16)]);
        assert_eq!(
            choose(Path::Dma, &short, PHYS, 0),
            Err(CipherError::UnsupportedPath)
        );
        assert_eq!(
            choose(Path::Cpu, &big, PHYS, 0),
            Err(CipherError::UnsupportedPath)
        );
    }
}
