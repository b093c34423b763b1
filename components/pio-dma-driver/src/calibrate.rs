//! The PIO/DMA crossover, measured at init per mode and key size.
//!
//! Both paths run on the engine over the driver's scratch buffer, and the [`Meter`]'s
//! clock says what each took (on the host models, the ledger's modelled board time). The
//! crossover is the smallest whole number of blocks at which DMA is faster, found by
//! bisection from the engine's smallest DMA request up to `MAX_BLOCKS`: a handful of
//! sizes, not a sweep. It assumes PIO's cost grows faster with size than DMA's, which is
//! the point of DMA.
//!
//! [`Meter`]: crate::Meter

use cipher_service::BLOCK;
use pd_idl::cipher::Mode;

/// Largest request measured, in blocks. SOURCES.md puts the am335x crossover at 8-10
/// blocks and the stm32mp1 one at ~22-86 B; a crossover beyond this means DMA is never
/// chosen by size.
pub const MAX_BLOCKS: u32 = 32;

/// Modes and key lengths calibrated (the table's index order).
pub const MODES: [Mode; 3] = [Mode::Ecb, Mode::Cbc, Mode::Ctr];
pub const KEY_LENS: [u8; 3] = [16, 24, 32];

/// The crossover of one mode and key size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossover {
    /// Requests of at least this many bytes go DMA when they can (`u32::MAX`: never).
    pub dma_from_bytes: u32,
    /// Measured picoseconds of PIO and DMA at `dma_from_bytes` (or at the largest size
    /// measured if DMA never won), for reports.
    pub pio_ps: u64,
    pub dma_ps: u64,
}

impl Crossover {
    /// Before calibration: everything adaptive goes PIO.
    pub const NEVER: Crossover = Crossover {
        dma_from_bytes: u32::MAX,
        pio_ps: 0,
        dma_ps: 0,
    };
}

/// Crossovers for every mode and key size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    pub table: [[Crossover; KEY_LENS.len()]; MODES.len()],
}

impl Calibration {
    pub const UNCALIBRATED: Calibration = Calibration {
        table: [[Crossover::NEVER; KEY_LENS.len()]; MODES.len()],
    };

    /// Every mode and key size with its crossover, for reports (one line each).
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        MODES.iter().enumerate().flat_map(move |(m, &mode)| {
            KEY_LENS.iter().enumerate().map(move |(k, &key_len)| Entry {
                mode,
                key_bits: u32::from(key_len) * 8,
                crossover: self.table[m][k],
            })
        })
    }

    /// The crossover for `mode` with a `key_len`-byte key.
    pub fn get(&self, mode: Mode, key_len: u8) -> Crossover {
        // Indices into MODES and KEY_LENS, computed (a search costs a driver's flash);
        // the test below holds them to the tables.
        let m = match mode {
            Mode::Ecb => 0,
            Mode::Cbc => 1,
            Mode::Ctr => 2,
        };
        let k = match key_len {
            24 => 1,
            32 => 2,
            _ => 0,
        };
        self.table[m][k]
    }
}

/// One line of a calibration report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mode: Mode,
    pub key_bits: u32,
    pub crossover: Crossover,
}

impl core::fmt::Display for Entry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let c = self.crossover;
        write!(
            f,
            "crossover {:?}/{}: {} B (pio {} ps, dma {} ps)",
            self.mode, self.key_bits, c.dma_from_bytes, c.pio_ps, c.dma_ps
        )
    }
}

/// Bisects for the smallest block count in `min_blocks..=MAX_BLOCKS` where `measure(n)`
/// says DMA is faster; `measure` returns (PIO ps, DMA ps).
pub fn find<E>(
    min_blocks: u32,
    mut measure: impl FnMut(u32) -> Result<(u64, u64), E>,
) -> Result<Crossover, E> {
    let block = BLOCK;
    let (pio, dma) = measure(MAX_BLOCKS)?;
    if dma >= pio {
        return Ok(Crossover {
            dma_from_bytes: u32::MAX,
            pio_ps: pio,
            dma_ps: dma,
        });
    }
    // Invariant: DMA wins at `hi`, and at no size below `lo`.
    let (mut lo, mut hi, mut at_hi) = (min_blocks.max(1), MAX_BLOCKS, (pio, dma));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let (pio, dma) = measure(mid)?;
        if dma < pio {
            (hi, at_hi) = (mid, (pio, dma));
        } else {
            lo = mid + 1;
        }
    }
    Ok(Crossover {
        dma_from_bytes: hi * block,
        pio_ps: at_hi.0,
        dma_ps: at_hi.1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_finds_each_table_entry() {
        let mut cal = Calibration::UNCALIBRATED;
        for (m, row) in cal.table.iter_mut().enumerate() {
            for (k, c) in row.iter_mut().enumerate() {
                c.dma_from_bytes = (10 * m + k) as u32;
            }
        }
        for (m, &mode) in MODES.iter().enumerate() {
            for (k, &len) in KEY_LENS.iter().enumerate() {
                assert_eq!(cal.get(mode, len).dma_from_bytes, (10 * m + k) as u32);
            }
        }
    }

    #[test]
    fn bisection_finds_the_first_block_count_where_dma_wins() {
        // PIO 25 per block, DMA 230 flat then +32 above 4 blocks, 0.5 per block.
        let model = |n: u32| -> Result<(u64, u64), ()> {
            let dma = 230 + if n > 4 { 32 } else { 0 } + n as u64 / 2;
            Ok((24 + 25 * n as u64, dma))
        };
        let c = find(1, model).unwrap();
        assert_eq!(c.dma_from_bytes, 10 * 16);
        assert!(c.dma_ps < c.pio_ps);
        let never = find(1, |n| Ok::<_, ()>((n as u64, 1000))).unwrap();
        assert_eq!(never.dma_from_bytes, u32::MAX);
        let always = find(1, |_| Ok::<_, ()>((1000, 1))).unwrap();
        assert_eq!(always.dma_from_bytes, 16);
        let from_two = find(2, |_| Ok::<_, ()>((1000, 1))).unwrap();
        assert_eq!(
            from_two.dma_from_bytes, 32,
            "never below the engine's DMA minimum"
        );
    }
}
