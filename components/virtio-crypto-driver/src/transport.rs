//! Bringing a virtio-mmio transport up for virtio-crypto: `virtio-mmio`'s probe and
//! generic initialisation (§3.1, §4.2.3.1), then what is crypto's: the configuration
//! space (§5.9.5) and the two queues (§4.2.3.2, §5.9.2).

use crate::dma::{DATA_QUEUE_SIZE, DmaArea, layout};
use crate::virtq::Virtq;
use crate::wire::{self, config};
use crate::{Error, TransportError, regs};
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
    Ok(virtio_mmio::probe(bus, regs::device_id::CRYPTO)?)
}

/// §3.1 steps 1-8 (`virtio-mmio`'s generic steps) with the crypto configuration and
/// the two queues (§4.2.3.2) between FEATURES_OK and DRIVER_OK.
pub(crate) fn init<B: RegisterBus>(
    bus: &mut B,
    dma: &mut DmaArea,
    q: &mut (Virtq, Virtq),
) -> Result<DeviceInfo, Error> {
    virtio_mmio::negotiate(bus)?;
    let info = read_config(bus)?;
    if info.services & (1 << wire::service::CIPHER) == 0 {
        return Err(Error::NoCipherService);
    }
    // §5.9.2: data queues 0..max_dataqueues, then the control queue. We use data queue 0.
    let ctrl_index =
        u16::try_from(info.data_queues).map_err(|_| TransportError::NoQueue { queue: u16::MAX })?;
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
    virtio_mmio::driver_ok(bus)?;
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
            return Err(TransportError::NoQueue { queue: 0 }.into());
        }
        return Ok(info);
    }
    Err(Error::ConfigUnstable)
}
