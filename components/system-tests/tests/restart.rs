//! Killing a driver mid-stream: its client gets ServerRestarted for every request in
//! flight (none silently dropped, none answered twice), the power manager revokes the
//! dead driver's grant (its restarted successor holds a new generation), and the
//! restarted driver serves new sessions.

mod common;

use common::{WAIT, args, boot, field, lines, output, show, stream_answered, trace};
use host_runner::{Event, Signal, System};
use pd_trace::Kind;

/// Boots `name` and waits until its `stream` client is well under way: `answered`
/// requests answered.
fn boot_streaming(name: &str, answered: u32) -> System {
    let system = boot(name);
    assert!(
        stream_answered(&system, answered),
        "{:?}",
        system.output("stream")
    );
    system
}

#[test]
fn a_killed_driver_is_restarted_and_every_request_in_flight_is_accounted_for() {
    let _turn = common::serial();
    let system = boot_streaming("restart.system", 1000);
    let old = system.pid("omap_aes").expect("driver runs");
    assert!(system.signal("omap_aes", Signal::KILL));

    let done = system.wait_exit("stream", WAIT);
    let out = output(&system);
    let events = system.events();
    assert!(done, "stream did not finish:\n{}", show(&out, &events));
    assert_ne!(system.pid("omap_aes"), Some(old), "a new driver process");
    assert!(events.contains(&Event::FaultToParent {
        pd: "omap_aes".into(),
        parent: "power".into()
    }));

    // The client: everything it submitted came back exactly once.
    let end = lines(&out, "stream", "stream: done")[0];
    let (submitted, answered, restarted) = (
        field(end, "submitted"),
        field(end, "answered"),
        field(end, "restarted"),
    );
    assert!(
        restarted >= 1,
        "requests were in flight when the driver died: {end}"
    );
    assert_eq!(answered + restarted, submitted, "{end}");
    assert_eq!(field(end, "stray"), 0, "{end}");
    assert_eq!(field(end, "wrong"), 0, "{end}");
    assert_eq!(field(end, "restarts"), 1, "{end}");

    // The power manager: the fault revoked the grant of its child 1; the new
    // incarnation's grant is a new generation, so the old one is refused from now on.
    let power = trace(&system, "power_trace");
    assert_eq!(args(&power, Kind::Revoked), [1], "{power:?}");
    let generations = args(&power, Kind::Granted);
    assert!(
        generations.contains(&1) && generations.contains(&2),
        "the restarted driver holds a new grant: {power:?}"
    );
    // Two incarnations of the driver wrote the one trace (it outlives them); the second
    // discarded the queue its predecessor left (logged, for whoever reads the run).
    let driver = trace(&system, "omap_trace");
    assert_eq!(driver.count(Kind::Started), 2, "{driver:?}");
    assert_eq!(
        driver.last(Kind::Started),
        Some(2),
        "its incarnation: {driver:?}"
    );
    assert_eq!(lines(&out, "omap_aes", "restarted: client 0").len(), 1);
    let sessions = lines(&out, "stream", "open");
    assert!(
        sessions.len() >= 2,
        "a new session after restart: {sessions:?}"
    );
    // The restarted driver's session ids start from its incarnation: none names a
    // session of its predecessor that a client may still hold.
    assert_ne!(sessions[0], sessions[1], "{sessions:?}");
    if std::env::var_os("SHOW").is_some() {
        eprintln!("{}", show(&out, &events));
    }
}

/// A client that scribbles the driver's epoch in its control line (its own queue
/// region, which the driver writes) so that the next one, 4097, wraps the incarnation's
/// 12 bits onto the dead driver's, 1, does not choose the restarted driver's
/// incarnation: it is the driver's own count of starts, so its session ids are new.
/// (A test of its own: the scribbled epoch is a change the client itself may take for
/// a restart, so its own restart count is not asserted here.)
#[test]
fn a_scribbled_epoch_does_not_choose_the_restarted_drivers_incarnation() {
    use pd_idl::cipher::{REQUEST_QUEUE_CAPACITY, Request, Response};
    let _turn = common::serial();
    let system = boot_streaming("restart.system", 1000);
    let control = crypto_client::pair::bytes::<Request, Response>(REQUEST_QUEUE_CAPACITY) - 64;
    assert!(system.write_region("queues0", control as u64, &4096u32.to_ne_bytes()));
    assert!(system.signal("omap_aes", Signal::KILL));
    let done = system.wait_exit("stream", WAIT);
    let out = output(&system);
    assert!(done, "{}", show(&out, &system.events()));
    let driver = trace(&system, "omap_trace");
    assert_eq!(
        driver.last(Kind::Started),
        Some(2),
        "its incarnation: {driver:?}"
    );
    let sessions = lines(&out, "stream", "open");
    assert!(sessions.len() >= 2, "{sessions:?}");
    assert_ne!(sessions[0], sessions[1], "{sessions:?}");
}

/// A driver that faults by itself (the test build `cpu-cipher-crash-test`, a write to an
/// unmapped address on its client's 40th notification), as the seL4 image does it: its
/// parent restarts it, the client sees every request in flight once, answered or
/// ServerRestarted, and is served again.
#[test]
fn a_driver_that_faults_mid_stream_is_restarted_by_its_parent_and_loses_nothing() {
    let _turn = common::serial();
    let system = boot("crash.system");
    let done = system.wait_exit("stream", WAIT);
    let out = output(&system);
    let events = system.events();
    assert!(
        done,
        "the stream client passes only if the restart lost nothing:\n{}",
        show(&out, &events)
    );
    let end = lines(&out, "stream", "stream: done")[0];
    assert_eq!(field(end, "restarts"), 1, "{end}");
    assert!(field(end, "restarted") >= 1, "{end}");
    assert_eq!(
        field(end, "answered") + field(end, "restarted"),
        field(end, "submitted"),
        "{end}"
    );
    assert!(events.contains(&Event::FaultToParent {
        pd: "cpu_crash".into(),
        parent: "power".into()
    }));
    let power = trace(&system, "power_trace");
    assert_eq!(args(&power, Kind::Revoked), [1], "{power:?}");
}

/// The power manager itself dies mid-stream (killed) and is restarted by the runner: it
/// adopts the still-clocked engine with no holder and tells its driver, which acquires
/// it again, so the engine has a holder and is not gated under the stream, which goes
/// on; nothing the manager is asked afterwards is refused.
#[test]
fn a_restarted_power_manager_rebuilds_its_grants_from_its_drivers() {
    let _turn = common::serial();
    let system = boot_streaming("pm-restart.system", 500);
    assert!(system.signal("power", Signal::KILL));
    // The stream goes on through the manager's restart (it ends only after a driver
    // restart, which does not come here: the test stops it).
    let going_on = stream_answered(&system, 2000);
    let out = output(&system);
    let events = system.events();
    assert!(going_on, "{}", show(&out, &events));
    assert!(
        events.contains(&Event::Restarted {
            pd: "power".into(),
            count: 1
        }),
        "{}",
        show(&out, &events)
    );
    let driver = trace(&system, "omap_trace");
    let power = trace(&system, "power_trace");
    // Two power-manager incarnations; the driver acquired again for the second.
    assert_eq!(power.count(Kind::Started), 2, "{power:?}");
    assert!(
        lines(&out, "power", "found clocked with no holder").len() == 1,
        "{}",
        show(&out, &events)
    );
    assert!(driver.count(Kind::PowerAcquire) >= 2, "{driver:?}");
    assert_eq!(power.count(Kind::Refused), 0, "{power:?}");
    // The re-acquired grant is the restarted manager's: of generation 1 again, as the
    // driver did not restart (its own grants name the manager's table, not its life).
    assert!(args(&power, Kind::Granted).contains(&1), "{power:?}");
}
