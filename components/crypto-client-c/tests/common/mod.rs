//! The C library loaded, its functions typed, and memory both sides share.

#![allow(dead_code)]

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crypto_client_c::CLib;
use shm_queue::SharedRegion;

/// `crypto_pd_queue_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CQueue {
    pub region: *mut u8,
    pub capacity: u32,
    pub item_bytes: u32,
    pub slot_bytes: u32,
    pub mine: u32,
    pub seen: u32,
    pub bad_head: u32,
    pub bad_tail: u32,
}

impl CQueue {
    pub fn new() -> Self {
        CQueue {
            region: std::ptr::null_mut(),
            capacity: 0,
            item_bytes: 0,
            slot_bytes: 0,
            mine: 0,
            seen: 0,
            bad_head: 0,
            bad_tail: 0,
        }
    }
}

// The C enums' values (crypto_pd/queue.h).
pub const Q_OK: i32 = 0;
pub const Q_FULL: i32 = 1;
pub const Q_EMPTY: i32 = 2;
pub const Q_CORRUPT: i32 = 3;

type Attach = extern "C" fn(*mut CQueue, *mut c_void, u64, u32, u32, u32) -> i32;

/// The library's functions.
pub struct C {
    pub lib: CLib,
    pub slot_bytes: extern "C" fn(u32) -> u32,
    pub queue_bytes: extern "C" fn(u32, u32) -> u64,
    pub producer_attach: Attach,
    pub consumer_attach: Attach,
    pub stage: extern "C" fn(*mut CQueue, *const c_void) -> i32,
    pub publish: extern "C" fn(*mut CQueue),
    pub enqueue: extern "C" fn(*mut CQueue, *const c_void) -> i32,
    pub free: extern "C" fn(*mut CQueue, *mut u32) -> i32,
    pub take_signal_request: extern "C" fn(*mut CQueue) -> i32,
    pub dequeue: extern "C" fn(*mut CQueue, *mut c_void) -> i32,
    pub len: extern "C" fn(*mut CQueue, *mut u32) -> i32,
    pub arm_signal: extern "C" fn(*mut CQueue, *mut i32) -> i32,
    pub cancel_signal: extern "C" fn(*mut CQueue),
}

// SAFETY: the library's functions keep no state of their own; each queue end is used
// by one thread at a time, as the tests arrange.
unsafe impl Send for C {}
unsafe impl Sync for C {}

/// The test C files (tests/c/*.c), built into the library beside its own sources.
fn test_sources() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// The library, built once per test binary.
pub fn c() -> &'static C {
    static LIB: OnceLock<C> = OnceLock::new();
    LIB.get_or_init(|| {
        let name = format!("libcrypto_pd_client-{}.so", std::process::id());
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        let lib = CLib::build(&out, &test_sources()).unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: each type is the C declaration's (crypto_pd/queue.h).
        unsafe {
            C {
                slot_bytes: lib.sym("crypto_pd_slot_bytes"),
                queue_bytes: lib.sym("crypto_pd_queue_bytes"),
                producer_attach: lib.sym("crypto_pd_producer_attach"),
                consumer_attach: lib.sym("crypto_pd_consumer_attach"),
                stage: lib.sym("crypto_pd_stage"),
                publish: lib.sym("crypto_pd_publish"),
                enqueue: lib.sym("crypto_pd_enqueue"),
                free: lib.sym("crypto_pd_free"),
                take_signal_request: lib.sym("crypto_pd_take_signal_request"),
                dequeue: lib.sym("crypto_pd_dequeue"),
                len: lib.sym("crypto_pd_len"),
                arm_signal: lib.sym("crypto_pd_arm_signal"),
                cancel_signal: lib.sym("crypto_pd_cancel_signal"),
                lib,
            }
        }
    })
}

/// Cache-line-aligned memory both sides map, leaked: it outlives every queue end.
pub fn shared(len: usize) -> (*mut u8, SharedRegion<'static>) {
    #[repr(C, align(64))]
    struct Line([u8; 64]);
    let lines: &'static mut [Line] =
        Vec::leak((0..len.div_ceil(64)).map(|_| Line([0; 64])).collect());
    let base = lines.as_mut_ptr().cast::<u8>();
    // SAFETY: a fresh leaked allocation of `len` bytes or more; every access to it from
    // here on is the queue ends' (atomics and volatile copies, in C as in Rust).
    (base, unsafe { SharedRegion::from_raw(base, len) })
}

/// The queue word at `offset` (0 tail, 64 head, 128 consumer_signalled), for a hostile
/// peer's writes.
pub fn word(base: *mut u8, offset: usize) -> &'static std::sync::atomic::AtomicU32 {
    // SAFETY: a header word of a leaked, aligned region.
    unsafe { &*base.add(offset).cast() }
}
