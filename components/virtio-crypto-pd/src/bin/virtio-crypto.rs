#![cfg_attr(target_os = "none", no_std, no_main)]
//! The virtio-crypto driver PD (see the `virtio-crypto-pd` crate docs): QEMU's
//! `virtio-crypto-device` serving Cipher, requests finished by the device's interrupt.
use cipher_service::Cipher;
use driver_pd::DriverPd;
use mmio::VolatileMmio;
use pd_idl::power::Engine;
use pd_runtime::{debug_println, memory_region};
use virtio_crypto_driver::{DmaArea, VirtioCrypto, dma};

fn init() -> DriverPd<Cipher<VirtioCrypto<VolatileMmio>>> {
    if !virtio_crypto_pd::HAS_DEVICE {
        debug_println!(
            "virtio-crypto: needs QEMU's virtio-mmio device frame, which exists only on seL4 (make qemu); exiting"
        );
        pd_runtime::exit(1);
    }
    let mmio = memory_region!(mmio);
    let area = memory_region!(dma);
    assert!(
        area.paddr != 0 && area.size >= dma::layout::LEN,
        "virtio_crypto: the dma region needs dma_paddr (a region_paddr setvar) and {} bytes",
        dma::layout::LEN
    );
    let bus = virtio_crypto_pd::find_device(mmio, 0)
        .unwrap_or_else(|e| panic!("virtio_crypto: no device: {e:?}"));
    // SAFETY: `dma` is mapped read-write for the PD's life, used by nothing but this
    // driver and its device, and the tool placed it at `dma_paddr` (region_paddr).
    let area = unsafe { DmaArea::new(area.vaddr, area.paddr, area.size) };
    let dev = VirtioCrypto::new(bus, area)
        .unwrap_or_else(|e| panic!("virtio_crypto: device init: {e:?}"));
    let info = dev.info();
    debug_println!(
        "virtio_crypto: up: max key {}, {} data queue(s)",
        info.max_cipher_key_len,
        info.data_queues
    );
    DriverPd::start(dev, Some(Engine::VirtioCrypto), |_, _| {})
}

pd_runtime::protection_domain!(init);
