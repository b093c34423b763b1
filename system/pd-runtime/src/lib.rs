//! `pd-runtime`: the API every crypto-pd protection domain (PD) is written against, in
//! the shape of seL4 Microkit's C API and rust-sel4's `sel4-microkit` crate, so that a
//! component reads the same on the host and on seL4.
//!
//! ```no_run
//! use pd_runtime::{Channel, ChannelSet, Handler, debug_println, protection_domain};
//!
//! const SERVER: Channel = Channel::new(0);
//!
//! struct Client {
//!     rounds: u32,
//! }
//!
//! impl Handler for Client {
//!     fn notified(&mut self, _: ChannelSet) {
//!         self.rounds += 1;
//!         debug_println!("round {}", self.rounds);
//!         SERVER.notify();
//!     }
//! }
//!
//! fn init() -> Client {
//!     SERVER.notify();
//!     Client { rounds: 0 }
//! }
//!
//! protection_domain!(init);
//! ```
//!
//! * [`protection_domain!`] names the PD's `init`; the runtime runs it once, then hands
//!   every event to the returned [`Handler`]: notifications ([`Handler::notified`]),
//!   protected procedure calls ([`Handler::protected`]) and faults of child PDs
//!   ([`Handler::fault`]), one at a time, as Microkit's event loop does.
//! * [`Channel`] is a channel id from the `.system` file: [`Channel::notify`],
//!   [`Channel::irq_ack`], [`Channel::pp_call`]. Message words (64, Microkit's limit) are
//!   set and read with [`set_mr`] and [`get_mr`] around a [`MessageInfo`].
//! * Memory regions are found by the `setvar_vaddr` symbol of their `map`
//!   ([`memory_region!`]), with their size and, for DMA, their physical address; other
//!   setvar symbols by [`var!`]. [`pd_name`] and [`is_passive`] say who we are.
//! * [`ipc`] joins this to `pd-idl`: [`ipc::PpcTransport`] lets a generated client stub
//!   call over a channel, [`ipc::serve`] answers a call with a generated `dispatch`.
//!
//! # Backends
//!
//! * `host` (every target but `target_os = "none"`): each PD is a Linux process started
//!   by `host-runner`, sandboxed (seccomp) before its `init`; regions are memfds,
//!   notifications and calls go through shared pages that only their sender can write
//!   (a page per channel end) with futexes (spin briefly, then sleep); debug output goes to
//!   one console socket shared by all PDs, so lines keep the order they were written in.
//!   A passive PD runs like any other after `init` (the host has no scheduling
//!   contexts to take away); [`is_passive`] reports the attribute. Interrupts come from
//!   device models in the PD's own process ([`host::raise_irq`]). Uses `std` inside
//!   that module only.
//! * `microkit` (`target_os = "none"`): the seL4 backend: Microkit's entry, event loop,
//!   MCS system calls and patched symbols, so the same PD source runs in a Microkit
//!   image (`make qemu`).
//!
//! # What it assumes
//!
//! * A PD is single-threaded as far as this API goes (as on Microkit): handlers run one
//!   at a time on the PD's thread. Device models in a host PD may raise interrupts from
//!   another thread ([`host::raise_irq`]); nothing else here is meant for that.
//! * Departures from Microkit, each for the host: [`Channel::pp_call`] returns
//!   `Err(ServerDied)` when the callee faulted during the call (Microkit would leave the
//!   caller blocked); [`exit`] ends a PD (on the host the runner treats exit 0 as "this
//!   PD is done", which tests and demos use; Microkit PDs never return).
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(not(target_os = "none"))]
extern crate std;

pub mod bench;
pub mod console;
mod handler;
pub mod ipc;
mod types;

#[cfg(not(target_os = "none"))]
pub mod host;
#[cfg(not(target_os = "none"))]
use host as backend;

#[cfg(target_os = "none")]
pub mod microkit;
#[cfg(target_os = "none")]
use microkit as backend;

pub use handler::Handler;
pub use ipc::{get_mr, set_mr};
pub use pd_idl::wire::{MSG_WORDS, ServerDied};
pub use types::{Channel, ChannelSet, Channels, Child, FaultKind, MemoryRegion, MessageInfo};

/// Microkit's limit on channels per PD (ids 0..=61).
pub const MAX_CHANNELS: usize = 62;

/// This PD's name, as the `.system` file gives it.
pub fn pd_name() -> &'static str {
    backend::pd_name()
}

/// How many times this PD has been started, 1 the first time; a restart adds one.
/// Counted where no other PD can write it: on the host in this PD's kernel page, which
/// the runner bumps before each start (peers map it read-only); on seL4 in a word of
/// `.data`, which `_start` does not clear and a Microkit restart does not reload. (A
/// driver that took its incarnation from words its clients write let a client choose
/// it.)
pub fn starts() -> u32 {
    backend::starts()
}

/// Whether this PD is passive: after `init` it runs only on its callers' behalf.
pub fn is_passive() -> bool {
    backend::is_passive()
}

/// The channels on which this PD receives interrupts: its `<irq>` elements (on seL4
/// the `microkit_irqs` word the tool patches, on the host the boot information), and
/// the [`device_channel`] if it has one.
pub fn irq_channels() -> ChannelSet {
    let device = device_channel().map_or(0, |c| 1u64 << c.index());
    ChannelSet(backend::irq_channels() | device)
}

/// The channels this PD may notify (its ends without `notify="false"`): on seL4 the
/// `microkit_notifications` word the tool patches, on the host the boot information.
pub fn notifiable() -> ChannelSet {
    ChannelSet(backend::notifiable())
}

/// The channel to a device PD that stands in for this PD's silicon where there is none
/// (the end with `setvar_id="device"`): registers are reached by calls on it, and its
/// notifications are this PD's interrupts ([`irq_channels`] includes it, and
/// [`Channel::irq_ack`] on it notifies the device PD, which delivers a line still
/// asserted again, as a GIC does a level-triggered one).
pub fn device_channel() -> Option<Channel> {
    use core::sync::atomic::{AtomicU8, Ordering};
    const UNKNOWN: u8 = 0xff;
    const NONE: u8 = 0xfe;
    // Looked up once: interrupts ask on every acknowledgement.
    static DEVICE: AtomicU8 = AtomicU8::new(UNKNOWN);
    let id = match DEVICE.load(Ordering::Relaxed) {
        UNKNOWN => {
            let id = maybe_var!(device)
                .and_then(|v| u8::try_from(v).ok())
                .filter(|v| *v < 62)
                .unwrap_or(NONE);
            DEVICE.store(id, Ordering::Relaxed);
            id
        }
        id => id,
    };
    (id != NONE).then_some(Channel::new(id))
}

/// The memory region whose `map` has `setvar_vaddr="symbol"` in this PD, if any.
/// Prefer [`memory_region!`], which becomes a patched symbol on seL4.
pub fn memory_region(symbol: &str) -> Option<MemoryRegion> {
    backend::memory_region(symbol)
}

/// The value of a setvar symbol (`setvar_size`, `setvar_id`, `region_paddr`, ...).
/// Prefer [`var!`].
pub fn var(symbol: &str) -> Option<u64> {
    backend::var(symbol)
}

/// Writes `s` to the debug console (Microkit's `microkit_dbg_puts`).
/// Whether debug output goes anywhere: always on the host; on seL4 only in a Microkit
/// config with a printing kernel (`debug`), decided when the PD is built.
#[cfg(not(target_os = "none"))]
pub const PRINTS: bool = true;
#[cfg(target_os = "none")]
pub const PRINTS: bool = microkit::PRINTING;

pub fn debug_puts(s: &str) {
    backend::debug_puts(s)
}

/// Writes `s` to the console in every configuration: on seL4 the serial driver's queue
/// where the `.system` file gives this PD one (else the debug kernel's console); on the
/// host the runner's console. Returns whether it went anywhere (no console and a
/// kernel that does not print: nowhere).
pub fn console_puts(s: &str) -> bool {
    backend::console_puts(s)
}

/// Ends this PD with `code`. See the crate docs: a host-only notion of "done".
pub fn exit(code: i32) -> ! {
    backend::exit(code)
}

/// The panic of the macros below when the `.system` file lacks what they ask for:
/// `what` names it, after the PD's name. At the caller, so the panic points at the use.
#[doc(hidden)]
#[cold]
#[track_caller]
pub fn __missing(what: core::fmt::Arguments<'_>) -> ! {
    panic!("PD {}: {what}", pd_name())
}

/// The memory region mapped with `setvar_vaddr="$name"`; panics naming the symbol if the
/// `.system` file gives this PD no such map (a system description error, found at boot).
/// On seL4 the macro of the same name in the `microkit` module defines the symbols instead.
#[cfg(not(target_os = "none"))]
#[macro_export]
macro_rules! memory_region {
    ($name:ident) => {
        $crate::memory_region(stringify!($name)).unwrap_or_else(|| {
            $crate::__missing(format_args!(
                "no memory region with setvar_vaddr=\"{}\"",
                stringify!($name)
            ))
        })
    };
}

/// The memory region mapped with `setvar_vaddr="$name"`, or `None` if the `.system`
/// file gives this PD no such map: for a PD whose regions are optional (a driver's
/// client slots). On seL4 the macro of the same name in the `microkit` module reads
/// the patched symbols instead.
#[cfg(not(target_os = "none"))]
#[macro_export]
macro_rules! maybe_memory_region {
    ($name:ident) => {
        $crate::memory_region(stringify!($name))
    };
}

/// A setvar symbol's value, or `None` if the `.system` file sets none (an optional
/// channel, such as a timer's `setvar_id`). On seL4 the macro of the same name in the
/// `microkit` module reads the patched symbol instead.
#[cfg(not(target_os = "none"))]
#[macro_export]
macro_rules! maybe_var {
    ($name:ident) => {
        $crate::var(stringify!($name))
    };
}

/// A setvar symbol's value; panics naming the symbol if the `.system` file sets none.
/// On seL4 the macro of the same name in the `microkit` module defines the symbol instead.
#[cfg(not(target_os = "none"))]
#[macro_export]
macro_rules! var {
    ($name:ident) => {
        $crate::var(stringify!($name)).unwrap_or_else(|| {
            $crate::__missing(format_args!("no setvar \"{}\"", stringify!($name)))
        })
    };
}

/// `println!` to the debug console.
#[macro_export]
macro_rules! debug_println {
    ($($arg:tt)*) => {
        // Where nothing prints (a release seL4 build), the formatting is dead code and
        // leaves the binary (the arguments are not evaluated there).
        if $crate::PRINTS {
            $crate::ipc::debug_fmt(format_args!($($arg)*))
        }
    };
}

/// `println!` to the console in every configuration: for the lines a system's users
/// read (a verdict, a table of figures). On seL4 its formatting is in release and
/// benchmark builds too, so a driver PD, which has a flash budget, writes its
/// diagnostics with [`debug_println!`] instead.
#[macro_export]
macro_rules! console_println {
    ($($arg:tt)*) => {
        $crate::ipc::console_fmt(format_args!($($arg)*))
    };
}

/// Declares the PD's entry: `init` runs once, then its [`Handler`] gets every event.
#[macro_export]
macro_rules! protection_domain {
    ($init:path) => {
        #[cfg(not(target_os = "none"))]
        fn main() {
            $crate::host::run($init)
        }
        #[cfg(target_os = "none")]
        #[unsafe(no_mangle)]
        extern "C" fn pd_runtime_main() -> ! {
            $crate::microkit::run($init)
        }
    };
}
