//! TI OMAP AES (omap4 layout, AM335x AES0) model.
//!
//! One input and one output block buffer, as the engine's DATA_N window: the CPU (PIO) or
//! a DMA channel fills the input four words at a time, the engine runs the block as soon
//! as the output buffer is free, and the result waits in the output buffer. Status is
//! level-triggered: DATA_IN while an input block is wanted, DATA_OUT while an output block
//! waits; IRQ_STATUS reads them masked by IRQ_ENABLE, and the line is that value; DMA requests follow the same
//! conditions when SYSCONFIG enables them.
//!
//! A context (key, IV, CTRL) becomes live when CTRL is written. A reserved KEY_SIZE (0)
//! leaves the engine stopped: INPUT_READY stays clear, no interrupt, no DMA request, as a
//! misprogrammed engine sits idle and the driver's timeout must catch it.

use crate::aes_core::{AesKey, Mode, cycles_per_block, key_moved, process_block};
use crate::dma_port::DmaPort;
use crate::power::GateBlock;
use cost_ledger::{Event, Ledger};
use mmio::omap_aes::{self as r, ctrl, irq, sysconfig};
use mmio::{BusFault, RegisterBus};

/// Revision the model reports (major 3, minor 2: an omap4-class engine).
pub const REVISION: u32 = r::REV_MAJOR.val(3) | r::REV_MINOR.val(2);

/// The OMAP AES engine.
pub struct OmapAes<'a> {
    ledger: &'a Ledger,
    gates: &'a GateBlock,
    gate: usize,
    key: [u32; 8],
    iv: [u32; 4],
    ctrl: u32,
    length: [u32; 2],
    sysconfig: u32,
    irq_enable: u32,
    /// Expanded key of the live context; `None` when stopped (reserved key size).
    live: Option<AesKey>,
    input: [u32; 4],
    in_fill: usize,
    output: [u32; 4],
    out_left: usize,
    /// Bytes run through the engine in this context.
    done: u64,
}

impl<'a> OmapAes<'a> {
    /// An engine behind clock gate `gate`, counting into `ledger`.
    pub fn new(ledger: &'a Ledger, gates: &'a GateBlock, gate: usize) -> Self {
        Self {
            ledger,
            gates,
            gate,
            key: [0; 8],
            iv: [0; 4],
            ctrl: 0,
            length: [0; 2],
            sysconfig: 0,
            irq_enable: 0,
            live: None,
            input: [0; 4],
            in_fill: 0,
            output: [0; 4],
            out_left: 0,
            done: 0,
        }
    }

    fn reset(&mut self) {
        let held = self.holds_key();
        *self = Self::new(self.ledger, self.gates, self.gate);
        key_moved(self.ledger, held, self.holds_key());
    }

    /// Whether any key material is in the engine: a key register not zero, or the
    /// live context's schedule (what a driver must clear when its session ends).
    pub fn holds_key(&self) -> bool {
        self.key != [0; 8] || self.live.is_some()
    }

    fn payload_len(&self) -> u64 {
        u64::from(self.length[0]) | (u64::from(self.length[1]) << 32)
    }

    fn input_ready(&self) -> bool {
        let len = self.payload_len();
        self.live.is_some() && self.in_fill < 4 && (len == 0 || self.done < len)
    }

    fn output_ready(&self) -> bool {
        self.out_left > 0
    }

    fn status(&self) -> u32 {
        let mut s = 0;
        if self.input_ready() {
            s |= irq::DATA_IN;
        }
        if self.output_ready() {
            s |= irq::DATA_OUT;
        }
        s
    }

    fn mode(&self) -> Mode {
        if self.ctrl & ctrl::CTR != 0 {
            Mode::Ctr {
                width_bits: 32 * (ctrl::CTR_WIDTH.get(self.ctrl) + 1),
            }
        } else if self.ctrl & ctrl::CBC != 0 {
            Mode::Cbc
        } else {
            Mode::Ecb
        }
    }

    /// Runs the waiting input block if the output buffer is free.
    fn run(&mut self) {
        let Some(key) = &self.live else { return };
        if self.in_fill < 4 || self.out_left > 0 {
            return;
        }
        let mut block = words_to_bytes(&self.input);
        let mut iv = words_to_bytes(&self.iv);
        let encrypt = self.ctrl & ctrl::DIRECTION != 0;
        process_block(key, self.mode(), encrypt, &mut iv, &mut block);
        self.ledger
            .add(Event::EngineCycle, cycles_per_block(key.rounds()));
        self.iv = bytes_to_words(&iv);
        self.output = bytes_to_words(&block);
        self.out_left = 4;
        self.in_fill = 0;
        self.done += r::BLOCK as u64;
    }

    /// Makes the context live (CTRL written): expands the key the KEY_SIZE field names.
    fn load_context(&mut self) {
        let held = self.holds_key();
        self.expand();
        key_moved(self.ledger, held, self.holds_key());
    }

    fn expand(&mut self) {
        self.in_fill = 0;
        self.out_left = 0;
        self.done = 0;
        let words = match ctrl::KEY_SIZE.get(self.ctrl) {
            ctrl::KEY_128 => 4,
            ctrl::KEY_192 => 6,
            ctrl::KEY_256 => 8,
            _ => {
                self.live = None;
                return;
            }
        };
        let mut key = [0u8; 32];
        for (i, w) in self.key[..words].iter().enumerate() {
            key[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
        self.live = AesKey::new(&key[..4 * words]);
    }

    fn key_index(offset: usize) -> Option<usize> {
        (0..8).find(|&x| r::key(x) == offset)
    }
}

/// Block bytes from data-port words (each word is four bytes loaded little-endian).
pub fn words_to_bytes(w: &[u32; 4]) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (i, w) in w.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    b
}

/// Data-port words from block bytes.
pub fn bytes_to_words(b: &[u8; 16]) -> [u32; 4] {
    core::array::from_fn(|i| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

const DATA_FIRST: usize = r::data(0);
const DATA_LAST: usize = r::data(3);

impl DmaPort for OmapAes<'_> {
    /// The DATA_N registers, whole words.
    fn is_port(offset: u64, len: usize, _write: bool) -> bool {
        offset >= DATA_FIRST as u64 && offset + len as u64 <= DATA_LAST as u64 + 4
    }

    /// Whether the interrupt line is asserted.
    fn irq_line(&self) -> bool {
        self.gates.is_clocked(self.gate) && self.status() & self.irq_enable != 0
    }

    /// DMA request for an input block (gated engines request nothing).
    fn dma_in_request(&self) -> bool {
        self.gates.is_clocked(self.gate)
            && self.sysconfig & sysconfig::DMA_REQ_IN != 0
            && self.input_ready()
    }

    /// DMA request for an output block.
    fn dma_out_request(&self) -> bool {
        self.gates.is_clocked(self.gate)
            && self.sysconfig & sysconfig::DMA_REQ_OUT != 0
            && self.output_ready()
    }

    /// The data port, written by the CPU or a DMA channel.
    fn push_word(&mut self, w: u32) -> Result<(), BusFault> {
        self.gates.check(self.gate)?;
        if self.input_ready() {
            self.input[self.in_fill] = w;
            self.in_fill += 1;
            self.run();
        }
        Ok(())
    }

    /// The data port, read by the CPU or a DMA channel (0 when no block waits).
    fn pop_word(&mut self) -> Result<u32, BusFault> {
        self.gates.check(self.gate)?;
        if self.out_left == 0 {
            return Ok(0);
        }
        let w = self.output[4 - self.out_left];
        self.out_left -= 1;
        self.run();
        Ok(w)
    }
}

impl RegisterBus for OmapAes<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        if (DATA_FIRST..=DATA_LAST).contains(&offset) {
            self.ledger.add(Event::PioWord, 1);
            return self.pop_word();
        }
        self.ledger.add(Event::RegRead, 1);
        Ok(match offset {
            r::CTRL => {
                let mut v = self.ctrl & ctrl::WRITABLE;
                if self.output_ready() {
                    v |= ctrl::OUTPUT_READY;
                }
                if self.input_ready() {
                    v |= ctrl::INPUT_READY;
                }
                if self.in_fill == 0 && self.out_left == 0 {
                    v |= ctrl::CONTEXT_READY;
                }
                v
            }
            r::C_LENGTH_0 => self.length[0],
            r::C_LENGTH_1 => self.length[1],
            r::REV => REVISION,
            r::SYSCONFIG => self.sysconfig,
            r::SYSSTATUS => r::SYSSTATUS_RESETDONE,
            // Masked, as the upstream handler expects (it tests DATA_IN first).
            r::IRQ_STATUS => self.status() & self.irq_enable,
            r::IRQ_ENABLE => self.irq_enable,
            o if (r::iv(0)..=r::iv(3)).contains(&o) => self.iv[(o - r::iv(0)) / 4],
            // Key registers are write-only on the silicon.
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        if (DATA_FIRST..=DATA_LAST).contains(&offset) {
            self.ledger.add(Event::PioWord, 1);
            return self.push_word(value);
        }
        self.ledger.add(Event::RegWrite, 1);
        match offset {
            r::CTRL => {
                self.ctrl = value & ctrl::WRITABLE;
                self.load_context();
            }
            r::C_LENGTH_0 => self.length[0] = value,
            r::C_LENGTH_1 => self.length[1] = value,
            r::SYSCONFIG => {
                if value & sysconfig::SOFTRESET != 0 {
                    self.reset();
                } else {
                    self.sysconfig = value;
                }
            }
            r::IRQ_ENABLE => self.irq_enable = value & (irq::DATA_IN | irq::DATA_OUT),
            o if (r::iv(0)..=r::iv(3)).contains(&o) => self.iv[(o - r::iv(0)) / 4] = value,
            o => {
                if let Some(x) = Self::key_index(o) {
                    let held = self.holds_key();
                    self.key[x] = value;
                    // A new key stops the live context: the next CTRL write expands it.
                    self.live = None;
                    key_moved(self.ledger, held, self.holds_key());
                }
                // IRQ_STATUS (levels), REV and SYSSTATUS ignore writes.
            }
        }
        Ok(())
    }
}
