//! The seL4 Microkit backend (`target_os = "none"`, aarch64): the runtime API over
//! seL4 system calls and the conventions of Microkit 2.3.0's `microkit` tool and
//! libmicrokit, with no C and no heap.
//!
//! Every fact is cited from the Microkit source (repository seL4/microkit, tag 2.3.0)
//! or seL4 16.0.0, the kernel it ships; they were checked by booting PDs built on this
//! module in a Microkit 2.3.0 `qemu_virt_aarch64` debug image.
//!
//! * [`sel4`]: the syscalls in inline assembly and the IPC buffer.
//! * [`symbols`]: `microkit_name`, `microkit_passive`, the channel bitmaps and the
//!   setvar macros ([`memory_region!`](crate::memory_region!), [`var!`](crate::var!)).
//! * `start`: `_start`, the panic handler, and how a PD ends.
//! * This file: the capability layout and the event loop ([`run`]).
//!
//! Departures from the host backend, all forced by seL4:
//! * [`Channel::pp_call`](crate::Channel::pp_call) never returns `Err(ServerDied)`: if
//!   the callee faults during the call the caller stays blocked (Microkit has no
//!   timeout or death notice for a PPC); the monitor reports the callee's fault.
//! * [`crate::exit`]`(0)` leaves the PD waiting forever without serving anything (a PD
//!   may not suspend itself: its own TCB cap is only given in the benchmark config,
//!   `builder.rs`); any other code is a fault, as a panic is.
//! * [`crate::memory_region()`] and [`crate::var()`] by string cannot work (the symbols are
//!   the `.system` file's): they say so and return `None`. The macros work.
//! * A restarted child ([`Child::restart`](crate::Child::restart)) starts at `_start`
//!   with a fresh stack and `.bss`, but `.data` (statics with non-zero initialisers)
//!   keeps what the previous run left there, as in C Microkit.
//! * Message words: at most 64 are read from a message (Microkit's limit; seL4
//!   allows 120): extra words from a peer are ignored. Labels are 52 bits on seL4.
//! * Debug output needs a kernel with `CONFIG_PRINTING` (Microkit's `debug` config):
//!   the PDs are built for one config, named at build time by `MICROKIT_CONFIG`
//!   (default `debug`; `make pds` passes it). In `release` or `benchmark` builds
//!   [`crate::debug_puts`] prints nothing.
#![allow(non_upper_case_globals)]

pub mod sel4;
mod start;
pub mod symbols;

pub use symbols::{UNSET, region};

use pd_idl::wire::{MSG_WORDS, ServerDied};

use crate::{Channel, ChannelSet, Child, FaultKind, Handler, MemoryRegion, MessageInfo};
use sel4::Info;

/// The capability layout of a PD's CSpace (`libmicrokit/include/microkit.h` and
/// `tool/microkit/src/capdl/builder.rs`, `PD_*_CAP_IDX`).
pub mod cap {
    /// The PD's endpoint (if it has children or may receive PPCs), else its
    /// notification: everything arrives here (`INPUT_CAP` in `libmicrokit/src/main.c`).
    pub const INPUT: u64 = 1;
    /// The MCS reply object of the input capability (`REPLY_CAP`).
    pub const REPLY: u64 = 4;
    /// The monitor's endpoint; only passive PDs have it (`MONITOR_EP`, builder.rs
    /// "Step 3-6").
    pub const MONITOR_EP: u64 = 5;
    /// `BASE_OUTPUT_NOTIFICATION_CAP + ch`: signal the other end of channel `ch`.
    pub const BASE_OUTPUT_NOTIFICATION: u64 = 10;
    /// `BASE_ENDPOINT_CAP + ch`: call the other end of channel `ch`.
    pub const BASE_ENDPOINT: u64 = 74;
    /// `BASE_IRQ_CAP + ch`: the IRQ handler of the interrupt on channel `ch`.
    pub const BASE_IRQ: u64 = 138;
    /// `BASE_TCB_CAP + id`: the TCB of child PD `id`.
    pub const BASE_TCB: u64 = 202;
    /// The PD's own TCB (`TCB_CAP` in `microkit.h`).
    pub const TCB: u64 = 6;
}

/// Badge bits of what arrives on the input capability (`libmicrokit/src/main.c`;
/// `FAULT_BADGE`, `PPC_BADGE` in builder.rs). A notification's badge is its channel
/// bitmap (builder.rs: the signalling end's capability is badged `1 << id` of the
/// receiver's end).
mod badge {
    /// Set on a PPC; bits 0..=5 are the caller's channel id (`CHANNEL_MASK` 0x3f).
    pub const PPC: u64 = 1 << 63;
    /// Set on a child's fault; bits 0..=7 are the child's id (`PD_MASK` 0xff).
    pub const FAULT: u64 = 1 << 62;
    pub const CHANNEL_MASK: u64 = 0x3f;
    pub const PD_MASK: u64 = 0xff;
}

/// seL4 fault types (the generated `sel4_arch/types_gen.h`, aarch64 MCS): the label
/// of a fault message.
mod fault {
    pub const VM_FAULT: u64 = 6;
    /// Word 1 of a `VMFault` message is the faulting address (`seL4_VMFault_Addr`).
    pub const VM_FAULT_ADDR: usize = 1;
}

/// The Microkit config the image will use (`make pds MICROKIT_CONFIG=...`; cargo
/// rebuilds when the variable changes, as `option_env!` is tracked), without the `smp-`
/// prefix of the multicore configs, which have the same kernel options otherwise.
/// Unset: `debug`. A name the SDK does not have is a build error, not a guess.
const CONFIG: &str = {
    let c = match option_env!("MICROKIT_CONFIG") {
        Some(c) => c,
        None => "debug",
    };
    let c = match c.as_bytes() {
        [b's', b'm', b'p', b'-', ..] => c.split_at(4).1,
        _ => c,
    };
    assert!(
        bytes_eq(c, "debug") || bytes_eq(c, "release") || bytes_eq(c, "benchmark"),
        "MICROKIT_CONFIG must be debug, release or benchmark (or smp- of one)"
    );
    c
};

/// Whether the config's kernel is Microkit's `debug`: `CONFIG_PRINTING` (it has
/// `seL4_DebugPutChar`) and `CONFIG_HARDWARE_DEBUG_API` (four TCB breakpoint methods,
/// which shift the invocation labels after them: see `sel4::label`).
pub(crate) const DEBUG_KERNEL: bool = bytes_eq(CONFIG, "debug");

/// Whether the config's kernel is Microkit's `benchmark`: the PMU exported to EL0
/// (`KernelArmExportPMUUser`) and utilisation tracking (`KernelBenchmarks`).
pub(crate) const BENCHMARK_KERNEL: bool = bytes_eq(CONFIG, "benchmark");

/// Whether the kernel has `seL4_DebugPutChar`.
pub(crate) const PRINTING: bool = DEBUG_KERNEL;

/// `a == b` in a const (`str` equality is not const yet).
const fn bytes_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Converts a reply the handler built into the seL4 message info. At most 64 words.
fn to_info(msg: MessageInfo) -> Info {
    Info::new(msg.label(), msg.count())
}

/// Converts a received message info; a peer may send up to 120 words, we read 64.
fn from_info(info: Info) -> MessageInfo {
    MessageInfo::new(info.label(), info.length().min(MSG_WORDS))
}

/// Microkit's event loop (`handler_loop` in `libmicrokit/src/main.c`), MCS flavour.
pub fn run<H: Handler>(init: impl FnOnce() -> H) -> ! {
    let mut handler = init();
    start::record_wipe(&handler);

    // libmicrokit acks every interrupt once after init ("Because of
    // https://github.com/seL4/seL4/issues/1536"), so one pending before boot is seen.
    let mut irqs = symbols::irqs();
    while irqs != 0 {
        let ch = irqs.trailing_zeros() as u64;
        sel4::irq_handler_ack(cap::BASE_IRQ + ch);
        irqs &= irqs - 1;
    }

    // A passive PD tells the monitor it finished init, with a non-blocking send
    // folded into its first receive; the monitor then moves its scheduling context
    // to the PD's notification (main.c: `microkit_signal_cap = MONITOR_EP`).
    let mut signal_monitor = symbols::passive();
    let mut reply: Option<Info> = None;
    loop {
        let (badge, tag) = if let Some(msg) = reply.take() {
            sel4::reply_recv(cap::INPUT, msg, cap::REPLY)
        } else if signal_monitor {
            signal_monitor = false;
            sel4::nb_send_recv(cap::MONITOR_EP, Info::new(0, 0), cap::INPUT, cap::REPLY)
        } else {
            sel4::recv(cap::INPUT, cap::REPLY)
        };

        if badge & badge::FAULT != 0 {
            let child = Child::new((badge & badge::PD_MASK) as u8);
            reply = handler.fault(child, fault_info(tag)).map(to_info);
        } else if badge & badge::PPC != 0 {
            let ch = Channel::new((badge & badge::CHANNEL_MASK) as u8);
            reply = Some(to_info(handler.protected(ch, from_info(tag))));
        } else if badge != 0 {
            handler.notified(ChannelSet(badge));
        }
    }
}

/// A fault message as [`Handler::fault`] expects it: the label a [`FaultKind`], word 0
/// the detail (the faulting address of a VM fault, else the faulting PC, which seL4
/// puts in word 0 of every other aarch64 fault but `UnknownSyscall`). Words 1.. are
/// seL4's fault message as delivered.
fn fault_info(tag: Info) -> MessageInfo {
    let kind = if tag.label() == fault::VM_FAULT {
        set_mr(0, get_mr(fault::VM_FAULT_ADDR));
        FaultKind::VmFault
    } else {
        // UserException (a panic's `udf`), CapFault, UnknownSyscall, ...: the PD ran
        // something it should not have.
        FaultKind::Abort
    };
    MessageInfo::new(kind as u64, tag.length().clamp(1, MSG_WORDS))
}

/// The reply is copied out of this PD's IPC buffer by the kernel; the PD overwrites its
/// own message words (`ipc::wipe_words`): nothing more to do.
pub(crate) fn reply_is_secret() {}

pub(crate) fn scrubbed_to(lowest: usize) {
    start::scrubbed_to(lowest)
}

pub(crate) fn starts() -> u32 {
    start::starts()
}

pub(crate) fn pd_name() -> &'static str {
    symbols::name()
}

pub(crate) fn is_passive() -> bool {
    symbols::passive()
}

pub(crate) fn irq_channels() -> u64 {
    symbols::irqs()
}

pub(crate) fn notifiable() -> u64 {
    symbols::notifications()
}

pub(crate) fn memory_region(symbol: &str) -> Option<MemoryRegion> {
    crate::debug_println!(
        "{}: memory_region(\"{symbol}\"): by string is host-only; use memory_region!",
        pd_name()
    );
    None
}

pub(crate) fn var(symbol: &str) -> Option<u64> {
    crate::debug_println!(
        "{}: var(\"{symbol}\"): by string is host-only; use var!",
        pd_name()
    );
    None
}

/// Whether channel `ch` is set in a patched bitmap (`microkit_notify` and friends check
/// `ch > MICROKIT_MAX_CHANNEL_ID || !(bits & (1 << ch))` first).
fn allowed(bits: u64, ch: u8) -> bool {
    usize::from(ch) < crate::MAX_CHANNELS && bits & (1 << ch) != 0
}

pub(crate) fn notify(ch: u8) {
    if !allowed(symbols::notifications(), ch) {
        crate::debug_println!("{}: notify: invalid channel {ch}", pd_name());
        return;
    }
    sel4::signal(cap::BASE_OUTPUT_NOTIFICATION + u64::from(ch));
}

pub(crate) fn irq_ack(ch: u8) {
    if !allowed(symbols::irqs(), ch) {
        crate::debug_println!("{}: irq_ack: invalid channel {ch}", pd_name());
        return;
    }
    let err = sel4::irq_handler_ack(cap::BASE_IRQ + u64::from(ch));
    if err != 0 {
        crate::debug_println!("{}: irq_ack({ch}): seL4 error {err}", pd_name());
    }
}

pub(crate) fn pp_call(ch: u8, msg: MessageInfo) -> Result<MessageInfo, ServerDied> {
    assert!(
        allowed(symbols::pps(), ch),
        "{}: pp_call on channel {ch}, which has no pp=\"true\" here",
        pd_name()
    );
    let reply = sel4::call(cap::BASE_ENDPOINT + u64::from(ch), to_info(msg));
    Ok(from_info(reply))
}

/// `microkit_pd_restart(child, entry)`: write PC (and SP: see [`start`]) and resume.
pub(crate) fn child_restart(id: u8) {
    let err = sel4::tcb_restart(
        cap::BASE_TCB + u64::from(id),
        start::ENTRY,
        start::stack_top(),
    );
    if err != 0 {
        panic!("restart of child {id}: seL4 error {err} (is it a child of this PD?)");
    }
}

/// `microkit_pd_stop(child)`.
pub(crate) fn child_stop(id: u8) {
    let err = sel4::tcb_suspend(cap::BASE_TCB + u64::from(id));
    if err != 0 {
        panic!("stop of child {id}: seL4 error {err} (is it a child of this PD?)");
    }
}

pub(crate) fn set_mr(i: usize, value: u64) {
    sel4::set_mr(i, value)
}

pub(crate) fn get_mr(i: usize) -> u64 {
    sel4::get_mr(i)
}

/// This PD's console queue to the serial driver, if the `.system` file maps one
/// (`setvar_vaddr="console"`, `setvar_size="console_size"`) and gives it channel
/// [`console::CHANNEL`](crate::console::CHANNEL). Attached at every start (a restart
/// clears `.bss`, and the writer resumes from the tail its predecessor published).
static mut CONSOLE: Option<crate::console::ConsoleWriter<'static>> = None;

/// # Safety
/// Called once per start, from `start`, before anything writes a line.
pub(crate) unsafe fn attach_console() {
    let vaddr = crate::__setvar_word!("console");
    let size = crate::__setvar_word!("console_size");
    let Ok(region) = symbols::region(vaddr, size, UNSET) else {
        return;
    };
    if !allowed(symbols::notifications(), crate::console::CHANNEL) {
        return;
    }
    // SAFETY: the tool mapped `size` bytes at `vaddr` for the PD's life; the serial
    // driver is its only other user, and shm-queue reads what it writes volatilely.
    let region = unsafe { shm_queue::SharedRegion::from_raw(region.vaddr, region.size) };
    // SAFETY: single-threaded start-up; nothing else touches CONSOLE yet.
    unsafe { CONSOLE = crate::console::ConsoleWriter::attach(region) };
}

/// Writes `s` to the console: the serial driver's queue if this PD has one, else
/// `microkit_dbg_puts` (one `seL4_DebugPutChar` per byte, `libmicrokit/src/dbg.c`)
/// where the kernel prints. Returns whether it went anywhere.
pub(crate) fn console_puts(s: &str) -> bool {
    // SAFETY: PDs are single-threaded; nothing holds a borrow of CONSOLE across a call.
    let console = unsafe { (&raw mut CONSOLE).as_mut() }.and_then(Option::as_mut);
    if let Some(console) = console {
        // A lost or refused write is the writer's own count; the console has no one
        // else to tell.
        if let crate::console::Written::Queued { notify: true } = console.write(s.as_bytes()) {
            // Direct, not `notify`: its complaint about a bad channel would print.
            sel4::signal(cap::BASE_OUTPUT_NOTIFICATION + u64::from(crate::console::CHANNEL));
        }
        return true;
    }
    if PRINTING {
        s.bytes().for_each(sel4::debug_put_char);
    }
    PRINTING
}

/// Debug output: where the kernel prints (the `debug` config; the PD was built with its
/// formatting), to the console.
pub(crate) fn debug_puts(s: &str) {
    if PRINTING {
        console_puts(s);
    }
}

pub(crate) fn exit(code: i32) -> ! {
    crate::debug_println!("{}: exit({code})", pd_name());
    if code != 0 {
        start::crash();
    }
    // Done: wait forever, dropping whatever arrives (never replying to a call).
    loop {
        sel4::recv(cap::INPUT, cap::REPLY);
    }
}
