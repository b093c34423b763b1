#![cfg_attr(target_os = "none", no_std, no_main)]
//! The virtio-rng driver PD: QEMU's `virtio-rng-device` as the entropy source of the Rng
//! service (SP 800-90B health tests, a CTR_DRBG per client session), samples arriving
//! on the device's used-buffer interrupt. Regions by symbol: `mmio`, the virtio-mmio
//! transports (uncached; every one probed, the first entropy device used); `dma` (with
//! `dma_paddr`), the driver's virtqueue and buffer; clients as every driver PD's. On the
//! host there is no device: the binary says so and exits (the host's Rng driver is
//! `host-rng`, over a getrandom-fed model).
use driver_pd::DriverPd;
use mmio::VolatileMmio;
use pd_runtime::{debug_println, memory_region};
use rng_service::{Entropy, Rng};
use virtio_mmio::{DmaArea, regs};
use virtio_rng_driver::{VirtioRng, layout};

fn init() -> DriverPd<Rng<VirtioRng<VolatileMmio>>> {
    if !cfg!(target_os = "none") {
        debug_println!(
            "virtio-rng: needs QEMU's virtio-mmio device frame, which exists only on seL4 (make qemu); exiting"
        );
        pd_runtime::exit(1);
    }
    let mmio = memory_region!(mmio);
    let area = memory_region!(dma);
    assert!(
        area.paddr != 0 && area.size >= layout::LEN,
        "virtio_rng: the dma region needs dma_paddr (a region_paddr setvar) and {} bytes",
        layout::LEN
    );
    // SAFETY: the .system file maps `mmio` uncached (device memory) for the PD's life,
    // and this PD alone drives the entropy transport.
    let found = unsafe {
        virtio_mmio::find(
            mmio.vaddr,
            mmio.size,
            regs::device_id::ENTROPY,
            0,
            |n, e| debug_println!("virtio_rng: transport {n}: {e:?}"),
        )
    };
    let (n, bus) = found.unwrap_or_else(|e| panic!("virtio_rng: no device: {e:?}"));
    // SAFETY: `dma` is mapped read-write for the PD's life, used by nothing but this
    // driver and its device, and the tool placed it at `dma_paddr` (region_paddr).
    let area = unsafe { DmaArea::new(area.vaddr, area.paddr, area.size) };
    let dev =
        VirtioRng::new(bus, area).unwrap_or_else(|e| panic!("virtio_rng: device init: {e:?}"));
    debug_println!(
        "virtio_rng: up in transport {n}; claims {} bits a sample",
        virtio_rng_driver::CLAIM_BITS
    );
    DriverPd::start(Entropy::new(dev), None, |_, _| {})
}

pd_runtime::protection_domain!(init);
