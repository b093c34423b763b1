//! A host model of QEMU's `virtio-crypto-device` with `cryptodev-backend-builtin`, on a
//! modern virtio-mmio transport (virtio 1.2 §4.2, §5.9), so that the virtio-crypto driver
//! runs unchanged on the host: it implements [`mmio::RegisterBus`], walks the driver's
//! split virtqueues through an [`engine_models::phys::PhysMap`] and does AES with
//! RustCrypto.
//!
//! It follows QEMU's behaviour where the driver could notice (read off
//! `hw/virtio/virtio-crypto.c` and `backends/cryptodev-builtin.c`): one data queue then
//! the control queue; features VERSION_1 only; `cipher_algo_l` advertising AES-CBC alone
//! while ECB and CTR also work; whole blocks only; non-OK answers as VIRTIO_CRYPTO_ERR;
//! a malformed chain sets DEVICE_NEEDS_RESET and is never returned. Work completes on the
//! QueueNotify write that makes it possible. [`Faults`] injects what a real device may do
//! and QEMU will not on demand: a failure status, a hang, a reset request.
//!
//! `make qemu-test` runs the same driver against QEMU itself, which is what shows that
//! this model and the driver agree with the real device (the layouts used here come from
//! the driver crate, so host tests alone cannot catch a layout both got wrong).
//!
//! Assumes one driver thread (the model is `!Sync` through its `PhysMap`). `no_std`, no heap.
#![no_std]
#![deny(unsafe_code)]

pub mod crypto;
pub mod queue;
mod requests;

use cost_ledger::{Event, Ledger};
use engine_models::phys::PhysMap;
use mmio::{BusFault, RegisterBus, check_offset};
use queue::{Broken, QueueState};
use virtio_crypto_driver::regs::{self, status as dev_status};
use virtio_crypto_driver::wire::{self, cipher_algo, config};

/// The data queue's index; the control queue follows it (§5.9.2, one data queue).
pub const DATAQ: u32 = 0;
pub const CTRLQ: u32 = 1;
/// Largest queue the model accepts (QEMU: 1024).
pub const QUEUE_NUM_MAX: u32 = 1024;

/// What the model advertises and implements.
#[derive(Clone, Copy, Debug)]
pub struct ModelConfig {
    /// Feature bits offered (§6, §5.9.3).
    pub features: u64,
    /// `cipher_algo_l | cipher_algo_h << 32` in the configuration space.
    pub advertised: u64,
    /// What the backend runs; a session for anything else gets VIRTIO_CRYPTO_ERR.
    pub implemented: u64,
    pub hw_ready: bool,
    /// VirtIO version register: 2 (modern) or 1 (legacy, which the driver refuses).
    pub version: u32,
}

impl Default for ModelConfig {
    /// QEMU 7.2's `virtio-crypto-device` with `cryptodev-backend-builtin`.
    fn default() -> Self {
        Self {
            features: 1 << regs::feature::VERSION_1,
            advertised: 1 << cipher_algo::AES_CBC,
            implemented: crypto::IMPLEMENTED,
            hw_ready: true,
            version: regs::VERSION_MODERN,
        }
    }
}

/// Misbehaviour to inject, each once, at the next data request.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Answer with this status instead of doing the work.
    pub status: Option<u8>,
    /// Take the chain and never return it.
    pub hang: bool,
    /// Set DEVICE_NEEDS_RESET and drop the chain.
    pub needs_reset: bool,
}

/// The device.
pub struct VirtioCryptoModel<'m> {
    mem: &'m PhysMap<'m>,
    ledger: Option<&'m Ledger>,
    pub config: ModelConfig,
    pub faults: Faults,
    status: u32,
    device_features_sel: u32,
    driver_features_sel: u32,
    driver_features: u64,
    queue_sel: u32,
    queues: [QueueState; 2],
    interrupt: u32,
    pub sessions: crypto::Sessions,
    /// Requests completed, for tests.
    pub completed: u64,
    /// While set, a notify leaves the chains posted (QEMU runs data requests later, in a
    /// bottom half); [`release`](Self::release) runs them.
    held: bool,
}

impl<'m> VirtioCryptoModel<'m> {
    pub fn new(mem: &'m PhysMap<'m>, config: ModelConfig, ledger: Option<&'m Ledger>) -> Self {
        Self {
            mem,
            ledger,
            config,
            faults: Faults::default(),
            status: 0,
            device_features_sel: 0,
            driver_features_sel: 0,
            driver_features: 0,
            queue_sel: 0,
            queues: [QueueState::default(); 2],
            interrupt: 0,
            sessions: crypto::Sessions::new(config.implemented),
            completed: 0,
            held: false,
        }
    }

    /// From now on, chains wait on their queues until [`release`](Self::release), so a
    /// test can have several requests in flight at once.
    pub fn hold(&mut self) {
        self.held = true;
    }

    /// Runs every chain waiting on either queue (and raises the interrupt for them),
    /// and stops holding.
    pub fn release(&mut self) {
        self.held = false;
        for q in 0..self.queues.len() as u32 {
            self.notify(q);
        }
    }

    /// Chains the driver made available on queue `q` that the device has not taken.
    pub fn waiting(&self, q: usize) -> u16 {
        self.queues.get(q).map_or(0, |s| s.waiting(self.mem))
    }

    /// The device status register as the driver last left it (plus NEEDS_RESET).
    pub fn status(&self) -> u32 {
        self.status
    }

    /// The ledger the device counts into, if it was given one.
    pub fn ledger(&self) -> Option<&'m Ledger> {
        self.ledger
    }

    fn count(&self, e: Event, n: u64) {
        if let Some(l) = self.ledger {
            l.add(e, n);
        }
    }

    fn reset(&mut self) {
        let (mem, ledger, config) = (self.mem, self.ledger, self.config);
        let held = self.sessions.open();
        *self = Self::new(mem, config, ledger);
        // A reset drops every session, and its key.
        self.count(Event::KeyCleared, held as u64);
    }

    fn config_word(&self, off: usize) -> u32 {
        match off {
            config::STATUS => u32::from(self.config.hw_ready) * config::S_HW_READY,
            config::MAX_DATAQUEUES => 1,
            config::CRYPTO_SERVICES => 1 << wire::service::CIPHER,
            config::CIPHER_ALGO_L => self.config.advertised as u32,
            config::CIPHER_ALGO_H => (self.config.advertised >> 32) as u32,
            config::MAX_CIPHER_KEY_LEN => 64,
            // QEMU: LONG_MAX - sizeof(CryptoDevBackendOpInfo); any large value will do.
            config::MAX_SIZE => u32::MAX,
            _ if off == config::MAX_SIZE + 4 => 0x7fff_ffff,
            _ => 0,
        }
    }

    fn queue(&mut self) -> Option<&mut QueueState> {
        self.queues.get_mut(self.queue_sel as usize)
    }

    fn notify(&mut self, q: u32) {
        if self.held
            || self.status & dev_status::DRIVER_OK == 0
            || self.status & dev_status::DEVICE_NEEDS_RESET != 0
        {
            return;
        }
        if let Err(Broken) = self.drain(q) {
            // QEMU's virtio_error: the device needs a reset and says so.
            self.status |= dev_status::DEVICE_NEEDS_RESET;
            self.interrupt |= regs::interrupt::CONFIG_CHANGE;
        }
    }

    fn drain(&mut self, q: u32) -> Result<(), Broken> {
        let Some(mut state) = self.queues.get(q as usize).copied() else {
            return Ok(());
        };
        let result = (|| {
            while let Some(chain) = state.pop(self.mem)? {
                self.count(Event::DmaDescriptor, (chain.nout + chain.nin) as u64);
                let written = if q == CTRLQ {
                    self.control(&chain)?
                } else {
                    match self.data(&chain)? {
                        Some(n) => n,
                        None => continue, // hung: never returned
                    }
                };
                state.push(self.mem, chain.head, written)?;
                self.completed += 1;
                self.interrupt |= regs::interrupt::USED_BUFFER;
                self.count(Event::Interrupt, 1);
            }
            Ok(())
        })();
        self.queues[q as usize] = state;
        result
    }
}

impl RegisterBus for VirtioCryptoModel<'_> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        check_offset(offset, regs::WINDOW)?;
        self.count(Event::RegRead, 1);
        let v = match offset {
            regs::MAGIC_VALUE => regs::MAGIC,
            regs::VERSION => self.config.version,
            regs::DEVICE_ID => regs::device_id::CRYPTO,
            regs::VENDOR_ID => 0x554d_4551, // "QEMU"
            regs::DEVICE_FEATURES => match self.device_features_sel {
                0 => self.config.features as u32,
                1 => (self.config.features >> 32) as u32,
                _ => 0,
            },
            regs::QUEUE_NUM_MAX => self.queue().map_or(0, |_| QUEUE_NUM_MAX),
            regs::QUEUE_READY => self.queue().map_or(0, |q| u32::from(q.ready)),
            regs::INTERRUPT_STATUS => self.interrupt,
            regs::STATUS => self.status,
            regs::CONFIG_GENERATION => 0,
            o if (regs::CONFIG..regs::CONFIG + config::LEN).contains(&o) => {
                self.config_word(o - regs::CONFIG)
            }
            _ => 0,
        };
        Ok(v)
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        check_offset(offset, regs::WINDOW)?;
        self.count(Event::RegWrite, 1);
        match offset {
            regs::DEVICE_FEATURES_SEL => self.device_features_sel = value,
            regs::DRIVER_FEATURES_SEL => self.driver_features_sel = value,
            regs::DRIVER_FEATURES => match self.driver_features_sel {
                0 => self.driver_features = self.driver_features & !0xffff_ffff | u64::from(value),
                1 => {
                    self.driver_features =
                        self.driver_features & 0xffff_ffff | u64::from(value) << 32
                }
                _ => {}
            },
            regs::QUEUE_SEL => self.queue_sel = value,
            regs::QUEUE_NUM => {
                if let Some(q) = self.queue() {
                    q.num = value.min(QUEUE_NUM_MAX);
                }
            }
            regs::QUEUE_READY => {
                if let Some(q) = self.queue() {
                    q.ready = value & 1 != 0;
                }
            }
            regs::QUEUE_DESC_LOW
            | regs::QUEUE_DESC_HIGH
            | regs::QUEUE_DRIVER_LOW
            | regs::QUEUE_DRIVER_HIGH
            | regs::QUEUE_DEVICE_LOW
            | regs::QUEUE_DEVICE_HIGH => {
                if let Some(q) = self.queue() {
                    let field = match offset & !7 {
                        regs::QUEUE_DESC_LOW => &mut q.desc,
                        regs::QUEUE_DRIVER_LOW => &mut q.driver,
                        _ => &mut q.device,
                    };
                    let shift = if offset & 4 == 0 { 0 } else { 32 };
                    *field = *field & !(0xffff_ffffu64 << shift) | u64::from(value) << shift;
                }
            }
            regs::QUEUE_NOTIFY => self.notify(value),
            regs::INTERRUPT_ACK => self.interrupt &= !value,
            regs::STATUS => {
                if value == 0 {
                    self.reset();
                } else {
                    let mut v = value;
                    // FEATURES_OK sticks only if the driver took VERSION_1 and nothing
                    // that was not offered (§3.1 steps 5-6).
                    let version_1 = 1u64 << regs::feature::VERSION_1;
                    if v & dev_status::FEATURES_OK != 0
                        && (self.driver_features & !self.config.features != 0
                            || self.driver_features & version_1 == 0)
                    {
                        v &= !dev_status::FEATURES_OK;
                    }
                    self.status = v | (self.status & dev_status::DEVICE_NEEDS_RESET);
                }
            }
            _ => {}
        }
        Ok(())
    }
}
