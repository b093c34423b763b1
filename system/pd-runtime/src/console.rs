//! The writing end of a PD's console queue (`pd_idl::serial`): a PD's lines, cut into
//! [`LinePiece`]s, for the serial driver PD that owns the UART. On seL4 the runtime
//! writes every line of a PD whose `.system` file maps it a `console` region (and wires
//! [`CHANNEL`] to the serial driver) through one of these; it is here, not in the seL4
//! backend alone, so that the serial driver's tests drive the very writer PDs use.
//!
//! What a writer promises the driver, which keeps lines whole on that promise:
//! * the pieces of one write are published together (one tail store), so the driver
//!   never sees half of a write;
//! * a write that does not fit in the free slots is dropped whole, never cut, and
//!   counted; the next write that fits is preceded by a line saying how many were lost.
//!   A writer never waits for the driver (sDDF's serial clients do not either): a PD's
//!   event loop must not stall on a slow UART.

use pd_idl::serial::{LinePiece, PIECE_BYTES, TX_QUEUE_CAPACITY};
use shm_queue::{Producer, QueueError, SharedRegion, WriteBatch};

/// The channel id by which every PD with a console reaches the serial driver: the last
/// one Microkit allows (ids 0..=61), so that it collides with none a PD already uses.
pub const CHANNEL: u8 = 61;

/// One PD's console queue.
pub struct ConsoleWriter<'a> {
    queue: Producer<'a, LinePiece>,
    /// Writes dropped since the last one that went in.
    lost: u32,
}

/// What became of one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Queued; `notify`: the driver asked to be woken (the caller notifies [`CHANNEL`]).
    Queued { notify: bool },
    /// No room for the whole write: dropped (counted, and reported with the next write
    /// that fits).
    Lost,
    /// The queue's indices cannot be right (the driver is broken or hostile): dropped.
    Corrupt(QueueError),
}

impl<'a> ConsoleWriter<'a> {
    /// Attaches to the queue at the start of `region` (resuming after a restart where
    /// this PD's last incarnation left off, so the driver sees no gap in the indices).
    pub fn attach(region: SharedRegion<'a>) -> Option<Self> {
        let queue = Producer::attach(region, TX_QUEUE_CAPACITY).ok()?;
        Some(ConsoleWriter { queue, lost: 0 })
    }

    /// Writes `text`: a line if it ends with a newline (which the driver writes back),
    /// else the start of one that the next write goes on with.
    pub fn write(&mut self, text: &[u8]) -> Written {
        let (body, ends) = match text.split_last() {
            Some((b'\n', body)) => (body, true),
            _ => (text, false),
        };
        let mut note = [0u8; 48];
        let note = lost_note(self.lost, &mut note);
        let need = pieces(note.len()) + pieces(body.len()).max(1);
        let mut batch = match self.queue.write_batch() {
            Ok(batch) => batch,
            Err(e) => return Written::Corrupt(e),
        };
        if batch.len() < need {
            self.lost = self.lost.saturating_add(1);
            return Written::Lost;
        }
        let mut n = 0;
        if !note.is_empty() {
            n = put(&mut batch, n, note, true);
        }
        n = put(&mut batch, n, body, ends);
        batch.commit(n);
        self.lost = 0;
        Written::Queued {
            notify: self.queue.take_signal_request(),
        }
    }
}

/// Pieces `len` bytes take (none for none).
fn pieces(len: usize) -> usize {
    len.div_ceil(PIECE_BYTES)
}

/// Writes `text` into the batch's slots from `at` (one empty piece if `text` is empty),
/// the last marked `last`; returns the slot after them.
fn put(batch: &mut WriteBatch<'_, '_, LinePiece>, at: usize, text: &[u8], last: bool) -> usize {
    let count = pieces(text.len()).max(1);
    for i in 0..count {
        let chunk =
            &text[(i * PIECE_BYTES).min(text.len())..((i + 1) * PIECE_BYTES).min(text.len())];
        let mut piece = LinePiece {
            len: chunk.len() as u8,
            last: u8::from(last && i + 1 == count),
            bytes: [0; PIECE_BYTES],
        };
        piece.bytes[..chunk.len()].copy_from_slice(chunk);
        batch.set(at + i, piece);
    }
    at + count
}

/// "console: N write(s) lost" into `buf`, or nothing if none were.
fn lost_note(lost: u32, buf: &mut [u8; 48]) -> &[u8] {
    if lost == 0 {
        return &[];
    }
    const HEAD: &[u8] = b"console: ";
    const TAIL: &[u8] = b" write(s) lost, the queue was full";
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    let mut v = lost;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let mut len = 0;
    for part in [HEAD, &digits[i..], TAIL] {
        buf[len..len + part.len()].copy_from_slice(part);
        len += part.len();
    }
    &buf[..len]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shm_queue::Consumer;
    use std::vec::Vec;

    #[repr(C, align(64))]
    struct Page([u8; 4096]);

    /// A writer and the driver's end of one queue in `page`.
    fn both_ends(page: &mut Page) -> (ConsoleWriter<'_>, Consumer<'_, LinePiece>) {
        let region = SharedRegion::new(&mut page.0);
        let w = ConsoleWriter::attach(region).unwrap();
        let rx = Consumer::<LinePiece>::attach(region, TX_QUEUE_CAPACITY).unwrap();
        (w, rx)
    }

    fn take_all(rx: &mut Consumer<'_, LinePiece>) -> Vec<(Vec<u8>, bool)> {
        let mut out = Vec::new();
        while let Ok(p) = rx.dequeue() {
            out.push((p.bytes[..usize::from(p.len)].to_vec(), p.last != 0));
        }
        out
    }

    #[test]
    fn a_line_goes_in_pieces_published_together_the_last_marked() {
        let mut page = Page([0; 4096]);
        let (mut w, mut rx) = both_ends(&mut page);
        let line = [b'x'; 130];
        assert_eq!(
            w.write(&[&line[..], b"\n"].concat()),
            Written::Queued { notify: true }
        );
        let got = take_all(&mut rx);
        assert_eq!(got.len(), 3);
        assert_eq!(got.iter().map(|(b, _)| b.len()).sum::<usize>(), 130);
        assert_eq!(
            got.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
            [false, false, true]
        );
        // The driver did not arm its signal again: no second notification is asked for.
        assert_eq!(w.write(b"b\n"), Written::Queued { notify: false });
        // An empty line is one empty piece that ends it; a write without a newline ends
        // nothing.
        assert_eq!(w.write(b"\n"), Written::Queued { notify: false });
        assert_eq!(w.write(b"part"), Written::Queued { notify: false });
        let got = take_all(&mut rx);
        assert_eq!(
            got,
            [
                (b"b".to_vec(), true),
                (Vec::new(), true),
                (b"part".to_vec(), false)
            ]
        );
    }

    #[test]
    fn a_write_that_does_not_fit_is_dropped_whole_and_reported_with_the_next() {
        let mut page = Page([0; 4096]);
        let (mut w, mut rx) = both_ends(&mut page);
        // 31 one-piece lines leave one slot.
        for _ in 0..31 {
            assert!(matches!(w.write(b"fill\n"), Written::Queued { .. }));
        }
        assert_eq!(w.write(&[b'y'; 100]), Written::Lost);
        assert_eq!(
            w.write(b"z\n"),
            Written::Lost,
            "the note and the line need two"
        );
        assert_eq!(take_all(&mut rx).len(), 31);
        assert!(matches!(w.write(b"after\n"), Written::Queued { .. }));
        let got = take_all(&mut rx);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            (
                b"console: 2 write(s) lost, the queue was full".to_vec(),
                true
            )
        );
        assert_eq!(got[1], (b"after".to_vec(), true));
    }

    #[test]
    fn a_corrupt_queue_is_reported_not_written() {
        let mut page = Page([0; 4096]);
        let region = SharedRegion::new(&mut page.0);
        let mut w = ConsoleWriter::attach(region).unwrap();
        // The driver's head, 64 bytes in, claims more taken than was ever written.
        region
            .atomic_u32(64)
            .unwrap()
            .store(1000, core::sync::atomic::Ordering::Relaxed);
        assert!(matches!(
            w.write(b"x\n"),
            Written::Corrupt(QueueError::Corrupt { .. })
        ));
    }
}
