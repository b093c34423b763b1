//! The conformance suite: what every Mac engine must do, through the whole client ->
//! queue -> service -> engine path, against RFC 2202's and RFC 4231's examples. Each
//! engine's tests call these with a rig over that engine.

use std::vec;
use std::vec::Vec;

use kat_vectors::{Bytes, HMAC, MacVector};
use pd_idl::mac::{MacAlgorithm, MacError, MacOp, Request};
use pd_idl::wire::{CallError, Caller, Message, ServerDied, Transport};
use queued_service::testkit::{fill, lay};
use queued_service::{Calls, Interface};

use super::{CANARY, CLIENT, FIRST, KEY_AT, Rig};
use crate::{MAX_KEY, MAX_SEGMENTS, MIN_TAG, Mac, MacEngine, Open, block_len, tag_len};

/// Every algorithm of the interface.
pub const ALGORITHMS: [MacAlgorithm; 6] = MacAlgorithm::ALL;

/// A vector's bytes.
pub fn bytes(b: &Bytes) -> Vec<u8> {
    let mut out = vec![0; b.len()];
    b.write(&mut out);
    out
}

/// A vector's tag.
pub fn tag(v: &MacVector) -> Vec<u8> {
    let mut out = vec![0; v.tag.len() / 2];
    kat_vectors::hex(v.tag, &mut out);
    out
}

fn vectors(algs: &[MacAlgorithm]) -> impl Iterator<Item = &'static MacVector> + '_ {
    HMAC.iter().filter(move |v| algs.contains(&v.algorithm))
}

/// Every published example of `algs`, each as one final (its tag begins with the
/// published one: case 5's is truncated) and as one verify of the published tag (case
/// 5's truncated: a verify takes it). Returns how many examples ran.
pub fn published_vectors<E: MacEngine>(rig: &mut Rig<E>, algs: &[MacAlgorithm]) -> usize {
    let mut ran = 0;
    for v in vectors(algs) {
        let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
        let got = rig.mac(v.algorithm, &key, &msg, &[&[msg.len()]]).unwrap();
        assert_eq!(
            got.len(),
            tag_len(v.algorithm),
            "{} {:?}",
            v.source,
            v.algorithm
        );
        assert_eq!(got[..want.len()], want, "{} {:?}", v.source, v.algorithm);
        let verified = rig.verify(v.algorithm, &key, &msg, &[&[msg.len()]], &want);
        assert_eq!(verified, Ok(()), "{} {:?} verify", v.source, v.algorithm);
        ran += 1;
    }
    ran
}

/// The example of `alg` with the longest message (RFC 4231's case 7, RFC 2202's for
/// MD5 and SHA-1), fed at every split: an update and the final, two segments of one
/// final, updates of every size up to past a block, and the most segments a request
/// has; each time the published tag, and each time a verify of it succeeds.
pub fn splits<E: MacEngine>(rig: &mut Rig<E>, alg: MacAlgorithm) {
    let v = vectors(&[alg]).max_by_key(|v| v.data.len()).unwrap();
    let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
    let n = msg.len();
    for k in 0..=n {
        let got = rig.mac(alg, &key, &msg, &[&[k], &[n - k]]).unwrap();
        assert_eq!(got, want, "{alg:?} update {k} + final");
        let got = rig.mac(alg, &key, &msg, &[&[k, n - k]]).unwrap();
        assert_eq!(got, want, "{alg:?} segments {k} + rest");
        assert_eq!(
            rig.verify(alg, &key, &msg, &[&[k], &[n - k]], &want),
            Ok(())
        );
    }
    for chunk in 1..=block_len(alg) + 1 {
        let mut reqs: Vec<Vec<usize>> = msg.chunks(chunk).map(|c| vec![c.len()]).collect();
        reqs.push(Vec::new());
        let refs: Vec<&[usize]> = reqs.iter().map(Vec::as_slice).collect();
        let got = rig.mac(alg, &key, &msg, &refs).unwrap();
        assert_eq!(got, want, "{alg:?} updates of {chunk}");
    }
    let most = [1, 2, 0, 60, 7, n - 70];
    assert_eq!(most.len(), MAX_SEGMENTS);
    let got = rig.mac(alg, &key, &msg, &[&most[..3], &most[3..]]).unwrap();
    assert_eq!(got, want, "{alg:?} the most segments");
    // A verify's tag takes a segment: its data one fewer.
    let ok = rig.verify(
        alg,
        &key,
        &msg,
        &[&most[..3], &most[3..5], &[n - 70]],
        &want,
    );
    assert_eq!(ok, Ok(()), "{alg:?} verify after the most segments");
}

/// A verify of a wrong tag (each byte of the published one changed in turn, a tag of
/// zeros, one shortened to [`MIN_TAG`] but wrong) is `MacMismatch`, writing and
/// answering no tag byte (the rig checks the region is untouched) and no byte count;
/// the session then starts the next message, matched or not: the right tag verifies on
/// it, and a second message's tag is the first's again.
pub fn wrong_tags<E: MacEngine>(rig: &mut Rig<E>, alg: MacAlgorithm) {
    let v = vectors(&[alg])
        .find(|v| tag(v).len() == tag_len(alg))
        .unwrap();
    let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
    let mut wrong: Vec<Vec<u8>> = (0..want.len())
        .map(|i| {
            let mut t = want.clone();
            t[i] ^= 0x01 << (i % 8);
            t
        })
        .collect();
    wrong.push(vec![0; want.len()]);
    let mut short = want[..MIN_TAG].to_vec();
    short[MIN_TAG - 1] ^= 0x80;
    wrong.push(short);
    for t in &wrong {
        let s = rig.open(alg, &key).unwrap();
        let got = rig.send(s, MacOp::Verify, &msg, &[msg.len()], t);
        assert_eq!(got, Err(MacError::MacMismatch), "{alg:?} {t:02x?}");
        let next = rig.send(s, MacOp::Verify, &msg, &[msg.len()], &want);
        assert_eq!(next, Ok(None), "{alg:?}: the next message on the session");
        let again = rig.send(s, MacOp::Final, &msg, &[msg.len()], &[]).unwrap();
        assert_eq!(again.unwrap()[..want.len()], want, "{alg:?}: and the next");
        rig.service.close(CLIENT, s).unwrap();
    }
    // The right one still verifies, whole and truncated to the shortest.
    let split: &[&[usize]] = &[&[msg.len()]];
    assert_eq!(rig.verify(alg, &key, &msg, split, &want), Ok(()));
    assert_eq!(rig.verify(alg, &key, &msg, split, &want[..MIN_TAG]), Ok(()));
}

/// Keys: copied at open (the region rewritten after changes nothing; reference RFC
/// 4231's case 6, whose 131-byte key is hashed first); the longest taken ([`MAX_KEY`])
/// works and differs from one a byte shorter; at and past the block, a byte more is
/// another key (one is used as it is, the other hashed first).
pub fn keys<E: MacEngine>(rig: &mut Rig<E>) {
    let v = HMAC
        .iter()
        .find(|v| v.source == "RFC 4231 6" && v.algorithm == MacAlgorithm::Sha256)
        .unwrap();
    let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
    let s = rig.open(v.algorithm, &key).unwrap();
    rig.data.write(KEY_AT as usize, &[0x55; 131]);
    let got = rig.send(s, MacOp::Final, &msg, &[msg.len()], &[]).unwrap();
    assert_eq!(got, Some(want.clone()), "the key as it was at open");
    rig.service.close(CLIENT, s).unwrap();
    let split: &[&[usize]] = &[&[msg.len()]];
    let longest = rig.mac(MacAlgorithm::Sha1, &[0x5a; MAX_KEY], &msg, split);
    let shorter = rig.mac(MacAlgorithm::Sha1, &[0x5a; MAX_KEY - 1], &msg, split);
    assert_eq!(longest.as_ref().map(Vec::len), Ok(20));
    assert_ne!(longest, shorter);
    let b = block_len(MacAlgorithm::Sha256);
    let at_block = rig.mac(MacAlgorithm::Sha256, &vec![7; b], &msg, split);
    let past = rig.mac(MacAlgorithm::Sha256, &vec![7; b + 1], &msg, split);
    assert_ne!(
        at_block.unwrap(),
        past.unwrap(),
        "a byte more is another key"
    );
}

/// Every bad open and request gets its own typed error, once, in order; nothing bad
/// reaches a session; the session and engine keep working afterwards.
pub fn hostile<E: MacEngine>(rig: &mut Rig<E>) {
    let region = rig.data.len() as u32;
    let alg = MacAlgorithm::Sha256;
    for (offset, len) in [
        (KEY_AT, 0),
        (KEY_AT, MAX_KEY as u32 + 1),
        (region - 8, 16),
        (u32::MAX - 3, 16),
        (region, 1),
    ] {
        assert_eq!(
            rig.open_at(CLIENT, alg, offset, len),
            Err(MacError::BadKeySize),
            "key of {len} at {offset}"
        );
    }
    let stranger = Open::in_region(
        pd_idl::mac::OpenSessionArgs {
            algorithm: alg,
            key_offset: KEY_AT,
            key_len: 16,
        },
        None,
    );
    assert_eq!(rig.open_as(CLIENT, stranger), Err(MacError::BadRequest));
    assert_eq!(rig.service.sessions.open_count(), 0, "no session of those");
    let v = vectors(&[alg]).next().unwrap();
    let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
    let s = rig.open(alg, &key).unwrap();
    let other = rig.open_at(Caller(7), alg, KEY_AT, 16).unwrap();
    let mut bad_op = rig.request(s, MacOp::Update, &[(FIRST, 16)]);
    bad_op.op.0 = 9;
    let mut too_many = rig.request(s, MacOp::Update, &[(FIRST, 16)]);
    too_many.nsegs = MAX_SEGMENTS as u8 + 1;
    let tl = tag_len(alg) as u32;
    let cases: Vec<(Request, MacError)> = vec![
        (bad_op, MacError::BadRequest),
        (
            rig.request(s ^ 0x7, MacOp::Update, &[]),
            MacError::UnknownSession,
        ),
        (
            rig.request(s + (1 << 16), MacOp::Final, &[]),
            MacError::UnknownSession,
        ),
        (
            rig.request(other, MacOp::Update, &[]),
            MacError::UnknownSession,
        ),
        (
            rig.request(s, MacOp::Update, &[(region - 8, 16)]),
            MacError::SegmentOutOfRange,
        ),
        (
            rig.request(s, MacOp::Final, &[(u32::MAX - 3, 16)]),
            MacError::SegmentOutOfRange,
        ),
        (too_many, MacError::TooManySegments),
        // A verify with no tag segment, with a tag longer or shorter than it may be,
        // and with its tag out of the region.
        (rig.request(s, MacOp::Verify, &[]), MacError::BadRequest),
        (
            rig.request(s, MacOp::Verify, &[(FIRST, tl + 1)]),
            MacError::BadRequest,
        ),
        (
            rig.request(s, MacOp::Verify, &[(FIRST, MIN_TAG as u32 - 1)]),
            MacError::BadRequest,
        ),
        (
            rig.request(s, MacOp::Verify, &[(region - 4, tl)]),
            MacError::SegmentOutOfRange,
        ),
        // A final's output place: missing, a byte short, past the region, over its own
        // data (inside it, across its start, containing it).
        (rig.request(s, MacOp::Final, &[]), MacError::BadOutput),
        (
            rig.request(s, MacOp::Final, &[(FIRST, 16), (FIRST + 100, tl - 1)]),
            MacError::BadOutput,
        ),
        (
            rig.request(s, MacOp::Final, &[(FIRST, 16), (region - tl + 1, tl)]),
            MacError::SegmentOutOfRange,
        ),
        (
            rig.request(s, MacOp::Final, &[(FIRST, 200), (FIRST + 100, tl)]),
            MacError::BadOutput,
        ),
        (
            rig.request(s, MacOp::Final, &[(FIRST + 500, 16), (FIRST + 480, tl)]),
            MacError::BadOutput,
        ),
        (
            rig.request(s, MacOp::Final, &[(FIRST + 1000, 4), (FIRST + 990, tl)]),
            MacError::BadOutput,
        ),
    ];
    let requests: Vec<_> = cases.iter().map(|(r, _)| *r).collect();
    // A refused final writes nothing: past the key, the region is as the client left it.
    let past_key = FIRST as usize;
    rig.data.bytes_mut()[past_key..].fill(CANARY);
    let answers = rig.exchange(CLIENT, &requests);
    assert!(
        rig.data.bytes()[past_key..].iter().all(|&b| b == CANARY),
        "a refused request wrote into the region"
    );
    assert_eq!(answers.len(), cases.len(), "each answered once");
    for ((req, want), got) in cases.iter().zip(&answers) {
        assert_eq!(got.id, req.id, "in order");
        assert_eq!(
            got.status.check().unwrap(),
            Err(*want),
            "request {}",
            req.id
        );
        assert_eq!((got.bytes_done, got.tag_len), (0, 0));
    }
    // None of that touched the session: it gives the published tag, and again for the
    // next message, which a verify then checks.
    for _ in 0..2 {
        let got = rig.send(s, MacOp::Final, &msg, &[msg.len()], &[]).unwrap();
        assert_eq!(got.unwrap()[..want.len()], want, "{}", v.source);
    }
    let after = rig.send(s, MacOp::Verify, &msg, &[msg.len()], &want);
    assert_eq!(after, Ok(None), "{}: a verify after two finals", v.source);
    rig.service.close(CLIENT, s).unwrap();
    assert_eq!(
        rig.service.close(CLIENT, other),
        Err(MacError::UnknownSession)
    );
    rig.service.close(Caller(7), other).unwrap();
    assert_eq!(rig.service.sessions.open_count(), 0);
}

/// A final's tag lands exactly at its output place wherever the client puts it (before
/// its data, between two of its segments, at the region's very end, in a place longer
/// than the tag), and no other byte of the region changes; each of `algs`.
pub fn output_places<E: MacEngine>(rig: &mut Rig<E>, algs: &[MacAlgorithm]) {
    let region = rig.data.len();
    for v in vectors(algs).filter(|v| tag(v).len() == tag_len(v.algorithm)) {
        let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
        let (n, m) = (want.len() as u32, msg.len() as u32);
        let d = FIRST + 200;
        let cases = [
            (vec![(d, m)], FIRST + 1, n),
            (vec![(d, 1), (d + 1 + n + 3, m - 1)], d + 1, n + 3),
            (vec![(d, m)], (region as u32) - n, n),
        ];
        for (segs, at, len) in cases {
            let s = rig.open(v.algorithm, &key).unwrap();
            let mut expect = fill(region);
            lay(&mut expect, &segs, &msg);
            rig.data.write(0, &expect);
            let mut all = segs.clone();
            all.push((at, len));
            let req = rig.request(s, MacOp::Final, &all);
            let got = rig.exchange(CLIENT, &[req]);
            assert_eq!(got[0].status.check(), Ok(Ok(())), "{} at {at}", v.source);
            assert_eq!(u32::from(got[0].tag_len), n);
            expect[at as usize..(at + n) as usize].copy_from_slice(&want);
            assert!(
                rig.data.bytes() == &expect[..],
                "{} {:?}: the tag at {at} (len {len}) and no other byte changed",
                v.source,
                v.algorithm
            );
            rig.service.close(CLIENT, s).unwrap();
        }
    }
}

/// Opens fail cleanly when the table is full; a client cut off (or dead) leaves no
/// session behind (its keys go with them); the table takes new sessions after.
pub fn session_limits<E: MacEngine>(rig: &mut Rig<E>) {
    let key = b"Jefe";
    let ids: Vec<u32> = (0..crate::MAX_SESSIONS)
        .map(|_| rig.open(MacAlgorithm::Md5, key).unwrap())
        .collect();
    assert_eq!(
        rig.open(MacAlgorithm::Sha1, key),
        Err(MacError::TooManySessions)
    );
    assert_eq!(rig.service.cut_off(CLIENT), crate::MAX_SESSIONS);
    assert_eq!(rig.service.sessions.open_count(), 0);
    let again = rig.open(MacAlgorithm::Md5, key).unwrap();
    assert!(!ids.contains(&again), "a closed id is not reused");
    rig.service.close(CLIENT, again).unwrap();
}

/// The IDL's calls reach the table through the wire, the key read from the caller's
/// region as a PD's calls give it (`Calls::data`); a caller with no region is refused.
pub fn calls_through_the_wire<E: MacEngine>(rig: &mut Rig<E>) {
    struct Direct<'r, E: MacEngine>(&'r mut Rig<E>, bool);
    impl<E: MacEngine> Calls<Mac<E>> for Direct<'_, E> {
        fn open(&mut self, caller: Caller, args: Open) -> Result<u32, MacError> {
            Mac::<E>::precheck(&self.0.service.engine, &args)?;
            self.0.service.open(caller, args)
        }
        fn close(&mut self, caller: Caller, session: u32) -> Result<(), MacError> {
            self.0.service.close(caller, session)
        }
        fn capabilities(&mut self, _: Caller) -> Result<u64, MacError> {
            Ok(<Mac<E> as queued_service::Interface>::offers(
                &self.0.service.engine,
            ))
        }
        fn data(&self, _: Caller) -> Option<queued_service::ClientData<'static>> {
            self.1.then(|| self.0.client_data())
        }
        /// A key store holding one key, handle 7: the vector's, sign-only.
        fn fetch_key(
            &mut self,
            _: Caller,
            key: queued_service::KeyUse,
        ) -> Result<queued_service::KeyMaterial, queued_service::KeyRefusal> {
            use queued_service::KeyRefusal;
            if key.handle != 7 {
                return Err(KeyRefusal::UnknownKey);
            }
            if key.usage & !crate::SIGN != 0 {
                return Err(KeyRefusal::NotPermitted);
            }
            // RFC 4231's first: its key fits the store's 64 bytes.
            let v = vectors(&[MacAlgorithm::Sha224]).next().unwrap();
            queued_service::KeyMaterial::new(&bytes(&v.key), key.usage)
                .ok_or(KeyRefusal::UnknownKey)
        }
    }
    impl<E: MacEngine> Transport for Direct<'_, E> {
        fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
            Ok(queued_service::dispatch::<Mac<E>>(self, CLIENT, msg))
        }
    }
    let v = vectors(&[MacAlgorithm::Sha224]).last().unwrap();
    let (key, msg, want) = (bytes(&v.key), bytes(&v.data), tag(v));
    rig.data.write(KEY_AT as usize, &key);
    let mut client = pd_idl::mac::Client::new(Direct(rig, true));
    let s = client
        .open_session(v.algorithm, KEY_AT, key.len() as u32)
        .unwrap();
    let got = client
        .transport()
        .0
        .send(s, MacOp::Final, &msg, &[msg.len()], &[]);
    assert_eq!(got.unwrap(), Some(want.clone()), "{}", v.source);
    client.close_session(s).unwrap();
    assert_eq!(
        client.close_session(s),
        Err(CallError::Server(MacError::UnknownSession))
    );
    client.transport().1 = false;
    assert_eq!(
        client.open_session(v.algorithm, KEY_AT, key.len() as u32),
        Err(CallError::Server(MacError::BadRequest)),
        "no region, no key"
    );
    assert_eq!(client.transport().0.service.sessions.open_count(), 0);
    // By handle: the vector's tag from the store's key, no key in the region or the
    // call; the session signs only, as granted.
    rig_key_gone(client.transport().0);
    let v = vectors(&[MacAlgorithm::Sha224]).next().unwrap();
    let (msg, want) = (bytes(&v.data), tag(v));
    let s = client
        .open_session_by_key(v.algorithm, 7, crate::SIGN)
        .unwrap();
    let got = client
        .transport()
        .0
        .send(s, MacOp::Final, &msg, &[msg.len()], &[]);
    assert_eq!(got.unwrap(), Some(want.clone()), "{} by handle", v.source);
    client.close_session(s).unwrap();
    let s = client
        .open_session_by_key(v.algorithm, 7, crate::SIGN)
        .unwrap();
    let verify = client
        .transport()
        .0
        .send(s, MacOp::Verify, &msg, &[msg.len()], &want);
    assert_eq!(
        verify,
        Err(MacError::KeyNotPermitted),
        "a sign-only session"
    );
    client.close_session(s).unwrap();
    for (handle, usage, refused) in [
        (8, crate::SIGN, MacError::UnknownKey),
        (7, crate::VERIFY, MacError::KeyNotPermitted),
    ] {
        assert_eq!(
            client.open_session_by_key(v.algorithm, handle, usage),
            Err(CallError::Server(refused))
        );
    }
}

/// The key the raw open wrote at [`KEY_AT`], overwritten: a session by handle must not
/// find it there.
fn rig_key_gone<E: MacEngine>(rig: &mut Rig<E>) {
    rig.data.write(KEY_AT as usize, &[0xEE; 64]);
}
