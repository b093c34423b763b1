//! The virtio-crypto driver PD: `virtio-crypto-driver` behind `driver-pd`'s Cipher PD.
//! The binary finds its regions by symbol:
//!
//! * `mmio`: the virtio-mmio transports (mapped uncached); every transport is probed
//!   ([`TRANSPORTS`] of [`TRANSPORT_STRIDE`] bytes, QEMU `virt`'s layout) and the first
//!   crypto device is used, as `tools/qemu-test` does;
//! * `dma` (with `dma_paddr`): the driver's virtqueues and request headers;
//! * clients as every driver PD's (`queues<k>`, `data<k>` with `data<k>_paddr`: the
//!   device reaches client data by DMA where it lies); power on channel 10;
//! * the transport's interrupt (an `<irq>` channel): the data queue's used buffers.
//!
//! Assumes virtio is cache-coherent with the CPU (true under QEMU; a non-coherent SoC
//! would need cache maintenance). On the host there is no device to drive: the binary
//! says so and exits (the host tests drive the library against the device model).
#![no_std]

use mmio::VolatileMmio;
use pd_runtime::{MemoryRegion, debug_println};
use virtio_crypto_driver::{Error, TransportError, probe, regs};

/// QEMU virt: 32 transports, 0x200 bytes apart (hw/arm/virt.c, VIRT_MMIO).
pub const TRANSPORTS: usize = 32;
pub const TRANSPORT_STRIDE: usize = 0x200;

/// Probes every transport in `mmio`; the first crypto device found.
pub fn find_device(mmio: MemoryRegion) -> Result<VolatileMmio, Error> {
    for n in 0..TRANSPORTS.min(mmio.size / TRANSPORT_STRIDE) {
        // SAFETY: transport n's window lies inside the `mmio` region, which the .system
        // file maps uncached (device memory) for the PD's life; each window is used by
        // one bus at a time (a failed probe drops its bus before the next).
        let mut bus =
            unsafe { VolatileMmio::new(mmio.vaddr.add(n * TRANSPORT_STRIDE), regs::WINDOW) };
        match probe(&mut bus) {
            Ok(()) => {
                debug_println!("virtio_crypto: device in transport {n}");
                return Ok(bus);
            }
            Err(
                Error::Transport(TransportError::NoDevice)
                | Error::Transport(TransportError::WrongDevice { .. }),
            ) => {}
            Err(e) => debug_println!("virtio_crypto: transport {n}: {e:?}"),
        }
    }
    Err(Error::Transport(TransportError::NoDevice))
}

/// Whether the device frame exists: only on seL4 (QEMU's `virt` machine).
pub const HAS_DEVICE: bool = cfg!(target_os = "none");
