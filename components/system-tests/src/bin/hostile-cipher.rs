//! A hostile Cipher client: every kind of bad input a client can send, then a flood,
//! then corrupted queue indices. It checks that each bad request gets its typed error
//! (and prints it), that every flooded request is answered exactly once, and finally
//! breaks its request queue so the driver cuts it off. What it cannot do by
//! construction: name another client's data (segments are offsets into its own region,
//! and it maps no other) or use another client's session (sessions answer their owner).
use kat_vectors::{K128, hex};
use pd_idl::cipher::{
    self, CipherError, CipherOp, CipherOpRaw, Mode, Path, REQUEST_QUEUE_CAPACITY, Request, Response,
};
use pd_idl::wire::CallError;
use pd_runtime::debug_println;
use pd_runtime::ipc::PpcTransport;
use system_tests::client::{DRIVER, Data, link};
use system_tests::hostile::{Check, Hostile};

/// Requests answered in the flood before the client stops: long enough for the other
/// client to finish its whole run meanwhile, if the driver is fair.
const FLOOD: u64 = 20_000;

fn flood(id: u32, session: u32) -> Request {
    Request::over(id, session, CipherOp::Encrypt, &[(0, 64)])
}

fn status(r: &Response) -> Option<Result<(), CipherError>> {
    r.status.check().ok()
}

fn init() -> Hostile<Request, Response, CipherError> {
    let data = Data::map();
    data.write(0, &[0x5a; 64]);
    let mut calls = cipher::Client::new(PpcTransport(DRIVER));
    let mut key = [0; 32];
    hex(K128, &mut key);
    let mut failed = 0;
    for bad in [0u8, 17, 33] {
        match calls.open_session(Mode::Cbc, Path::Adaptive, bad, key, [0; 16]) {
            Err(CallError::Server(CipherError::BadKeySize)) => {
                debug_println!("hostile: key of {bad} bytes: refused with BadKeySize as expected")
            }
            other => {
                failed += 1;
                debug_println!("hostile: FAIL key of {bad} bytes: {other:?}");
            }
        }
    }
    // Hoarding: as many sessions as the driver gives, to lock the other client out. It
    // gives each client its share of the table, then TooManySessions.
    let mut hoard = [0u32; 16];
    let mut held = 0;
    while held < hoard.len() {
        match calls.open_session(Mode::Ecb, Path::Adaptive, 16, key, [0; 16]) {
            Ok(s) => {
                hoard[held] = s;
                held += 1;
            }
            Err(CallError::Server(CipherError::TooManySessions)) => break,
            Err(e) => panic!("hoarding: {e:?}"),
        }
    }
    debug_println!("hostile: hoarding: held {held} sessions, then TooManySessions");
    for &s in &hoard[..held] {
        let _ = calls.close_session(s);
    }
    let ecb = calls
        .open_session(Mode::Ecb, Path::Adaptive, 16, key, [0; 16])
        .expect("a valid ECB session");
    let cbc = calls
        .open_session(Mode::Cbc, Path::Adaptive, 16, key, [0; 16])
        .expect("a valid CBC session");
    let mut h = Hostile::new(
        link(REQUEST_QUEUE_CAPACITY),
        failed,
        FLOOD,
        ecb,
        flood,
        status,
    );
    let size = data.0.size as u32;
    let check = |name, e| Check { name, want: Err(e) };
    // Its own session's slot, 4096 closes on: of this incarnation, naming nothing.
    h.send(
        Request::over(1, ecb + (1 << 16), CipherOp::Encrypt, &[(0, 16)]),
        check("unknown session", CipherError::UnknownSession),
    );
    h.send(
        Request::over(2, cbc, CipherOp::Encrypt, &[(0, 17)]),
        check("CBC length not a multiple of 16", CipherError::BadLength),
    );
    h.send(
        Request::over(3, ecb, CipherOp::Encrypt, &[(size - 8, 16)]),
        check(
            "segment past the end of its region",
            CipherError::SegmentOutOfRange,
        ),
    );
    h.send(
        Request::over(4, ecb, CipherOp::Encrypt, &[(u32::MAX - 3, 16)]),
        check(
            "segment whose end overflows",
            CipherError::SegmentOutOfRange,
        ),
    );
    h.send(
        // Where the other client's data lies relative to ours (data1 - 0x10000).
        Request::over(
            5,
            ecb,
            CipherOp::Encrypt,
            &[(0u32.wrapping_sub(0x1_0000), 64)],
        ),
        check(
            "segment aimed at the other client's data",
            CipherError::SegmentOutOfRange,
        ),
    );
    // Built as any client builds one: the list is not cut to the six the descriptor holds.
    let seven: [(u32, u32); 7] = core::array::from_fn(|i| (16 * i as u32, 16));
    h.send(
        Request::over(6, ecb, CipherOp::Encrypt, &seven),
        check("seven segments", CipherError::TooManySegments),
    );
    let mut bad_op = Request::over(7, ecb, CipherOp::Encrypt, &[(0, 16)]);
    bad_op.op = CipherOpRaw(9);
    h.send(bad_op, check("unknown op", CipherError::BadRequest));
    // An id of another incarnation (its high bits): a session that died with a restart.
    h.send(
        Request::over(8, ecb ^ 0x4000_0000, CipherOp::Encrypt, &[(0, 16)]),
        check(
            "a session of another incarnation",
            CipherError::ServerRestarted,
        ),
    );
    // Session ids are `generation << 4 | slot` (16 slots), a generation the driver's
    // incarnation above 16 bits counting the slot's closes: guess every slot of the first
    // two generations of this incarnation (read off our own id), which is where the other
    // client's live sessions are.
    let incarnation = (ecb >> 4) & !0xFFFF;
    let mut sent = 8;
    for guess in (0..2u32).flat_map(|g| (0..16u32).map(move |slot| (incarnation | g) << 4 | slot)) {
        if guess == ecb || guess == cbc {
            continue;
        }
        sent += 1;
        h.send(
            Request::over(sent as u32, guess, CipherOp::Encrypt, &[(0, 16)]),
            check("a session id that is not ours", CipherError::UnknownSession),
        );
    }
    h.start();
    h
}

pd_runtime::protection_domain!(init);
