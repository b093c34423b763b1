//! Kill storms on `system/storm.system`, as a fault injector plays them: the storm
//! client killed again and again mid-stream (half of the kills 0-8 ms after its restart,
//! while it attaches, opens its session and sends its first requests), then its driver.
//! Every incarnation of the client must make progress (none hangs) and take no answer
//! that is not its own (each request's plaintext names its incarnation and id, and the
//! client checks the ciphertext: a `WRONG` line); a driver restart loses no request.
//!
//! CI runs short storms; `STORM_KILLS=1000` (and `STORM_DRIVER_KILLS`) run the long ones,
//! printing the figures: `STORM_KILLS=1000 cargo test --locked -p system-tests --test
//! storm -- --nocapture`.

mod common;

use std::time::{Duration, Instant};

use common::{WAIT, field, lines, output, show, system_file};
use host_runner::{Cause, Event, Options, Signal, System};

/// How long an incarnation may take to answer its first 64 requests before it counts as
/// hung (a restart takes some milliseconds; a hang is for ever).
const HANG: Duration = Duration::from_secs(5);

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Boots the storm system with the client's answers target and no restart limit for the
/// client (a top-level PD: the runner restarts it).
fn boot(target: u64) -> System {
    let opts = Options {
        max_restarts: u32::MAX,
        env: vec![("STORM_TARGET".into(), target.to_string())],
        ..Options::default()
    };
    System::boot(system_file("storm.system"), opts).unwrap_or_else(|e| panic!("storm: {e}"))
}

/// The highest client incarnation that printed a line so far (0: none).
fn last_incarnation(out: &[(String, String)]) -> u64 {
    out.iter()
        .filter(|(pd, l)| pd == "storm" && l.contains("incarnation "))
        .map(|(_, l)| field(l, "incarnation"))
        .max()
        .unwrap_or(0)
}

/// Waits for an incarnation later than `after` to report its first 64 answers.
fn progress_after(system: &System, after: u64, timeout: Duration) -> Option<u64> {
    system.wait_until(timeout, |_, out| {
        lines(out, "storm", "answered 64 ")
            .iter()
            .map(|l| field(l, "incarnation"))
            .find(|i| *i > after)
    })
}

/// The runner's restarts of `pd` so far.
fn restarts(events: &[Event], pd: &str) -> u32 {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Restarted { pd: p, count } if p == pd => Some(*count),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Waits until the runner has restarted `pd` more than `count` times.
fn restarted_past(system: &System, pd: &str, count: u32) -> bool {
    system
        .wait_until(WAIT, |events, _| {
            (restarts(events, pd) > count).then_some(())
        })
        .is_some()
}

/// Faults of `pd` other than the test's kills (a panic, an init timeout...).
fn own_faults(events: &[Event], pd: &str) -> Vec<String> {
    const SIGKILL: i32 = 9;
    events
        .iter()
        .filter(|e| {
            matches!(e, Event::Faulted { pd: p, cause } if p == pd && *cause != Cause::Signal(SIGKILL))
        })
        .map(|e| e.to_string())
        .collect()
}

/// A small xorshift: the early kills' delays, from a seed printed for a rerun.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn a_client_killed_again_and_again_never_hangs_nor_takes_another_incarnations_answer() {
    let _turn = common::serial();
    let kills = env("STORM_KILLS", 100);
    let seed = env("STORM_SEED", 0).max(1)
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
    let mut rng = Rng(seed | 1);
    let system = boot(20_000);
    let start = Instant::now();
    let mut hangs = Vec::new();
    let mut early = 0;
    // The highest incarnation that printed before the latest kill: every later one is
    // the restarted client's. (Read after the restart instead, it could already include
    // the new incarnation's first line, and the next wait for a later one then waited
    // for ever while that one finished its target: "kill 50: not running" in a CI run.)
    let mut dead = 0;
    for k in 0..kills {
        if k % 2 == 0 {
            // Mid-stream: once the incarnation now running has answered 64 requests.
            if progress_after(&system, dead, HANG).is_none() {
                hangs.push(k);
            }
        } else {
            // 0-8 ms after its restart (the last kill's): attaching, opening, sending.
            std::thread::sleep(Duration::from_micros(rng.next() % 8_001));
            early += 1;
        }
        let before = restarts(&system.events(), "storm");
        dead = last_incarnation(&output(&system));
        assert!(
            system.signal("storm", Signal::KILL),
            "kill {k}: not running:\n{}",
            show(&output(&system), &system.events())
        );
        assert!(
            restarted_past(&system, "storm", before),
            "kill {k}: not restarted"
        );
    }
    // The last incarnation answers its target and exits (the system goes on: the runner
    // stops it when the test ends).
    let last = progress_after(&system, dead, HANG);
    let finished = last.is_some() && system.wait_exit("storm", WAIT);
    let out = output(&system);
    let wrong = lines(&out, "storm", "WRONG");
    let stale: u64 = lines(&out, "storm", "storm: ")
        .iter()
        .filter(|l| l.contains("stale"))
        .map(|l| (field(l, "incarnation"), field(l, "stale")))
        .collect::<std::collections::BTreeMap<_, _>>()
        .values()
        .sum();
    let backs = lines(&out, "omap_aes", "came back");
    let closed = backs.len();
    let dropped: u64 = backs.iter().map(|l| field(l, "dropped")).sum();
    eprintln!(
        "client storm (seed {seed:#x}): {kills} kills ({early} 0-8 ms after the restart) in {:.1} s; \
         hangs {} {hangs:?}; last incarnation finished {finished}; answers of another \
         incarnation taken: {}; stale answers dropped (as last reported): {stale}; \
         returns seen by the driver: {closed}, dropping {dropped} queued request(s) of dead incarnations",
        start.elapsed().as_secs_f64(),
        hangs.len() + usize::from(!finished),
        wrong.len(),
    );
    assert!(
        hangs.is_empty() && finished,
        "hung after kills {hangs:?}, last finished {finished}:\n{}",
        show(&out[out.len().saturating_sub(60)..], &system.events())
    );
    assert!(wrong.is_empty(), "{wrong:?}");
    let faults = own_faults(&system.events(), "storm");
    assert!(
        faults.is_empty(),
        "faults not of the test's kills: {faults:?}"
    );
    let done = lines(&out, "storm", "storm: done")[0];
    assert_eq!(field(done, "wrong"), 0, "{done}");
    assert_eq!(field(done, "stray"), 0, "{done}");
    assert!(closed > 0, "the driver saw the client come back");
}

#[test]
fn a_driver_killed_again_and_again_mid_stream_loses_no_request() {
    let _turn = common::serial();
    let kills = env("STORM_DRIVER_KILLS", 10);
    // 1024 answers between kills, then some.
    let system = boot(1024 * (kills + 4));
    let start = Instant::now();
    for k in 0..kills {
        // Mid-stream: the client has seen every restart so far and answered on since.
        let seen = system.wait_until(WAIT, |_, out| {
            lines(out, "storm", "answered ")
                .iter()
                .any(|l| field(l, "restarts") == k && !l.contains("answered 64 "))
                .then_some(())
        });
        assert!(
            seen.is_some(),
            "kill {k}: no progress:\n{}",
            show(&output(&system), &system.events())
        );
        assert!(system.signal("omap_aes", Signal::KILL), "kill {k}");
    }
    let done = system.wait_exit("storm", WAIT);
    let out = output(&system);
    assert!(done, "{}", show(&out, &system.events()));
    let end = lines(&out, "storm", "storm: done")[0];
    let (submitted, answered, restarted) = (
        field(end, "submitted"),
        field(end, "answered"),
        field(end, "restarted"),
    );
    eprintln!(
        "driver storm: {kills} kills in {:.1} s: submitted {submitted} = answered {answered} \
         + restarted {restarted}; lost {}",
        start.elapsed().as_secs_f64(),
        submitted - answered - restarted
    );
    assert_eq!(answered + restarted, submitted, "none lost: {end}");
    assert_eq!(field(end, "restarts"), kills, "{end}");
    assert_eq!(field(end, "stray"), 0, "{end}");
    assert_eq!(field(end, "wrong"), 0, "{end}");
    assert!(lines(&out, "storm", "WRONG").is_empty());
}
