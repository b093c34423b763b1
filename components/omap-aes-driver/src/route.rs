//! The per-request choice between PIO and DMA: plain functions over plain data.
//!
//! DMA takes a request as it lies in the client's region, segment by segment: each
//! segment must be one EDMA reaches (`pio_dma_driver::edma::reaches`: on a 4-byte bus
//! word, below 4 GiB) and hold whole blocks (one AB-synchronised frame per block), and
//! the region must have a physical address. A request DMA cannot take goes PIO; it is
//! never copied into a buffer that DMA could take instead.

use cipher_service::{BLOCK, Segments};
use pio_dma_driver::edma;

/// Whether DMA can take `segs` of a region at physical `phys` without a copy.
pub fn dma_capable(segs: &Segments, phys: Option<u64>) -> bool {
    let Some(base) = phys else { return false };
    segs.as_slice()
        .iter()
        .all(|s| s.len % BLOCK == 0 && edma::reaches(base, s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pd_idl::cipher::{CipherError, Path};
    use pio_dma_driver::Route;
    use pio_dma_driver::testkit::{route_under, segs};

    const PHYS: Option<u64> = Some(0x8010_0000);

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
        let choose = |path, segs: &Segments, from| route_under(dma_capable, path, segs, PHYS, from);
        let big = segs(&[(0, 160)]);
        let odd = segs(&[(1, 160)]);
        assert_eq!(choose(Path::Adaptive, &big, 160), Ok(Route::Dma));
        assert_eq!(choose(Path::Adaptive, &big, 176), Ok(Route::Pio));
        assert_eq!(choose(Path::Adaptive, &odd, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Pio, &big, 16), Ok(Route::Pio));
        assert_eq!(choose(Path::Dma, &big, u32::MAX), Ok(Route::Dma));
        let refused = Err(CipherError::UnsupportedPath);
        assert_eq!(choose(Path::Dma, &odd, 16), refused);
        assert_eq!(choose(Path::Cpu, &big, 16), refused);
    }
}
