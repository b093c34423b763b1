#![cfg_attr(target_os = "none", no_std, no_main)]
//! A PD that tries to leave its sandbox, as a hostile client would on the host backend:
//! open another process's memory through /proc, any file at all, signal or trace
//! another process, read its memory directly, undo "not dumpable", map executable
//! memory, exec a shell, open a socket, make a new memfd, fork (by clone or clone3),
//! requeue a peer's futex waiters: each must fail with EPERM (clone3: ENOSYS)
//! (pd-runtime's seccomp filter). Then it tries to make each kernel page it maps
//! read-only (its peers' PD pages and channel ends, the words they send it) writable,
//! to forge what they send: `mprotect` must be refused. It prints `refused: NAME` or `ESCAPED: NAME`
//! per attempt, then `escape: R of N refused`, and idles. Before that it writes console
//! records that name another PD, and one that is not UTF-8 (`forge_console`). On seL4 there is no host to
//! escape to, and it says so.
use pd_runtime::{Handler, debug_println};

struct Idle;

impl Handler for Idle {}

#[cfg(not(target_os = "none"))]
fn attempts() -> (usize, usize) {
    use core::ptr::null_mut;

    fn open(path: &core::ffi::CStr) -> i64 {
        // SAFETY: a NUL-terminated path; a descriptor, if any, is never used.
        i64::from(unsafe { libc::open(path.as_ptr(), libc::O_RDWR) })
    }
    let ppid = 1;
    // The first word of a peer's page mapped read-only here (a PD page or a channel
    // end: each begins with a word a PD sleeps on), and a word of our own.
    let peer_word = pd_runtime::host::kernel_pages()
        .into_iter()
        .find(|&(_, writable)| !writable)
        .map(|(page, _)| page)
        .expect("a peer's page");
    let own_word = core::sync::atomic::AtomicU32::new(0);
    let own = own_word.as_ptr();
    let fork = |r: libc::c_long| {
        if r == 0 {
            // A child, were a fork let through: gone at once; the parent reports it.
            // SAFETY: _exit ends this process without touching shared state.
            unsafe { libc::_exit(0) }
        }
        r
    };
    // A private page of our own: advice the filter refuses would succeed on it (or fail
    // with EINVAL, not EPERM), so EPERM is the filter's answer.
    // SAFETY: a fresh anonymous mapping, used only as madvise's target.
    let page = unsafe {
        libc::mmap(
            null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    // An error's errno, where the attempt is a library call that returns it.
    let failed = |e: std::io::Error| {
        // SAFETY: this thread's errno, set as a system call would have.
        unsafe { *libc::__errno_location() = e.raw_os_error().unwrap_or(0) };
        -1
    };
    let tries: [(&str, &dyn Fn() -> i64); 18] = [
        ("open /proc/self/mem", &|| open(c"/proc/self/mem")),
        ("open /proc/1/mem", &|| open(c"/proc/1/mem")),
        ("open /etc/hostname", &|| open(c"/etc/hostname")),
        // SAFETY (each below): a system call with plain values or null pointers; if
        // one were allowed, its effect is the escape this PD reports.
        ("kill pid 1 (signal 0)", &|| {
            i64::from(unsafe { libc::kill(ppid, 0) })
        }),
        ("ptrace attach pid 1", &|| unsafe {
            libc::ptrace(
                libc::PTRACE_ATTACH,
                ppid,
                null_mut::<u8>(),
                null_mut::<u8>(),
            )
        }),
        ("process_vm_readv pid 1", &|| unsafe {
            libc::process_vm_readv(ppid, null_mut(), 0, null_mut(), 0, 0) as i64
        }),
        ("prctl set dumpable", &|| unsafe {
            i64::from(libc::prctl(libc::PR_SET_DUMPABLE, 1))
        }),
        ("mmap executable", &|| unsafe {
            let p = libc::mmap(
                null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_EXEC,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED { -1 } else { 0 }
        }),
        ("execve /bin/sh", &|| unsafe {
            let argv = [c"sh".as_ptr(), core::ptr::null()];
            i64::from(libc::execve(
                c"/bin/sh".as_ptr(),
                argv.as_ptr(),
                core::ptr::null(),
            ))
        }),
        ("socket", &|| unsafe {
            i64::from(libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0))
        }),
        ("memfd_create", &|| unsafe {
            i64::from(libc::memfd_create(c"escape".as_ptr(), 0))
        }),
        ("fork (clone without CLONE_THREAD)", &|| unsafe {
            fork(libc::syscall(libc::SYS_clone, libc::SIGCHLD, 0, 0, 0, 0))
        }),
        ("fork by clone3", &|| unsafe {
            #[repr(C)]
            struct CloneArgs([u64; 11]);
            // Only exit_signal set: a fork.
            let mut args = CloneArgs([0; 11]);
            args.0[4] = libc::SIGCHLD as u64;
            fork(libc::syscall(
                libc::SYS_clone3,
                &mut args as *mut CloneArgs,
                core::mem::size_of::<CloneArgs>(),
            ))
        }),
        ("madvise MADV_REMOVE", &|| unsafe {
            i64::from(libc::madvise(page, 4096, libc::MADV_REMOVE))
        }),
        ("madvise MADV_DONTFORK", &|| unsafe {
            i64::from(libc::madvise(page, 4096, libc::MADV_DONTFORK))
        }),
        (
            "a second thread",
            &|| match std::thread::Builder::new().spawn(|| {}) {
                Ok(t) => {
                    let _ = t.join();
                    0
                }
                Err(e) => failed(e),
            },
        ),
        ("allocate 512 MiB", &|| {
            let mut v: Vec<u8> = Vec::new();
            match v.try_reserve_exact(512 << 20) {
                Ok(()) => 0,
                Err(_) => failed(std::io::Error::from_raw_os_error(libc::ENOMEM)),
            }
        }),
        ("futex requeue off a peer's page", &|| unsafe {
            let seen = core::ptr::read_volatile(peer_word as *const u32);
            libc::syscall(
                libc::SYS_futex,
                peer_word,
                libc::FUTEX_CMP_REQUEUE,
                0,
                1usize,
                own,
                seen,
            )
        }),
    ];
    let mut refused = 0;
    let mut tried = tries.len();
    for (page, writable) in pd_runtime::host::kernel_pages() {
        if writable {
            continue;
        }
        tried += 1;
        // SAFETY: mprotect of a page of our own address space; if it succeeded, the
        // page would only become writable, which is the forgery this reports.
        let r = unsafe { libc::mprotect(page as *mut _, 4096, libc::PROT_READ | libc::PROT_WRITE) };
        if r == 0 {
            debug_println!("ESCAPED: a peer's kernel page at {page:?} made writable");
        } else {
            refused += 1;
            debug_println!("refused: making a peer's kernel page writable");
        }
    }
    for (name, attempt) in tries {
        let r = attempt();
        let errno = std::io::Error::last_os_error().raw_os_error();
        // clone3 is refused as a kernel without it would (glibc then uses clone).
        let refusal = if name.contains("clone3") {
            libc::ENOSYS
        } else if name.starts_with("allocate") {
            // The runner's data limit (RLIMIT_DATA): the mapping is refused.
            libc::ENOMEM
        } else {
            libc::EPERM
        };
        if r < 0 && errno == Some(refusal) {
            refused += 1;
            debug_println!("refused: {name}");
        } else {
            debug_println!("ESCAPED: {name} (returned {r}, errno {errno:?})");
        }
    }
    (refused, tried)
}

/// Writes records to the console as another PD, in the format records had when the
/// writer named itself (`<index>:<line>`, for every index), then one that is not UTF-8
/// and an empty one: the runner files each under this PD, as written, and reads on.
#[cfg(not(target_os = "none"))]
fn forge_console() {
    let me = pd_runtime::pd_name();
    for fd in 3..64 {
        // SAFETY: fstat into a zeroed struct; a descriptor that is not open fails. The
        // system call itself: glibc's fstat is newfstatat, which the sandbox refuses.
        let mut st: libc::stat = unsafe { core::mem::zeroed() };
        let r = unsafe { libc::syscall(libc::SYS_fstat, fd, &mut st) };
        if r != 0 || st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
            continue;
        }
        for index in 0..8 {
            let rec = std::format!("{index}:FORGED by {me}");
            // SAFETY: a write from a buffer we own to a descriptor we hold.
            unsafe { libc::write(fd, rec.as_ptr().cast(), rec.len()) };
        }
        let bad = b"\xff\xfe not UTF-8";
        // SAFETY: as above; and an empty record, which is no end of the stream.
        unsafe {
            libc::write(fd, bad.as_ptr().cast(), bad.len());
            libc::write(fd, bad.as_ptr().cast(), 0);
        }
    }
    debug_println!("console: still read after a record that is not UTF-8");
}

#[cfg(target_os = "none")]
fn forge_console() {}

#[cfg(target_os = "none")]
fn attempts() -> (usize, usize) {
    debug_println!("escape: seL4 has no host to escape to");
    (0, 0)
}

fn init() -> Idle {
    forge_console();
    let (refused, tried) = attempts();
    debug_println!("escape: {refused} of {tried} refused");
    Idle
}

pd_runtime::protection_domain!(init);
