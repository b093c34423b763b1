//! Register windows reached through a device PD: where there is no silicon (the OMAP,
//! STM32 and talitos engines under QEMU), a device PD runs the board's model and serves
//! its windows over calls (pd-idl `RegBus`) on the PD's [`pd_runtime::device_channel`],
//! raising the engine's interrupts as notifications on the same channel. The driver
//! above sees the same [`RegisterBus`] it would over MMIO.

use mmio::{BusFault, RegisterBus};
use pd_idl::regbus::{BusError, Client};
use pd_idl::wire::CallError;
use pd_runtime::Channel;
use pd_runtime::ipc::PpcTransport;

/// The windows a board's device PD serves: its engine, the engine's DMA controller and
/// the clock controller (the last to the power manager alone).
pub mod window {
    pub const ENGINE: u8 = 0;
    pub const DMA: u8 = 1;
    pub const CLOCKS: u8 = 2;
}

/// One window of a device PD, as a register bus.
pub struct DeviceBus {
    client: Client<PpcTransport>,
    window: u8,
}

impl DeviceBus {
    pub fn new(channel: Channel, window: u8) -> Self {
        DeviceBus {
            client: Client::new(PpcTransport(channel)),
            window,
        }
    }
}

fn fault(e: CallError<BusError>, offset: usize) -> BusFault {
    match e {
        CallError::Server(BusError::Gated) => BusFault::Gated,
        CallError::Server(BusError::OutOfWindow) => BusFault::OutOfWindow { offset },
        CallError::Server(BusError::Misaligned) => BusFault::Misaligned { offset },
        // Not this caller's window, the device PD restarted or disagrees on the
        // interface: as silicon that does not answer.
        _ => BusFault::NoDevice,
    }
}

impl RegisterBus for DeviceBus {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        let off = u32::try_from(offset).map_err(|_| BusFault::OutOfWindow { offset })?;
        self.client
            .read32(self.window, off)
            .map_err(|e| fault(e, offset))
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let off = u32::try_from(offset).map_err(|_| BusFault::OutOfWindow { offset })?;
        self.client
            .write32(self.window, off, value)
            .map_err(|e| fault(e, offset))
    }
}

/// A window as the driver gets it: the backend's own (the model's port on the host,
/// MMIO on seL4), or a device PD's.
pub enum Bus<L> {
    Local(L),
    Device(DeviceBus),
}

impl<L: RegisterBus> RegisterBus for Bus<L> {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        match self {
            Bus::Local(b) => b.read32(offset),
            Bus::Device(b) => b.read32(offset),
        }
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        match self {
            Bus::Local(b) => b.write32(offset, value),
            Bus::Device(b) => b.write32(offset, value),
        }
    }
}
