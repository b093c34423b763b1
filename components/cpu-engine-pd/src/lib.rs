//! The CPU engine's driver PDs: `cpu-cipher` (AES ECB/CBC/CTR), `cpu-digest` (MD5,
//! SHA-1, SHA-256), `cpu-mac` (HMAC over those and SHA-224/384/512) and `cpu-aead`
//! (AES-GCM, AES-CCM), each `cpu-engine` behind `driver-pd`'s generic driver PD. One
//! source builds for the host backend and for seL4 Microkit (`aarch64-unknown-none`).
//!
//! The CPU has no clock gate, so these PDs hold no power grant and take no interrupt:
//! every request finishes when it starts. Clients are found the Microkit way, by the
//! symbols of their regions (`queues<k>`, `data<k>`; see `driver-pd`).
#![no_std]
