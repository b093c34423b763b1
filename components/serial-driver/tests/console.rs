//! The console against a model of the PL011's transmit side (a FIFO the test drains,
//! the transmit interrupt raised while unmasked and the FIFO has room), with writers
//! that are `pd_runtime::console`'s own, as every PD's.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use mmio::{BusFault, RegisterBus, pl011};
use pd_idl::serial::LinePiece;
use pd_runtime::console::{ConsoleWriter, Written};
use proptest::prelude::*;
use serial_driver::{Console, MAX_WRITERS};
use shm_queue::{QueueError, SharedRegion};

/// The PL011's transmit side: `depth` bytes of FIFO, drained by the test.
struct Pl011 {
    fifo: VecDeque<u8>,
    depth: usize,
    sent: Vec<u8>,
    imsc: u32,
    cr: u32,
    /// Bytes written while the FIFO was full (lost on silicon).
    overruns: usize,
}

impl Pl011 {
    fn new(depth: usize) -> Self {
        Pl011 {
            fifo: VecDeque::new(),
            depth,
            sent: Vec::new(),
            imsc: 0,
            cr: 0,
            overruns: 0,
        }
    }

    /// Moves up to `n` bytes out of the FIFO onto the line.
    fn drain(&mut self, n: usize) {
        for _ in 0..n {
            match self.fifo.pop_front() {
                Some(b) => self.sent.push(b),
                None => break,
            }
        }
    }

    /// The interrupt line: the transmit interrupt unmasked and the FIFO not full.
    fn irq(&self) -> bool {
        self.imsc & pl011::INT_TX != 0 && self.fifo.len() < self.depth
    }
}

impl RegisterBus for Pl011 {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        Ok(match offset {
            pl011::FR if self.fifo.len() == self.depth => pl011::FR_TXFF | pl011::FR_BUSY,
            pl011::FR if !self.fifo.is_empty() => pl011::FR_BUSY,
            pl011::FR => 0,
            pl011::CR => self.cr,
            pl011::IMSC => self.imsc,
            _ => return Err(BusFault::OutOfWindow { offset }),
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        match offset {
            pl011::DR if self.fifo.len() == self.depth => self.overruns += 1,
            pl011::DR => self.fifo.push_back(value as u8),
            pl011::CR => self.cr = value,
            pl011::IMSC => self.imsc = value,
            pl011::ICR => {}
            _ => return Err(BusFault::OutOfWindow { offset }),
        }
        Ok(())
    }
}

#[repr(C, align(64))]
struct Page([u8; 4096]);

/// `n` writers' pages, zeroed as a fresh Microkit region is.
fn pages(n: usize) -> Vec<Page> {
    (0..n).map(|_| Page([0; 4096])).collect()
}

fn console<'a>(uart: Pl011, pages: &'a mut [Page]) -> (Console<'a, Pl011>, Vec<ConsoleWriter<'a>>) {
    let mut regions = [None; MAX_WRITERS];
    let mut writers = Vec::new();
    for (k, page) in pages.iter_mut().enumerate() {
        let region = SharedRegion::new(&mut page.0);
        regions[k] = Some(region);
        writers.push(ConsoleWriter::attach(region).unwrap());
    }
    (Console::new(uart, regions).unwrap(), writers)
}

/// Drains the FIFO `step` bytes at a time, handling the interrupt as the PD does, until
/// nothing is left.
fn run_out(c: &mut Console<'_, Pl011>, step: usize) {
    for _ in 0..100_000 {
        c.uart().drain(step);
        if c.uart().irq() {
            c.interrupt().unwrap();
        } else if c.uart().fifo.is_empty() {
            return;
        }
    }
    panic!("the console never ran dry");
}

fn sent(c: &mut Console<'_, Pl011>) -> String {
    String::from_utf8(c.uart().sent.clone()).unwrap()
}

#[test]
fn lines_of_several_writers_come_out_whole_through_a_full_fifo() {
    let mut pages = pages(3);
    let (mut c, mut w) = console(Pl011::new(4), &mut pages);
    let long = format!("writer 2: {}", "x".repeat(150));
    assert!(matches!(
        w[0].write(b"writer 0: one\n"),
        Written::Queued { .. }
    ));
    assert!(matches!(
        w[1].write(b"writer 1: one\n"),
        Written::Queued { .. }
    ));
    assert!(matches!(
        w[2].write(format!("{long}\n").as_bytes()),
        Written::Queued { .. }
    ));
    assert!(matches!(
        w[0].write(b"writer 0: two\n"),
        Written::Queued { .. }
    ));
    for k in 0..3 {
        c.notified(k).unwrap();
    }
    assert_eq!(
        c.uart().imsc,
        pl011::INT_TX,
        "a full FIFO unmasks the interrupt"
    );
    run_out(&mut c, 3);
    let out = sent(&mut c);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        ["writer 0: one", "writer 0: two", "writer 1: one", &long]
    );
    // One writer's lines keep their order.
    assert!(out.find("writer 0: one").unwrap() < out.find("writer 0: two").unwrap());
    assert_eq!(c.uart().overruns, 0, "no byte written into a full FIFO");
    assert_eq!(
        c.uart().imsc,
        0,
        "masked again once there is nothing to write"
    );
    assert_eq!(c.stats.lines, 4);
    assert_eq!(c.stats.bytes, out.len() as u64);
    assert_eq!(c.stats.broken, 0);
    assert!(c.stats.interrupts > 10, "{:?}", c.stats);
}

#[test]
fn part_of_a_line_waits_while_a_whole_one_passes() {
    let mut pages = pages(2);
    let (mut c, mut w) = console(Pl011::new(64), &mut pages);
    // write_line's first 256 bytes of a longer line: no newline yet.
    assert!(matches!(
        w[0].write(b"zero: start "),
        Written::Queued { notify: true }
    ));
    c.notified(0).unwrap();
    assert!(matches!(
        w[1].write(b"one: whole\n"),
        Written::Queued { notify: true }
    ));
    c.notified(1).unwrap();
    // The driver asked writer 0 to notify again when it found only part of a line.
    assert_eq!(w[0].write(b"end\n"), Written::Queued { notify: true });
    c.notified(0).unwrap();
    run_out(&mut c, 64);
    assert_eq!(sent(&mut c), "one: whole\nzero: start end\n");
    assert_eq!(c.stats.broken, 0);
}

#[test]
fn a_writer_dry_mid_line_is_ended_when_another_waits() {
    let mut pages = pages(2);
    let (mut c, mut w) = console(Pl011::new(1024), &mut pages);
    // 32 pieces with no newline fill the queue: the driver starts them as a line.
    for _ in 0..32 {
        assert!(matches!(w[0].write(&[b'a'; 61]), Written::Queued { .. }));
    }
    assert!(matches!(w[1].write(b"one\n"), Written::Queued { .. }));
    c.notified(0).unwrap();
    c.notified(1).unwrap();
    run_out(&mut c, 1024);
    let out = sent(&mut c);
    assert_eq!(out, format!("{}\none\n", "a".repeat(61 * 32)));
    assert_eq!((c.stats.broken, c.stats.lines), (1, 1));
}

#[test]
fn a_corrupt_queue_cuts_off_its_writer_only_until_it_is_right_again() {
    let mut pages = pages(2);
    let base = pages[0].0.as_mut_ptr();
    let (mut c, mut w) = console(Pl011::new(256), &mut pages);
    assert!(matches!(w[1].write(b"one\n"), Written::Queued { .. }));
    // Writer 0's published tail, 0 bytes in: 1000 items past the driver's head.
    // SAFETY: the page outlives this test's uses; a u32 at offset 0 is aligned.
    let tail = unsafe { &*(base as *const std::sync::atomic::AtomicU32) };
    tail.store(1000, Ordering::Release);
    c.notified(0).unwrap();
    c.notified(1).unwrap();
    run_out(&mut c, 256);
    assert_eq!(sent(&mut c), "one\n");
    assert_eq!(
        c.cut_off(0),
        Some(QueueError::Corrupt {
            head: 0,
            tail: 1000
        })
    );
    assert_eq!(c.stats.cut_off, 1);
    // Its tail put back, its next line goes out.
    tail.store(0, Ordering::Release);
    assert!(matches!(w[0].write(b"zero\n"), Written::Queued { .. }));
    c.notified(0).unwrap();
    run_out(&mut c, 256);
    assert_eq!(sent(&mut c), "one\nzero\n");
    assert_eq!(c.cut_off(0), None);
}

#[test]
fn a_hostile_piece_is_cut_to_size_and_its_control_bytes_hidden() {
    let mut pages = pages(1);
    let region = SharedRegion::new(&mut pages[0].0);
    let mut regions = [None; MAX_WRITERS];
    regions[0] = Some(region);
    let mut c = Console::new(Pl011::new(256), regions).unwrap();
    let mut tx = shm_queue::Producer::<LinePiece>::attach(region, 32).unwrap();
    let mut bytes = [b'b'; 61];
    bytes[0] = 0x1b; // ESC: the start of a terminal escape sequence
    tx.enqueue(LinePiece {
        len: 200,
        last: 1,
        bytes,
    })
    .unwrap();
    c.notified(0).unwrap();
    // A notification on a channel with no writer, and past the last, does nothing.
    c.notified(5).unwrap();
    c.notified(1000).unwrap();
    run_out(&mut c, 256);
    assert_eq!(sent(&mut c), format!("?{}\n", "b".repeat(60)));
    assert_eq!(c.stats.bad_pieces, 1);
}

proptest! {
    /// Whatever the writers write and however slowly the UART drains, each line that
    /// went in comes out whole and in its writer's order, and none is made up.
    #[test]
    fn every_queued_line_comes_out_whole(
        writes in prop::collection::vec((0usize..3, 0usize..200), 1..40),
        depth in 1usize..32,
        step in 1usize..8,
    ) {
        let mut pages = pages(3);
        let (mut c, mut w) = console(Pl011::new(depth), &mut pages);
        let mut queued: Vec<Vec<String>> = vec![Vec::new(); 3];
        for (i, (k, len)) in writes.into_iter().enumerate() {
            let line = format!("{k}:{i}:{}", "z".repeat(len));
            if let Written::Queued { .. } = w[k].write(format!("{line}\n").as_bytes()) {
                queued[k].push(line);
            }
            c.notified(k).unwrap();
            c.uart().drain(step);
            if c.uart().irq() {
                c.interrupt().unwrap();
            }
        }
        run_out(&mut c, step);
        let out = sent(&mut c);
        prop_assert_eq!(c.uart().overruns, 0);
        for (k, lines) in queued.iter().enumerate() {
            let got: Vec<&str> = out.lines().filter(|l| l.starts_with(&format!("{k}:"))).collect();
            prop_assert_eq!(&got, lines);
        }
        // Lines lost to a full queue are reported by the writer's note, not made up.
        let written = out.lines().filter(|l| !l.starts_with("console: ")).count();
        prop_assert_eq!(written, queued.iter().map(Vec::len).sum::<usize>());
    }
}
