//! A virtio-crypto driver (virtio 1.2 §5.9) over the virtio-mmio transport (§4.2), for
//! QEMU's `virtio-crypto-device` and anything else that speaks it: the device half of
//! `qemu_virt_aarch64`, and the host model in `boards/virtio-crypto-model`.
//!
//! What it does: probes and initialises a modern (version 2) transport, negotiates only
//! VIRTIO_F_VERSION_1 (and ACCESS_PLATFORM if offered), sets up the control queue and
//! data queue 0 as split virtqueues, and offers AES ECB/CBC/CTR sessions and requests.
//! [`VirtioCrypto`] implements `cipher_service::CipherEngine`, so it serves the Cipher
//! interface like every other driver; request data moves by DMA straight from the
//! client's segments (one descriptor per segment; in place: the same segments are source
//! and destination), with only the request header, IV and status in the driver's memory.
//!
//! Assumptions:
//! - Registers are reached through [`mmio::RegisterBus`] (volatile MMIO on hardware, the
//!   model on the host), 32-bit accesses only (the crypto configuration is all 32-bit).
//! - The caller gives a [`DmaArea`] of [`dma::layout::LEN`] bytes, 64-byte aligned, and
//!   the physical address of each client region; memory is coherent with the device
//!   (true of virtio under QEMU; a non-coherent SoC would need cache maintenance here).
//! - Event-driven: both queues interrupt when the device returns a chain; the PD calls
//!   `CipherEngine::interrupt`, which acknowledges the transport and reads the used
//!   rings once. The data queue holds [`dma::DATA_SLOTS`] requests at once, each in its
//!   own fixed descriptors and headers; the control queue one (session set-up and
//!   tear-down, which requests wait for in their places). Only init's algorithm probe
//!   and bare-metal use (`tools/qemu-test`) wait, bounded, by polling.
//! - A device that stops answering (timeout), corrupts its used ring or asks for a reset
//!   leaves the driver [`Error::Broken`]: its buffers may still be in use, so nothing is
//!   reused until the PD restarts it.
//! - `no_std`, no heap.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

mod device;
pub mod dma;
mod engine;
mod state;
mod transport;
pub mod wire;

pub use virtio_mmio::Error as TransportError;
/// The transport's registers (`virtio-mmio`'s).
pub use virtio_mmio::regs;
/// The split virtqueue (`virtio-mmio`'s).
pub use virtio_mmio::virtq;

pub use device::{CipherReq, CtrlDone, Direction, DmaBuf, VirtioCrypto};
pub use dma::DmaArea;
pub use engine::algo_of;
pub use state::{CACHED_SESSIONS, SessionCache};
pub use transport::DeviceInfo;
pub use transport::probe;

use mmio::BusFault;

/// Why the driver could not do what was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The transport or a queue failed (`virtio-mmio`'s errors, whatever the device).
    Transport(TransportError),
    /// The configuration kept changing while it was read.
    ConfigUnstable,
    /// VIRTIO_CRYPTO_S_HW_READY is clear: the backend is not ready.
    NotReady,
    NoCipherService,
    BadKeySize,
    /// Source and destination lengths differ, overflow, or exceed the device's max_size.
    BadLength,
    /// The device answered VIRTIO_CRYPTO_NOTSUPP.
    Unsupported,
    /// The device answered another non-OK status (§5.9.7.1).
    Device {
        status: u32,
    },
    Timeout,
    /// An earlier failure left the queues unusable.
    Broken,
}

impl From<TransportError> for Error {
    fn from(e: TransportError) -> Self {
        Error::Transport(e)
    }
}

impl From<BusFault> for Error {
    fn from(e: BusFault) -> Self {
        Error::Transport(TransportError::Bus(e))
    }
}
