//! A hostile Digest client: every kind of bad request a client can send to a hash
//! driver, then a flood of updates, then corrupted queue indices. It checks that each
//! bad request gets its typed error (and prints it), that every flooded request is
//! answered exactly once, and finally breaks its request queue so the driver cuts it
//! off. Exits 0 only if every answer was as expected.
use pd_idl::digest::{
    self, Algorithm, DigestError, DigestOp, DigestOpRaw, HashPath, REQUEST_QUEUE_CAPACITY, Request,
    Response,
};
use pd_idl::wire::{self, Message, PROTOCOL_BASE, ProtocolError};
use pd_runtime::debug_println;
use pd_runtime::ipc::PpcTransport;
use system_tests::client::{DRIVER, Data, link};
use system_tests::hostile::{Check, Hostile};

/// Requests answered in the flood before the client stops.
const FLOOD: u64 = 5_000;

fn flood(id: u32, session: u32) -> Request {
    Request::over(id, session, DigestOp::Update, &[(0, 64)])
}

fn status(r: &Response) -> Option<Result<(), DigestError>> {
    r.status.check().ok()
}

fn init() -> Hostile<Request, Response, DigestError> {
    let data = Data::map();
    data.write(0, &[0x5a; 64]);
    let mut failed = 0;
    // An algorithm the interface does not have, sent raw: the generated dispatch refuses
    // it before the driver sees it.
    let mut raw = Message::empty(digest::OP_OPEN_SESSION);
    raw.words = 1;
    raw.mrs[0] = 0x2a;
    match wire::Transport::call(&mut PpcTransport(DRIVER), &raw) {
        Ok(reply) if reply.label == PROTOCOL_BASE + ProtocolError::BadValue as u64 => {
            debug_println!("hostile: algorithm 42: refused with BadValue as expected")
        }
        other => {
            failed += 1;
            debug_println!("hostile: FAIL algorithm 42: {other:?}");
        }
    }
    let mut calls = digest::Client::new(PpcTransport(DRIVER));
    let session = calls
        .open_session(Algorithm::Sha256, HashPath::Auto)
        .expect("a valid SHA-256 session");
    let finished = calls
        .open_session(Algorithm::Md5, HashPath::Auto)
        .expect("a valid MD5 session");
    let mut h = Hostile::new(
        link(REQUEST_QUEUE_CAPACITY),
        failed,
        FLOOD,
        session,
        flood,
        status,
    );
    let size = data.0.size as u32;
    let check = |name, want| Check { name, want };
    // Its own session's slot, 4096 closes on: of this incarnation, naming nothing;
    // then an id of another incarnation, a session that died with a restart.
    h.send(
        Request::over(1, session + (1 << 16), DigestOp::Update, &[(0, 16)]),
        check("unknown session", Err(DigestError::UnknownSession)),
    );
    h.send(
        Request::over(2, session, DigestOp::Update, &[(size - 8, 16)]),
        check(
            "segment past the end of its region",
            Err(DigestError::SegmentOutOfRange),
        ),
    );
    h.send(
        Request::over(3, session, DigestOp::Update, &[(u32::MAX - 3, 16)]),
        check(
            "segment whose end overflows",
            Err(DigestError::SegmentOutOfRange),
        ),
    );
    // Built as any client builds one: the list is not cut to the six the descriptor holds.
    let seven: [(u32, u32); 7] = core::array::from_fn(|i| (16 * i as u32, 16));
    h.send(
        Request::over(4, session, DigestOp::Update, &seven),
        check("seven segments", Err(DigestError::TooManySegments)),
    );
    let mut bad_op = Request::over(5, session, DigestOp::Update, &[(0, 16)]);
    bad_op.op = DigestOpRaw(9);
    h.send(bad_op, check("unknown op", Err(DigestError::BadRequest)));
    h.send(
        Request::over(6, finished, DigestOp::Final, &[(0, 3), (64, 32)]),
        check("a final", Ok(())),
    );
    h.send(
        Request::over(7, finished, DigestOp::Update, &[(0, 16)]),
        check("an update after the final (a new message)", Ok(())),
    );
    h.send(
        Request::over(8, session ^ 0x4000_0000, DigestOp::Update, &[(0, 16)]),
        check(
            "a session of another incarnation",
            Err(DigestError::ServerRestarted),
        ),
    );
    // A final's output place (its last segment), on the SHA-256 session: a byte short of
    // its digest, over its own data, past the region, missing.
    h.send(
        Request::over(9, session, DigestOp::Final, &[(0, 3), (64, 31)]),
        check(
            "a final's output place too short",
            Err(DigestError::BadOutput),
        ),
    );
    h.send(
        Request::over(10, session, DigestOp::Final, &[(0, 64), (32, 32)]),
        check(
            "a final's output over its data",
            Err(DigestError::BadOutput),
        ),
    );
    h.send(
        Request::over(11, session, DigestOp::Final, &[(0, 3), (size - 16, 32)]),
        check(
            "a final's output past the region",
            Err(DigestError::SegmentOutOfRange),
        ),
    );
    h.send(
        Request::over(12, session, DigestOp::Final, &[]),
        check("a final with no output place", Err(DigestError::BadOutput)),
    );
    h.start();
    h
}

pd_runtime::protection_domain!(init);
