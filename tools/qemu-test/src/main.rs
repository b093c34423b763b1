//! `make qemu-test`: a bare-metal aarch64 image (no seL4) that drives QEMU's real
//! `virtio-crypto-device` with the `virtio-crypto-driver` crate and checks it (SP 800-38A
//! vectors and thousands of random requests against RustCrypto), and its
//! `virtio-rng-device` with `virtio-rng-driver` (64 KiB through the Rng service's health
//! tests, a DRBG seeded from them), reporting through semihosting and exiting with
//! status 0 only if every check passed.
//!
//! Assumes QEMU's `-machine virt` (RAM at 0x4000_0000, 32 virtio-mmio transports of
//! 0x200 bytes from 0x0a00_0000), `-global virtio-mmio.force-legacy=false` (the driver
//! speaks the modern transport only) and `-semihosting`. Memory is identity-mapped with
//! the MMU off, so the physical address of a static is its address.
//!
//! Built for the host it is a stub, so `cargo test --workspace` and clippy still work.
#![cfg_attr(target_os = "none", no_std, no_main)]

// First: its `say!` macro is used by the modules below.
#[cfg(target_os = "none")]
#[macro_use]
mod semihosting;
#[cfg(target_os = "none")]
mod boot;
#[cfg(target_os = "none")]
mod checks;
#[cfg(target_os = "none")]
mod entropy;
#[cfg(target_os = "none")]
mod reference;

#[cfg(not(target_os = "none"))]
fn main() {
    println!("qemu-test is a bare-metal aarch64 image: build and run it with `make qemu-test`");
}

#[cfg(target_os = "none")]
use virtio_crypto_driver::{
    DmaArea, Error, TransportError, VirtioCrypto, dma, probe, wire::cipher_algo,
};

/// Where `-machine virt` puts its virtio-mmio transports (QEMU hw/arm/virt.c memmap
/// VIRT_MMIO: base 0x0a00_0000, 32 transports 0x200 apart).
#[cfg(target_os = "none")]
const VIRTIO_MMIO_BASE: usize = 0x0a00_0000;
#[cfg(target_os = "none")]
const VIRTIO_MMIO_COUNT: usize = 32;

#[cfg(target_os = "none")]
#[repr(C, align(64))]
struct Aligned<const N: usize>([u8; N]);

/// The driver's DMA area and the "client" region requests point into.
#[cfg(target_os = "none")]
static mut AREA: Aligned<{ dma::layout::LEN }> = Aligned([0; dma::layout::LEN]);
#[cfg(target_os = "none")]
static mut DATA: Aligned<{ checks::DATA_LEN }> = Aligned([0; checks::DATA_LEN]);
/// The virtio-rng driver's DMA area.
#[cfg(target_os = "none")]
static mut RNG_AREA: Aligned<{ virtio_rng_driver::layout::LEN }> =
    Aligned([0; virtio_rng_driver::layout::LEN]);

/// Called by `_start`.
#[cfg(target_os = "none")]
extern "C" fn entry() -> ! {
    let status = match run() {
        Ok(failed) => u32::from(failed > 0),
        Err(e) => {
            say!("qemu-test: FAIL: {e:?}");
            1
        }
    };
    semihosting::exit(status)
}

#[cfg(target_os = "none")]
fn run() -> Result<u32, Error> {
    let mut found = None;
    for n in 0..VIRTIO_MMIO_COUNT {
        let base = VIRTIO_MMIO_BASE + 0x200 * n;
        // SAFETY: QEMU's virt machine has a virtio-mmio transport window here; with the
        // MMU off the access is Device-nGnRnE, as MMIO needs.
        let mut bus =
            unsafe { mmio::VolatileMmio::new(base as *mut u8, virtio_crypto_driver::regs::WINDOW) };
        match probe(&mut bus) {
            Ok(()) => {
                say!("qemu-test: virtio-crypto at {base:#x} (transport {n})");
                found = Some(bus);
                break;
            }
            Err(
                Error::Transport(TransportError::NoDevice)
                | Error::Transport(TransportError::WrongDevice { .. }),
            ) => {}
            Err(e) => say!("qemu-test: transport {n} at {base:#x}: {e:?}"),
        }
    }
    let bus = found.ok_or(Error::Transport(TransportError::NoDevice))?;
    let area = &raw mut AREA;
    // SAFETY: AREA is used by nothing else; identity mapping makes its address physical.
    let area = unsafe { DmaArea::new(area.cast(), area as u64, dma::layout::LEN) };
    let mut dev = VirtioCrypto::new(bus, area)?;
    let info = dev.info();
    say!(
        "qemu-test: device up: data queues {}, services {:#x}, advertised ciphers {:#x}, max key {}",
        info.data_queues,
        info.services,
        info.cipher_algos,
        info.max_cipher_key_len
    );
    let usable = |algo| if dev.supports_algo(algo) { "yes" } else { "no" };
    say!(
        "qemu-test: usable (a trial session worked): ECB {}, CBC {}, CTR {}",
        usable(cipher_algo::AES_ECB),
        usable(cipher_algo::AES_CBC),
        usable(cipher_algo::AES_CTR)
    );
    let data = &raw mut DATA;
    // SAFETY: DATA is used only through this slice (and by the device, by DMA).
    let data = unsafe { &mut (*data).0 };
    let phys = data.as_ptr() as u64;
    let failed = checks::all(&mut dev, data, phys);
    Ok(failed + rng())
}

/// The virtio-rng checks ([`entropy`]); failures.
#[cfg(target_os = "none")]
fn rng() -> u32 {
    // SAFETY: the transports' window, device memory with the MMU off; the crypto
    // transport found above is another, so no two buses reach one transport.
    let found = unsafe {
        virtio_mmio::find(
            VIRTIO_MMIO_BASE as *mut u8,
            VIRTIO_MMIO_COUNT * virtio_mmio::TRANSPORT_STRIDE,
            virtio_mmio::regs::device_id::ENTROPY,
            0,
            |n, e| say!("qemu-test: transport {n}: {e:?}"),
        )
    };
    let Ok((n, bus)) = found else {
        say!("qemu-test: FAIL no virtio-rng device (-device virtio-rng-device)");
        return 1;
    };
    say!("qemu-test: virtio-rng in transport {n}");
    let area = &raw mut RNG_AREA;
    let len = virtio_rng_driver::layout::LEN;
    // SAFETY: RNG_AREA is used by nothing else; identity mapping makes its address physical.
    let area = unsafe { virtio_mmio::DmaArea::new(area.cast(), area as u64, len) };
    entropy::run(bus, area)
}
