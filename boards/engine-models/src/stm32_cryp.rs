//! ST STM32 CRYP (stm32mp1 CRYP1) model.
//!
//! Eight-word input and output FIFOs; the core takes a block whenever four words are in
//! and four words of output room are free. IT mode: `IN` is raised while the input FIFO
//! can take a block, `OUT` while output is waiting (levels, masked by IMSCR). DMA mode:
//! DMACR.DIEN/DOEN request bursts of four words under the same conditions.
//!
//! Programming errors behave as the silicon does, as far as the reference manual says:
//! a reserved KEYSIZE or an unmodelled ALGOMODE leaves CRYPEN clear (nothing runs); ECB or
//! CBC decryption without a key preparation (ALGOMODE = KP) since the key was loaded
//! produces wrong data — the model passes the block through unchanged, so a driver that
//! skips the step fails its known-answer tests here as it would on the chip.

use crate::aes_core::{AesKey, Mode, cycles_per_block, key_moved, process_block};
use crate::dma_port::DmaPort;
use crate::power::GateBlock;
use cost_ledger::{Event, Ledger};
use mmio::stm32_cryp::{self as r, cr, dmacr, it, sr};
use mmio::{BusFault, RegisterBus};

/// A FIFO of `FIFO_WORDS` 32-bit words.
#[derive(Clone, Copy, Default)]
struct Fifo {
    w: [u32; r::FIFO_WORDS],
    head: usize,
    len: usize,
}

impl Fifo {
    fn push(&mut self, v: u32) -> bool {
        if self.len == r::FIFO_WORDS {
            return false;
        }
        self.w[(self.head + self.len) % r::FIFO_WORDS] = v;
        self.len += 1;
        true
    }
    fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let v = self.w[self.head];
        self.head = (self.head + 1) % r::FIFO_WORDS;
        self.len -= 1;
        Some(v)
    }
    fn room(&self) -> usize {
        r::FIFO_WORDS - self.len
    }
}

/// The STM32 CRYP engine.
pub struct Stm32Cryp<'a> {
    ledger: &'a Ledger,
    gates: &'a GateBlock,
    gate: usize,
    cr: u32,
    key: [u32; 8],
    iv: [u32; 4],
    dmacr: u32,
    imscr: u32,
    fin: Fifo,
    fout: Fifo,
    /// Expanded key, rebuilt when CRYPEN is set after a key change.
    expanded: Option<AesKey>,
    /// Whether ECB/CBC decryption may run: a key preparation ran since the key changed.
    prepared: bool,
}

impl<'a> Stm32Cryp<'a> {
    pub fn new(ledger: &'a Ledger, gates: &'a GateBlock, gate: usize) -> Self {
        Self {
            ledger,
            gates,
            gate,
            cr: 0,
            key: [0; 8],
            iv: [0; 4],
            dmacr: 0,
            imscr: 0,
            fin: Fifo::default(),
            fout: Fifo::default(),
            expanded: None,
            prepared: false,
        }
    }

    /// Whether any key material is in the engine: a key register not zero, or the
    /// schedule expanded from one (what a driver must clear when its session ends).
    pub fn holds_key(&self) -> bool {
        self.key != [0; 8] || self.expanded.is_some()
    }

    fn enabled(&self) -> bool {
        self.cr & cr::CRYPEN != 0
    }

    fn raw_it(&self) -> u32 {
        let mut v = 0;
        if self.enabled() && self.fin.room() >= r::BLOCK_WORDS {
            v |= it::IN;
        }
        if self.fout.len > 0 {
            v |= it::OUT;
        }
        v
    }

    fn key_words(&self) -> Option<usize> {
        match cr::KEYSIZE.get(self.cr) {
            cr::KEY_128 => Some(4),
            cr::KEY_192 => Some(6),
            cr::KEY_256 => Some(8),
            _ => None,
        }
    }

    fn expand_key(&self) -> Option<AesKey> {
        let words = self.key_words()?;
        let mut key = [0u8; 32];
        for (j, w) in self.key[8 - words..].iter().enumerate() {
            key[4 * j..4 * j + 4].copy_from_slice(&w.to_be_bytes());
        }
        AesKey::new(&key[..4 * words])
    }

    fn mode(&self) -> Option<Mode> {
        if self.cr & cr::ALGOMODE3 != 0 {
            return None;
        }
        match cr::ALGOMODE.get(self.cr) {
            cr::MODE_AES_ECB => Some(Mode::Ecb),
            cr::MODE_AES_CBC => Some(Mode::Cbc),
            cr::MODE_AES_CTR => Some(Mode::Ctr { width_bits: 32 }),
            _ => None,
        }
    }

    /// Applies a CR write: enable (with its checks), key preparation, FIFO flush.
    fn write_cr(&mut self, value: u32) {
        if value & cr::FFLUSH != 0 {
            self.fin = Fifo::default();
            self.fout = Fifo::default();
        }
        self.cr = value & !cr::FFLUSH;
        if !self.enabled() {
            return;
        }
        let kp = self.cr & cr::ALGOMODE3 == 0 && cr::ALGOMODE.get(self.cr) == cr::MODE_AES_KP;
        if self.key_words().is_none() || (!kp && self.mode().is_none()) {
            // Reserved key size or unmodelled algorithm: the engine refuses to start.
            self.cr &= !cr::CRYPEN;
            return;
        }
        let held = self.holds_key();
        self.expanded = self.expand_key();
        key_moved(self.ledger, held, self.holds_key());
        if kp {
            let rounds = self.expanded.as_ref().map_or(0, AesKey::rounds);
            self.ledger
                .add(Event::EngineCycle, cycles_per_block(rounds));
            self.prepared = true;
            // Key preparation ends by clearing CRYPEN (upstream waits for BUSY to drop).
            self.cr &= !cr::CRYPEN;
            return;
        }
        self.run();
    }

    fn run(&mut self) {
        if !self.enabled() {
            return;
        }
        let (Some(key), Some(mode)) = (self.expanded.clone(), self.mode()) else {
            return;
        };
        let decrypt = self.cr & cr::ALGODIR != 0;
        while self.fin.len >= r::BLOCK_WORDS && self.fout.room() >= r::BLOCK_WORDS {
            let mut block = [0u8; 16];
            for i in 0..r::BLOCK_WORDS {
                let w = unswap(self.fin.pop().unwrap_or(0), cr::DATATYPE.get(self.cr));
                block[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
            }
            let mut iv = [0u8; 16];
            for (i, w) in self.iv.iter().enumerate() {
                iv[4 * i..4 * i + 4].copy_from_slice(&w.to_be_bytes());
            }
            let unprepared = decrypt && mode != (Mode::Ctr { width_bits: 32 }) && !self.prepared;
            if !unprepared {
                process_block(&key, mode, !decrypt, &mut iv, &mut block);
            }
            self.ledger
                .add(Event::EngineCycle, cycles_per_block(key.rounds()));
            for (i, w) in self.iv.iter_mut().enumerate() {
                *w = u32::from_be_bytes([iv[4 * i], iv[4 * i + 1], iv[4 * i + 2], iv[4 * i + 3]]);
            }
            for i in 0..r::BLOCK_WORDS {
                let w = u32::from_be_bytes([
                    block[4 * i],
                    block[4 * i + 1],
                    block[4 * i + 2],
                    block[4 * i + 3],
                ]);
                self.fout.push(unswap(w, cr::DATATYPE.get(self.cr)));
            }
        }
    }
}

/// The DATATYPE swap between a FIFO word and the core's big-endian word (an involution).
fn unswap(w: u32, datatype: u32) -> u32 {
    match datatype {
        cr::DATATYPE_16 => w.rotate_left(16),
        cr::DATATYPE_8 => w.swap_bytes(),
        cr::DATATYPE_1 => w.reverse_bits(),
        _ => w,
    }
}

impl DmaPort for Stm32Cryp<'_> {
    /// DIN when written, DOUT when read.
    fn is_port(offset: u64, _len: usize, write: bool) -> bool {
        offset == if write { r::DIN } else { r::DOUT } as u64
    }

    /// The interrupt line (`MISR != 0`).
    fn irq_line(&self) -> bool {
        self.gates.is_clocked(self.gate) && self.raw_it() & self.imscr != 0
    }

    /// DMA request for a four-word input burst.
    fn dma_in_request(&self) -> bool {
        self.gates.is_clocked(self.gate)
            && self.dmacr & dmacr::DIEN != 0
            && self.enabled()
            && self.fin.room() >= r::BLOCK_WORDS
    }

    /// DMA request for a four-word output burst.
    fn dma_out_request(&self) -> bool {
        self.gates.is_clocked(self.gate)
            && self.dmacr & dmacr::DOEN != 0
            && self.fout.len >= r::BLOCK_WORDS
    }

    /// DIN, written by the CPU or DMA (a word that finds the FIFO full is lost).
    fn push_word(&mut self, w: u32) -> Result<(), BusFault> {
        self.gates.check(self.gate)?;
        self.fin.push(w);
        self.run();
        Ok(())
    }

    /// DOUT, read by the CPU or DMA (0 when empty).
    fn pop_word(&mut self) -> Result<u32, BusFault> {
        self.gates.check(self.gate)?;
        let w = self.fout.pop().unwrap_or(0);
        self.run();
        Ok(w)
    }
}

impl RegisterBus for Stm32Cryp<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        if offset == r::DOUT {
            self.ledger.add(Event::PioWord, 1);
            return self.pop_word();
        }
        self.ledger.add(Event::RegRead, 1);
        Ok(match offset {
            r::CR => self.cr,
            r::SR => {
                let mut v = 0;
                if self.fin.len == 0 {
                    v |= sr::IFEM;
                }
                if self.fin.room() > 0 {
                    v |= sr::IFNF;
                }
                if self.fout.len > 0 {
                    v |= sr::OFNE;
                }
                if self.fout.room() == 0 {
                    v |= sr::OFFU;
                }
                v
            }
            r::DMACR => self.dmacr,
            r::IMSCR => self.imscr,
            r::RISR => self.raw_it(),
            r::MISR => self.raw_it() & self.imscr,
            o if (r::iv(0)..=r::iv(3)).contains(&o) => self.iv[(o - r::iv(0)) / 4],
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        self.gates.admit(self.gate, offset, r::WINDOW)?;
        if offset == r::DIN {
            self.ledger.add(Event::PioWord, 1);
            return self.push_word(value);
        }
        self.ledger.add(Event::RegWrite, 1);
        match offset {
            r::CR => self.write_cr(value),
            r::DMACR => self.dmacr = value & (dmacr::DIEN | dmacr::DOEN),
            r::IMSCR => self.imscr = value & (it::IN | it::OUT),
            o if (r::key(0)..=r::key(7)).contains(&o) => {
                let held = self.holds_key();
                self.key[(o - r::key(0)) / 4] = value;
                self.prepared = false;
                // The schedule is rebuilt from the registers at the next CRYPEN.
                self.expanded = None;
                key_moved(self.ledger, held, self.holds_key());
            }
            o if (r::iv(0)..=r::iv(3)).contains(&o) => self.iv[(o - r::iv(0)) / 4] = value,
            _ => {}
        }
        Ok(())
    }
}
