//! PPC through pd-idl's generated Power stub and dispatch: arguments, replies, errors,
//! an unknown label, and a server that dies mid-call (ServerRestarted) and is restarted.

mod common;

use common::{boot, exited, faults};
use host_runner::{Cause, Event, Options};

#[test]
fn power_calls_and_a_server_dying_mid_call() {
    let system = boot("ppc.system", Options::default());
    let out = exited(&system, "client");
    for expected in [
        "client: acquire(OmapAes) -> generation 1",
        "client: release -> ok",
        "client: release again -> Err(Server(NotHeld))",
        "client: raw label 99 -> protocol error 1",
        "client: acquire(VirtioCrypto) -> Err(Server(ServerRestarted)) (server died mid-call)",
        "client: after restart, acquire -> generation 1",
    ] {
        assert!(
            out.iter().any(|l| l == expected),
            "missing {expected:?} in {out:?}"
        );
    }
    let events = system.events();
    assert_eq!(faults(&events, "client"), 0, "{events:?}");
    assert!(events.contains(&Event::Faulted {
        pd: "power".into(),
        cause: Cause::Exit(101)
    }));
    assert!(events.contains(&Event::Restarted {
        pd: "power".into(),
        count: 1
    }));
}
