//! Mac's declarations that restate another interface's: its algorithms keep Digest's
//! numbers (an imported interface may not have calls, so they are declared twice), and
//! its queue items keep Digest's layout.

use pd_idl::{digest, mac};

#[test]
fn mac_algorithms_are_digests_by_name_and_number() {
    assert_eq!(mac::MacAlgorithm::ALL.len(), digest::Algorithm::ALL.len());
    for (m, d) in mac::MacAlgorithm::ALL.iter().zip(digest::Algorithm::ALL) {
        assert_eq!(format!("{m:?}"), format!("{d:?}"));
        assert_eq!(*m as u8, d as u8, "{m:?}");
    }
}

#[test]
fn mac_queue_items_have_digests_layout() {
    use core::mem::{align_of, size_of};
    assert_eq!(size_of::<mac::Request>(), size_of::<digest::Request>());
    assert_eq!(size_of::<mac::Response>(), size_of::<digest::Response>());
    assert_eq!(align_of::<mac::Request>(), 16);
    assert_eq!(align_of::<mac::Response>(), 16);
    let r = mac::Request::over(7, 9, mac::MacOp::Verify, &[(1, 2), (3, 4)]);
    assert_eq!((r.id, r.session, r.nsegs), (7, 9, 2));
    assert_eq!(r.op.get(), Ok(mac::MacOp::Verify));
}
