//! A hostile or careless client: every bad request gets its own typed error, the driver
//! keeps serving, and nothing accepted is lost or answered twice.

mod rig;

use cipher_service::testkit::suite;

use pd_idl::cipher::{self, CipherError, Mode, Path};
use pd_idl::wire::Caller;
use rig::{CLIENT, Rig, hex, request, status};

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

#[test]
fn each_bad_request_gets_its_own_error() {
    let mut rig = Rig::new();
    suite::bad_requests_get_their_own_errors(&mut rig, false);
    // Two good 32-byte requests ran after the bad ones; nothing else reached the engine.
    assert_eq!(rig.cipher_bytes(), 32, "nothing bad reached the engine");
}

#[test]
fn sessions_belong_to_their_client() {
    let mut rig = Rig::new();
    let mine = rig.open(Mode::Ctr, &hex(KEY), &[0; 16]).unwrap();
    let answers = rig.exchange(Caller(7), &[request(1, mine, &[(0, 16)])]);
    assert_eq!(status(&answers[0]), Err(CipherError::UnknownSession));
    assert_eq!(
        rig.service.close(Caller(7), mine),
        Err(CipherError::UnknownSession)
    );
    // A closed session's id is not reused by the next session in the same slot.
    rig.service.close(CLIENT, mine).unwrap();
    let next = rig.open(Mode::Ctr, &hex(KEY), &[0; 16]).unwrap();
    assert_ne!(next, mine);
    let answers = rig.exchange(CLIENT, &[request(2, mine, &[(0, 16)])]);
    assert_eq!(status(&answers[0]), Err(CipherError::UnknownSession));
}

#[test]
fn opens_are_checked() {
    let mut rig = Rig::new();
    for len in [0, 8, 15, 17, 31, 33] {
        let key = vec![1; len];
        assert_eq!(
            rig.open(Mode::Cbc, &key, &[0; 16]),
            Err(CipherError::BadKeySize),
            "{len}"
        );
    }
    assert_eq!(
        rig.open_as(CLIENT, Mode::Cbc, Path::Dma, &hex(KEY), &[0; 16]),
        Err(CipherError::UnsupportedPath),
        "the CPU engine has no DMA path"
    );
    for _ in 0..cipher_service::MAX_SESSIONS {
        rig.open(Mode::Ecb, &hex(KEY), &[0; 16]).unwrap();
    }
    assert_eq!(
        rig.open(Mode::Ecb, &hex(KEY), &[0; 16]),
        Err(CipherError::TooManySessions)
    );
    assert_eq!(
        rig.service.sessions.close_all(CLIENT),
        cipher_service::MAX_SESSIONS
    );
    assert_eq!(rig.service.sessions.open_count(), 0);
}

#[test]
fn a_full_queue_is_answered_in_order_once() {
    let mut rig = Rig::new();
    let s = rig.open(Mode::Ctr, &hex(KEY), &[0; 16]).unwrap();
    let cap = cipher::REQUEST_QUEUE_CAPACITY;
    let first: Vec<_> = (0..cap).map(|i| request(i, s, &[(0, 16)])).collect();
    let answers = rig.exchange(CLIENT, &first);
    assert_eq!(
        answers.len(),
        cap as usize,
        "a full queue is served in one pass"
    );
    let ids: Vec<_> = answers.iter().map(|a| a.id).collect();
    assert_eq!(ids, (0..cap).collect::<Vec<_>>(), "in order, none twice");
    assert!(answers.iter().all(|a| status(a).is_ok()));
}
