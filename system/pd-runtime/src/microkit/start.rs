//! How a PD thread starts, and how it ends when something goes wrong.
//!
//! The microkit tool starts every PD thread at the ELF's `e_entry` with SP at the
//! stack top and nothing else set up (`tool/microkit/src/capdl/builder.rs`: the TCB's
//! `ip` is `elf.entry`, `sp` is `pd_stack_top()`); libmicrokit's own start code is just
//! `b main` (`libmicrokit/src/aarch64/crt0.s`). Ours, `_start`, first in `.text` at a
//! fixed address (`microkit.ld`), clears `.bss` (the tool maps it zeroed, but a
//! restarted PD re-enters here with old contents: `Child::restart`), then calls
//! [`start`] with the initial SP.
//!
//! A panic prints its message (debug kernels) and executes an undefined instruction:
//! seL4 delivers a `UserException` fault to the PD's fault endpoint, i.e. to its
//! parent (which sees `FaultKind::Abort`) or to the monitor, which prints it. This is
//! the same end as libmicrokit's `microkit_internal_crash`, a fault, but one that a
//! fault handler can tell from a stray memory access.

use core::arch::global_asm;
use core::panic::PanicInfo;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::{sel4, symbols};
use crate::{debug_println, pd_name};

/// Where `microkit.ld` puts `_start`, the entry of every PD built on this runtime: a
/// parent restarts a child there (`microkit_pd_restart` in `microkit.h` takes the
/// entry point from its caller; ours is a link-time constant instead).
pub const ENTRY: u64 = 0x20_0000;

unsafe extern "C" {
    /// Defined by [`protection_domain!`](crate::protection_domain) in the PD binary.
    safe fn pd_runtime_main() -> !;
}

// `_start`: x19 keeps the initial SP across the `.bss` loop and the stack wipe.
// `__bss_start` and `__bss_end` are 8-byte aligned by `microkit.ld`; the SP is 16-byte
// aligned and [`WIPE_BYTES`] a multiple of 16. `+strict-align` holds: aligned 8-byte
// stores only. The wipe is here, before any Rust code, because the stack it zeroes is
// where the Rust code's frames (and the handler) go.
global_asm!(
    ".section .text.start, \"ax\"",
    ".global _start",
    ".type _start, %function",
    "_start:",
    "    mov x19, sp",
    "    adrp x0, __bss_start",
    "    add x0, x0, :lo12:__bss_start",
    "    adrp x1, __bss_end",
    "    add x1, x1, :lo12:__bss_end",
    "1:  cmp x0, x1",
    "    b.hs 2f",
    "    str xzr, [x0], #8",
    "    b 1b",
    "2:  adrp x0, {wipe}",
    "    ldr w0, [x0, :lo12:{wipe}]",
    "    sub x0, x19, x0",
    "3:  cmp x0, x19",
    "    b.hs 4f",
    "    str xzr, [x0], #8",
    "    b 3b",
    "4:  mov x0, x19",
    "    bl {start}",
    "    udf #0",
    ".size _start, . - _start",
    start = sym start,
    wipe = sym WIPE_BYTES,
);

/// Bytes of stack below the top that `_start` zeroes: 0 until the first incarnation of a
/// PD whose handler holds secrets (`Handler::SECRETS`) records how deep its state and
/// the calls it serves reach ([`record_wipe`]); from then on every restart starts over a
/// wiped stack. In `.data`, which neither `_start` nor a Microkit restart resets, as
/// [`STARTS`].
#[unsafe(link_section = ".data.wipe")]
static WIPE_BYTES: AtomicU32 = AtomicU32::new(0);

/// Frames between the handler and the one that calls `scrub_stack` (the handler's
/// `protected` and the dispatch under it): the first estimate of how deep a keyed call
/// reaches, until a [`scrub_stack`](crate::ipc::scrub_stack) measures it.
const TO_SCRUBBER: u64 = 1024;

/// Makes every restart wipe at least the `n` bytes below the stack top; what it wiped
/// before. A load and a store, not an atomic read-modify-write: the PD's one thread is
/// the only writer (and the smaller code is what omap-aes's flash has room for).
/// (Microkit's stacks are at most 16 MiB: a `u32` holds any depth.)
#[inline(never)]
fn wipe_at_least(n: u64) -> u64 {
    let n = n.next_multiple_of(16) as u32;
    let wiped = WIPE_BYTES.load(Ordering::Relaxed);
    if n > wiped {
        WIPE_BYTES.store(n, Ordering::Relaxed);
    }
    u64::from(wiped)
}

/// `scrub_stack` zeroed down to `lowest`: a restart wipes at least as deep, since a
/// previous incarnation that died mid-call left its key there unscrubbed.
pub fn scrubbed_to(lowest: usize) {
    wipe_at_least(stack_top() - lowest as u64);
}

/// Records, for a PD whose handler `H` at `at` holds secrets, what a restart must wipe:
/// the stack from the top down through the handler, and below it what a keyed call may
/// reach ([`SCRUB_BYTES`](crate::ipc::SCRUB_BYTES) under the frames that call
/// `scrub_stack`; each scrub deepens it to what it zeroed, [`scrubbed_to`]). Every
/// incarnation runs the same code on the same stack, so a restarted one finds at least
/// the figure it records; in the debug configuration it checks that, and says what was
/// wiped.
pub fn record_wipe<H: crate::Handler>(at: *const H) {
    if !H::SECRETS {
        return;
    }
    let below = crate::ipc::SCRUB_BYTES as u64 + TO_SCRUBBER;
    let n = stack_top() - at as u64 + below;
    let wiped = wipe_at_least(n);
    if crate::PRINTS && starts() > 1 {
        assert!(
            wiped >= n,
            "{}: a restart wiped less than it needs",
            pd_name()
        );
        debug_println!(
            "{}: restarted over a stack wiped {wiped} bytes below its top (state at {:#x})",
            pd_name(),
            at as u64
        );
    }
}

/// Stack top recorded at start: a restarted child is given the same one (every PD's
/// stack top is the same address: `pd_stack_top()` does not depend on the PD).
static mut STACK_TOP: u64 = 0;

pub fn stack_top() -> u64 {
    // SAFETY: written once in `start`, before anything reads it.
    unsafe { STACK_TOP }
}

/// Starts of this PD (see `pd_runtime::starts`): in `.data`, so that neither `_start`'s
/// clearing of `.bss` nor a Microkit restart, which reloads nothing, resets it.
#[unsafe(link_section = ".data.starts")]
static STARTS: AtomicU32 = AtomicU32::new(0);

pub fn starts() -> u32 {
    STARTS.load(Ordering::Relaxed)
}

/// Rust's side of `_start`.
///
/// # Safety
/// Called once by `_start`, with the initial stack pointer.
unsafe extern "C" fn start(sp: u64) -> ! {
    // SAFETY: first code of the thread; single-threaded.
    unsafe {
        STACK_TOP = sp;
        STARTS.fetch_add(1, Ordering::Relaxed);
        sel4::init_ipc_buffer(sp as usize);
        symbols::init_name();
        super::attach_console();
    }
    if crate::PRINTS && starts() > 1 {
        check_wiped(sp);
    }
    pd_runtime_main()
}

/// Debug configuration, at a restart: reads back the stack `_start` wiped, below this
/// function's frame, and says whether every word of it is zero. Reads below the stack
/// pointer are of memory no frame owns yet (no signal or red zone uses it on seL4).
#[inline(never)]
fn check_wiped(top: u64) {
    let wiped = u64::from(WIPE_BYTES.load(Ordering::Relaxed));
    if wiped == 0 {
        return;
    }
    let here = core::hint::black_box(0u64);
    // This frame and the calls it makes stay above `hi`.
    let hi = (&here as *const u64 as u64 - 512) & !7;
    let lo = top - wiped;
    let mut left = 0u64;
    let mut at = lo;
    while at < hi {
        // SAFETY: inside this PD's stack mapping (wiped by `_start`, which wrote it),
        // below every live frame; aligned.
        left |= unsafe { core::ptr::read_volatile(at as *const u64) };
        at += 8;
    }
    // A restart over its predecessor's secrets stops here, loudly: its parent sees it
    // fault again.
    assert!(
        left == 0,
        "{}: restart: the stack below {hi:#x} was not wiped",
        pd_name()
    );
    debug_println!(
        "{}: restart: {} bytes of the stack read back zero",
        pd_name(),
        hi - lo
    );
}

/// Ends the thread with a fault its fault handler (parent or monitor) sees: a
/// `UserException` from an undefined instruction.
pub fn crash() -> ! {
    loop {
        // SAFETY: `udf` only raises an exception; seL4 turns it into a fault message
        // and never resumes us unless the handler replies.
        unsafe { core::arch::asm!("udf #0", options(nomem, nostack)) };
    }
}

static PANICKING: AtomicBool = AtomicBool::new(false);

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    // A panic while printing a panic goes straight to the fault.
    if crate::PRINTS && !PANICKING.swap(true, Ordering::Relaxed) {
        debug_println!("{}: {}", pd_name(), info);
    }
    crash()
}
