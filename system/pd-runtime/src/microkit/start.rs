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

// `_start`: x19 keeps the initial SP across the `.bss` loop. `__bss_start` and
// `__bss_end` are 8-byte aligned by `microkit.ld`. `+strict-align` holds: aligned
// 8-byte stores only.
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
    "2:  mov x0, x19",
    "    bl {start}",
    "    udf #0",
    ".size _start, . - _start",
    start = sym start,
);

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
    }
    pd_runtime_main()
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
