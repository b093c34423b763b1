//! Published vectors and every split through client -> queue -> digest-service -> SEC1
//! driver -> SEC1 model, on the chained path (the talitos chaining change) and the copy path (before it).

mod common;

use digest_service::testkit::suite;
use pd_idl::digest::HashPath;

const PATHS: [HashPath; 3] = [HashPath::Auto, HashPath::Chained, HashPath::Copy];

#[test]
fn published_vectors_every_path() {
    sec1!(rig, ledger);
    for path in PATHS {
        suite::published_vectors(&mut rig, path);
    }
}

#[test]
fn million_a_chained() {
    sec1!(rig, ledger);
    suite::million_a(&mut rig, HashPath::Chained);
}

#[test]
fn million_a_copy() {
    sec1!(rig, ledger);
    suite::million_a(&mut rig, HashPath::Copy);
}

#[test]
fn splits_at_every_byte_chained() {
    sec1!(rig, ledger);
    for alg in suite::ALGORITHMS {
        suite::splits(&mut rig, HashPath::Chained, alg);
    }
}

#[test]
fn splits_at_every_byte_copy() {
    sec1!(rig, ledger);
    for alg in suite::ALGORITHMS {
        suite::splits(&mut rig, HashPath::Copy, alg);
    }
}

#[test]
fn segments_longer_than_a_pointer() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::long_segments(&mut rig, path);
    }
}

#[test]
fn interleaved_sessions_both_paths() {
    sec1!(rig, ledger);
    for path in [HashPath::Chained, HashPath::Copy] {
        suite::interleaved(&mut rig, path);
    }
}
