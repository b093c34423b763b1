//! libmicrokit for the host backend: Microkit's C API (`include/microkit.h`, the same
//! types, entry points and calls as libmicrokit 2.3.0's) over crate-pd's host runtime, so
//! that a C PD written to the Microkit manual builds for the host with the system's `cc`
//! and runs, sandboxed, under host-runner, as the Rust PDs do.
//!
//! A C PD links `c/defaults.c` (libmicrokit's weak `protected` and `fault`) and this
//! crate's static library, which holds `main`: it boots the PD with the host runtime
//! (`pd_runtime::host::run`: the boot descriptor's regions mapped, the sandbox entered),
//! writes each setvar of the `.system` file into the C global of that name, as the
//! Microkit tool patches the image (so the PD must be linked with `-rdynamic`, for
//! `dlsym` to find them), sets `microkit_name`, calls the PD's `init`, and then hands each
//! event to `notified`, `protected` or `fault`. The calls the PD makes
//! (`microkit_notify`, `microkit_ppcall`, `microkit_mr_set`, ...) are the runtime's.
//! The build: `cc -Iinclude pd.c c/defaults.c libhost_libmicrokit.a -rdynamic` and the
//! system libraries Rust's standard library needs (tests/c_pd.rs does it).
//!
//! Assumes the C PD's setvars are `seL4_Word`/`uintptr_t` globals (eight bytes), as the
//! Microkit manual declares them. Differences from seL4, said where they arise:
//! `microkit_ppcall` to a PD that died answers label [`SERVER_DIED`] (seL4 blocks), and
//! a deferred notify or IRQ ack is sent at once (the host has no reply to fold it into).

use std::ffi::{CStr, c_char, c_int, c_uint};

use pd_runtime::{Channel, ChannelSet, Child, Handler, MessageInfo};

/// seL4's message info: one word, label above bit 12, length in the low 7 bits.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MsgInfo {
    words: [u64; 1],
}

impl From<MessageInfo> for MsgInfo {
    fn from(m: MessageInfo) -> Self {
        MsgInfo {
            words: [(m.label() << 12) | (m.count() as u64 & 0x7f)],
        }
    }
}

impl From<MsgInfo> for MessageInfo {
    /// A count past the runtime's message words (seL4's length field holds up to 127)
    /// is cut to them: a panic here would abort the PD inside a C call.
    fn from(m: MsgInfo) -> Self {
        let count = ((m.words[0] & 0x7f) as usize).min(pd_runtime::MSG_WORDS);
        MessageInfo::new(m.words[0] >> 12, count)
    }
}

/// The label `microkit_ppcall` answers when the PD called has died (the host runtime
/// tells; seL4 would block the caller until the callee is restarted).
pub const SERVER_DIED: u64 = 0xF_FFFF;

unsafe extern "C" {
    fn init();
    fn notified(ch: c_uint);
    fn protected(ch: c_uint, msginfo: MsgInfo) -> MsgInfo;
    fn fault(child: c_uint, msginfo: MsgInfo, reply: *mut MsgInfo) -> u8;
}

/// The PD's name, as libmicrokit keeps it (NUL-terminated).
#[unsafe(no_mangle)]
pub static mut microkit_name: [c_char; 64] = [0; 64];

/// The C PD behind the runtime's handler.
struct CPd;

impl Handler for CPd {
    fn notified(&mut self, channels: ChannelSet) {
        for ch in channels.iter() {
            // SAFETY: the PD's own entry point, called one event at a time as on seL4.
            unsafe { notified(c_uint::from(ch.index())) }
        }
    }

    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        // SAFETY: as `notified`; the message words are the runtime's, read and written
        // through `microkit_mr_get`/`_set`.
        unsafe { protected(c_uint::from(channel.index()), msg.into()) }.into()
    }

    fn fault(&mut self, child: Child, msg: MessageInfo) -> Option<MessageInfo> {
        let mut reply = MsgInfo { words: [0] };
        // SAFETY: as `notified`; `reply` outlives the call.
        let resume = unsafe { fault(c_uint::from(child.index()), msg.into(), &mut reply) };
        (resume != 0).then(|| reply.into())
    }
}

/// Writes each setvar into the C global of its name, where there is one.
fn patch_setvars() {
    for (symbol, value) in pd_runtime::host::setvars() {
        let Ok(name) = std::ffi::CString::new(symbol) else {
            continue;
        };
        // SAFETY: a lookup in this process's own symbol table (the PD is linked
        // -rdynamic); a symbol found is one of the PD's globals, which the Microkit
        // manual declares as eight-byte words, written before any of its code runs.
        unsafe {
            let at = libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr());
            if !at.is_null() {
                at.cast::<u64>().write_volatile(value);
            }
        }
    }
}

fn set_name() {
    let name = pd_runtime::pd_name().as_bytes();
    let n = name.len().min(63);
    // SAFETY: written once, before the PD's code runs, by its only thread.
    unsafe {
        let dst = &raw mut microkit_name;
        for (i, b) in name[..n].iter().enumerate() {
            (*dst)[i] = *b as c_char;
        }
        (*dst)[n] = 0;
    }
}

/// The C PD's process entry: boot, setvars, `init`, then the event loop.
#[unsafe(no_mangle)]
pub extern "C" fn main() -> c_int {
    pd_runtime::host::run(|| {
        patch_setvars();
        set_name();
        // SAFETY: the PD's init, once, before any event.
        unsafe { init() };
        CPd
    })
}

fn channel(ch: c_uint) -> Channel {
    Channel::new(u8::try_from(ch).unwrap_or(u8::MAX))
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_notify(ch: c_uint) {
    channel(ch).notify();
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_irq_ack(ch: c_uint) {
    channel(ch).irq_ack();
}

/// Sent at once: on seL4 it rides on the reply to the event being handled.
#[unsafe(no_mangle)]
pub extern "C" fn microkit_deferred_notify(ch: c_uint) {
    microkit_notify(ch);
}

/// Sent at once, as [`microkit_deferred_notify`].
#[unsafe(no_mangle)]
pub extern "C" fn microkit_deferred_irq_ack(ch: c_uint) {
    microkit_irq_ack(ch);
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_ppcall(ch: c_uint, msginfo: MsgInfo) -> MsgInfo {
    match channel(ch).pp_call(msginfo.into()) {
        Ok(reply) => reply.into(),
        Err(_) => MessageInfo::new(SERVER_DIED, 0).into(),
    }
}

/// Restarts the child from its start (the host has no entry point to choose).
#[unsafe(no_mangle)]
pub extern "C" fn microkit_pd_restart(pd: c_uint, _entry_point: u64) {
    Child::new(u8::try_from(pd).unwrap_or(u8::MAX)).restart();
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_pd_stop(pd: c_uint) {
    Child::new(u8::try_from(pd).unwrap_or(u8::MAX)).stop();
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_mr_set(mr: u8, value: u64) {
    pd_runtime::set_mr(usize::from(mr), value);
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_mr_get(mr: u8) -> u64 {
    pd_runtime::get_mr(usize::from(mr))
}

/// # Safety
/// `s` is a NUL-terminated string, as libmicrokit's caller gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn microkit_dbg_puts(s: *const c_char) {
    if s.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let text = unsafe { CStr::from_ptr(s) };
    pd_runtime::debug_puts(&text.to_string_lossy());
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_dbg_putc(c: c_int) {
    let b = [c as u8];
    pd_runtime::debug_puts(&String::from_utf8_lossy(&b));
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_dbg_put8(x: u8) {
    pd_runtime::debug_puts(&x.to_string());
}

#[unsafe(no_mangle)]
pub extern "C" fn microkit_dbg_put32(x: u32) {
    pd_runtime::debug_puts(&x.to_string());
}
