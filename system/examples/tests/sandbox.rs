//! A PD cannot leave pd-runtime's host sandbox: every way out that a hostile client
//! tried (issue 14: /proc of another PD, signals, tracing, exec, new memory objects)
//! fails with EPERM, from inside the PD, before and after its init.

mod common;

use common::{boot, wait_line};
use host_runner::Options;

#[test]
fn every_way_out_of_the_sandbox_is_refused() {
    let system = boot("escape.system", Options::default());
    assert!(
        wait_line(&system, "escape", "escape: "),
        "{:?}",
        system.output("escape")
    );
    let out = system.output("escape");
    system.shutdown();
    let escaped: Vec<_> = out.iter().filter(|l| l.starts_with("ESCAPED")).collect();
    assert!(escaped.is_empty(), "{escaped:?}");
    let refused = out.iter().filter(|l| l.starts_with("refused: ")).count();
    assert_eq!(refused, 11, "{out:?}");
    assert!(
        out.iter().any(|l| l == "escape: 11 of 11 refused"),
        "{out:?}"
    );
}
