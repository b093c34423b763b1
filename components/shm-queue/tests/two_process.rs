//! A producer in another process, sharing the queue through a memfd mapped in both: the
//! way two protection domains share a region on the host backend.

mod common;

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

use common::Item;
use rustix::fs::{MemfdFlags, ftruncate, memfd_create};
use rustix::mm::{MapFlags, ProtFlags, mmap, munmap};
use shm_queue::{Consumer, Producer, SharedRegion, region_size};

const CAP: u32 = 256;
const ITEMS: u64 = 200_000;
const FD_VAR: &str = "SHM_QUEUE_TEST_FD";

fn map(fd: &OwnedFd, len: usize) -> SharedRegion<'static> {
    // SAFETY: a fresh shared mapping of a memfd we sized; nothing else in this process
    // refers to it, and it stays mapped until the process ends.
    unsafe {
        let ptr = mmap(
            std::ptr::null_mut(),
            len,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::SHARED,
            fd,
            0,
        )
        .expect("mmap");
        SharedRegion::from_raw(ptr.cast(), len)
    }
}

#[test]
fn items_cross_between_processes() {
    let len = region_size::<Item>(CAP);
    // No CLOEXEC: the child inherits the descriptor, as a PD inherits its regions.
    let fd = memfd_create("shm-queue-test", MemfdFlags::empty()).expect("memfd_create");
    ftruncate(&fd, len as u64).unwrap();
    let region = map(&fd, len);
    let mut c = Consumer::<Item>::attach(region, CAP).unwrap();

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "producer_child",
            "--nocapture",
            "--include-ignored",
        ])
        .env(FD_VAR, fd.as_raw_fd().to_string())
        .spawn()
        .expect("spawn producer");

    let mut expect = 0;
    let mut out = vec![Item::new(0); 32];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while expect < ITEMS {
        let n = c.dequeue_many(&mut out).expect("consumer");
        for item in &out[..n] {
            assert!(item.is_intact());
            assert_eq!(item.seq, expect);
            expect += 1;
        }
        if n == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "producer stalled at {expect}"
            );
            std::thread::yield_now();
        }
    }
    assert!(child.wait().unwrap().success());
    assert!(c.is_empty().unwrap());
    // SAFETY: the mapping made by map(); the queue handles are no longer used.
    unsafe { munmap(region.as_ptr().cast(), len).unwrap() };
}

/// The producer side: runs only when spawned by the test above.
#[test]
#[ignore = "run as a child process by items_cross_between_processes"]
fn producer_child() {
    let Ok(raw) = std::env::var(FD_VAR) else {
        return;
    };
    // SAFETY: the parent passed us this inherited descriptor and nothing else owns it.
    let fd = unsafe { OwnedFd::from_raw_fd(raw.parse().unwrap()) };
    let region = map(&fd, region_size::<Item>(CAP));
    let mut p = Producer::<Item>::attach(region, CAP).unwrap();
    let mut next = 0;
    while next < ITEMS {
        let batch: Vec<_> = (next..(next + 16).min(ITEMS)).map(Item::new).collect();
        let n = p.enqueue_many(&batch).unwrap();
        next += n as u64;
        if n == 0 {
            std::thread::yield_now();
        }
    }
}
