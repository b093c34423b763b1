//! Ping-pong over notifications and shm-queues, on the spin path and the sleep path.

mod common;

use common::{WAIT, boot, faults};
use host_runner::{Options, Outcome};

fn ping_pong(spin: u32) {
    let system = boot(
        "ping-pong.system",
        Options {
            spin,
            ..Options::default()
        },
    );
    assert!(system.wait_exit("ping", WAIT), "ping did not finish");
    let out = system.output("ping");
    assert!(
        out.iter()
            .any(|l| l == "ping: done, 1000 rounds, all answers right"),
        "{out:?}"
    );
    let events = system.events();
    assert_eq!(
        faults(&events, "ping") + faults(&events, "pong"),
        0,
        "{events:?}"
    );
    assert_eq!(system.shutdown(), Outcome::Shutdown);
}

#[test]
fn ping_pong_spinning() {
    ping_pong(Options::default().spin);
}

#[test]
fn ping_pong_sleeping_on_futexes() {
    ping_pong(0);
}
