//! The seL4 system calls this backend makes, in inline assembly, and the IPC buffer.
//!
//! Only what Microkit's event loop and API use: `Call`, `ReplyRecv`, `Recv`,
//! `NBSendRecv`, `Send` (as `seL4_Signal`), the invocations `IRQHandler_Ack`,
//! `TCB_WriteRegisters` and `TCB_Suspend` (each a `Call` on a capability), and
//! `DebugPutChar` in debug kernels. Everything is for the **MCS** kernel on **aarch64**,
//! as Microkit 2.3.0 builds it (`build_sdk.py`: `"KernelIsMCS": True`).
//!
//! The register convention is libsel4's
//! (`libsel4/sel4_arch_include/aarch64/sel4/sel4_arch/syscalls.h`, seL4 16.0.0, the
//! kernel Microkit 2.3.0 ships): `x0` capability in / badge out, `x1` message info,
//! `x2..=x5` message registers 0..=3 (`seL4_FastMessageRegisters` = 4), `x6` the reply
//! capability (MCS), `x7` the syscall number, `x8` the destination of `NBSendRecv`; then
//! `svc #0`. Message words 4 and up live only in the IPC buffer.
//!
//! As in libsel4's `seL4_Call`/`seL4_Recv`, every message word lives in the IPC buffer
//! between syscalls: a syscall loads words 0..=3 from it into `x2..=x5` and stores the
//! registers back afterwards, so [`get_mr`]/[`set_mr`] never need to know which words
//! travel in registers. Kernel invocations (IRQ ack, TCB operations) instead pass their
//! arguments in registers only and leave the IPC buffer alone, so a handler may ack an
//! interrupt between setting its reply words and returning them.

use core::arch::asm;

/// Syscall numbers of the MCS kernel (`libsel4/include/api/syscall.xml`, `<api-mcs>`,
/// numbered -1, -2, ... in order; then the debug syscalls; checked against the
/// generated `sel4/syscall.h` of a Microkit 2.3.0 qemu_virt_aarch64 debug SDK).
mod sys {
    pub const CALL: i64 = -1;
    pub const REPLY_RECV: i64 = -2;
    pub const NB_SEND_RECV: i64 = -3;
    pub const SEND: i64 = -5;
    pub const RECV: i64 = -7;
    /// Only in kernels built with `CONFIG_PRINTING` (Microkit's `debug` config); in
    /// others it is an unknown syscall, i.e. a fault.
    pub const DEBUG_PUT_CHAR: i64 = -12;
    /// Only in kernels built with `CONFIG_BENCHMARK_TRACK_UTILISATION` (Microkit's
    /// `benchmark` config; the SDK's `sel4/syscall.h`).
    /// `ResetAllThreadsUtilisation` (-29) is there only in debug kernels: a benchmark
    /// kernel faults on it (seen: the bench client stopped without a word).
    pub const BENCHMARK_RESET_LOG: i64 = -22;
    pub const BENCHMARK_FINALIZE_LOG: i64 = -23;
    pub const BENCHMARK_GET_THREAD_UTILISATION: i64 = -26;
    pub const BENCHMARK_RESET_THREAD_UTILISATION: i64 = -27;
}

/// Invocation labels (`invocations_all.json` of the SDK build: generic labels from
/// `libsel4/include/interfaces/object-api.xml` in order, MCS variant). The kernel numbers
/// only the methods its config enables: Microkit's `debug` config alone has
/// `HardwareDebugAPI`, whose four TCB breakpoint methods come before the IRQ methods, so
/// IRQAckIRQ is 31 there and 27 in `release` and `benchmark` (a fixed 31 made every
/// acknowledgement an illegal operation outside `debug`, and each interrupt line went
/// dead after its first interrupt). The labels before them are the same in each.
mod label {
    pub const TCB_WRITE_REGISTERS: u64 = 3;
    pub const TCB_SUSPEND: u64 = 12;
    pub const IRQ_ACK_IRQ: u64 = if super::super::DEBUG_KERNEL { 31 } else { 27 };
}

/// Where the IPC buffer is, set once by [`init_ipc_buffer`] before any syscall.
static mut IPC_BUFFER: usize = 0;

/// Page size of the mappings Microkit makes for the stack and IPC buffer.
pub const PAGE_SIZE: usize = 0x1000;

/// Records where the IPC buffer is, from the stack pointer the thread started with.
///
/// The `microkit` tool places the IPC buffer in the top page of user memory,
/// `seL4_UserVSpaceTop & !0xfff` (`tool/microkit/src/sel4.rs`, `pd_ipc_buffer`; since
/// 2.3.0 it is allocated by the tool, not the `__sel4_ipc_buffer_obj` symbol of the
/// linker script: CHANGES.md), and starts every PD with SP = `pd_stack_top()` =
/// IPC buffer − one guard page (`pd_stack_top`; the TCB's `sp` in
/// `tool/microkit/src/capdl/builder.rs`). So the buffer is one page above the initial
/// SP, whatever the board's `seL4_UserVSpaceTop` (0xfffffff000 on qemu_virt_aarch64,
/// whose kernel has a 40-bit PA: `sel4_arch/constants.h`, `CONFIG_ARM_PA_SIZE_BITS_40`).
///
/// # Safety
/// Call once, from the start code, before any other function here.
pub unsafe fn init_ipc_buffer(stack_top: usize) {
    // SAFETY: single-threaded start-up; nothing reads IPC_BUFFER yet.
    unsafe { IPC_BUFFER = stack_top + PAGE_SIZE };
}

/// `&ipc_buffer.msg[i]`: `seL4_IPCBuffer` is `{ tag, msg[120], ... }`
/// (`libsel4/include/sel4/shared_types.h`), so message word `i` is at word `1 + i`.
fn msg_word(i: usize) -> *mut u64 {
    debug_assert!(i < 120, "seL4_MsgMaxLength is 120");
    // SAFETY: IPC_BUFFER is written once at start-up, before any caller runs.
    let base = unsafe { IPC_BUFFER };
    (base + 8 * (1 + i)) as *mut u64
}

pub fn get_mr(i: usize) -> u64 {
    // SAFETY: the IPC buffer page is mapped read-write for this PD's lifetime and
    // only this (single) thread and the kernel, during our own syscalls, touch it.
    unsafe { msg_word(i).read_volatile() }
}

pub fn set_mr(i: usize, value: u64) {
    // SAFETY: as in `get_mr`.
    unsafe { msg_word(i).write_volatile(value) }
}

/// `seL4_MessageInfo`: label 52 bits at 12.., capsUnwrapped 3 at 9, extraCaps 2 at 7,
/// length 7 at 0 (`seL4_MessageInfo_new` in the generated `shared_types_gen.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info(pub u64);

impl Info {
    pub const LABEL_BITS: u32 = 52;

    pub fn new(label: u64, length: usize) -> Self {
        Info(((label & ((1 << Self::LABEL_BITS) - 1)) << 12) | (length as u64 & 0x7f))
    }

    pub fn label(self) -> u64 {
        self.0 >> 12
    }

    pub fn length(self) -> usize {
        (self.0 & 0x7f) as usize
    }
}

fn load_mrs() -> [u64; 4] {
    [get_mr(0), get_mr(1), get_mr(2), get_mr(3)]
}

fn store_mrs(mrs: [u64; 4]) {
    for (i, w) in mrs.into_iter().enumerate() {
        set_mr(i, w);
    }
}

/// One `svc #0` with every register the IPC syscalls use. Returns (x0, x1, x2..=x5).
///
/// # Safety
/// `sys` and the capability arguments must form a valid seL4 syscall; the kernel may
/// write the IPC buffer (hence no `nomem`).
#[inline(always)]
unsafe fn svc(sys: i64, x0: u64, x1: u64, mrs: [u64; 4], x6: u64, x8: u64) -> (u64, u64, [u64; 4]) {
    let (mut r0, mut r1) = (x0, x1);
    let [mut m0, mut m1, mut m2, mut m3] = mrs;
    // SAFETY: the caller guarantees the syscall is well formed. The kernel returns in
    // x0..=x5 and preserves every other register (libsel4 declares x6, x7, x8 inputs
    // only); it reads or writes no memory of ours but the IPC buffer.
    unsafe {
        asm!(
            "svc #0",
            inlateout("x0") r0,
            inlateout("x1") r1,
            inlateout("x2") m0,
            inlateout("x3") m1,
            inlateout("x4") m2,
            inlateout("x5") m3,
            in("x6") x6,
            in("x7") sys,
            in("x8") x8,
            options(nostack),
        );
    }
    (r0, r1, [m0, m1, m2, m3])
}

/// `seL4_Recv(src, &badge, reply)`: blocks for a notification, call or fault.
pub fn recv(src: u64, reply: u64) -> (u64, Info) {
    // SAFETY: Recv on a capability of our own CSpace; a bad slot is a fault, not UB.
    let (badge, info, mrs) = unsafe { svc(sys::RECV, src, 0, [0; 4], reply, 0) };
    store_mrs(mrs);
    (badge, Info(info))
}

/// `seL4_ReplyRecv(src, info, &badge, reply)`: answers the call held in `reply`, then
/// waits as [`recv`] does.
pub fn reply_recv(src: u64, msg: Info, reply: u64) -> (u64, Info) {
    // SAFETY: as in `recv`.
    let (badge, info, mrs) = unsafe { svc(sys::REPLY_RECV, src, msg.0, load_mrs(), reply, 0) };
    store_mrs(mrs);
    (badge, Info(info))
}

/// `seL4_NBSendRecv(dest, info, src, &badge, reply)`: a send that never blocks, then a
/// receive, in one syscall (MCS only). Microkit uses it for a passive PD's "init done"
/// message to the monitor (`libmicrokit/src/main.c`, `handler_loop`).
pub fn nb_send_recv(dest: u64, msg: Info, src: u64, reply: u64) -> (u64, Info) {
    // SAFETY: as in `recv`.
    let (badge, info, mrs) = unsafe { svc(sys::NB_SEND_RECV, src, msg.0, load_mrs(), reply, dest) };
    store_mrs(mrs);
    (badge, Info(info))
}

/// `seL4_Call(dest, info)`: a protected procedure call; the reply's words replace ours.
pub fn call(dest: u64, msg: Info) -> Info {
    // SAFETY: as in `recv`.
    let (_, info, mrs) = unsafe { svc(sys::CALL, dest, msg.0, load_mrs(), 0, 0) };
    store_mrs(mrs);
    Info(info)
}

/// `seL4_Signal(dest)`: libsel4 makes it `seL4_Send` of an empty message.
pub fn signal(dest: u64) {
    // SAFETY: as in `recv`; Send on a notification capability never blocks.
    unsafe { svc(sys::SEND, dest, Info::new(0, 0).0, [0; 4], 0, 0) };
}

/// An invocation: `seL4_Call` on a kernel object with arguments in registers only (as
/// libsel4's generated stubs do with `seL4_CallWithMRs`). Returns the seL4 error
/// (0 = `seL4_NoError`), which the kernel puts in the reply's label.
fn invoke(cap: u64, label: u64, args: &[u64]) -> u64 {
    let mut mrs = [0; 4];
    mrs[..args.len()].copy_from_slice(args);
    // SAFETY: as in `recv`; an invocation of the wrong object type is an error reply.
    let (_, info, _) = unsafe { svc(sys::CALL, cap, Info::new(label, args.len()).0, mrs, 0, 0) };
    Info(info).label()
}

/// `seL4_IRQHandler_Ack(cap)` (generated `sel4_client.h`: label `IRQAckIRQ`, no words).
pub fn irq_handler_ack(cap: u64) -> u64 {
    invoke(cap, label::IRQ_ACK_IRQ, &[])
}

/// `seL4_TCB_WriteRegisters(tcb, resume = true, 0, 2, {pc, sp})`: word 0 = resume
/// flag, word 1 = how many registers, then `seL4_UserContext` from `pc`, `sp`
/// (`sel4_arch/types.h`). The kernel needs only `length - 2 >= count`
/// (`decodeWriteRegisters` in `src/object/tcb.c`), so 4 words in registers suffice.
pub fn tcb_restart(tcb: u64, pc: u64, sp: u64) -> u64 {
    invoke(tcb, label::TCB_WRITE_REGISTERS, &[1, 2, pc, sp])
}

/// `seL4_TCB_Suspend(tcb)`.
pub fn tcb_suspend(tcb: u64) -> u64 {
    invoke(tcb, label::TCB_SUSPEND, &[])
}

/// `seL4_DebugPutChar(c)`: x0 = the character. Must only be reached in debug kernels.
pub fn debug_put_char(c: u8) {
    // SAFETY: a debug syscall with no capability; the caller checked the kernel has it.
    unsafe { svc(sys::DEBUG_PUT_CHAR, u64::from(c), 0, [0; 4], 0, 0) };
}

/// `seL4_BenchmarkGetThreadUtilisation(tcb)`: the kernel writes the thread's, the idle
/// thread's and the core's counts into message words 0.. of our IPC buffer. Must only
/// be reached in benchmark kernels.
pub fn benchmark_get_utilisation(tcb: u64) {
    // SAFETY: a benchmark syscall on a TCB capability of ours; the caller checked the
    // kernel has it. The kernel writes only our IPC buffer.
    unsafe { svc(sys::BENCHMARK_GET_THREAD_UTILISATION, tcb, 0, [0; 4], 0, 0) };
}

/// `seL4_BenchmarkResetLog()`: a new utilisation period starts (the idle thread's and
/// the core's counts zeroed, tracking on). Must only be reached in benchmark kernels.
pub fn benchmark_reset_log() {
    // SAFETY: as in `benchmark_get_utilisation`; no capability.
    unsafe { svc(sys::BENCHMARK_RESET_LOG, 0, 0, [0; 4], 0, 0) };
}

/// `seL4_BenchmarkFinalizeLog()`: the period ends now (the core's total is taken up to
/// here). Must only be reached in benchmark kernels.
pub fn benchmark_finalize_log() {
    // SAFETY: as in `benchmark_reset_log`.
    unsafe { svc(sys::BENCHMARK_FINALIZE_LOG, 0, 0, [0; 4], 0, 0) };
}

/// `seL4_BenchmarkResetThreadUtilisation(tcb)`: the thread's counts zeroed. Must only be
/// reached in benchmark kernels.
pub fn benchmark_reset_utilisation(tcb: u64) {
    // SAFETY: as in `benchmark_get_utilisation`.
    unsafe {
        svc(
            sys::BENCHMARK_RESET_THREAD_UTILISATION,
            tcb,
            0,
            [0; 4],
            0,
            0,
        )
    };
}
