//! The virtio-mmio transport (virtio 1.2 §4.2, the modern layout) and split virtqueues
//! (§2.7), written once for every virtio driver here (virtio-crypto, virtio-rng): probing
//! a transport for a device type, the initialisation sequence's generic steps (§3.1:
//! reset, ACKNOWLEDGE, DRIVER, feature negotiation, FEATURES_OK, DRIVER_OK), queues at
//! fixed places in the driver's own DMA memory ([`virtq`], [`dma`]), and the interrupt
//! acknowledgement. What a device puts in its configuration space and its queues is its
//! driver's.
//!
//! Assumes registers reached through [`mmio::RegisterBus`] (volatile MMIO on hardware, a
//! model on the host), 32-bit accesses, memory coherent with the device (true of virtio
//! under QEMU), and a driver that polls only boundedly. `no_std`, no heap.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod dma;
pub mod regs;
pub mod ring;
pub mod virtq;

pub use dma::DmaArea;
pub use virtq::{Buf, Chain, Virtq};

use mmio::{BusFault, RegisterBus};

/// What went wrong at the transport or in a queue, whatever the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    Bus(BusFault),
    /// MagicValue is not "virt": no virtio-mmio transport here.
    NotVirtio {
        magic: u32,
    },
    /// A legacy (version 1) transport; QEMU needs `-global virtio-mmio.force-legacy=false`.
    Legacy {
        version: u32,
    },
    /// A transport with no device behind it (DeviceID 0).
    NoDevice,
    WrongDevice {
        id: u32,
    },
    NoVersion1,
    FeaturesRefused,
    /// The device did not read back 0 after a reset.
    ResetTimeout,
    NoQueue {
        queue: u16,
    },
    QueueInUse {
        queue: u16,
    },
    QueueTooSmall {
        queue: u16,
        max: u32,
    },
    /// The DMA area is too small or misaligned.
    DmaArea,
    /// A chain that does not fit the queue or breaks the out-before-in rule.
    BadChain,
    /// The device's used ring moved further than the chains outstanding, or named one
    /// not posted.
    BadUsedRing,
    /// The device set DEVICE_NEEDS_RESET.
    NeedsReset,
}

impl From<BusFault> for Error {
    fn from(e: BusFault) -> Self {
        Error::Bus(e)
    }
}

/// Checks that `bus` is a modern virtio-mmio transport with a device of type `device`
/// behind it (a [`regs::device_id`]).
pub fn probe<B: RegisterBus>(bus: &mut B, device: u32) -> Result<(), Error> {
    let magic = bus.read32(regs::MAGIC_VALUE)?;
    if magic != regs::MAGIC {
        return Err(Error::NotVirtio { magic });
    }
    // The device id before the version, so that scanning empty transports (legacy or
    // not, QEMU's virt has 32) reports nothing but "no device".
    match bus.read32(regs::DEVICE_ID)? {
        0 => return Err(Error::NoDevice),
        id if id == device => {}
        id => return Err(Error::WrongDevice { id }),
    }
    let version = bus.read32(regs::VERSION)?;
    if version != regs::VERSION_MODERN {
        return Err(Error::Legacy { version });
    }
    Ok(())
}

/// §3.1 steps 1-6 with §4.2.3.1: reset, ACKNOWLEDGE, DRIVER, then features: VERSION_1
/// required, ACCESS_PLATFORM accepted if offered (a device that offers it may refuse a
/// driver that does not accept it, §6) and nothing else, then FEATURES_OK, checked.
/// The device's configuration and queues come next (the driver's), then
/// [`driver_ok`].
pub fn negotiate<B: RegisterBus>(bus: &mut B) -> Result<(), Error> {
    use regs::status::*;
    bus.write32(regs::STATUS, 0)?;
    // §4.2.3.1: after writing 0 the driver waits for STATUS to read 0.
    if !(0..1_000_000).any(|_| bus.read32(regs::STATUS) == Ok(0)) {
        return Err(Error::ResetTimeout);
    }
    bus.write32(regs::STATUS, ACKNOWLEDGE)?;
    bus.write32(regs::STATUS, ACKNOWLEDGE | DRIVER)?;
    let mut offered = 0u64;
    for bank in 0..2u32 {
        bus.write32(regs::DEVICE_FEATURES_SEL, bank)?;
        offered |= u64::from(bus.read32(regs::DEVICE_FEATURES)?) << (32 * bank);
    }
    let bit = |n: u32| 1u64 << n;
    if offered & bit(regs::feature::VERSION_1) == 0 {
        return Err(Error::NoVersion1);
    }
    let wanted = offered & (bit(regs::feature::VERSION_1) | bit(regs::feature::ACCESS_PLATFORM));
    for bank in 0..2u32 {
        bus.write32(regs::DRIVER_FEATURES_SEL, bank)?;
        bus.write32(regs::DRIVER_FEATURES, (wanted >> (32 * bank)) as u32)?;
    }
    bus.write32(regs::STATUS, ACKNOWLEDGE | DRIVER | FEATURES_OK)?;
    if bus.read32(regs::STATUS)? & FEATURES_OK == 0 {
        return Err(Error::FeaturesRefused);
    }
    Ok(())
}

/// §3.1 step 8: DRIVER_OK, then a look for DEVICE_NEEDS_RESET.
pub fn driver_ok<B: RegisterBus>(bus: &mut B) -> Result<(), Error> {
    use regs::status::*;
    bus.write32(regs::STATUS, ACKNOWLEDGE | DRIVER | FEATURES_OK | DRIVER_OK)?;
    needs_reset(bus)
}

/// `Err(NeedsReset)` if the device asks for one (§2.1.2).
pub fn needs_reset<B: RegisterBus>(bus: &mut B) -> Result<(), Error> {
    if bus.read32(regs::STATUS)? & regs::status::DEVICE_NEEDS_RESET != 0 {
        return Err(Error::NeedsReset);
    }
    Ok(())
}

/// Tells the device the driver gave up on it (§2.1: FAILED).
pub fn give_up<B: RegisterBus>(bus: &mut B) {
    let _ = bus.modify32(regs::STATUS, 0, regs::status::FAILED);
}

/// Acknowledges what the transport's interrupt was for (§4.2.2 InterruptStatus and
/// InterruptACK) and returns it; a configuration change is looked at for a reset
/// request.
pub fn ack_interrupt<B: RegisterBus>(bus: &mut B) -> Result<u32, Error> {
    let status = bus.read32(regs::INTERRUPT_STATUS)?;
    if status != 0 {
        bus.write32(regs::INTERRUPT_ACK, status)?;
    }
    if status & regs::interrupt::CONFIG_CHANGE != 0 {
        needs_reset(bus)?;
    }
    Ok(status)
}

/// QEMU `virt`'s transports: 32 of them, 0x200 bytes apart (hw/arm/virt.c, VIRT_MMIO).
pub const TRANSPORTS: usize = 32;
pub const TRANSPORT_STRIDE: usize = 0x200;

/// Probes each transport of the window at `base` (`len` bytes) for a device of type
/// `device`: the `nth` found (0 the first, in transport order), with its index; `other`
/// hears of each transport that is neither empty nor of another type (a legacy one, a
/// bus fault). Two PDs that each drive a device of one type take different `nth`s
/// (the isolation bench's own virtio-crypto device beside its driver PD's).
///
/// # Safety
/// `base..base + len` must be the transports' registers, mapped as device memory for as
/// long as the returned bus is used, and no other bus may reach the transport found.
pub unsafe fn find(
    base: *mut u8,
    len: usize,
    device: u32,
    nth: usize,
    mut other: impl FnMut(usize, Error),
) -> Result<(usize, mmio::VolatileMmio), Error> {
    let mut skip = nth;
    for n in 0..TRANSPORTS.min(len / TRANSPORT_STRIDE) {
        // SAFETY: transport n's window lies inside the caller's (its contract); a failed
        // probe, or a device passed over, drops its bus before the next is made.
        let mut bus =
            unsafe { mmio::VolatileMmio::new(base.add(n * TRANSPORT_STRIDE), regs::WINDOW) };
        match probe(&mut bus, device) {
            Ok(()) if skip == 0 => return Ok((n, bus)),
            Ok(()) => skip -= 1,
            Err(Error::NoDevice | Error::WrongDevice { .. }) => {}
            Err(e) => other(n, e),
        }
    }
    Err(Error::NoDevice)
}
