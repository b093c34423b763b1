#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine driver PD of `qemu_virt_aarch64.system`: `cpu-engine` (RustCrypto
//! AES and SHA-256, no_std) behind the same services as a hardware engine.
//!
//! * Channel 0: the test client. Cipher calls (PPC, `cipher::dispatch`) and requests in
//!   `test_queues` over its data region `test_data`, in place.
//! * Channel 1: the verified-boot client. Digest calls and requests in `vboot_queues`
//!   over `vboot_image`, which this PD maps read-only (hashing only reads).
//! * The CPU has no clock gate, so this PD holds no power grant.
//!
//! On the host the regions come from host-runner like any PD's; on seL4 from the
//! setvars the .system file names.
use cipher_service::{ClientData as CipherData, Sessions as CipherSessions};
use cpu_engine::CpuEngine;
use cpu_engine::hash::{CpuDigest, Hasher};
use digest_service::{Calls, ClientData as DigestData, Sessions as DigestSessions};
use pd_idl::cipher::{self, CipherError, Mode, Path};
use pd_idl::digest;
use pd_idl::wire::Caller;
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, debug_println, ipc, memory_region,
};
use sel4_pds::DriverPair;

const TEST: Channel = Channel::new(0);
const VBOOT: Channel = Channel::new(1);
const TEST_CALLER: Caller = Caller(0);
const VBOOT_CALLER: Caller = Caller(1);

struct CpuPd {
    cipher: CpuEngine,
    cipher_sessions: CipherSessions,
    test: DriverPair<cipher::Request, cipher::Response>,
    test_data: MemoryRegion,
    digest: CpuDigest,
    digest_sessions: DigestSessions<Hasher>,
    vboot: DriverPair<digest::Request, digest::Response>,
    vboot_image: MemoryRegion,
}

/// Cipher calls: the CPU engine and this PD's session table, for the test client only.
struct CipherCalls<'a> {
    engine: &'a CpuEngine,
    sessions: &'a mut CipherSessions,
    client_ok: bool,
}

impl cipher::Server for CipherCalls<'_> {
    fn open_session(
        &mut self,
        caller: Caller,
        mode: Mode,
        path: Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, CipherError> {
        if caller != TEST_CALLER || !self.client_ok {
            return Err(CipherError::BadRequest);
        }
        let session = cipher_service::Session {
            owner: caller,
            mode,
            path,
            key_len,
            key,
            iv,
        };
        let engine = self.engine;
        self.sessions.open(session, |s| {
            cipher_service::CipherEngine::supports(engine, s)
        })
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), CipherError> {
        self.sessions.close(caller, session)
    }
}

impl Handler for CpuPd {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        if channel == TEST {
            let mut calls = CipherCalls {
                engine: &self.cipher,
                sessions: &mut self.cipher_sessions,
                client_ok: self.test.cut_off.is_none(),
            };
            ipc::serve(channel, msg, |caller, m| {
                cipher::dispatch(&mut calls, caller, m)
            })
        } else if channel == VBOOT && self.vboot.cut_off.is_none() {
            let mut calls = Calls {
                engine: &mut self.digest,
                sessions: &mut self.digest_sessions,
            };
            ipc::serve(channel, msg, |caller, m| {
                digest::dispatch(&mut calls, caller, m)
            })
        } else {
            debug_println!("cpu_engine: call on channel {} refused", channel.index());
            MessageInfo::new(
                pd_idl::wire::PROTOCOL_BASE + pd_idl::wire::ProtocolError::UnknownOp as u64,
                0,
            )
        }
    }

    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(TEST) {
            let (engine, sessions, data) =
                (&mut self.cipher, &mut self.cipher_sessions, self.test_data);
            if self.test.pump(|rx, tx| {
                // SAFETY: `test_data` is mapped read-write for the PD's life and nothing
                // else in this PD references it while this slice lives. The client may
                // write it meanwhile: it then gets garbage for its own request.
                let bytes = unsafe { core::slice::from_raw_parts_mut(data.vaddr, data.size) };
                let mut data = CipherData { bytes, phys: None };
                cipher_service::serve(engine, sessions, TEST_CALLER, rx, tx, &mut data)
            }) {
                self.cipher_sessions.close_all(TEST_CALLER);
            }
        }
        if channels.contains(VBOOT) {
            let (engine, sessions, image) = (
                &mut self.digest,
                &mut self.digest_sessions,
                self.vboot_image,
            );
            if self.vboot.pump(|rx, tx| {
                // SAFETY: `vboot_image` is mapped (read-only) for the PD's life; this PD
                // only reads it. The client may change it meanwhile: it then gets the
                // digest of whatever was there, which is its own problem.
                let bytes = unsafe { core::slice::from_raw_parts(image.vaddr, image.size) };
                let data = DigestData { bytes, phys: None };
                digest_service::serve(engine, sessions, VBOOT_CALLER, rx, tx, &data)
            }) {
                self.digest_sessions.close_all(VBOOT_CALLER);
            }
        }
    }
}

fn init() -> CpuPd {
    let pd = CpuPd {
        cipher: CpuEngine::default(),
        cipher_sessions: CipherSessions::default(),
        test: DriverPair::attach(memory_region!(test_queues), TEST),
        test_data: memory_region!(test_data),
        digest: CpuDigest::default(),
        digest_sessions: DigestSessions::default(),
        vboot: DriverPair::attach(memory_region!(vboot_queues), VBOOT),
        vboot_image: memory_region!(vboot_image),
    };
    debug_println!("cpu_engine: up: Cipher (AES ECB/CBC/CTR) on channel 0, Digest on channel 1");
    pd
}

pd_runtime::protection_domain!(init);
