//! Published vectors and every split through client -> queue -> digest-service -> SEC1
//! driver -> SEC1 model, on the chained path (the talitos chaining change) and the copy path (before it).

mod common;

use digest_service::testkit::suite;
use pd_idl::digest::{Algorithm, HashPath};

const PATHS: [HashPath; 3] = [HashPath::Auto, HashPath::Chained, HashPath::Copy];
/// What MDEU-A runs (SHA-224 over a context the driver initialises).
const OFFERED: [Algorithm; 4] = [
    Algorithm::Md5,
    Algorithm::Sha1,
    Algorithm::Sha224,
    Algorithm::Sha256,
];

#[test]
fn published_vectors_every_path() {
    sec1!(rig, ledger);
    for path in PATHS {
        suite::published_vectors(&mut rig, path, &OFFERED);
    }
}

#[test]
fn digests_land_at_their_output_place_every_path() {
    sec1!(rig, ledger);
    for path in PATHS {
        suite::output_places(&mut rig, path, &OFFERED);
    }
}

#[test]
fn million_a_chained() {
    sec1!(rig, ledger);
    suite::million_a(&mut rig, HashPath::Chained, &OFFERED);
}

#[test]
fn million_a_copy() {
    sec1!(rig, ledger);
    suite::million_a(&mut rig, HashPath::Copy, &OFFERED);
}

#[test]
fn splits_at_every_byte_chained() {
    sec1!(rig, ledger);
    for alg in OFFERED {
        suite::splits(&mut rig, HashPath::Chained, alg);
    }
}

#[test]
fn splits_at_every_byte_copy() {
    sec1!(rig, ledger);
    for alg in OFFERED {
        suite::splits(&mut rig, HashPath::Copy, alg);
    }
}

#[test]
fn segments_longer_than_a_pointer() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::long_segments(&mut rig, path, &OFFERED);
    }
}

#[test]
fn interleaved_sessions_both_paths() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::interleaved(&mut rig, path, &OFFERED);
    }
}

/// A session's queued updates and final run as one chain on the chained paths (fewer
/// submissions to the channel than one request at a time) and one by one on the copy
/// path (the old strategy, kept as it was); every path gives the reference digests.
#[test]
fn queued_updates_chain_across_requests() {
    use cost_ledger::Event;
    use digest_service::testkit::vectors::pattern;
    sec1!(rig, ledger);
    for path in PATHS {
        let before = ledger.snapshot();
        let sent = suite::queued_updates_match_one_at_a_time(&mut rig, path, &OFFERED) as u64;
        let queued = ledger.snapshot().since(&before);
        assert_eq!(queued.get(Event::Request), sent, "{path:?}: each its own");
        // The same requests one at a time (the suite's cuts, each in two segments).
        let before = ledger.snapshot();
        for alg in OFFERED {
            for cuts in suite::queued_cuts(alg) {
                let msg = pattern(cuts.iter().sum());
                let split: Vec<Vec<usize>> = cuts.iter().map(|&n| vec![n / 2, n - n / 2]).collect();
                let refs: Vec<&[usize]> = split.iter().map(Vec::as_slice).collect();
                rig.hash(alg, path, &msg, &refs).unwrap();
                rig.hash(alg, path, &msg, &[&[msg.len()]]).unwrap();
            }
        }
        let alone = ledger.snapshot().since(&before);
        assert_eq!(alone.get(Event::Request), sent);
        // Each submission to the channel reads its status once when done.
        let (q, a) = (queued.get(Event::RegRead), alone.get(Event::RegRead));
        eprintln!("{path:?}: {sent} requests, submissions queued {q}, one at a time {a}");
        if path == HashPath::Copy {
            assert_eq!(q, a, "{path:?}: one job per request, as before");
        } else {
            assert!(q < a, "{path:?}: chained across requests: {q} vs {a}");
        }
    }
}
