//! Bringing a virtio-mmio transport up for virtio-crypto: probe (§4.2.2), the generic
//! initialisation sequence (§3.1 with the MMIO specifics of §4.2.3.1), feature
//! negotiation, the configuration space (§5.9.5) and the two queues (§4.2.3.2, §5.9.2).

use crate::dma::{DATA_QUEUE_SIZE, DmaArea, layout};
use crate::virtq::Virtq;
use crate::wire::{self, config};
use crate::{Error, regs};
use mmio::RegisterBus;

/// What the device said about itself in its configuration space (§5.9.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceInfo {
    pub data_queues: u32,
    pub services: u32,
    /// Advertised cipher algorithms: bit n = algorithm n (`cipher_algo_l` | `_h` << 32).
    pub cipher_algos: u64,
    pub max_cipher_key_len: u32,
    pub max_size: u64,
}

/// Checks that `bus` is a modern virtio-mmio transport with a crypto device behind it.
pub fn probe<B: RegisterBus>(bus: &mut B) -> Result<(), Error> {
    let magic = bus.read32(regs::MAGIC_VALUE)?;
    if magic != regs::MAGIC {
        return Err(Error::NotVirtio { magic });
    }
    // The device id before the version, so that scanning empty transports (legacy or
    // not, QEMU's virt has 32) reports nothing but "no device".
    match bus.read32(regs::DEVICE_ID)? {
        0 => return Err(Error::NoDevice),
        regs::DEVICE_ID_CRYPTO => {}
        id => return Err(Error::WrongDevice { id }),
    }
    let version = bus.read32(regs::VERSION)?;
    if version != regs::VERSION_MODERN {
        return Err(Error::Legacy { version });
    }
    Ok(())
}

/// §3.1 steps 1-8 with §4.2.3.1 and §4.2.3.2: reset, ACKNOWLEDGE, DRIVER, features,
/// FEATURES_OK (checked), configuration, queues, DRIVER_OK.
pub(crate) fn init<B: RegisterBus>(
    bus: &mut B,
    dma: &mut DmaArea,
    q: &mut (Virtq, Virtq),
) -> Result<DeviceInfo, Error> {
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
    // Accept only what we implement; ACCESS_PLATFORM too if offered, since a device
    // that offers it may refuse a driver that does not accept it (§6).
    let wanted = offered & (bit(regs::feature::VERSION_1) | bit(regs::feature::ACCESS_PLATFORM));
    for bank in 0..2u32 {
        bus.write32(regs::DRIVER_FEATURES_SEL, bank)?;
        bus.write32(regs::DRIVER_FEATURES, (wanted >> (32 * bank)) as u32)?;
    }
    bus.write32(regs::STATUS, ACKNOWLEDGE | DRIVER | FEATURES_OK)?;
    if bus.read32(regs::STATUS)? & FEATURES_OK == 0 {
        return Err(Error::FeaturesRefused);
    }

    let info = read_config(bus)?;
    if info.services & (1 << wire::service::CIPHER) == 0 {
        return Err(Error::NoCipherService);
    }
    // §5.9.2: data queues 0..max_dataqueues, then the control queue. We use data queue 0.
    let ctrl_index =
        u16::try_from(info.data_queues).map_err(|_| Error::NoQueue { queue: u16::MAX })?;
    q.0 = Virtq::new(
        ctrl_index,
        crate::dma::CTRL_QUEUE_SIZE,
        layout::CTRL_DESC,
        layout::CTRL_AVAIL,
        layout::CTRL_USED,
    );
    q.1 = Virtq::new(
        0,
        DATA_QUEUE_SIZE,
        layout::DATA_DESC,
        layout::DATA_AVAIL,
        layout::DATA_USED,
    );
    q.0.configure(bus, dma)?;
    q.1.configure(bus, dma)?;
    bus.write32(regs::STATUS, ACKNOWLEDGE | DRIVER | FEATURES_OK | DRIVER_OK)?;
    if bus.read32(regs::STATUS)? & DEVICE_NEEDS_RESET != 0 {
        return Err(Error::NeedsReset);
    }
    Ok(info)
}

/// Reads the configuration space, retrying while the generation changes (§4.2.2
/// ConfigGeneration, §2.5: a multi-word read is consistent only within one generation).
fn read_config<B: RegisterBus>(bus: &mut B) -> Result<DeviceInfo, Error> {
    let c = |off: usize| regs::CONFIG + off;
    for _ in 0..16 {
        let before = bus.read32(regs::CONFIG_GENERATION)?;
        let st = bus.read32(c(config::STATUS))?;
        let info = DeviceInfo {
            data_queues: bus.read32(c(config::MAX_DATAQUEUES))?,
            services: bus.read32(c(config::CRYPTO_SERVICES))?,
            cipher_algos: u64::from(bus.read32(c(config::CIPHER_ALGO_L))?)
                | u64::from(bus.read32(c(config::CIPHER_ALGO_H))?) << 32,
            max_cipher_key_len: bus.read32(c(config::MAX_CIPHER_KEY_LEN))?,
            max_size: u64::from(bus.read32(c(config::MAX_SIZE))?)
                | u64::from(bus.read32(c(config::MAX_SIZE + 4))?) << 32,
        };
        if bus.read32(regs::CONFIG_GENERATION)? != before {
            continue;
        }
        if st & config::S_HW_READY == 0 {
            return Err(Error::NotReady);
        }
        if info.data_queues == 0 {
            return Err(Error::NoQueue { queue: 0 });
        }
        return Ok(info);
    }
    Err(Error::ConfigUnstable)
}
