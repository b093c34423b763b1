//! Booting the example systems from tests.

#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

use host_runner::{Event, Options, PastLimit, System};

pub const WAIT: Duration = Duration::from_secs(20);

pub fn system_file(name: &str) -> PathBuf {
    PathBuf::from(runtime_examples::SYSTEMS_DIR).join(name)
}

pub fn boot(name: &str, opts: Options) -> System {
    System::boot(system_file(name), opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Options under which the runner never restarts a PD: the test sees each fault as it is,
/// and the first ends the system.
pub fn no_restarts() -> Options {
    Options {
        max_restarts: 0,
        past_limit: PastLimit::Stop,
        ..Options::default()
    }
}

/// Waits for `pd` to exit (failing with what it printed if it does not) and returns
/// its output.
pub fn exited(system: &System, pd: &str) -> Vec<String> {
    assert!(system.wait_exit(pd, WAIT), "{pd}: {:?}", system.output(pd));
    system.output(pd)
}

pub fn faults(events: &[Event], pd: &str) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Faulted { pd: p, .. } if p == pd))
        .count()
}

/// Waits until `pd` has printed a line containing `needle`.
pub fn wait_line(system: &System, pd: &str, needle: &str) -> bool {
    system
        .wait_until(WAIT, |_, out| {
            out.iter()
                .any(|(p, l)| p == pd && l.contains(needle))
                .then_some(())
        })
        .is_some()
}
