//! The talitos SEC1 (MPC885 SEC 1.2) Digest driver: MD5, SHA-1, SHA-224 and SHA-256
//! sessions with update and final, behind `digest-service`'s
//! [`DigestEngine`](digest_service::DigestEngine). SHA-224 is SHA-256 mode over a
//! context the driver initialises (as upstream on SEC1); SHA-384 and SHA-512 need
//! MDEU-B, which only SEC2 has, and are refused at open.
//!
//! The talitos chaining change in a protection domain: SEC1 has no scatter-gather, so before that change the
//! driver copied its buffered partial block and the new data into one buffer for each
//! update; the change chains a descriptor over the buffered block ahead of one over the
//! new data instead. Here ([`plan`]): each update hashes the client's segments where they
//! lie (one descriptor per segment, split at SEC1's 32768-byte pointer limit), chained
//! behind a descriptor over the session's buffered block, and copies at most two blocks
//! with the CPU (the top-up of the buffered block and the tail kept for next time; plus
//! one block per segment boundary that falls inside a block). The final pads in
//! hardware. `HashPath::Copy` keeps the old strategy for comparison; `Auto` is chained.
//!
//! Each session's MDEU context and buffered block live in its slot of the driver's DMA
//! scratch ([`layout`]); every descriptor loads and saves the context there, so
//! sessions of any clients interleave on the one channel. [`Sec1Hash::init`] runs
//! known-answer self-tests on both paths; a driver that fails them opens no sessions.
//!
//! Event-driven: a request's descriptors are submitted as chains, each finished by the
//! channel's done interrupt, which resumes the request (see `channel` on how a request
//! of several chains is walked again, skipping the chains already run). Only init polls
//! for the interrupt, bounded.
//!
//! Assumes: channel 0 only; one request in flight at a time; segments were validated by
//! `digest-service`;
//! the engine's clock is granted while sessions are open (the PD holds the power grant).
//! Every CPU copy of client bytes is counted as `Event::CpuCopyByte`, every request as
//! `Event::Request`. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

mod channel;
mod engine;
pub mod hw;
pub mod layout;
pub mod plan;
mod selftest;

pub use channel::{Fault, Stop};
pub use engine::{HashState, Sec1Hash};
pub use layout::{SCRATCH_ALIGN, SCRATCH_BYTES};
pub use selftest::{InitError, SelfTestError};
