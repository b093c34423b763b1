//! Several clients on one driver: two clients with interleaved sessions both get the
//! published answers; a hostile client gets a typed error for every bad request, cannot
//! reach the other client's data or sessions, cannot crash the driver, cannot starve the
//! other client, and is cut off when it corrupts its queue indices.

mod common;

use common::{WAIT, boot, field, lines, show, trace, wait_trace};
use host_runner::Event;
use pd_trace::Kind;

fn faults(events: &[Event], pd: &str) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Faulted { pd: p, .. } if p == pd))
        .count()
}

#[test]
fn two_clients_with_interleaved_sessions_both_get_the_published_answers() {
    let _turn = common::serial();
    let system = boot("two-clients.system");
    let both = system.wait_exit("kat0", WAIT) && system.wait_exit("kat1", WAIT);
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
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
    let system = boot("hostile.system");
    let done = system.wait_exit("kat", WAIT) && system.wait_exit("hostile", WAIT);
    // The cut-off happens when the driver next serves the hostile client's channel.
    let (cut, t) = wait_trace(&system, "omap_trace", WAIT, |t| t.count(Kind::CutOff) > 0);
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
    let events = system.events();
    assert!(done && cut, "{t:?}\n{}", show(&out, &events));

    // Every bad request got its typed error (the hostile client checks each and exits
    // 0 only if all were as expected).
    for what in [
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
    ] {
        assert_eq!(lines(&out, "hostile", what).len(), 1, "{what}");
    }
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
    assert!(
        lines(&out, "hostile", "FAIL").is_empty(),
        "{}",
        show(&out, &events)
    );
    assert!(!lines(&out, "hostile", "flood done: 20").is_empty());
    assert!(!lines(&out, "hostile", "stray 0").is_empty());

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
    // The driver never faulted; it refused every bad request with its error, cut the
    // hostile client off once and closed its sessions then.
    assert_eq!(faults(&events, "omap_aes"), 0);
    let t = trace(&system, "omap_trace");
    assert_eq!(t.count(Kind::CutOff), 1, "{t:?}");
    // Refused on the queue (the bad keys were refused by the open_session call): its
    // seven bad requests and 30 guessed session ids.
    assert!(t.count(Kind::Refused) >= 7 + 30, "{t:?}");
    // The hostile client never closes its sessions; the cut-off did: none is left open.
    assert_eq!(
        t.count(Kind::SessionClosed),
        t.count(Kind::SessionOpened),
        "{t:?}"
    );
}

#[test]
fn a_hostile_digest_client_is_refused_and_cut_off_while_the_good_one_gets_its_digests() {
    let _turn = common::serial();
    let system = boot("hostile-digest.system");
    let done = system.wait_exit("kat", WAIT) && system.wait_exit("hostile", WAIT);
    let (cut, t) = wait_trace(&system, "sec1_trace", WAIT, |t| t.count(Kind::CutOff) > 0);
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
    let events = system.events();
    assert!(done && cut, "{t:?}\n{}", show(&out, &events));
    for what in [
        "algorithm 42: refused with BadValue",
        "unknown session: refused with UnknownSession",
        "a session of another incarnation: refused with ServerRestarted",
        "segment past the end of its region: refused with SegmentOutOfRange",
        "segment whose end overflows: refused with SegmentOutOfRange",
        "seven segments: refused with TooManySegments",
        "unknown op: refused with BadRequest",
        "a final: answered Ok",
        "an update after the final (a new message): answered Ok",
    ] {
        assert_eq!(lines(&out, "hostile", what).len(), 1, "{what}");
    }
    assert!(
        lines(&out, "hostile", "FAIL").is_empty(),
        "{}",
        show(&out, &events)
    );
    assert!(!lines(&out, "hostile", "stray 0").is_empty());
    // The good client got every published digest; the driver never faulted and closed
    // the hostile client's two sessions when it cut it off.
    assert_eq!(lines(&out, "kat", "all 45 digests passed").len(), 1);
    assert_eq!(faults(&events, "sec1"), 0);
    let t = trace(&system, "sec1_trace");
    assert_eq!(t.count(Kind::CutOff), 1, "{t:?}");
    // Its five bad requests on the queue (algorithm 42 was refused by the call; an
    // update after a final starts a new message).
    assert!(t.count(Kind::Refused) >= 5, "{t:?}");
    // The hostile client never closes its sessions; the cut-off did: none is left open.
    assert_eq!(
        t.count(Kind::SessionClosed),
        t.count(Kind::SessionOpened),
        "{t:?}"
    );
}

/// A client that dies holding sessions does not leak the engine: when it comes back (a
/// new incarnation announced in its queue pair), the driver closes the dead one's
/// sessions, and the power grant they held goes back to the power manager.
#[test]
fn a_client_that_dies_holding_sessions_leaks_neither_sessions_nor_power() {
    let _turn = common::serial();
    let system = boot("come-back.system");
    let done = system.wait_exit("client", WAIT);
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
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
