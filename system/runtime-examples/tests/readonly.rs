//! A read-only map really is read-only: the reader sees the writer's word, cannot make
//! the map writable with mprotect, and its write through the map is a SIGSEGV fault.

mod common;

use common::{WAIT, boot, no_restarts, wait_line};
use host_runner::{Cause, Outcome, Signal};

#[test]
fn write_through_read_only_map_faults() {
    let system = boot("readonly.system", no_restarts());
    let outcome = system.wait_outcome(WAIT);
    assert_eq!(
        outcome,
        Some(Outcome::Failed {
            pd: "reader".into(),
            cause: Cause::Signal(Signal::SEGV.as_raw()),
        })
    );
    assert!(wait_line(
        &system,
        "reader",
        "read 0x5eedc0de00000001; map writable: false"
    ));
    let out = system.output("reader");
    assert!(!out.iter().any(|l| l.contains("NOT read-only")), "{out:?}");
    assert!(
        out.iter()
            .any(|l| l.contains("mprotect to writable refused")),
        "{out:?}"
    );
}
