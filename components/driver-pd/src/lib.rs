//! The engine-independent half of a driver PD: every driver PD, of any interface, is
//! `DriverPd::<Interface>::start(engine, power, init)` (see [`DriverPd::start`]).
//!
//! * [`pd`]: the event handling, written once for every interface ([`DriverPd`] over
//!   `queued-service`): a client's notification starts work, the engine's interrupt
//!   (on the PD's `<irq>` channels) finishes it, calls are answered meanwhile and
//!   dispatched by the interface to [`DriverPd`]'s `Calls`.
//! * [`clients`]: the clients the `.system` file gives this PD. Client `k` (0..4) talks
//!   on channel `k` (calls and notifications both) and has a queue-pair region mapped
//!   with `setvar_vaddr="queues<k>"` and a data region with `setvar_vaddr="data<k>"`
//!   (its `phys_addr`, if any, is where DMA finds it). A client whose queues break is cut
//!   off (logged, its sessions closed); the others are served on.
//! * [`power`]: the one grant held while any session is open (acquired by the first
//!   open, released by the last close: a transition per session burst, never per
//!   request), over `pd-idl` Power on channel [`POWER`].
//! * [`rng`]: randomness of the PD's own (a GCM nonce, a CBC IV) by `draw` calls on the
//!   Rng driver its system names.
//! * [`keys`]: sessions on keys by handle, fetched from the key store its system names,
//!   and which clients may still use raw keys: for a PD whose binary calls
//!   [`keys::connect`] before it starts (the code costs a size-optimised driver ~2.3 KiB
//!   of flash, so a binary that never connects carries none of it).
//! * [`crash_test`]: a driver PD that faults once, for test builds only.
//!
//! Restart: each client's queue region carries the driver's epoch (`crypto_client::pair`).
//! A starting driver that finds a non-zero epoch is a restarted one: it discards the
//! requests its predecessor left (their client reports them `ServerRestarted`), then
//! publishes the next epoch, with the request-queue index it serves from, and notifies
//! the client. Sessions do not survive a restart: a request on a session of an earlier
//! incarnation is answered `ServerRestarted`.
//!
//! A client's restart: each client incarnation announces itself in the control line and
//! its request ids carry it (`crypto_client::pair::wire_id`). A driver that sees the word
//! move (on each call, and for every client on each event) drops the requests the dead
//! incarnation left at the head of the queue, unanswered, and closes its sessions (its
//! jobs in flight finish unanswered).
//!
//! Assumes the PD is single-threaded (Microkit's model), at most [`MAX_CLIENTS`]
//! clients, and queue regions mapped read-write. No heap: fixed tables.
#![no_std]

pub mod clients;
pub mod crash_test;
pub mod keys;
pub mod pd;
pub mod power;
pub mod rng;

use pd_runtime::Channel;

pub use clients::{Clients, MAX_CLIENTS};
pub use pd::{DriverPd, MAX_STATE};
pub use power::PowerHold;

/// The channel to the power manager (`pp="true"` at this end).
pub const POWER: Channel = Channel::new(10);
