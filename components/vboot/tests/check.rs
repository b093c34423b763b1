//! The check's order: nothing the manifest says is acted on before its signature holds,
//! and the image is hashed only when everything else checked out.

use ed25519_dalek::{Signer, SigningKey};
use vboot::{Manifest, ManifestBody, VbootError, check, check_whole};

fn signed(key: &SigningKey, body: ManifestBody) -> [u8; vboot::MANIFEST_LEN] {
    Manifest {
        body,
        signature: key.sign(&body.encode()).to_bytes(),
    }
    .encode()
}

const DIGEST: [u8; 32] = [7; 32];

fn never_hash(_: u64) -> Result<[u8; 32], &'static str> {
    panic!("hashed before the manifest was trusted")
}

#[test]
fn order_of_checks() {
    let key = SigningKey::from_bytes(&[42; 32]);
    let trusted = key.verifying_key().to_bytes();
    let good = signed(&key, ManifestBody::new("img", 100, DIGEST, 3));

    let verified = check(&good, &trusted, 3, 100, |n| {
        assert_eq!(n, 100, "hash exactly the manifest's length");
        Ok(DIGEST)
    })
    .unwrap();
    assert_eq!(verified.name(), b"img");

    // A rollback and a truncation are refused without hashing.
    let rollback = VbootError::Rollback {
        version: 3,
        floor: 4,
    };
    let truncated = VbootError::TruncatedImage {
        have: 99,
        want: 100,
    };
    for (floor, image_len, refused) in [(4, 100, rollback), (0, 99, truncated)] {
        assert_eq!(
            check(&good, &trusted, floor, image_len, never_hash),
            Err(refused)
        );
    }
    // A region may hold more than its image; a file must be the image whole, refused
    // before hashing.
    assert!(check(&good, &trusted, 0, 101, |_| Ok(DIGEST)).is_ok());
    assert_eq!(
        check_whole(&good, &trusted, 0, 101, never_hash),
        Err(VbootError::TrailingData {
            have: 101,
            want: 100
        })
    );
    assert!(check_whole(&good, &trusted, 0, 100, |_| Ok(DIGEST)).is_ok());
    // An attacker's manifest claiming a huge length is refused on its signature, before
    // its length is believed.
    let other = SigningKey::from_bytes(&[1; 32]);
    let forged = signed(&other, ManifestBody::new("img", u64::MAX, DIGEST, 9));
    assert_eq!(
        check(&forged, &trusted, 0, 100, never_hash),
        Err(VbootError::BadSignature)
    );
    assert_eq!(
        check(&good[..10], &trusted, 0, 100, never_hash),
        Err(VbootError::CorruptManifest)
    );
    assert_eq!(
        check(&good, &[0xFF; 32], 0, 100, never_hash),
        Err(VbootError::BadSignature)
    );

    assert_eq!(
        check(&good, &trusted, 0, 100, |_| Ok([8; 32])),
        Err(VbootError::DigestMismatch)
    );
    assert_eq!(
        check(&good, &trusted, 0, 100, |_| Err("engine down")),
        Err(VbootError::Digest("engine down"))
    );
}

#[test]
fn manifests_round_trip_and_names_are_bounded() {
    let body = ManifestBody::new(
        "a-name-that-is-much-longer-than-thirty-two-bytes",
        5,
        DIGEST,
        1,
    );
    assert_eq!(body.name().len(), vboot::NAME_MAX);
    let m = Manifest {
        body,
        signature: [3; 64],
    };
    assert_eq!(Manifest::decode(&m.encode()), Ok(m));
    let mut bad = m;
    bad.body.name_len = 200;
    assert_eq!(
        Manifest::decode(&bad.encode()),
        Err(VbootError::CorruptManifest)
    );
}
