//! Several clients on one driver: two clients with interleaved sessions both get the
//! published answers; a hostile client gets a typed error for every bad request, cannot
//! reach the other client's data or sessions, cannot crash the driver, cannot starve the
//! other client, and is cut off when it corrupts its queue indices.

mod common;

use common::{WAIT, boot, field, lines, output, show, trace, wait_trace};
use host_runner::{Event, System};
use pd_trace::Kind;

type Output = Vec<(String, String)>;

fn faults(events: &[Event], pd: &str) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Faulted { pd: p, .. } if p == pd))
        .count()
}

/// Boots `name` (a good `kat` client and a `hostile` one on one driver tracing in
/// `region`) and waits until both clients exit and the driver has cut the hostile one
/// off, which happens when it next serves the hostile client's channel.
fn run_hostile(name: &str, region: &str) -> (System, Output, Vec<Event>) {
    let system = boot(name);
    let done = system.wait_exit("kat", WAIT) && system.wait_exit("hostile", WAIT);
    let (cut, t) = wait_trace(&system, region, WAIT, |t| t.count(Kind::CutOff) > 0);
    let out = output(&system);
    let events = system.events();
    assert!(done && cut, "{t:?}\n{}", show(&out, &events));
    (system, out, events)
}

/// Every bad request the hostile client made got its typed error (it checks each and
/// exits 0 only if all were as expected), and nothing came back it did not ask for.
fn hostile_saw(out: &Output, events: &[Event], refusals: &[&str]) {
    for what in refusals {
        assert_eq!(lines(out, "hostile", what).len(), 1, "{what}");
    }
    assert!(
        lines(out, "hostile", "FAIL").is_empty(),
        "{}",
        show(out, events)
    );
    assert!(!lines(out, "hostile", "stray 0").is_empty());
}

/// The driver `pd` never faulted, cut the hostile client off once, refused at least
/// `refused` of its queued requests, and closed every session it left open (the
/// hostile client never closes its own).
fn contained(system: &System, events: &[Event], pd: &str, region: &str, refused: u32) {
    assert_eq!(faults(events, pd), 0);
    let t = trace(system, region);
    assert_eq!(t.count(Kind::CutOff), 1, "{t:?}");
    assert!(t.count(Kind::Refused) >= refused, "{t:?}");
    assert_eq!(
        t.count(Kind::SessionClosed),
        t.count(Kind::SessionOpened),
        "{t:?}"
    );
}

#[test]
fn two_clients_with_interleaved_sessions_both_get_the_published_answers() {
    let _turn = common::serial();
    let system = boot("two-clients.system");
    let both = system.wait_exit("kat0", WAIT) && system.wait_exit("kat1", WAIT);
    let out = output(&system);
    assert!(both, "{}", show(&out, &system.events()));
    for kat in ["kat0", "kat1"] {
        assert_eq!(lines(&out, kat, "all 72 vectors passed").len(), 1, "{kat}");
        assert!(lines(&out, kat, "FAIL").is_empty());
    }
    // The driver had sessions of both clients open at the same time (its peak went to
    // 1, then 2): requests of the two interleaved on the one engine, its context saved
    // and restored for each. Every request was served, none refused.
    let t = trace(&system, "omap_trace");
    assert_eq!(t.count(Kind::ClientsAtOnce), 2, "{t:?}");
    assert_eq!(t.count(Kind::Refused), 0, "{t:?}");
    assert_eq!(t.count(Kind::CutOff), 0);
    assert!(
        t.count(Kind::DonePio) + t.count(Kind::DoneDma) >= 2 * 72,
        "{t:?}"
    );
}

#[test]
fn a_hostile_client_is_refused_contained_and_cut_off() {
    let _turn = common::serial();
    let (system, out, events) = run_hostile("hostile.system", "omap_trace");
    hostile_saw(
        &out,
        &events,
        &[
            "key of 0 bytes: refused with BadKeySize",
            "key of 17 bytes: refused with BadKeySize",
            "unknown session: refused with UnknownSession",
            "a session of another incarnation: refused with ServerRestarted",
            "CBC length not a multiple of 16: refused with BadLength",
            "segment past the end of its region: refused with SegmentOutOfRange",
            "segment whose end overflows: refused with SegmentOutOfRange",
            "segment aimed at the other client's data: refused with SegmentOutOfRange",
            "seven segments: refused with TooManySegments",
            "unknown op: refused with BadRequest",
        ],
    );
    // It could hoard no more than its share of the session table (16 between two
    // clients), so the good client always had room to open its own.
    let hoard = lines(&out, "hostile", "hoarding: held");
    assert_eq!(hoard.len(), 1, "{out:?}");
    assert!(field(hoard[0], "held") <= 8, "{}", hoard[0]);
    // 32 guesses (the first two generations of every slot) less its own sessions.
    let guesses = lines(&out, "hostile", "a session id that is not ours");
    assert!(guesses.len() >= 30, "{guesses:?}");
    assert!(
        guesses
            .iter()
            .all(|l| l.ends_with("refused with UnknownSession as expected"))
    );
    assert!(!lines(&out, "hostile", "flood done: 20").is_empty());

    // The good client got every published answer, and finished while the flood ran.
    assert_eq!(lines(&out, "kat", "all 72 vectors passed").len(), 1);
    let pos = |pd: &str, needle: &str| {
        out.iter()
            .position(|(p, l)| p == pd && l.contains(needle))
            .unwrap_or_else(|| panic!("{pd}: {needle}"))
    };
    assert!(
        pos("kat", "all 72 vectors passed") < pos("hostile", "flood done"),
        "the flood starved the good client:\n{}",
        show(&out, &events)
    );
    // Refused on the queue (the bad keys were refused by the open_session call): its
    // seven bad requests and 30 guessed session ids.
    contained(&system, &events, "omap_aes", "omap_trace", 7 + 30);
}

#[test]
fn a_hostile_digest_client_is_refused_and_cut_off_while_the_good_one_gets_its_digests() {
    let _turn = common::serial();
    let (system, out, events) = run_hostile("hostile-digest.system", "sec1_trace");
    hostile_saw(
        &out,
        &events,
        &[
            "algorithm 42: refused with BadValue",
            "unknown session: refused with UnknownSession",
            "a session of another incarnation: refused with ServerRestarted",
            "segment past the end of its region: refused with SegmentOutOfRange",
            "segment whose end overflows: refused with SegmentOutOfRange",
            "seven segments: refused with TooManySegments",
            "unknown op: refused with BadRequest",
            "a final: answered Ok",
            "an update after the final (a new message): answered Ok",
            "a final's output place too short: refused with BadOutput",
            "a final's output over its data: refused with BadOutput",
            "a final's output past the region: refused with SegmentOutOfRange",
            "a final with no output place: refused with BadOutput",
        ],
    );
    assert_eq!(lines(&out, "kat", "all 57 digests passed").len(), 1);
    // Its nine bad requests on the queue (algorithm 42 was refused by the call; an
    // update after a final starts a new message).
    contained(&system, &events, "sec1", "sec1_trace", 9);
}

/// A client that dies holding sessions does not leak the engine: when it comes back (a
/// new incarnation announced in its queue pair), the driver closes the dead one's
/// sessions, and the power grant they held goes back to the power manager.
#[test]
fn a_client_that_dies_holding_sessions_leaks_neither_sessions_nor_power() {
    let _turn = common::serial();
    let system = boot("come-back.system");
    let done = system.wait_exit("client", WAIT);
    let out = output(&system);
    let events = system.events();
    assert!(done, "{}", show(&out, &events));
    assert!(events.contains(&Event::Restarted {
        pd: "client".into(),
        count: 1
    }));
    let driver = trace(&system, "omap_trace");
    assert_eq!(driver.count(Kind::ClientBack), 1, "{driver:?}");
    // Two sessions of the dead incarnation, one of the new: all closed, two of them
    // by the driver when the client came back.
    assert_eq!(driver.count(Kind::SessionOpened), 3, "{driver:?}");
    assert_eq!(driver.count(Kind::SessionClosed), 3, "{driver:?}");
    assert_eq!(
        driver.count(Kind::PowerAcquire),
        driver.count(Kind::PowerRelease),
        "{driver:?}"
    );
    let power = trace(&system, "power_trace");
    assert_eq!(
        power.count(Kind::Granted),
        power.count(Kind::TakenBack),
        "nothing left clocked for a dead client: {power:?}"
    );
}
