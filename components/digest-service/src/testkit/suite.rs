//! The conformance suite: what every Digest engine must do on each path it offers,
//! through the whole client -> queue -> service -> engine path. Each engine's tests call
//! these with a rig over that engine.

use super::vectors::{self, FIPS180_4, MD5_MILLION_A, RFC1321, hex, pattern, reference};
use super::{CANARY, CLIENT, FIRST, Rig};
use crate::{DigestEngine, MAX_SEGMENTS, block_len, digest_len};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};
use pd_idl::wire::Caller;
use queued_service::testkit::{fill, lay};
use std::vec;
use std::vec::Vec;

/// Every algorithm of the interface. Suites that take a list of algorithms run those an
/// engine offers ([`refused_at_open`] checks the rest).
pub const ALGORITHMS: [Algorithm; 6] = Algorithm::ALL;

/// FIPS 180-4 examples (but the million) of `algs` and RFC 1321's suite, each as one
/// final.
pub fn published_vectors<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, algs: &[Algorithm]) {
    let offered = FIPS180_4.iter().filter(|v| algs.contains(&v.0));
    for &(alg, name, want) in offered.filter(|v| v.1 != "million") {
        let msg = vectors::fips_message(name);
        let got = rig.hash(alg, path, &msg, &[&[msg.len()]]).unwrap();
        assert_eq!(got, hex(want), "{alg:?} {name} on {path:?}");
    }
    for &(msg, want) in RFC1321 {
        let got = rig
            .hash(Algorithm::Md5, path, msg, &[&[msg.len()]])
            .unwrap();
        assert_eq!(got, hex(want), "MD5 {msg:?} on {path:?}");
    }
}

/// One million 'a' in page-sized updates (as AF_ALG's splice feeds md5sum in the talitos chaining change),
/// each of `algs`. The region must hold a page plus [`super::FIRST`].
pub fn million_a<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, algs: &[Algorithm]) {
    let msg = vectors::million_a();
    for &alg in algs {
        let want = match alg {
            Algorithm::Md5 => hex(MD5_MILLION_A),
            _ => hex(FIPS180_4
                .iter()
                .find(|v| v.0 == alg && v.1 == "million")
                .unwrap()
                .2),
        };
        let got = rig.hash_chunked(alg, path, &msg, 4096).unwrap();
        assert_eq!(got, want, "{alg:?} million a on {path:?}");
    }
}

/// A message of a few blocks (of `alg`'s length: 128 bytes for SHA-384/512) split at
/// every byte: into an update and the final, into two segments of one final, and fed in
/// updates of every size from 1 to past two blocks.
pub fn splits<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, alg: Algorithm) {
    let b = block_len(alg);
    let msg = pattern(3 * b + 7);
    let want = reference(alg, &msg);
    let n = msg.len();
    for k in 0..=n {
        let got = rig.hash(alg, path, &msg, &[&[k], &[n - k]]).unwrap();
        assert_eq!(got, want, "{alg:?} update {k} + final on {path:?}");
        let got = rig.hash(alg, path, &msg, &[&[k, n - k]]).unwrap();
        assert_eq!(got, want, "{alg:?} segments {k} + rest on {path:?}");
    }
    for chunk in 1..=2 * b + 1 {
        let got = rig.hash_chunked(alg, path, &msg, chunk).unwrap();
        assert_eq!(got, want, "{alg:?} updates of {chunk} on {path:?}");
    }
    // The final carrying data after block-multiple updates, and many small segments.
    for updates in [&[b, b][..], &[b - 1, 1, b], &[b + 1, b - 1], &[2 * b, 0, 0]] {
        let mut reqs: Vec<Vec<usize>> = updates.iter().map(|&u| vec![u]).collect();
        let used: usize = updates.iter().sum();
        reqs.push(vec![n - used]);
        let refs: Vec<&[usize]> = reqs.iter().map(Vec::as_slice).collect();
        let got = rig.hash(alg, path, &msg, &refs).unwrap();
        assert_eq!(got, want, "{alg:?} updates {updates:?} on {path:?}");
    }
    let most = [1, 2, b - 3, b + 1, 0, n - (2 * b + 1)];
    assert_eq!(most.len(), MAX_SEGMENTS);
    let got = rig
        .hash(alg, path, &msg, &[&most[..3], &most[3..]])
        .unwrap();
    assert_eq!(got, want, "{alg:?} the most segments on {path:?}");
}

/// Segments longer than a hardware pointer may carry (SEC1: 32768 bytes) split at
/// awkward places, each of `algs`. The region must hold 100 KB plus gaps.
pub fn long_segments<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, algs: &[Algorithm]) {
    let msg = pattern(100_000);
    for &alg in algs {
        let want = reference(alg, &msg);
        let got = rig
            .hash(alg, path, &msg, &[&[5, 70_000], &[29_995]])
            .unwrap();
        assert_eq!(got, want, "{alg:?} long segments on {path:?}");
    }
}

/// Two sessions fed alternately on one engine (same and different algorithms) both give
/// the right digests: each session's state is its own. Pairs of `algs` only; SHA-224
/// beside SHA-256 (one core, two initial states) and the 128-byte blocks beside the
/// 64-byte ones where offered.
pub fn interleaved<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, algs: &[Algorithm]) {
    let a = pattern(500);
    let b: Vec<u8> = pattern(700).iter().map(|x| x ^ 0x5a).collect();
    let pairs = [
        (Algorithm::Sha256, Algorithm::Sha256),
        (Algorithm::Md5, Algorithm::Sha1),
        (Algorithm::Sha1, Algorithm::Sha256),
        (Algorithm::Sha224, Algorithm::Sha256),
        (Algorithm::Sha512, Algorithm::Sha384),
        (Algorithm::Sha256, Algorithm::Sha512),
    ];
    let offered = pairs
        .into_iter()
        .filter(|(x, y)| algs.contains(x) && algs.contains(y));
    for (alg_a, alg_b) in offered {
        let sa = rig.open(alg_a, path).unwrap();
        let sb = rig.open(alg_b, path).unwrap();
        let (mut ia, mut ib) = (0, 0);
        for step in [37usize, 64, 1, 130, 63, 100] {
            let ea = (ia + step).min(a.len());
            rig.send(sa, DigestOp::Update, &a[ia..ea], &[ea - ia])
                .unwrap();
            ia = ea;
            let eb = (ib + step + 11).min(b.len());
            rig.send(sb, DigestOp::Update, &b[ib..eb], &[eb - ib])
                .unwrap();
            ib = eb;
        }
        let da = rig.send(sa, DigestOp::Final, &a[ia..], &[a.len() - ia]);
        let db = rig.send(sb, DigestOp::Final, &b[ib..], &[b.len() - ib]);
        assert_eq!(
            da.unwrap().unwrap(),
            reference(alg_a, &a),
            "{alg_a:?} on {path:?}"
        );
        assert_eq!(
            db.unwrap().unwrap(),
            reference(alg_b, &b),
            "{alg_b:?} on {path:?}"
        );
        rig.service.sessions.close(CLIENT, sa).unwrap();
        rig.service.sessions.close(CLIENT, sb).unwrap();
    }
}

/// Every bad request gets its own typed error, in order, once; nothing bad reaches the
/// engine's state; the session and the engine keep working afterwards.
pub fn hostile<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath) {
    let region = rig.data.len() as u32;
    let s = rig.open(Algorithm::Sha256, path).unwrap();
    let other = rig.open_as(Caller(7), Algorithm::Sha256, path).unwrap();
    let mut bad_op = rig.request(s, DigestOp::Update, &[(0, 16)]);
    bad_op.op.0 = 9;
    let mut too_many = rig.request(s, DigestOp::Update, &[(0, 16)]);
    too_many.nsegs = MAX_SEGMENTS as u8 + 1;
    let n = digest_len(Algorithm::Sha256) as u32;
    let (out, _) = rig.output_place();
    let cases = [
        (
            rig.request(s ^ 0x7, DigestOp::Update, &[(0, 16)]),
            DigestError::UnknownSession,
        ),
        (
            rig.request(s + (1 << 16), DigestOp::Final, &[]),
            DigestError::UnknownSession,
        ),
        (
            rig.request(other, DigestOp::Update, &[(0, 16)]),
            DigestError::UnknownSession,
        ),
        (
            rig.request(s, DigestOp::Update, &[(region - 8, 16)]),
            DigestError::SegmentOutOfRange,
        ),
        (
            rig.request(s, DigestOp::Final, &[(u32::MAX - 3, 16)]),
            DigestError::SegmentOutOfRange,
        ),
        (
            rig.request(s, DigestOp::Update, &[(0, 1), (0, u32::MAX)]),
            DigestError::SegmentOutOfRange,
        ),
        (bad_op, DigestError::BadRequest),
        (too_many, DigestError::TooManySegments),
        // A final's output place: missing, a byte short, past the region, over its
        // own data (inside it, across its start, containing it).
        (rig.request(s, DigestOp::Final, &[]), DigestError::BadOutput),
        (
            rig.request(s, DigestOp::Final, &[(0, 16), (out, n - 1)]),
            DigestError::BadOutput,
        ),
        (
            rig.request(s, DigestOp::Final, &[(0, 16), (region - n + 1, n)]),
            DigestError::SegmentOutOfRange,
        ),
        (
            rig.request(s, DigestOp::Final, &[(0, 16), (u32::MAX - 3, n)]),
            DigestError::SegmentOutOfRange,
        ),
        (
            rig.request(s, DigestOp::Final, &[(0, 200), (100, n)]),
            DigestError::BadOutput,
        ),
        (
            rig.request(s, DigestOp::Final, &[(500, 16), (0, 64), (480, n)]),
            DigestError::BadOutput,
        ),
        (
            rig.request(s, DigestOp::Final, &[(1000, 4), (990, n)]),
            DigestError::BadOutput,
        ),
    ];
    let requests: Vec<_> = cases.iter().map(|(r, _)| *r).collect();
    // A refused final writes nothing: the whole region is as the client left it.
    rig.data.bytes_mut().fill(CANARY);
    let answers = rig.exchange(CLIENT, &requests);
    assert!(
        rig.data.bytes().iter().all(|&b| b == CANARY),
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
        assert_eq!((got.bytes_done, got.digest_len), (0, 0));
    }
    // None of that touched the session: it hashes "abc" correctly...
    let abc = vectors::ABC;
    let d = rig
        .send(s, DigestOp::Final, abc, &[abc.len()])
        .unwrap()
        .unwrap();
    assert_eq!(d, reference(Algorithm::Sha256, abc));
    // ...then starts a new message: "abc" again in one final (a one-shot request, no
    // call), then in an update and a final, each time the published digest.
    let again = rig.send(s, DigestOp::Final, abc, &[3]).unwrap().unwrap();
    assert_eq!(again, reference(Algorithm::Sha256, abc), "a new message");
    assert_eq!(rig.send(s, DigestOp::Update, &abc[..1], &[1]), Ok(None));
    let split = rig
        .send(s, DigestOp::Final, &abc[1..], &[2])
        .unwrap()
        .unwrap();
    assert_eq!(
        split,
        reference(Algorithm::Sha256, abc),
        "update then final"
    );
    // The other client's session is intact too.
    rig.service.sessions.close(CLIENT, s).unwrap();
    assert_eq!(
        rig.service.close(CLIENT, other),
        Err(DigestError::UnknownSession)
    );
    rig.service.sessions.close(Caller(7), other).unwrap();
    assert_eq!(rig.service.sessions.open_count(), 0);
    let got = rig.hash(Algorithm::Md5, path, abc, &[&[3]]).unwrap();
    assert_eq!(
        got,
        reference(Algorithm::Md5, abc),
        "the engine still works"
    );
}

/// A final's data segments, and its output place's offset and length.
type Place = (Vec<(u32, u32)>, u32, u32);

/// A final's digest lands exactly at its output place, wherever the client puts it
/// (before its data, between its segments, at odd offsets, at the region's very end, in
/// a place longer than the digest), and no other byte of the region changes; each of
/// `algs`, one final each and updates then a final.
pub fn output_places<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath, algs: &[Algorithm]) {
    let region = rig.data.len();
    let msg = pattern(300);
    for &alg in algs {
        let want = reference(alg, &msg);
        let n = want.len();
        let end = (region - n) as u32;
        let cases: [Place; 5] = [
            (vec![(1000, 300)], 1, n as u32),
            (vec![(1000, 100), (2000, 200)], 1100, n as u32 + 3),
            (vec![(64, 150), (64 + 150 + 77, 150)], 64 + 150, 77),
            (vec![(4097, 300)], end, n as u32),
            (vec![(0, 300)], 300, 64 + 9),
        ];
        for (segs, at, len) in cases {
            for updates in [false, true] {
                let s = rig.open(alg, path).unwrap();
                let mut expect = fill(region);
                lay(&mut expect, &segs, &msg);
                rig.data.write(0, &expect);
                let mut reqs = Vec::new();
                let mut last: Vec<(u32, u32)> = segs.clone();
                if updates {
                    // All but the last segment as updates (an engine may join them to
                    // the final: the place is still the final's own).
                    let (init, tail) = segs.split_at(segs.len() - 1);
                    for &seg in init {
                        reqs.push(rig.request(s, DigestOp::Update, &[seg]));
                    }
                    last = tail.to_vec();
                }
                last.push((at, len));
                reqs.push(rig.request(s, DigestOp::Final, &last));
                let got = rig.exchange(CLIENT, &reqs);
                let answer = got.last().unwrap();
                assert_eq!(answer.status.check(), Ok(Ok(())), "{alg:?} at {at}");
                assert_eq!(usize::from(answer.digest_len), n, "{alg:?}");
                expect[at as usize..at as usize + n].copy_from_slice(&want);
                assert!(
                    rig.data.bytes() == &expect[..],
                    "{alg:?} output at {at} (len {len}, updates {updates}) on {path:?}: \
                     the digest there and no other byte changed"
                );
                rig.service.sessions.close(CLIENT, s).unwrap();
            }
        }
    }
}

/// Opens fail cleanly when the table is full; a closed session's id is not reused.
pub fn session_limits<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath) {
    let first = rig.open(Algorithm::Md5, path).unwrap();
    rig.service.sessions.close(CLIENT, first).unwrap();
    let ids: Vec<u32> = (0..crate::MAX_SESSIONS)
        .map(|_| rig.open(Algorithm::Md5, path).unwrap())
        .collect();
    assert!(!ids.contains(&first), "a closed id is not reused");
    assert_eq!(
        rig.open(Algorithm::Sha1, path),
        Err(DigestError::TooManySessions)
    );
    assert_eq!(rig.service.sessions.close_all(CLIENT), crate::MAX_SESSIONS);
}

/// The requests [`queued_updates_match_one_at_a_time`] queues for `alg`, by length (the
/// last is the final): uneven updates (blocks of `alg`'s length straddling requests), an
/// empty one, many small ones; each of more than a byte goes in two segments with a gap.
pub fn queued_cuts(alg: Algorithm) -> [Vec<usize>; 4] {
    let b = block_len(alg);
    [
        vec![1, b - 1, b, b + 1, 6],
        vec![b, b, b, 7],
        vec![100, 0, 99],
        vec![7; 7],
    ]
}

/// A session's updates and final queued together (an engine may run them as one job,
/// see [`DigestEngine::coalesces`]) give the digest one request at a time gives, and each
/// request is answered once, in order, with its own byte count, the digest on the final
/// alone; then the session starts the next message (one more final). Each of `algs`.
/// Returns how many requests went, the queued ones and those finals.
pub fn queued_updates_match_one_at_a_time<E: DigestEngine>(
    rig: &mut Rig<E>,
    path: HashPath,
    algs: &[Algorithm],
) -> usize {
    let mut sent = 0;
    for &alg in algs {
        for cuts in queued_cuts(alg) {
            let cuts = cuts.as_slice();
            let msg = pattern(cuts.iter().sum());
            let want = reference(alg, &msg);
            let s = rig.open(alg, path).unwrap();
            let mut reqs = Vec::new();
            let (mut from, mut at) = (0usize, super::FIRST as usize);
            for (i, &len) in cuts.iter().enumerate() {
                rig.data.write(at, &msg[from..from + len]);
                let last = i + 1 == cuts.len();
                let segs: Vec<(u32, u32)> = if len > 1 {
                    // Two segments with a gap: segment boundaries inside a request too.
                    let half = len / 2;
                    vec![
                        (at as u32, half as u32),
                        ((at + half + 5) as u32, (len - half) as u32),
                    ]
                } else {
                    vec![(at as u32, len as u32)]
                };
                if len > 1 {
                    let half = len / 2;
                    rig.data.write(at + half + 5, &msg[from + half..from + len]);
                }
                reqs.push(match last {
                    true => rig.final_request(s, &segs),
                    false => rig.request(s, DigestOp::Update, &segs),
                });
                from += len;
                at += len + 5 + super::GAP as usize;
            }
            let got = rig.exchange(CLIENT, &reqs);
            assert_eq!(
                got.len(),
                reqs.len(),
                "{alg:?} {cuts:?}: one answer per request"
            );
            for ((r, a), &len) in reqs.iter().zip(&got).zip(cuts) {
                assert_eq!(a.id, r.id, "in order");
                assert_eq!(a.status.check(), Ok(Ok(())), "{alg:?} {cuts:?}");
                assert_eq!(
                    a.bytes_done as usize, len,
                    "{alg:?} {cuts:?}: its own bytes"
                );
            }
            let (last, updates) = got.split_last().unwrap();
            assert!(
                updates.iter().all(|a| a.digest_len == 0),
                "no digest before the final"
            );
            let digest = rig.take_digest(alg, last.digest_len);
            assert_eq!(digest, want, "{alg:?} {cuts:?} on {path:?}, queued");
            // The session goes on with the next message.
            let again = rig.send(s, DigestOp::Final, &msg, &[msg.len()]).unwrap();
            assert_eq!(again, Some(want.clone()), "{alg:?}: the next message");
            rig.service.sessions.close(CLIENT, s).unwrap();
            sent += reqs.len() + 1;
        }
    }
    sent
}

/// A job whose client is cut off while the engine runs it (the client died, came back
/// or broke its queues) still frees the engine: the interrupt that ends it counts it
/// finished and answers no one, and another client's request is served next. For an
/// engine that finishes on its interrupt (a job left in flight by a serving pass).
pub fn a_cut_off_clients_job_frees_the_engine<E: DigestEngine>(rig: &mut Rig<E>, path: HashPath) {
    let other = Caller(CLIENT.0 + 1);
    let a = rig.open(Algorithm::Sha256, path).unwrap();
    let b = rig.open_as(other, Algorithm::Sha256, path).unwrap();
    rig.data.write(FIRST as usize, b"abc");
    let final_a = rig.final_request(a, &[(FIRST, 3)]);
    assert!(rig.serve_once(CLIENT, &[final_a]).is_empty());
    assert!(rig.service.busy(), "the job waits for its interrupt");
    rig.service.cut_off(CLIENT);
    let (finished, given) = rig.interrupt();
    assert_eq!(
        (finished, given.len()),
        (1, 0),
        "finished, answered to no one"
    );
    assert!(!rig.service.busy());
    let final_b = rig.final_request(b, &[(FIRST, 3)]);
    let got = rig.exchange(other, &[final_b]);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].status.check(), Ok(Ok(())));
    let digest = rig.take_digest(Algorithm::Sha256, got[0].digest_len);
    assert_eq!(digest, reference(Algorithm::Sha256, b"abc"));
}

/// What an engine lacks (`refused`, on `path`) is refused at open with
/// `UnsupportedAlgorithm`, leaving no session, so no request can get a wrong digest; the
/// engine then still hashes `works` (an algorithm it offers) right.
pub fn refused_at_open<E: DigestEngine>(
    rig: &mut Rig<E>,
    path: HashPath,
    refused: &[Algorithm],
    works: Algorithm,
) {
    for &alg in refused {
        assert_eq!(
            rig.open(alg, path),
            Err(DigestError::UnsupportedAlgorithm),
            "{alg:?} on {path:?}"
        );
        assert_eq!(rig.service.sessions.open_count(), 0, "{alg:?}: no session");
    }
    let msg = pattern(300);
    let got = rig.hash(works, path, &msg, &[&[msg.len()]]).unwrap();
    assert_eq!(got, reference(works, &msg), "{works:?} after the refusals");
}
