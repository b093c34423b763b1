//! The published tables the cost tables are fitted to, as data, written once: the
//! models' tests (`engine-models/tests/published.rs`) and `speed --reproduce` compare
//! against these. Sizes in bytes; `boards/SOURCES.md` says where each table is from.

/// The omap-aes idle/start patch (Kevin Hilman's reply quoting Joel Fernandes' patch,
/// 2013-05-14): `openssl speed -evp aes-128-cbc` on a BeagleBone, operations in 3 s,
/// before (runtime PM per request) and after (per session).
pub mod omap_idle_start {
    pub const SIZES: [usize; 5] = [16, 64, 256, 1024, 8192];
    pub const BEFORE_OPS_3S: [f64; 5] = [13310.0, 13040.0, 9134.0, 8939.0, 4299.0];
    pub const AFTER_OPS_3S: [f64; 5] = [18911.0, 18878.0, 11878.0, 11538.0, 4857.0];
}

/// The omap-aes DMA/PIO series ("crypto: omap-aes: DMA and PIO mode improvements",
/// am335x): tcrypt, operations in 1 s, AES-128-CBC.
pub mod omap_dma_pio {
    pub const SIZES: [usize; 5] = [16, 64, 256, 1024, 8192];
    /// DMA with the caller's scatter-gather list handed straight to the engine.
    pub const DMA_REWRITE: [f64; 5] = [4318.0, 4360.0, 3609.0, 3418.0, 1766.0];
    /// DMA through the old bounce copy.
    pub const DMA_OLD: [f64; 5] = [4417.0, 4221.0, 3528.0, 3281.0, 1460.0];
    pub const PIO: [f64; 5] = [20585.0, 8106.0, 2359.0, 605.0, 79.0];
}

/// The stm32-cryp DMA change (linux-next fb11a4f6af, "Use DMA when buffer are aligned
/// and with expected size").
pub mod stm32_dma {
    /// `openssl speed -evp aes-256-cbc -engine afalg -elapsed`: 1000s of bytes a second.
    pub const SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];
    pub const DMA_KBS: [f64; 6] = [120.02, 406.78, 1588.82, 5873.32, 26020.52, 34258.94];
    pub const CPU_KBS: [f64; 6] = [121.06, 419.95, 1112.23, 1897.47, 2362.03, 2386.60];
    /// `tcrypt mode=500`, cbc(aes) 256-bit encryption: cycles per operation.
    pub const TCRYPT_SIZES: [usize; 7] = [16, 64, 128, 256, 1024, 1424, 4096];
    pub const TCRYPT_DMA: [f64; 7] = [1679.0, 1893.0, 1760.0, 2154.0, 2132.0, 2466.0, 4040.0];
    pub const TCRYPT_CPU: [f64; 7] = [1671.0, 2263.0, 2881.0, 4270.0, 11537.0, 15025.0, 40747.0];
}

/// The talitos chaining change (commit 37b5e8897eb5, "chain in buffered data for ahash
/// on SEC1"): `md5sum` of a 90 MB file, ~6 s copying the buffered block, ~3 s chaining
/// a descriptor over it ("approximately": SOURCES.md allows 5%).
pub mod talitos_chain {
    pub const FILE_BYTES: f64 = 90e6;
    pub const COPY_S: f64 = 6.0;
    pub const CHAINED_S: f64 = 3.0;
}
