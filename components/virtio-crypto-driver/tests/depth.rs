//! Several requests in flight on the data queue at once, and requests that wait for
//! their device sessions on the control queue: through the Cipher service, on the host
//! model holding chains as QEMU's bottom half does, checked against SP 800-38A.

mod rig;

use cipher_service::{ClientData, MAX_IN_FLIGHT, Service, Session, Sessions};
use cost_ledger::Event;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request, Response};
use pd_idl::wire::Caller;
use rig::{Dev, hex, rig, session};
use virtio_crypto_driver::dma::DATA_SLOTS;

const PLAIN: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51\
                     30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
/// (mode, key, iv, SP 800-38A ciphertext): F.1.1, F.2.1, F.2.5, F.5.1.
const VECTORS: [(Mode, &str, &str, &str); 4] = [
    (
        Mode::Ecb,
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
    ),
    (
        Mode::Cbc,
        "2b7e151628aed2a6abf7158809cf4f3c",
        "000102030405060708090a0b0c0d0e0f",
        "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    ),
    (
        Mode::Cbc,
        "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
        "000102030405060708090a0b0c0d0e0f",
        "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
    ),
    (
        Mode::Ctr,
        "2b7e151628aed2a6abf7158809cf4f3c",
        "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
        "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee",
    ),
];
const CLIENT: Caller = Caller(1);
/// The data queue is queue 0; the control queue follows the one data queue.
const DATAQ: usize = 0;
const CTRLQ: usize = 1;

fn request(id: u32, session: u32, op: CipherOp, offset: u32) -> Request {
    Request::over(id, session, op, &[(offset, 64)])
}

/// Opens one session per vector and starts its request over its own 64 bytes.
fn start_all(
    svc: &mut Service<'static, Dev>,
    data: ClientData<'static>,
    op: CipherOp,
    first_id: u32,
) {
    for (i, (mode, key, iv, _)) in VECTORS.iter().enumerate() {
        let s: Session = session(*mode, &hex(key), &hex(iv));
        let id = svc.open(s.owner, s.open_args()).unwrap();
        let r = request(first_id + i as u32, id, op, 64 * i as u32);
        assert_eq!(
            svc.begin(CLIENT, &r, data),
            None,
            "request {i} is in flight"
        );
    }
}

fn answers(svc: &mut Service<'static, Dev>) -> Vec<Response> {
    let mut all = Vec::new();
    for (to, r) in svc.interrupt().answers() {
        assert_eq!(to, CLIENT);
        all.push(r);
    }
    all.sort_by_key(|r| r.id);
    all
}

fn region_bytes(data: &ClientData<'_>, i: usize) -> Vec<u8> {
    let mut out = vec![0; 64];
    data.region.read_bytes(64 * i, &mut out);
    out
}

#[test]
fn the_data_queue_holds_one_request_per_place_and_one_interrupt_returns_them_all() {
    assert_eq!(DATA_SLOTS, MAX_IN_FLIGHT);
    let (mut svc, data) = service();
    for i in 0..VECTORS.len() {
        data.region.write_bytes(64 * i, &hex(PLAIN));
    }

    // No device sessions yet: every request waits for the control queue, which holds
    // one create at a time and does not answer until the device runs it.
    svc.engine.bus_mut().hold();
    start_all(&mut svc, data, CipherOp::Encrypt, 1);
    assert_eq!((svc.in_flight(), svc.full()), (4, true));
    assert_eq!(svc.engine.bus_mut().waiting(CTRLQ), 1, "one create posted");
    assert_eq!(
        svc.engine.bus_mut().waiting(DATAQ),
        0,
        "no data without sessions"
    );
    assert!(
        answers(&mut svc).is_empty(),
        "nothing answered before the device"
    );
    svc.engine.bus_mut().release();
    let done = answers(&mut svc);
    assert_eq!(done.len(), 4, "the control answers came in, then the data");
    for (i, r) in done.iter().enumerate() {
        assert_eq!((r.id, r.status.check().unwrap()), (1 + i as u32, Ok(())));
        assert_eq!((r.path.get(), r.bytes_done), (Ok(Path::Dma), 64));
        assert_eq!(
            region_bytes(&data, i),
            hex(VECTORS[i].3),
            "vector {i} encrypted"
        );
    }
    assert!(!svc.busy());
    // ECB and CBC need an encrypt/decrypt pair; CTR one. AES-128 CBC and ECB share a key
    // but not a mode: 2 + 2 + 2 + 1.
    assert_eq!(svc.engine.cached_sessions(), 4);
    assert_eq!(svc.engine.bus_mut().sessions.open(), 7);

    // Sessions now exist: the four go on the data queue together, and wait there.
    svc.engine.bus_mut().hold();
    start_all(&mut svc, data, CipherOp::Decrypt, 11);
    assert_eq!(
        svc.engine.bus_mut().waiting(DATAQ),
        4,
        "four chains posted at once"
    );
    assert_eq!(svc.engine.bus_mut().waiting(CTRLQ), 0);
    assert!(answers(&mut svc).is_empty());
    svc.engine.bus_mut().release();
    let done = answers(&mut svc);
    assert_eq!(
        done.iter().map(|r| r.id).collect::<Vec<_>>(),
        [11, 12, 13, 14]
    );
    for (i, r) in done.iter().enumerate() {
        assert_eq!(r.status.check().unwrap(), Ok(()));
        assert_eq!(region_bytes(&data, i), hex(PLAIN), "vector {i} decrypted");
    }
}

#[test]
fn a_failed_create_fails_the_requests_waiting_for_it_alone() {
    let (mut svc, data) = service();
    data.region.write_bytes(0, &hex(PLAIN));
    data.region.write_bytes(64, &hex(PLAIN));
    // The model's backend runs what QEMU's built-in one does; take CTR away from it
    // after start-up, so its create is refused while CBC's succeeds.
    svc.engine.bus_mut().sessions.implemented &=
        !(1 << virtio_crypto_driver::wire::cipher_algo::AES_CTR);
    let (mode, key, iv, want) = VECTORS[1];
    let cbc = open(&mut svc, mode, key, iv);
    let (mode, key, iv, _) = VECTORS[3];
    let ctr = open(&mut svc, mode, key, iv);
    svc.engine.bus_mut().hold();
    assert_eq!(
        svc.begin(CLIENT, &request(1, ctr, CipherOp::Encrypt, 0), data),
        None
    );
    assert_eq!(
        svc.begin(CLIENT, &request(2, cbc, CipherOp::Encrypt, 64), data),
        None
    );
    svc.engine.bus_mut().release();
    let done = answers(&mut svc);
    assert_eq!(done.len(), 2);
    assert_eq!(
        done[0].status.check().unwrap(),
        Err(CipherError::EngineFault)
    );
    assert_eq!(
        region_bytes(&data, 0),
        hex(PLAIN),
        "the refused request wrote nothing"
    );
    assert_eq!(done[1].status.check().unwrap(), Ok(()));
    assert_eq!(region_bytes(&data, 1), hex(want));
}

#[test]
fn a_closed_session_is_destroyed_only_after_its_request_in_flight_returns() {
    let (mut svc, data) = service();
    data.region.write_bytes(0, &hex(PLAIN));
    let (mode, key, iv, want) = VECTORS[1];
    let id = open(&mut svc, mode, key, iv);
    // A device that answers on the notify finishes a request at its start.
    let first = svc.begin(CLIENT, &request(1, id, CipherOp::Encrypt, 0), data);
    assert_eq!(first.map(|r| r.status.check().unwrap()), Some(Ok(())));
    let live = svc.engine.bus_mut().sessions.open();
    assert_eq!(live, 2);
    svc.engine.bus_mut().hold();
    data.region.write_bytes(0, &hex(PLAIN));
    let again = open(&mut svc, mode, key, iv);
    assert_eq!(
        svc.begin(CLIENT, &request(2, again, CipherOp::Encrypt, 0), data),
        None
    );
    svc.close(CLIENT, again).unwrap();
    assert_eq!(
        svc.engine.bus_mut().waiting(CTRLQ),
        0,
        "no destroy under a posted request"
    );
    released_then_answered_and_destroyed(&mut svc, &data, want);
}

/// A session closed while its first request waits for the device sessions being
/// created: the request still runs (accepted work), and then the pair is destroyed, no
/// key left in the device for a session that is gone.
#[test]
fn a_session_closed_while_its_device_sessions_are_created_leaves_no_key() {
    let (mut svc, data) = service();
    data.region.write_bytes(0, &hex(PLAIN));
    let (mode, key, iv, want) = VECTORS[1];
    let id = open(&mut svc, mode, key, iv);
    svc.engine.bus_mut().hold();
    assert_eq!(
        svc.begin(CLIENT, &request(1, id, CipherOp::Encrypt, 0), data),
        None
    );
    assert_eq!(svc.engine.bus_mut().waiting(CTRLQ), 1, "the create is held");
    svc.close(CLIENT, id).unwrap();
    released_then_answered_and_destroyed(&mut svc, &data, want);
}

/// Lets the held device go: the accepted request is answered with the published
/// ciphertext `want`, and then no device session and no cached pair is left.
fn released_then_answered_and_destroyed(
    svc: &mut Service<'static, Dev>,
    data: &ClientData<'_>,
    want: &str,
) {
    let ledger = svc
        .engine
        .bus_mut()
        .ledger()
        .expect("the rig's device counts");
    let cleared = || ledger.get(Event::KeyCleared);
    let before = cleared();
    svc.engine.bus_mut().release();
    let done = answers(svc);
    assert_eq!(
        done[0].status.check().unwrap(),
        Ok(()),
        "accepted work is answered"
    );
    assert_eq!(region_bytes(data, 0), hex(want));
    assert_eq!(
        svc.engine.bus_mut().sessions.open(),
        0,
        "then the pair was destroyed"
    );
    assert_eq!(cleared() - before, 2, "both keys left the device (ledger)");
    assert_eq!(
        ledger.get(Event::KeyLoaded),
        ledger.get(Event::KeyCleared),
        "every key that entered the device left it"
    );
    assert_eq!(svc.engine.cached_sessions(), 0);
}

/// The same close, but the waiting request is then cancelled (the watchdog's `expire`)
/// before the device answers the create: the orphan pair is destroyed once created,
/// with no later request needed to sweep it.
#[test]
fn an_orphan_whose_request_was_cancelled_is_destroyed_once_created() {
    let (mut svc, data) = service();
    let (mode, key, iv, _) = VECTORS[1];
    let id = open(&mut svc, mode, key, iv);
    svc.engine.bus_mut().hold();
    assert_eq!(
        svc.begin(CLIENT, &request(1, id, CipherOp::Encrypt, 0), data),
        None
    );
    svc.close(CLIENT, id).unwrap();
    assert_eq!(svc.expire().count(), 1, "the request is cancelled");
    svc.engine.bus_mut().release();
    // The create's answer comes back with the next interrupt.
    assert!(answers(&mut svc).is_empty());
    assert_eq!(svc.engine.bus_mut().sessions.open(), 0, "nothing left");
    assert_eq!(svc.engine.cached_sessions(), 0);
}

/// The Cipher service over a fresh rig's device, and its client's data region.
fn service() -> (Service<'static, Dev>, ClientData<'static>) {
    let (dev, data) = rig().into_parts();
    (Service::new(dev, Sessions::default()), data)
}

/// Opens a session of `mode` under the published `key` and `iv` (hex).
fn open(svc: &mut Service<'static, Dev>, mode: Mode, key: &str, iv: &str) -> u32 {
    let s = session(mode, &hex(key), &hex(iv));
    svc.open(s.owner, s.open_args()).unwrap()
}
