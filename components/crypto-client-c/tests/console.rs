//! The C console writer (crypto_pd/console.h) against the Rust one every pd-runtime PD
//! writes with (pd_runtime::console): the same writes, with the driver draining at the
//! same points, leave the same pieces in the queue and get the same answers, so the
//! serial driver keeps a C PD's lines whole as it keeps a Rust PD's.

mod common;

use std::ffi::c_void;

use common::{CQueue, c, shared};
use pd_idl::serial::{LinePiece, TX_QUEUE_BYTES, TX_QUEUE_CAPACITY};
use pd_runtime::console::{ConsoleWriter, Written};
use proptest::prelude::*;
use shm_queue::{Consumer, SharedRegion};

/// `crypto_pd_console_t`.
#[repr(C)]
struct CConsole {
    queue: CQueue,
    lost: u32,
}

type Attach = extern "C" fn(*mut CConsole, *mut c_void, u64) -> i32;
type Write = extern "C" fn(*mut CConsole, *const u8, usize) -> i32;

/// The C writer and the driver's end of its queue.
struct CSide {
    console: Box<CConsole>,
    write: Write,
    rx: Consumer<'static, LinePiece>,
}

fn c_side() -> CSide {
    let (base, region) = shared(TX_QUEUE_BYTES);
    // SAFETY: the types are the C declarations' (crypto_pd/console.h).
    let (attach, write): (Attach, Write) = unsafe {
        (
            c().lib.sym("crypto_pd_console_attach"),
            c().lib.sym("crypto_pd_console_write"),
        )
    };
    let mut console = Box::new(CConsole {
        queue: CQueue::new(),
        lost: 7,
    });
    assert_eq!(attach(&mut *console, base.cast(), TX_QUEUE_BYTES as u64), 0);
    assert_eq!(console.lost, 0, "attach starts with nothing lost");
    let rx = Consumer::attach(region, TX_QUEUE_CAPACITY).expect("layout");
    CSide { console, write, rx }
}

fn rust_side() -> (ConsoleWriter<'static>, Consumer<'static, LinePiece>) {
    let (_, region): (_, SharedRegion<'static>) = shared(TX_QUEUE_BYTES);
    let w = ConsoleWriter::attach(region).expect("layout");
    let rx = Consumer::attach(region, TX_QUEUE_CAPACITY).expect("layout");
    (w, rx)
}

/// The C enum's value for what the Rust writer answered.
fn code(w: Written) -> i32 {
    match w {
        Written::Queued { notify: false } => 0,
        Written::Queued { notify: true } => 1,
        Written::Lost => 2,
        Written::Corrupt(_) => 3,
    }
}

/// The pieces waiting, as (bytes, last), the driver's signal re-armed when it empties.
fn drain(rx: &mut Consumer<'_, LinePiece>) -> Pieces {
    let mut out = Vec::new();
    loop {
        match rx.dequeue() {
            Ok(p) => out.push((p.bytes[..usize::from(p.len)].to_vec(), p.last != 0)),
            Err(_) => {
                if rx.arm_signal().expect("sound queue") {
                    return out;
                }
            }
        }
    }
}

/// A write or the driver draining the queue.
#[derive(Clone, Debug)]
enum Step {
    Write(Vec<u8>),
    Drain,
}

/// The pieces a driver drained, as (bytes, last).
type Pieces = Vec<(Vec<u8>, bool)>;

/// Runs `steps` through both writers; the answers and the pieces drained, each side's.
fn both(steps: &[Step]) -> [(Vec<i32>, Pieces); 2] {
    let mut cs = c_side();
    let (mut w, mut rx) = rust_side();
    let (mut c_out, mut r_out) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
    for s in steps {
        match s {
            Step::Write(text) => {
                c_out
                    .0
                    .push((cs.write)(&mut *cs.console, text.as_ptr(), text.len()));
                r_out.0.push(code(w.write(text)));
            }
            Step::Drain => {
                c_out.1.extend(drain(&mut cs.rx));
                r_out.1.extend(drain(&mut rx));
            }
        }
    }
    c_out.1.extend(drain(&mut cs.rx));
    r_out.1.extend(drain(&mut rx));
    [c_out, r_out]
}

#[test]
fn lines_go_in_pieces_and_a_write_that_does_not_fit_is_lost_and_reported() {
    let mut steps = vec![Step::Write(
        [b'x'; 130].iter().chain(b"\n").copied().collect(),
    )];
    steps.push(Step::Write(b"\n".to_vec()));
    steps.push(Step::Write(b"part".to_vec()));
    // Five pieces so far; 27 more one-piece lines leave no slot of the 32, and the next
    // two writes are lost.
    steps.extend((0..27).map(|_| Step::Write(b"fill\n".to_vec())));
    steps.push(Step::Write(vec![b'y'; 100]));
    steps.push(Step::Write(b"z\n".to_vec()));
    steps.push(Step::Drain);
    steps.push(Step::Write(b"after\n".to_vec()));
    let [(c_answers, c_pieces), rust] = both(&steps);
    assert_eq!((c_answers.clone(), c_pieces.clone()), rust);
    // What the C side did, spelled out: the first write notifies, the two that did not
    // fit are lost, and the next line is preceded by the count.
    assert_eq!(c_answers[0], 1);
    assert_eq!(c_answers[30..32], [2, 2]);
    assert_eq!(
        c_pieces[..3].iter().map(|(b, _)| b.len()).sum::<usize>(),
        130
    );
    assert_eq!(c_pieces[3], (Vec::new(), true));
    assert_eq!(c_pieces[4], (b"part".to_vec(), false));
    let n = c_pieces.len();
    assert_eq!(
        c_pieces[n - 2],
        (
            b"console: 2 write(s) lost, the queue was full".to_vec(),
            true
        )
    );
    assert_eq!(c_pieces[n - 1], (b"after".to_vec(), true));
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (prop::collection::vec(b'a'..=b'z', 0..200), any::<bool>()).prop_map(|(mut t, nl)| {
            if nl {
                t.push(b'\n');
            }
            Step::Write(t)
        }),
        1 => Just(Step::Drain),
    ]
}

proptest! {
    #[test]
    fn the_c_writer_writes_as_the_rust_one(steps in prop::collection::vec(step(), 0..60)) {
        let [c_side, rust] = both(&steps);
        prop_assert_eq!(c_side, rust);
    }
}
