//! A child PD's faults go to its parent's `fault` handler, which restarts it; the
//! parent can also restart it while it runs, and stop it; the runner's own restart
//! policy is not involved.

mod common;

use common::{WAIT, boot, no_restarts};
use host_runner::Event;

fn worker_stops(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Stopped { pd } if pd == "worker"))
        .count()
}

#[test]
fn parent_restarts_and_stops_its_child() {
    let system = boot("child.system", no_restarts());
    assert!(system.wait_exit("parent", WAIT), "{:?}", system.events());
    // The restart of the running child and the final stop each end a process on request.
    let stops = system.wait_until(WAIT, |events, _| (worker_stops(events) == 2).then_some(()));
    assert!(stops.is_some(), "{:?}", system.events());

    let events = system.events();
    let to_parent = events
        .iter()
        .filter(|e| {
            matches!(e, Event::FaultToParent { pd, parent } if pd == "worker" && parent == "parent")
        })
        .count();
    assert_eq!(to_parent, 2, "{events:?}");
    let started = |n: u32| {
        events.iter().any(|e| {
            matches!(e, Event::Started { pd, incarnation, .. } if pd == "worker" && *incarnation == n)
        })
    };
    assert!(started(4) && !started(5), "{events:?}");
    assert!(
        !events.iter().any(|e| matches!(e, Event::Restarted { .. })),
        "the runner's policy stays out of it: {events:?}"
    );
    let out = system.output("parent");
    let faults = out
        .iter()
        .filter(|l| l.starts_with("parent: child 1 faulted: Some(Abort) (101)"))
        .count();
    assert_eq!(faults, 2, "{out:?}");
}
