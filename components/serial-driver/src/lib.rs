//! serial-driver: the console's transmit side, for the serial driver PD (`serial-pd`).
//! Every PD queues its lines (`pd_idl::serial`, written by `pd_runtime::console`); this
//! writes them to the board's PL011 UART whole, one writer's line at a time, so lines of
//! different PDs never mix mid-line. Event-driven: a writer's notification or the UART's
//! transmit interrupt starts a pass, which writes until the transmit FIFO is full (the
//! interrupt is then unmasked and the pass ends) or nothing whole is left to write.
//!
//! The shape is sDDF's serial class (a transmit queue per client, one driver owning the
//! device) without its virtualiser: each writer's queue reaches the driver directly,
//! and the driver, not a virtualiser, keeps lines apart.
//!
//! Assumes: writers are not trusted (a queue's indices, a piece's length and its bytes
//! are checked, and a broken queue cuts off its own writer only); a writer publishes a
//! line's pieces together, as `pd_runtime::console` does, so a line is started only
//! once it is all there (or fills the queue); the boot loader set the UART's baud rate
//! and line control. Transmit only. `no_std`, no heap.
#![no_std]
#![forbid(unsafe_code)]

use mmio::{BusFault, RegisterBus, pl011};
use pd_idl::serial::{LinePiece, PIECE_BYTES, TX_QUEUE_CAPACITY};
use shm_queue::{Consumer, LayoutError, QueueError, SharedRegion};

/// Writers one driver serves: a channel each, ids 0..=60 (61, the last id Microkit
/// allows, is the UART's interrupt).
pub const MAX_WRITERS: usize = 61;

/// What the driver has done, for its trace and its tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Lines written whole.
    pub lines: u64,
    /// Bytes written to the UART, newlines included.
    pub bytes: u64,
    /// Lines the driver ended before their writer did: the writer's queue ran dry
    /// mid-line while another writer waited (a line longer than a queue, or a writer
    /// that stopped), or the writer's queue broke mid-line.
    pub broken: u64,
    /// Pieces whose length was past [`PIECE_BYTES`] (cut to it) or whose bytes held
    /// control characters (each written as `?`).
    pub bad_pieces: u64,
    /// Writers cut off for a queue whose indices cannot be right.
    pub cut_off: u64,
    /// Transmit interrupts handled.
    pub interrupts: u64,
}

/// One writer's queue, and why it was cut off if it was.
struct Writer<'a> {
    queue: Consumer<'a, LinePiece>,
    /// Set when its indices went wrong; cleared at its next notification (a restarted
    /// writer resumes from the tail it had published, so its queue is right again).
    cut_off: Option<QueueError>,
}

/// The bytes being written: one piece, cleaned, and the newline that ends its line.
struct Out {
    buf: [u8; PIECE_BYTES + 1],
    len: usize,
    pos: usize,
}

/// The console: the UART and every writer's queue.
pub struct Console<'a, B> {
    uart: B,
    writers: [Option<Writer<'a>>; MAX_WRITERS],
    /// Writers that may have something to write: notified, and not since found empty or
    /// holding part of a line (each such was asked to notify again: `arm_signal`).
    pending: u64,
    /// The writer whose line is being written, until its last piece is.
    current: Option<usize>,
    /// The writer the next line is looked for first (round robin).
    next: usize,
    out: Out,
    /// The transmit interrupt is unmasked: the FIFO was full.
    waiting: bool,
    pub stats: Stats,
}

impl<'a, B: RegisterBus> Console<'a, B> {
    /// The console over `uart`, with writer `k`'s queue in `regions[k]` (none for an
    /// unwired channel). Enables the UART's transmitter and masks its interrupts (the
    /// transmit one is unmasked only while the FIFO is full).
    pub fn new(
        mut uart: B,
        regions: [Option<SharedRegion<'a>>; MAX_WRITERS],
    ) -> Result<Self, Refused> {
        let mut writers = [const { None }; MAX_WRITERS];
        let mut pending = 0;
        for (k, region) in regions.into_iter().enumerate() {
            if let Some(region) = region {
                let queue = Consumer::attach(region, TX_QUEUE_CAPACITY)
                    .map_err(|e| Refused::Region { writer: k, why: e })?;
                writers[k] = Some(Writer {
                    queue,
                    cut_off: None,
                });
                // A writer may have written before the driver started.
                pending |= 1 << k;
            }
        }
        uart.write32(pl011::IMSC, 0)?;
        let cr = uart.read32(pl011::CR)?;
        uart.write32(pl011::CR, cr | pl011::CR_UARTEN | pl011::CR_TXE)?;
        Ok(Console {
            uart,
            writers,
            pending,
            current: None,
            next: 0,
            out: Out {
                buf: [0; PIECE_BYTES + 1],
                len: 0,
                pos: 0,
            },
            waiting: false,
            stats: Stats::default(),
        })
    }

    /// Writer `k` notified: it published something.
    pub fn notified(&mut self, k: usize) -> Result<(), BusFault> {
        if let Some(w) = self.writers.get_mut(k).and_then(Option::as_mut) {
            w.cut_off = None;
            self.pending |= 1 << k;
        }
        self.pump()
    }

    /// The UART's transmit interrupt: the FIFO has room again. The caller acks the
    /// interrupt afterwards.
    pub fn interrupt(&mut self) -> Result<(), BusFault> {
        self.stats.interrupts += 1;
        self.uart.write32(pl011::ICR, pl011::INT_TX)?;
        self.pump()
    }

    /// Why writer `k` was cut off, if it is.
    pub fn cut_off(&self, k: usize) -> Option<QueueError> {
        self.writers.get(k)?.as_ref()?.cut_off
    }

    /// The UART, for a test's model.
    pub fn uart(&mut self) -> &mut B {
        &mut self.uart
    }

    /// Writes until the FIFO is full or nothing whole is left.
    fn pump(&mut self) -> Result<(), BusFault> {
        loop {
            if self.out.pos == self.out.len && !self.refill() {
                if self.waiting {
                    self.uart.write32(pl011::IMSC, 0)?;
                    self.waiting = false;
                }
                return Ok(());
            }
            if self.uart.read32(pl011::FR)? & pl011::FR_TXFF != 0 {
                if !self.waiting {
                    self.uart.write32(pl011::IMSC, pl011::INT_TX)?;
                    self.waiting = true;
                }
                return Ok(());
            }
            let byte = self.out.buf[self.out.pos];
            self.uart.write32(pl011::DR, u32::from(byte))?;
            self.out.pos += 1;
            self.stats.bytes += 1;
        }
    }

    /// Loads the next bytes to write: the current line's next piece, or the first of the
    /// next writer's whole line. False if there are none now.
    fn refill(&mut self) -> bool {
        if let Some(k) = self.current {
            return self.go_on(k);
        }
        for i in 0..MAX_WRITERS {
            let k = (self.next + i) % MAX_WRITERS;
            if self.pending & (1 << k) == 0 {
                continue;
            }
            match self.line_ready(k) {
                Ok(true) => {
                    self.next = (k + 1) % MAX_WRITERS;
                    self.current = Some(k);
                    return self.go_on(k);
                }
                Ok(false) => self.pending &= !(1 << k),
                Err(e) => self.cut(k, e),
            }
        }
        false
    }

    /// Whether writer `k` has a whole line published (a last piece, or a queue full of
    /// one line's pieces). If not, it is asked to notify at its next publish.
    fn line_ready(&mut self, k: usize) -> Result<bool, QueueError> {
        let Some(w) = self.writers[k].as_mut() else {
            return Ok(false);
        };
        loop {
            let mut batch = w.queue.read_batch()?;
            batch.refresh()?;
            let n = batch.len();
            if n == TX_QUEUE_CAPACITY as usize || (0..n).any(|i| batch.get(i).last != 0) {
                return Ok(true);
            }
            // Empty, or part of a line: ask for a notification. An empty queue that
            // filled meanwhile is looked at again (its producer may have seen the
            // request cleared and not notified); part of a line will be followed by
            // the publish of its rest, which sees the request.
            if w.queue.arm_signal()? || n != 0 {
                return Ok(false);
            }
        }
    }

    /// Loads writer `k`'s next piece of the current line. Ends the line (a newline of
    /// its own) if the writer's queue broke, or ran dry while another writer waits;
    /// waits for the writer otherwise.
    fn go_on(&mut self, k: usize) -> bool {
        let Some(w) = self.writers[k].as_mut() else {
            return self.end_line_early();
        };
        match w.queue.dequeue() {
            Ok(piece) => {
                self.load(&piece);
                if piece.last != 0 {
                    self.current = None;
                    self.stats.lines += 1;
                }
                true
            }
            Err(QueueError::Empty) => {
                // Asked to notify; a publish meanwhile is taken now.
                match w.queue.arm_signal() {
                    Ok(false) => return self.go_on(k),
                    Ok(true) => {}
                    Err(e) => {
                        self.cut(k, e);
                        return self.end_line_early();
                    }
                }
                self.pending &= !(1 << k);
                if self.pending != 0 {
                    self.end_line_early()
                } else {
                    false
                }
            }
            Err(e) => {
                self.cut(k, e);
                self.end_line_early()
            }
        }
    }

    /// The current line ends here, with a newline the driver adds.
    fn end_line_early(&mut self) -> bool {
        self.current = None;
        self.stats.broken += 1;
        self.out.buf[0] = b'\n';
        self.out.len = 1;
        self.out.pos = 0;
        true
    }

    fn cut(&mut self, k: usize, e: QueueError) {
        if let Some(w) = self.writers[k].as_mut() {
            w.cut_off = Some(e);
        }
        self.pending &= !(1 << k);
        self.stats.cut_off += 1;
    }

    /// A piece's bytes, cleaned: at most [`PIECE_BYTES`], control characters but the tab
    /// as `?` (a writer's escape sequence must not reach the terminal), and the
    /// newline after a line's last piece.
    fn load(&mut self, piece: &LinePiece) {
        let len = usize::from(piece.len);
        let mut bad = len > PIECE_BYTES;
        let len = len.min(PIECE_BYTES);
        for (to, &b) in self.out.buf.iter_mut().zip(&piece.bytes[..len]) {
            let control = b < 0x20 && b != b'\t' || b == 0x7f;
            bad |= control;
            *to = if control { b'?' } else { b };
        }
        self.out.len = len;
        if piece.last != 0 {
            self.out.buf[len] = b'\n';
            self.out.len += 1;
        }
        self.out.pos = 0;
        self.stats.bad_pieces += u64::from(bad);
    }
}

/// Why the console could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Writer `writer`'s region cannot hold its queue.
    Region { writer: usize, why: LayoutError },
    /// The UART did not answer.
    Uart(BusFault),
}

impl From<BusFault> for Refused {
    fn from(e: BusFault) -> Self {
        Refused::Uart(e)
    }
}
