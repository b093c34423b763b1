//! Queue descriptors: their bytes are exactly their fields, any bytes a peer writes read
//! back as a descriptor, and enum fields check their values.

use pd_idl::wire::UnknownValue;
use pd_idl::{cipher, digest};
use proptest::prelude::*;
use zerocopy::{FromBytes, FromZeros, IntoBytes};

proptest! {
    #[test]
    fn any_bytes_are_a_cipher_request(bytes in prop::collection::vec(any::<u8>(), 64)) {
        let req = cipher::Request::read_from_bytes(&bytes).unwrap();
        prop_assert_eq!(req.as_bytes(), &bytes[..]);
        match req.op.get() {
            Ok(op) => prop_assert!(cipher::CipherOp::ALL.contains(&op)),
            Err(UnknownValue(v)) => prop_assert!(v == 0 || v > 2),
        }
    }

    #[test]
    fn digest_response_round_trips(
        id in any::<u32>(), status in any::<u16>(), len in any::<u8>(),
        done in any::<u32>(),
    ) {
        let resp = digest::Response {
            id,
            status: digest::DigestErrorRaw(status),
            digest_len: len,
            reserved: [0; 5],
            bytes_done: done,
        };
        let back = digest::Response::read_from_bytes(resp.as_bytes()).unwrap();
        prop_assert_eq!(back, resp);
        let checked = back.status.check();
        match status {
            0 => prop_assert_eq!(checked, Ok(Ok(()))),
            s if s <= 12 => prop_assert_eq!(checked.unwrap().unwrap_err() as u16, s),
            s => prop_assert_eq!(checked, Err(UnknownValue(u64::from(s)))),
        }
    }
}

#[test]
fn layouts_are_what_the_idl_says() {
    assert_eq!(size_of::<cipher::Segment>(), 8);
    // Requests are one cache line, 16-aligned: copied in and out of their slots in four
    // vector moves, with the segments at offset 16.
    assert_eq!(size_of::<cipher::Request>(), 64);
    assert_eq!(align_of::<cipher::Request>(), 16);
    assert_eq!(size_of::<digest::Request>(), 64);
    assert_eq!(align_of::<digest::Request>(), 16);
    assert_eq!(size_of::<cipher::Response>(), 12);
    // Four answers to a cache line: the digest goes into the client's region instead.
    assert_eq!(size_of::<digest::Response>(), 16);
    assert_eq!(align_of::<digest::Response>(), 16);
    assert_eq!(shm_queue::slot_size::<digest::Response>(), 16);
    let mut req = cipher::Request::new_zeroed();
    req.id = 0x0403_0201;
    req.op = cipher::CipherOp::Decrypt.into();
    req.segs[0] = cipher::Segment {
        offset: 0x10,
        len: 0x20,
    };
    let b = req.as_bytes();
    assert_eq!(&b[0..4], &0x0403_0201u32.to_ne_bytes());
    assert_eq!(b[8], 2, "op is a raw u8 at offset 8");
    assert_eq!(
        &b[16..20],
        &0x10u32.to_ne_bytes(),
        "segments start at offset 16"
    );
    let mut resp = digest::Response::new_zeroed();
    resp.bytes_done = 0x0807_0605;
    assert_eq!(
        &resp.as_bytes()[12..],
        &0x0807_0605u32.to_ne_bytes(),
        "bytes_done last"
    );
}

#[test]
fn results_convert_to_status_and_back() {
    let ok: cipher::CipherErrorRaw = Ok(()).into();
    assert_eq!(ok, cipher::CipherErrorRaw::OK);
    let e: cipher::CipherErrorRaw = Err(cipher::CipherError::BadLength).into();
    assert_eq!(e.check(), Ok(Err(cipher::CipherError::BadLength)));
}

#[test]
fn queues_fit_their_regions() {
    // 64-byte requests in 128-byte slots: one line each, and a pair of lines apart.
    assert_eq!(size_of::<cipher::Request>(), 64);
    assert_eq!(
        cipher::REQUEST_QUEUE_BYTES,
        shm_queue::HEADER_SIZE + 64 * 128
    );
}

/// Bytes -> descriptor -> bytes is the identity for every descriptor type: no field is
/// lost, reordered or normalised on the way through shared memory.
fn bytes_round_trip<T: FromBytes + IntoBytes + zerocopy::Immutable>(bytes: &[u8]) {
    let value = T::read_from_bytes(bytes).expect("exact size");
    assert_eq!(value.as_bytes(), bytes);
}

proptest! {
    #[test]
    fn every_descriptor_round_trips(bytes in prop::collection::vec(any::<u8>(), 128)) {
        bytes_round_trip::<pd_idl::power::Grant>(&bytes[..size_of::<pd_idl::power::Grant>()]);
        bytes_round_trip::<cipher::Segment>(&bytes[..size_of::<cipher::Segment>()]);
        bytes_round_trip::<cipher::Request>(&bytes[..size_of::<cipher::Request>()]);
        bytes_round_trip::<cipher::Response>(&bytes[..size_of::<cipher::Response>()]);
        bytes_round_trip::<digest::Segment>(&bytes[..size_of::<digest::Segment>()]);
        bytes_round_trip::<digest::Request>(&bytes[..size_of::<digest::Request>()]);
        bytes_round_trip::<digest::Response>(&bytes[..size_of::<digest::Response>()]);
    }
}

#[test]
fn a_request_over_a_list_is_that_list_and_zeros() {
    let r = cipher::Request::over(7, 9, cipher::CipherOp::Decrypt, &[(16, 32), (80, 5)]);
    assert_eq!((r.id, r.session, r.nsegs), (7, 9, 2));
    assert_eq!(r.op.get(), Ok(cipher::CipherOp::Decrypt));
    let given: Vec<_> = r.segs[..2].iter().map(|s| (s.offset, s.len)).collect();
    assert_eq!(given, [(16, 32), (80, 5)]);
    assert!(r.segs[2..].iter().all(|s| (s.offset, s.len) == (0, 0)));
    assert_eq!(r.reserved, [0; 6]);
    let none = digest::Request::over(1, 2, digest::DigestOp::Final, &[]);
    assert_eq!(none.nsegs, 0);
    assert_eq!(none.as_bytes()[16..], [0; 48]);
}

#[test]
fn a_list_longer_than_the_descriptor_keeps_its_count() {
    // So that the driver refuses it (TooManySegments) rather than serving the first six
    // and answering as if that were the whole list.
    let seven: Vec<(u32, u32)> = (0..7).map(|i| (16 * i, 16)).collect();
    let r = cipher::Request::over(1, 1, cipher::CipherOp::Encrypt, &seven);
    assert_eq!(usize::from(r.nsegs), seven.len());
    assert_eq!(r.segs.len(), 6);
    let many = vec![(0, 1); 300];
    assert_eq!(
        digest::Request::over(1, 1, digest::DigestOp::Update, &many).nsegs,
        255
    );
}
