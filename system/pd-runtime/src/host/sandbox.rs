//! The host PD's sandbox: after boot has mapped what the `.system` file grants, and
//! before `init` runs, the PD gives up every way of reaching the rest of the host.
//!
//! * No capabilities (root's dropped, the bounding set too when the runner is root), no
//!   new privileges and not dumpable: no set-uid gain through exec, and no other
//!   process of the same user may open this one's `/proc/<pid>/mem` or descriptors.
//! * A seccomp filter (seccompiler) that allows only the system calls the runtime and
//!   Rust's `std` make after boot: memory management without `PROT_EXEC` (and `madvise`
//!   with the allocator's advice only), futexes
//!   (wait and wake only), reads and writes on descriptors already held, time, exit:
//!   one thread (no `clone`, so no fork either), as a Microkit PD has. Everything
//!   else fails with `EPERM`: `open`/`openat` (so no `/proc` of another PD, no memfd of
//!   the runner), `ptrace`, `process_vm_readv`/`writev`, `kill` (signals go only to
//!   this process), `execve`, sockets, `prctl` but for thread names, futex requeues;
//!   `clone3` fails with `ENOSYS`.
//!
//! Every descriptor a PD holds after boot is one it was granted: the console socket
//! and monitor pipe, standard output and error (to the runner), and the host files a tool
//! granted it ([`crate::host::take_file`]). Regions and kernel pages are closed once
//! mapped (see `map`), so `mmap` cannot map anything new but anonymous memory.
//!
//! Assumes Linux on x86_64 or aarch64 (seccompiler's architectures).

use std::collections::BTreeMap;
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// System calls allowed whatever their arguments.
const ALLOWED: &[libc::c_long] = &[
    libc::SYS_read,
    libc::SYS_write,
    libc::SYS_writev,
    libc::SYS_pread64,
    libc::SYS_pwrite64,
    libc::SYS_close,
    libc::SYS_fstat,
    libc::SYS_lseek,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_brk,
    libc::SYS_futex_waitv,
    libc::SYS_sched_yield,
    libc::SYS_sched_getaffinity,
    libc::SYS_nanosleep,
    libc::SYS_clock_nanosleep,
    libc::SYS_clock_gettime,
    libc::SYS_clock_getres,
    libc::SYS_gettimeofday,
    libc::SYS_getpid,
    libc::SYS_gettid,
    libc::SYS_getrandom,
    libc::SYS_rt_sigaction,
    libc::SYS_rt_sigprocmask,
    libc::SYS_rt_sigreturn,
    libc::SYS_sigaltstack,
    libc::SYS_set_robust_list,
    libc::SYS_rseq,
    libc::SYS_exit,
    libc::SYS_exit_group,
];

fn arg(index: u8, op: SeccompCmpOp, value: u64) -> SeccompCondition {
    SeccompCondition::new(index, SeccompCmpArgLen::Qword, op, value).expect("valid argument")
}

fn rule(conditions: Vec<SeccompCondition>) -> SeccompRule {
    SeccompRule::new(conditions).expect("non-empty rule")
}

/// The filter for this process (`pid` is the only target `tgkill` may name).
fn program(pid: i32) -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        ALLOWED.iter().map(|&nr| (nr, vec![])).collect();
    let no_exec = || arg(2, SeccompCmpOp::MaskedEq(libc::PROT_EXEC as u64), 0);
    // Memory, but never executable: a PD runs only the code it was started with.
    rules.insert(libc::SYS_mmap, vec![rule(vec![no_exec()])]);
    rules.insert(libc::SYS_mprotect, vec![rule(vec![no_exec()])]);
    // The advice the allocator and thread stacks give, no other: MADV_REMOVE would punch
    // a hole in a region a peer shares (its bytes gone under it), MADV_HWPOISON and
    // MADV_SOFT_OFFLINE (root only) take a shared page away from every PD mapping it,
    // MADV_DONTFORK and the like change what no PD needs changed.
    rules.insert(
        libc::SYS_madvise,
        [
            libc::MADV_NORMAL,
            libc::MADV_RANDOM,
            libc::MADV_SEQUENTIAL,
            libc::MADV_WILLNEED,
            libc::MADV_DONTNEED,
            libc::MADV_FREE,
            libc::MADV_HUGEPAGE,
            libc::MADV_NOHUGEPAGE,
        ]
        .into_iter()
        .map(|advice| rule(vec![arg(2, SeccompCmpOp::Eq, advice as u64)]))
        .collect(),
    );
    // One thread, as a Microkit PD has: no clone at all (no PD starts a thread, device
    // models included), so never a new process either: a fork would lose the runner's
    // parent-death signal, keep the PD's pipes open (the runner waits for them to close)
    // and its writable mappings after the PD died and restarted, a second writer of its
    // pages. clone3 fails with ENOSYS (the second filter, `no_clone3`), as on a kernel
    // without it, so that glibc falls back to clone and meets EPERM here.
    rules.insert(libc::SYS_clone3, vec![]);
    // Futexes to wait and wake only. The others act on words of other PDs' pages that
    // this one maps read-only: a requeue (needing only read access) would move a
    // sleeping peer's waiter off its own wake word, so that its interrupts and faults
    // no longer wake it.
    let futex_op = |op: i32| {
        let flags = (libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME) as u32;
        let cmp = SeccompCmpOp::MaskedEq(u64::from(!flags));
        SeccompCondition::new(1, SeccompCmpArgLen::Dword, cmp, op as u64).expect("valid argument")
    };
    rules.insert(
        libc::SYS_futex,
        [
            libc::FUTEX_WAIT,
            libc::FUTEX_WAKE,
            libc::FUTEX_WAIT_BITSET,
            libc::FUTEX_WAKE_BITSET,
        ]
        .into_iter()
        .map(|op| rule(vec![futex_op(op)]))
        .collect(),
    );
    // abort() raises SIGABRT on itself; no signal to any other process.
    rules.insert(
        libc::SYS_tgkill,
        vec![rule(vec![arg(0, SeccompCmpOp::Eq, pid as u64)])],
    );
    // Thread names only: prctl would otherwise undo "not dumpable".
    rules.insert(
        libc::SYS_prctl,
        vec![
            rule(vec![arg(0, SeccompCmpOp::Eq, libc::PR_SET_NAME as u64)]),
            rule(vec![arg(0, SeccompCmpOp::Eq, libc::PR_GET_NAME as u64)]),
        ],
    );
    compile(
        rules,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
    )
}

/// A filter stacked on [`program`]'s: `clone3` fails with ENOSYS, so that glibc falls
/// back to `clone`, which the first filter refuses (the strictest answer of all filters
/// stands, and the first one allows `clone3`).
fn no_clone3() -> Result<BpfProgram, String> {
    let rules = BTreeMap::from([(libc::SYS_clone3, vec![])]);
    compile(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
    )
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    mismatch: SeccompAction,
    matched: SeccompAction,
) -> Result<BpfProgram, String> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let filter = SeccompFilter::new(rules, mismatch, matched, arch).map_err(|e| e.to_string())?;
    filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())
}

/// Gives up every capability: the bounding set (when this process may: it takes
/// CAP_SETPCAP, which only a privileged runner passes on), the ambient set, and the
/// effective, permitted and inheritable sets. A PD run by root kept all of root's
/// (CapEff 000001fffeffffff) though it needs none: the seccomp filter stood between it
/// and them, alone.
fn drop_capabilities() -> Result<(), String> {
    use rustix::thread::{CapabilitySet, CapabilitySets};
    for cap in 0..64 {
        let one = CapabilitySet::from_bits_retain(1 << cap);
        match rustix::thread::remove_capability_from_bounding_set(one) {
            // Past the kernel's last capability.
            Err(rustix::io::Errno::INVAL) => break,
            // Unprivileged: the bounding set stays, and nothing in it can be gained
            // (no new privileges, below).
            Err(rustix::io::Errno::PERM) => break,
            Err(e) => return Err(std::format!("capability bounding set: {e}")),
            Ok(()) => {}
        }
    }
    rustix::thread::clear_ambient_capability_set()
        .map_err(|e| std::format!("ambient capabilities: {e}"))?;
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    rustix::thread::set_capabilities(None, none).map_err(|e| std::format!("capset: {e}"))
}

/// Confines this process for good (see the module docs). Call once, with no other
/// thread running.
pub fn enter() -> Result<(), String> {
    drop_capabilities()?;
    rustix::thread::set_no_new_privs(true).map_err(|e| std::format!("no_new_privs: {e}"))?;
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(|e| std::format!("not dumpable: {e}"))?;
    let pid = rustix::process::getpid().as_raw_nonzero().get();
    // The main filter last: it refuses the prctl that installs a filter.
    for program in [no_clone3()?, program(pid)?] {
        seccompiler::apply_filter(&program).map_err(|e| std::format!("seccomp: {e}"))?;
    }
    Ok(())
}
