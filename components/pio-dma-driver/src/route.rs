//! The per-request choice between an engine's PIO path and its DMA path.

use cipher_service::Segments;
use pd_idl::cipher::{CipherError, Path};

/// How one request's data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The CPU moves the data through the engine's registers or FIFOs, a block per
    /// interrupt (OMAP PIO, STM32 "IT" mode). Reported to clients as `Path::Pio`;
    /// `Path::Cpu` means software AES.
    Pio,
    /// DMA straight from the client's segments.
    Dma,
}

impl From<Route> for Path {
    fn from(r: Route) -> Path {
        match r {
            Route::Pio => Path::Pio,
            Route::Dma => Path::Dma,
        }
    }
}

/// The route for a request on a session forced to `path` or left `Adaptive`, given
/// whether DMA can take the request's segments as they lie and the calibrated size from
/// which DMA is cheaper. A forced DMA request that DMA cannot take gets
/// `UnsupportedPath`, never a silent change of path or a bounce copy.
pub fn choose(
    path: Path,
    segs: &Segments,
    dma_capable: bool,
    dma_from_bytes: u32,
) -> Result<Route, CipherError> {
    match path {
        Path::Pio => Ok(Route::Pio),
        Path::Dma if dma_capable => Ok(Route::Dma),
        Path::Dma | Path::Cpu => Err(CipherError::UnsupportedPath),
        Path::Adaptive => Ok(if dma_capable && segs.total() >= dma_from_bytes {
            Route::Dma
        } else {
            Route::Pio
        }),
    }
}
