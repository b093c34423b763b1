//! The stm32mp1's true random number generator (RNG1, RM0436 "RNG"), as its driver sees
//! it: RNG_CR (RNGEN, IE, CED), RNG_SR (DRDY, CECS, SECS and the CEIS/SEIS interrupt
//! flags, cleared by writing 0) and RNG_DR (one 32-bit word a read). A machine of its
//! own ([`Stm32RngMachine`]: one device, one interrupt line), so a device PD can stand in
//! for it as for the other engines.
//!
//! What it models of the silicon: data is ready whenever the generator is enabled and
//! no error stands (time is not simulated); the interrupt is IE and (DRDY or an error
//! flag); the seed-error detector the reference manual describes (more than 64
//! consecutive equal bits, or more than 32 consecutive alternations 01/10, in the noise)
//! sets SECS and SEIS and stops data; clearing SEIS and toggling RNGEN restarts the
//! detector, and SECS stays clear only if the noise is good again. A clock error (CECS,
//! CEIS) is injected by a test ([`Stm32Rng::clock_error`]) and stops data too.
//!
//! Its noise is not noise: a xorshift stream seeded by the host ([`Stm32Rng::seed`]: the
//! device PD seeds it from getrandom on the host; on seL4 it keeps its fixed seed) that
//! a test turns [`Noise::Stuck`] (the detector catches it) or [`Noise::Biased`] (two
//! bytes in turn, 0x00 and 0x55: no run of 64 equal bits, no 32 alternations, so the
//! hardware sees nothing and only the driver's SP 800-90B tests can).

use mmio::{BusFault, RegisterBus, check_offset};

use crate::noise_control::Fault;

/// Register offsets (RM0436 RNG register map).
pub mod regs {
    pub const CR: usize = 0x00;
    pub const SR: usize = 0x04;
    pub const DR: usize = 0x08;
    pub const WINDOW: usize = 0x400;
    /// RNG_CR bits.
    pub const CR_RNGEN: u32 = 1 << 2;
    pub const CR_IE: u32 = 1 << 3;
    /// Clock error detection disabled when set.
    pub const CR_CED: u32 = 1 << 5;
    /// RNG_SR bits.
    pub const SR_DRDY: u32 = 1 << 0;
    pub const SR_CECS: u32 = 1 << 1;
    pub const SR_SECS: u32 = 1 << 2;
    pub const SR_CEIS: u32 = 1 << 5;
    pub const SR_SEIS: u32 = 1 << 6;
}

/// What the model's noise source does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Noise {
    Good,
    /// Every bit 1: the seed-error detector fires within 65 bits.
    Stuck,
    /// 0x00 and 0x55 in turn: invisible to the detector.
    Biased,
}

/// The RNG's state.
#[derive(Debug)]
pub struct Stm32Rng {
    cr: u32,
    /// SECS and the interrupt flags as they stand.
    secs: bool,
    seis: bool,
    cecs: bool,
    ceis: bool,
    noise: Noise,
    state: u64,
    bytes: u64,
    /// The detector: the last bit, the run of equal bits, the run of alternations.
    last_bit: Option<bool>,
    equal: u32,
    alternating: u32,
    /// Words read from RNG_DR.
    pub words: u64,
}

impl Default for Stm32Rng {
    fn default() -> Self {
        Stm32Rng {
            cr: 0,
            secs: false,
            seis: false,
            cecs: false,
            ceis: false,
            noise: Noise::Good,
            state: 0x2545_f491_4f6c_dd1d,
            bytes: 0,
            last_bit: None,
            equal: 0,
            alternating: 0,
            words: 0,
        }
    }
}

impl Stm32Rng {
    /// Seeds the xorshift stream (0 is taken as 1: xorshift stays at 0).
    pub fn seed(&mut self, seed: u64) {
        self.state = seed.max(1);
    }

    pub fn set_noise(&mut self, noise: Noise) {
        self.noise = noise;
    }

    /// Raises (or clears) a clock error: CECS follows, CEIS is set on the rise unless
    /// detection is disabled (CED).
    pub fn clock_error(&mut self, on: bool) {
        if on && !self.cecs && self.cr & regs::CR_CED == 0 {
            self.ceis = true;
        }
        self.cecs = on;
    }

    fn enabled(&self) -> bool {
        self.cr & regs::CR_RNGEN != 0
    }

    fn ready(&self) -> bool {
        self.enabled() && !self.secs && !self.cecs && !self.seis && !self.ceis
    }

    fn sr(&self) -> u32 {
        let mut sr = 0;
        if self.ready() {
            sr |= regs::SR_DRDY;
        }
        for (on, bit) in [
            (self.cecs, regs::SR_CECS),
            (self.secs, regs::SR_SECS),
            (self.ceis, regs::SR_CEIS),
            (self.seis, regs::SR_SEIS),
        ] {
            if on {
                sr |= bit;
            }
        }
        sr
    }

    /// Whether the interrupt line is asserted.
    pub fn irq(&self) -> bool {
        self.cr & regs::CR_IE != 0
            && self.sr() & (regs::SR_DRDY | regs::SR_CEIS | regs::SR_SEIS) != 0
    }

    fn noise_byte(&mut self) -> u8 {
        self.bytes += 1;
        match self.noise {
            Noise::Stuck => 0xff,
            Noise::Biased if self.bytes.is_multiple_of(2) => 0x00,
            Noise::Biased => 0x55,
            Noise::Good => {
                self.state ^= self.state << 13;
                self.state ^= self.state >> 7;
                self.state ^= self.state << 17;
                (self.state >> 32) as u8
            }
        }
    }

    /// The next word, through the seed-error detector; `None` if it fired.
    fn word(&mut self) -> Option<u32> {
        let mut w = 0u32;
        for i in 0..4 {
            let b = self.noise_byte();
            for k in 0..8 {
                self.detect(b >> k & 1 == 1);
            }
            w |= u32::from(b) << (8 * i);
        }
        if self.equal > 64 || self.alternating > 32 {
            self.secs = true;
            self.seis = true;
            return None;
        }
        Some(w)
    }

    fn detect(&mut self, bit: bool) {
        match self.last_bit {
            Some(last) if last == bit => {
                self.equal += 1;
                self.alternating = 0;
            }
            Some(_) => {
                self.equal = 1;
                self.alternating += 1;
            }
            None => self.equal = 1,
        }
        self.last_bit = Some(bit);
    }

    fn restart_detector(&mut self) {
        self.last_bit = None;
        self.equal = 0;
        self.alternating = 0;
        self.secs = false;
    }
}

impl RegisterBus for Stm32Rng {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        check_offset(offset, regs::WINDOW)?;
        Ok(match offset {
            regs::CR => self.cr,
            regs::SR => self.sr(),
            regs::DR if self.ready() => match self.word() {
                Some(w) => {
                    self.words += 1;
                    w
                }
                None => 0,
            },
            // RM0436: RNG_DR reads 0 while no data is valid.
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        check_offset(offset, regs::WINDOW)?;
        match offset {
            regs::CR => {
                let was = self.enabled();
                self.cr = value & (regs::CR_RNGEN | regs::CR_IE | regs::CR_CED);
                if !was && self.enabled() {
                    // Enabling restarts the generator and its detector.
                    self.restart_detector();
                }
            }
            regs::SR => {
                // rc_w0: writing 0 clears CEIS and SEIS; the rest is read-only.
                if value & regs::SR_SEIS == 0 {
                    self.seis = false;
                }
                if value & regs::SR_CEIS == 0 {
                    self.ceis = false;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The RNG as a machine of one device on one interrupt line, with the test's control
/// byte if the system maps one ([`Control`]).
pub struct Stm32RngMachine {
    pub rng: Stm32Rng,
    irqs: &'static [u32],
    control: Option<Control>,
}

/// Where a whole-system test steers the model: the [`crate::noise_control`] byte it
/// writes, read before each access (`DeviceError` is a clock error here).
pub struct Control(pub fn() -> u8);

/// The RNG's device index in [`Stm32RngMachine`].
pub const DEV_RNG: usize = 0;

impl Stm32RngMachine {
    pub fn new(irqs: &'static [u32], control: Option<Control>) -> Self {
        Stm32RngMachine {
            rng: Stm32Rng::default(),
            irqs,
            control,
        }
    }

    fn steer(&mut self) {
        if let Some(Control(read)) = &self.control {
            let fault = Fault::from_byte(read());
            self.rng.set_noise(match fault {
                Fault::Stuck => Noise::Stuck,
                Fault::Biased => Noise::Biased,
                Fault::None | Fault::DeviceError => Noise::Good,
            });
            self.rng.clock_error(fault == Fault::DeviceError);
        }
    }
}

impl crate::soc::Machine for Stm32RngMachine {
    fn irqs(&self) -> &'static [u32] {
        self.irqs
    }

    fn irq_asserted(&self, irq: u32) -> bool {
        self.irqs.first() == Some(&irq) && self.rng.irq()
    }

    fn read(&mut self, dev: usize, offset: usize) -> Result<u32, BusFault> {
        self.steer();
        match dev {
            DEV_RNG => self.rng.read32(offset),
            _ => Err(BusFault::NoDevice),
        }
    }

    fn write(&mut self, dev: usize, offset: usize, value: u32) -> Result<(), BusFault> {
        match dev {
            DEV_RNG => self.rng.write32(offset, value),
            _ => Err(BusFault::NoDevice),
        }
    }
}
