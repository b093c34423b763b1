//! The shared cipher testkit's rig with the CPU engine in it: no board, no physical
//! addresses, the path always the CPU.

#![allow(dead_code, unused_imports)]

use cipher_service::testkit;
use cpu_engine::CpuEngine;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path};

pub use cipher_service::testkit::{CLIENT, DATA, hex, request, status};

pub struct Rig(pub testkit::Rig<CpuEngine>);

impl core::ops::Deref for Rig {
    type Target = testkit::Rig<CpuEngine>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl core::ops::DerefMut for Rig {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Rig {
    pub fn new() -> Self {
        Rig(testkit::Rig::new(CpuEngine::default()))
    }

    /// An adaptive session (the CPU engine's only path).
    pub fn open(&mut self, mode: Mode, key: &[u8], iv: &[u8]) -> Result<u32, CipherError> {
        self.0.open(mode, Path::Adaptive, key, iv)
    }

    /// One request over `split` segments at odd, scattered offsets (`rig.0.crypt`
    /// places them by any layout).
    pub fn crypt(
        &mut self,
        session: u32,
        op: CipherOp,
        input: &[u8],
        split: &[u32],
    ) -> Result<Vec<u8>, CipherError> {
        self.0
            .crypt(session, op, input, split, testkit::Layout::Scattered)
    }

    /// Bytes the engine encrypted or decrypted.
    pub fn cipher_bytes(&self) -> u64 {
        self.0.service.engine.bytes
    }
}
