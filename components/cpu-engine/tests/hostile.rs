//! A hostile or careless client: every bad request gets its own typed error, the driver
//! keeps serving, and nothing accepted is lost or answered twice.

mod rig;

use pd_idl::cipher::{self, CipherError, CipherOp, Mode, Path, Request, Segment};
use pd_idl::wire::Caller;
use rig::{CLIENT, DATA, Rig, hex};
use zerocopy::FromZeros;

const KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";

fn request(id: u32, session: u32, segs: &[(u32, u32)]) -> Request {
    let mut r = Request::new_zeroed();
    r.id = id;
    r.session = session;
    r.op = CipherOp::Encrypt.into();
    r.nsegs = segs.len() as u8;
    for (i, &(offset, len)) in segs.iter().enumerate() {
        r.segs[i] = Segment { offset, len };
    }
    r
}

fn status(r: &cipher::Response) -> Result<(), CipherError> {
    r.status.check().expect("a status the interface defines")
}

#[test]
fn each_bad_request_gets_its_own_error() {
    let mut rig = Rig::new();
    let s = rig.open(Mode::Cbc, &hex(KEY), &[0; 16]).unwrap();
    let mut bad_op = request(5, s, &[(0, 16)]);
    bad_op.op.0 = 9;
    let mut too_many = request(6, s, &[(0, 16)]);
    too_many.nsegs = 9;
    let cases = [
        (request(1, s ^ 0x7, &[(0, 16)]), CipherError::UnknownSession),
        (request(2, s, &[(0, 17)]), CipherError::BadLength),
        (
            request(3, s, &[(DATA as u32 - 8, 16)]),
            CipherError::SegmentOutOfRange,
        ),
        (
            request(4, s, &[(u32::MAX - 3, 16)]),
            CipherError::SegmentOutOfRange,
        ),
        (bad_op, CipherError::BadRequest),
        (too_many, CipherError::TooManySegments),
        (
            request(7, s, &[(0, u32::MAX), (0, 2)]),
            CipherError::SegmentOutOfRange,
        ),
    ];
    let requests: Vec<_> = cases.iter().map(|(r, _)| *r).collect();
    let answers = rig.exchange(CLIENT, &requests);
    assert_eq!(answers.len(), cases.len());
    for ((req, want), got) in cases.iter().zip(&answers) {
        assert_eq!(got.id, req.id);
        assert_eq!(status(got), Err(*want), "request {}", req.id);
        assert_eq!(got.bytes_done, 0);
    }
    assert_eq!(rig.cipher_bytes(), 0, "nothing bad reached the engine");
    // ...and the session still works.
    assert!(rig.crypt(s, CipherOp::Encrypt, &[0; 32], &[32]).is_ok());
}

#[test]
fn sessions_belong_to_their_client() {
    let mut rig = Rig::new();
    let mine = rig.open(Mode::Ctr, &hex(KEY), &[0; 16]).unwrap();
    let answers = rig.exchange(Caller(7), &[request(1, mine, &[(0, 16)])]);
    assert_eq!(status(&answers[0]), Err(CipherError::UnknownSession));
    assert_eq!(
        rig.sessions.close(Caller(7), mine),
        Err(CipherError::UnknownSession)
    );
    // A closed session's id is not reused by the next session in the same slot.
    rig.sessions.close(CLIENT, mine).unwrap();
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
    assert_eq!(rig.sessions.close_all(CLIENT), cipher_service::MAX_SESSIONS);
    assert_eq!(rig.sessions.open_count(), 0);
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
