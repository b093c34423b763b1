//! The per-request choice between PIO and DMA: plain functions over plain data.
//!
//! DMA takes a request as it lies in the client's region, segment by segment: each
//! segment must start on a bus word (EDMA's 4-byte width) and hold whole blocks (one
//! AB-synchronised frame per block), and the region must have a physical address. A
//! request DMA cannot take goes PIO; it is never copied into a buffer that DMA could
//! take instead.

use cipher_service::Segments;
use mmio::edma::p;
use mmio::omap_aes::BLOCK;

/// EDMA bus width in bytes (upstream programs 4-byte DMA slave buses).
pub const DMA_WORD: u64 = 4;

/// Whether DMA can take `segs` of a region at physical `phys` without a copy.
pub fn dma_capable(segs: &Segments, phys: Option<u64>) -> bool {
    let Some(base) = phys else { return false };
    let max_frames = u64::from(p::CCNT_FIELD.mask() >> p::CCNT_FIELD.shift);
    segs.as_slice().iter().all(|s| {
        let at = base.checked_add(u64::from(s.offset));
        let len = u64::from(s.len);
        len % BLOCK as u64 == 0
            && len / (BLOCK as u64) <= max_frames
            && at.is_some_and(|a| {
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

    const PHYS: Option<u64> = Some(0x8010_0000);

    fn segs(list: &[(u32, u32)]) -> Segments {
        let request = Request::over(0, 0, CipherOp::Encrypt, list);
        validate(&request, 1 << 16, Mode::Ctr).unwrap()
    }

    #[test]
    fn dma_takes_word_aligned_whole_block_segments_only() {
        assert!(dma_capable(&segs(&[(0, 64), (256, 32)]), PHYS));
        assert!(
            dma_capable(&segs(&[(4, 16)]), PHYS),
            "word alignment is enough"
        );
        assert!(!dma_capable(&segs(&[(2, 16)]), PHYS), "misaligned");
        assert!(!dma_capable(&segs(&[(0, 24)]), PHYS), "a partial block");
        assert!(!dma_capable(&segs(&[(0, 16)]), None), "no physical address");
        assert!(!dma_capable(
            &segs(&[(0, 16)]),
            Some(u64::from(u32::MAX) - 7)
        ));
    }

    #[test]
    fn adaptive_uses_the_crossover_and_forced_paths_are_obeyed() {
        let big = segs(&[(0, 160)]);
        let odd = segs(&[(1, 160)]);
        assert_eq!(choose(Path::Adaptive, &big, PHYS, 160), Ok(Route::Dma));
        assert_eq!(choose(Path::Adaptive, &big, PHYS, 176), Ok(Route::Pio));
        assert_eq!(choose(Path::Adaptive, &odd, PHYS, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Pio, &big, PHYS, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Dma, &big, PHYS, u32::MAX), Ok(Route::Dma));
        let refused = Err(CipherError::UnsupportedPath);
        assert_eq!(choose(Path::Dma, &odd, PHYS, 16), refused);
        assert_eq!(choose(Path::Cpu, &big, PHYS, 16), refused);
    }
}
