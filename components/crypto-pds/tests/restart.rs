//! Killing a driver mid-stream: its client gets ServerRestarted for every request in
//! flight (none silently dropped, none answered twice), the power manager revokes the
//! dead driver's grant (its restarted successor holds a new generation), and the
//! restarted driver serves new sessions.

mod common;

use common::{WAIT, boot, field, lines, show};
use host_runner::{Event, Signal};

#[test]
fn a_killed_driver_is_restarted_and_every_request_in_flight_is_accounted_for() {
    let _turn = common::serial();
    let system = boot("restart.system");
    let streaming = system.wait_until(WAIT, |_, out| {
        out.iter()
            .any(|(p, l)| p == "stream" && l.contains("progress answered 1000"))
            .then_some(())
    });
    assert!(streaming.is_some(), "{:?}", system.output("stream"));
    let old = system.pid("omap_aes").expect("driver runs");
    assert!(system.signal("omap_aes", Signal::KILL));

    let done = system.wait_exit("stream", WAIT);
    let out = system
        .wait_until(WAIT, |_, out| Some(out.to_vec()))
        .unwrap();
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

    // The power manager: the fault revoked the grant; the new incarnation's grant is a
    // new generation, so the old one is refused from now on.
    assert_eq!(
        lines(&out, "power", "grants revoked").len(),
        1,
        "{}",
        show(&out, &events)
    );
    assert!(!lines(&out, "power", "granted, generation 1").is_empty());
    assert!(
        !lines(&out, "power", "granted, generation 2").is_empty(),
        "the restarted driver holds a new grant:\n{}",
        show(&out, &events)
    );
    // The restarted driver discarded the queue its predecessor left and served anew.
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
