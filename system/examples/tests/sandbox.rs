//! A PD cannot leave pd-runtime's host sandbox: every way out that a hostile client
//! tried (issue 14: /proc of another PD, signals, tracing, exec, new memory objects)
//! fails with EPERM, and neither end of a channel can make the other's kernel pages
//! writable (to forge its notifications, calls or replies).

mod common;

use common::{boot, wait_line};
use host_runner::Options;

#[test]
fn every_way_out_of_the_sandbox_is_refused() {
    let system = boot("escape.system", Options::default());
    for pd in ["escape", "peer"] {
        assert!(
            wait_line(&system, pd, "escape: "),
            "{:?}",
            system.output(pd)
        );
    }
    for pd in ["escape", "peer"] {
        let out = system.output(pd);
        let escaped: Vec<_> = out.iter().filter(|l| l.starts_with("ESCAPED")).collect();
        assert!(escaped.is_empty(), "{pd}: {escaped:?}");
        // Eleven system calls, and the two read-only pages of its one channel: the
        // peer's PD page and its channel end.
        let pages = out
            .iter()
            .filter(|l| *l == "refused: making a peer's kernel page writable")
            .count();
        assert_eq!(pages, 2, "{pd}: {out:?}");
        assert!(
            out.iter().any(|l| l == "escape: 13 of 13 refused"),
            "{pd}: {out:?}"
        );
    }
    system.shutdown();
}
