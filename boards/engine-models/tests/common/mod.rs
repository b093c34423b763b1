//! Test drivers: small drivers that program the models the way the sources' Linux drivers
//! programmed the silicon, plus the fixtures they share. Each returns what a real driver
//! would see (output bytes, or the hardware's error) and leaves the cost in the ledger.
#![allow(dead_code)]

pub mod omap;
pub mod sec1;
pub mod stm32;
pub mod vectors;

use cost_ledger::Ledger;
use engine_models::phys::PhysMap;
use engine_models::power::{ClockController, GateBlock};
use mmio::RegisterBus;
use mmio::clkctrl::{self, MODULEMODE, MODULEMODE_DISABLED, MODULEMODE_ENABLE};

/// Chaining mode a test asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
}

/// What a cipher request asks of the engine.
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    pub key: &'a [u8],
    pub iv: Option<&'a [u8]>,
    pub mode: Mode,
    pub encrypt: bool,
}

impl<'a> Job<'a> {
    pub fn new(key: &'a [u8], iv: Option<&'a [u8]>, mode: Mode, encrypt: bool) -> Self {
        Self {
            key,
            iv,
            mode,
            encrypt,
        }
    }
}

/// A bump allocator over one DMA window: hands out physical ranges.
pub struct Arena {
    pub base: u64,
    pub len: usize,
    next: u64,
}

impl Arena {
    pub fn new(base: u64, len: usize) -> Self {
        Self {
            base,
            len,
            next: base,
        }
    }

    /// `len` bytes aligned to `align`.
    pub fn alloc(&mut self, len: usize, align: u64) -> u32 {
        let at = self.next.next_multiple_of(align);
        assert!(at + len as u64 <= self.base + self.len as u64, "arena full");
        self.next = at + len as u64;
        at as u32
    }

    /// Places `data` in a fresh range and returns its address.
    pub fn put(&mut self, mem: &PhysMap, data: &[u8], align: u64) -> u32 {
        let at = self.alloc(data.len().max(1), align);
        mem.write(at.into(), data).unwrap();
        at
    }
}

/// Reads `len` bytes at `addr`.
pub fn get(mem: &PhysMap, addr: u32, len: usize) -> Vec<u8> {
    let mut v = vec![0; len];
    mem.read(addr.into(), &mut v).unwrap();
    v
}

/// Ungates (or gates) clock `gate`, as the power manager does.
pub fn set_clock(gates: &GateBlock, ledger: &Ledger, gate: usize, on: bool) {
    let mode = if on {
        MODULEMODE_ENABLE
    } else {
        MODULEMODE_DISABLED
    };
    ClockController::new(gates, ledger)
        .write32(clkctrl::clkctrl(gate), MODULEMODE.val(mode))
        .unwrap();
}

/// A fresh gate block and ledger with `clocks` ungated, as a session's start leaves them.
pub fn powered(clocks: &[usize]) -> (GateBlock, Ledger) {
    let (gates, ledger) = (GateBlock::new(), Ledger::new());
    for &gate in clocks {
        set_clock(&gates, &ledger, gate, true);
    }
    (gates, ledger)
}

/// A map whose one window is `ram`, at physical `phys`.
pub fn ram_at(phys: u64, ram: &mut [u8]) -> PhysMap<'_> {
    let mem = PhysMap::new();
    mem.add(phys, ram);
    mem
}

/// Hex string to bytes (test vectors are typed as the documents print them).
pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Relative error of `model` against `published`.
pub fn rel_err(model: f64, published: f64) -> f64 {
    (model - published).abs() / published
}
