//! The virtio-crypto driver PD: `virtio-crypto-driver` behind `driver-pd`'s Cipher PD.
//! The binary finds its regions by symbol:
//!
//! * `mmio`: the virtio-mmio transports (mapped uncached); every transport is probed
//!   (`virtio_mmio::find`, QEMU `virt`'s layout) and the first crypto device is used, as
//!   `tools/qemu-test` does (the isolation bench drives the second itself);
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
use virtio_crypto_driver::{Error, regs};

/// Probes every transport in `mmio`; the `nth` crypto device found (0 the first: the
/// driver PD's).
pub fn find_device(mmio: MemoryRegion, nth: usize) -> Result<VolatileMmio, Error> {
    // SAFETY: the .system file maps `mmio` uncached (device memory) for the PD's life,
    // and this PD alone drives the `nth` crypto transport.
    let found = unsafe {
        virtio_mmio::find(
            mmio.vaddr,
            mmio.size,
            regs::device_id::CRYPTO,
            nth,
            |n, e| debug_println!("virtio_crypto: transport {n}: {e:?}"),
        )
    };
    let (n, bus) = found?;
    debug_println!("virtio_crypto: device in transport {n}");
    Ok(bus)
}

/// Whether the device frame exists: only on seL4 (QEMU's `virt` machine).
pub const HAS_DEVICE: bool = cfg!(target_os = "none");
