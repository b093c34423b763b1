//! Killing a PD mid-run is a fault: the runner restarts it, and its peer keeps running
//! (same process, rounds still counting, every answer still checked).

mod common;

use common::{WAIT, boot, faults};
use host_runner::{Cause, Event, Options, Signal, System};

/// The highest round count ping has reported in `out`.
fn rounds(out: &[(String, String)]) -> u64 {
    out.iter()
        .filter(|(pd, _)| pd == "ping")
        .filter_map(|(_, l)| l.strip_prefix("ping: ")?.split(' ').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Waits until ping has reported at least `n` rounds.
fn wait_rounds(system: &System, n: u64) -> Option<u64> {
    system.wait_until(WAIT, |_, out| Some(rounds(out)).filter(|&r| r >= n))
}

#[test]
fn killed_pd_is_restarted_while_its_peer_keeps_running() {
    let system = boot("restart.system", Options::default());
    let ping = system.pid("ping").expect("ping runs");
    let pong = system.pid("pong").expect("pong runs");
    wait_rounds(&system, 4096).expect("ping counts rounds");

    assert!(system.signal("pong", Signal::KILL));
    let restarted = system.wait_until(WAIT, |events, _| {
        events
            .iter()
            .any(|e| matches!(e, Event::Restarted { pd, count: 1 } if pd == "pong"))
            .then_some(())
    });
    assert!(restarted.is_some(), "{:?}", system.events());
    let at_restart = wait_rounds(&system, 0).expect("no wait");
    let new_pong = system.pid("pong").expect("pong runs again");
    assert_ne!(new_pong, pong);

    let more = wait_rounds(&system, at_restart + 8192);
    assert!(
        more.is_some(),
        "ping stalled at {at_restart}: {:?}",
        system.output("ping")
    );
    assert_eq!(system.pid("ping"), Some(ping), "ping kept its process");
    let events = system.events();
    assert_eq!(faults(&events, "ping"), 0, "{events:?}");
    assert!(events.contains(&Event::Faulted {
        pd: "pong".into(),
        cause: Cause::Signal(Signal::KILL.as_raw())
    }));
}

/// Past its restart limit a PD is held, not the system stopped: pong killed once more
/// than it may be restarted stays dead, ping keeps its process and faults nothing, the
/// system goes on (no outcome), and the runner says which PD is held and why.
#[test]
fn a_pd_past_its_restart_limit_is_held_and_the_rest_runs_on() {
    let opts = Options {
        max_restarts: 2,
        ..Options::default()
    };
    let system = boot("restart.system", opts);
    let ping = system.pid("ping").expect("ping runs");
    for kill in 1..=3u32 {
        let pong = system.pid("pong").expect("pong runs");
        assert!(system.signal("pong", Signal::KILL));
        let next = system.wait_until(WAIT, |events, _| {
            events.iter().find_map(|e| match e {
                Event::Restarted { pd, count } if pd == "pong" && *count == kill => Some(true),
                Event::Held {
                    pd, restarts: 2, ..
                } if pd == "pong" => Some(false),
                _ => None,
            })
        });
        assert_eq!(next, Some(kill < 3), "kill {kill}: {:?}", system.events());
        if kill < 3 {
            // Its next incarnation is up before it is killed again.
            let deadline = std::time::Instant::now() + WAIT;
            while system.pid("pong").is_none_or(|p| p == pong) {
                assert!(std::time::Instant::now() < deadline, "pong not back");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
    assert_eq!(system.pid("pong"), None, "held: not started again");
    assert_eq!(
        system.wait_outcome(std::time::Duration::from_millis(500)),
        None
    );
    assert_eq!(system.pid("ping"), Some(ping), "ping kept its process");
    let events = system.events();
    assert_eq!(faults(&events, "ping"), 0, "{events:?}");
    let held = events
        .iter()
        .find(|e| matches!(e, Event::Held { .. }))
        .unwrap();
    assert_eq!(
        held.to_string(),
        format!(
            "PD pong: held: it faulted again ({}) after 2 restarts, its limit; the rest of \
             the system runs on",
            Cause::Signal(Signal::KILL.as_raw())
        )
    );
}
