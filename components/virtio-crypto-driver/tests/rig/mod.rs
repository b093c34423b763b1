//! The driver on the host model: a DMA area and a client data region in a physical map.

#![allow(dead_code)]

use cipher_service::{CipherEngine, ClientData, Job, Session, run_polled, validate};
use cost_ledger::Ledger;
use engine_models::phys::PhysMap;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request};
use pd_idl::wire::Caller;
use shm_queue::SharedRegion;
use virtio_crypto_driver::{DmaArea, Error, VirtioCrypto, dma};
use virtio_crypto_model::{ModelConfig, VirtioCryptoModel};

pub const DMA_PHYS: u64 = 0x4000_0000;
pub const DATA_PHYS: u64 = 0x4010_0000;
pub const DATA_LEN: usize = 16 * 1024;

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

/// Leaked, 64-byte aligned memory: the map and the driver keep raw pointers into it.
fn memory(len: usize) -> *mut u8 {
    let v: &'static mut [Line] = Vec::leak(vec![Line([0; 64]); len.div_ceil(64)]);
    v.as_mut_ptr().cast()
}

pub type Dev = VirtioCrypto<VirtioCryptoModel<'static>>;

pub struct Rig {
    pub dev: Dev,
    data: *mut u8,
}

pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The model with `config`, and the driver initialised on it.
pub fn try_rig(config: ModelConfig) -> Result<Rig, Error> {
    let area = memory(dma::layout::LEN);
    let data = memory(DATA_LEN);
    let map: &'static PhysMap<'static> = Box::leak(Box::new(PhysMap::new()));
    // SAFETY: both blocks are leaked (live forever) and reached only through the map
    // (the model) and the raw pointers below (the driver), never as long-lived borrows.
    unsafe {
        map.add_raw(DMA_PHYS, area, dma::layout::LEN);
        map.add_raw(DATA_PHYS, data, DATA_LEN);
    }
    // The device counts into a ledger of its own (`KeyCleared` as sessions go).
    let ledger: &'static Ledger = Box::leak(Box::default());
    let model = VirtioCryptoModel::new(map, config, Some(ledger));
    // SAFETY: `area` is the model's window at DMA_PHYS, used by nothing else.
    let area = unsafe { DmaArea::new(area, DMA_PHYS, dma::layout::LEN) };
    let mut dev = VirtioCrypto::new(model, area)?;
    dev.set_spin_limit(10_000);
    Ok(Rig { dev, data })
}

pub fn rig() -> Rig {
    try_rig(ModelConfig::default()).expect("driver initialises on the default model")
}

pub fn session(mode: Mode, key: &[u8], iv: &[u8]) -> Session {
    let mut s = Session {
        owner: Caller(1),
        mode,
        path: Path::Adaptive,
        key_len: key.len() as u8,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
        ..Session::EMPTY
    };
    s.key[..key.len()].copy_from_slice(key);
    s.iv.copy_from_slice(iv);
    s
}

impl Rig {
    /// The driver and the client data region as a Cipher service takes them.
    pub fn into_parts(self) -> (Dev, ClientData<'static>) {
        // SAFETY: the region is live (leaked); reached only by copies and the model's DMA.
        let region = unsafe { SharedRegion::from_raw(self.data, DATA_LEN) };
        let data = ClientData {
            region,
            phys: Some(DATA_PHYS),
        };
        (self.dev, data)
    }

    pub fn data(&mut self) -> &mut [u8] {
        // SAFETY: the region is live (leaked); this borrow ends before the next device access.
        unsafe { core::slice::from_raw_parts_mut(self.data, DATA_LEN) }
    }

    /// One request over `segs` (offset, len) of the data region, through the service's
    /// validation and the engine interface.
    pub fn crypt(
        &mut self,
        s: &mut Session,
        op: CipherOp,
        segs: &[(u32, u32)],
    ) -> Result<Path, CipherError> {
        let req = Request::over(1, 0, op, segs);
        let valid = validate(&req, DATA_LEN, s.mode)?;
        // SAFETY: the region is live (leaked); reached only by copies and the model's DMA.
        let region = unsafe { SharedRegion::from_raw(self.data, DATA_LEN) };
        let job = Job::one(
            *s,
            op,
            valid,
            ClientData {
                region,
                phys: Some(DATA_PHYS),
            },
        );
        // The model returns the chain on the notify: one interrupt poll finishes it.
        let done = run_polled(&mut self.dev, &job, 4)?;
        s.iv = done.next_iv();
        Ok(done.path)
    }

    /// Opens `s` as the service would: the engine's `supports` first.
    pub fn supports(&self, s: &Session) -> Result<(), CipherError> {
        self.dev.supports(s)
    }

    pub fn model(&mut self) -> &mut VirtioCryptoModel<'static> {
        self.dev.bus_mut()
    }
}
