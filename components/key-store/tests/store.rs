//! The store against published vectors (RFC 3394 key wrap, RFC 5869 HKDF) and against a
//! client trying every way to get or misuse a key it should not have.

use key_store::{CAPACITY, Config, KeyStore, algorithm, usage};
use pd_idl::key_bits::policy;
use pd_idl::keys::{KeyAlgorithm as A, KeyUsage as U, KeysError, Policy, Server};
use pd_idl::wire::Caller;

const ALICE: Caller = Caller(1);
const BOB: Caller = Caller(2);
const PROVISIONER: Caller = Caller(3);
/// A driver on the store's channel 5: Alice is its client 0, Bob its client 3, the
/// provisioner its client 4.
const DRIVER: Caller = Caller(5);
/// Alice's and Bob's parent (its children 2 and 7).
const SUPERVISOR: Caller = Caller(9);

const CONFIG: &str = "\
# two clients, a provisioner and a driver serving two of them
client 1 create use quota=3
client 2 create use raw quota=2
client 3 import create quota=4   # provisions; its keys no driver may fetch
driver 5 0=1 3=2 4=3 6=raw
supervisor 9 2=1 7=2   # Alice's and Bob's parent
device-key 000102030405060708090A0B0C0D0E0F
key 1 ed25519-verify verify,export 70de32b4fcf29624db3783f5d029b194023d850d7b3ac647c4b43edd86ecbc27 floor=3
";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A draw that counts up: distinct keys, known bytes.
fn counting(out: &mut [u8]) -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static NEXT: AtomicU8 = AtomicU8::new(1);
    out.fill(NEXT.fetch_add(1, Ordering::Relaxed));
    true
}

fn failing(_: &mut [u8]) -> bool {
    false
}

fn store() -> KeyStore {
    KeyStore::new(Config::parse(CONFIG.as_bytes()).unwrap(), 1, counting)
}

fn words<const N: usize>(bytes: &[u8]) -> [u64; N] {
    pd_idl::key_words::pack(bytes)
}

fn exported(s: &mut KeyStore, who: Caller, handle: u32) -> Vec<u8> {
    let k = s.export(who, handle).unwrap();
    let mut out = vec![0; usize::from(k.head as u8)];
    pd_idl::key_words::unpack(&k.bytes, &mut out);
    out
}

#[test]
fn rfc3394_wrapped_key_imports_under_the_device_key() {
    let mut s = store();
    // RFC 3394 4.1: 128 bits of key data wrapped with a 128-bit KEK.
    let wrapped = hex("1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5");
    let p = policy(&[A::AesCbc], &[U::Encrypt, U::Export]);
    let h = s
        .import_wrapped(PROVISIONER, p, 24, words(&wrapped))
        .unwrap();
    assert_eq!(
        exported(&mut s, PROVISIONER, h),
        hex("00112233445566778899AABBCCDDEEFF")
    );
    // One bit off anywhere fails the integrity check, and nothing is made.
    for bit in [0, 70, 191] {
        let mut bad = wrapped.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        let held = s.held();
        assert_eq!(
            s.import_wrapped(PROVISIONER, p, 24, words(&bad)),
            Err(KeysError::UnwrapFailed)
        );
        assert_eq!(s.held(), held);
    }
    // Without a device key nothing unwraps.
    let mut bare = KeyStore::new(
        Config::parse(b"client 3 import quota=1").unwrap(),
        1,
        counting,
    );
    assert_eq!(
        bare.import_wrapped(PROVISIONER, p, 24, words(&wrapped)),
        Err(KeysError::UnwrapFailed)
    );
}

#[test]
fn rfc5869_derive_matches_test_case_3() {
    let mut s = store();
    // RFC 5869 A.3: SHA-256, IKM 22 x 0x0b, no salt, no info, L = 42.
    let base = policy(&[A::HkdfSha256], &[U::Derive]);
    let h = s.import(PROVISIONER, base, 22, words(&[0x0b; 22])).unwrap();
    let out = policy(&[A::HmacSha256], &[U::Sign, U::Export]);
    let d = s.derive(PROVISIONER, h, out, 42, 0, [0; 32]).unwrap();
    assert_eq!(
        exported(&mut s, PROVISIONER, d),
        hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    );
    // Info changes the key; a key that may not derive is refused.
    let d2 = s.derive(PROVISIONER, h, out, 42, 1, [1; 32]).unwrap();
    assert_ne!(
        exported(&mut s, PROVISIONER, d2),
        exported(&mut s, PROVISIONER, d)
    );
    assert_eq!(
        s.derive(PROVISIONER, d, out, 16, 0, [0; 32]),
        Err(KeysError::NotPermitted)
    );
    assert_eq!(
        s.derive(PROVISIONER, h, out, 16, 33, [0; 32]),
        Err(KeysError::BadRequest)
    );
}

#[test]
fn a_handle_names_a_key_only_to_its_owner() {
    let mut s = store();
    let p = policy(&[A::AesCtr], &[U::Encrypt, U::Decrypt]);
    let alice = s.generate(ALICE, p, 16).unwrap();
    // Bob holds no key: whatever handle he names, guessed or Alice's, is unknown to him.
    for h in [alice, 0, 1, alice ^ 1, alice + (1 << 4), u32::MAX] {
        assert_eq!(s.attributes(BOB, h), Err(KeysError::UnknownKey), "{h:#x}");
        assert_eq!(s.destroy(BOB, h), Err(KeysError::UnknownKey));
        assert_eq!(s.export(BOB, h), Err(KeysError::UnknownKey));
    }
    let a = s.attributes(ALICE, alice).unwrap();
    assert_eq!((a.len, a.owner, a.policy), (16, 1, p));
    // Destroyed, the handle is unknown, and a new key in the slot does not answer it.
    s.destroy(ALICE, alice).unwrap();
    assert_eq!(s.attributes(ALICE, alice), Err(KeysError::UnknownKey));
    let again = s.generate(ALICE, p, 16).unwrap();
    assert_ne!(again, alice);
    assert_eq!(s.attributes(ALICE, alice), Err(KeysError::UnknownKey));
    // A restarted store's handles name none of its predecessor's keys.
    let mut next = KeyStore::new(Config::parse(CONFIG.as_bytes()).unwrap(), 2, counting);
    assert_eq!(next.attributes(ALICE, again), Err(KeysError::UnknownKey));
}

#[test]
fn policy_is_fixed_and_enforced() {
    let mut s = store();
    let encrypt_only = policy(&[A::AesCbc], &[U::Encrypt]);
    let h = s.generate(ALICE, encrypt_only, 32).unwrap();
    // Export was not allowed at creation.
    assert_eq!(s.export(ALICE, h), Err(KeysError::NotPermitted));
    // The driver may have it to encrypt with CBC, for Alice (its client 0)...
    let f = s.fetch(DRIVER, 0, h, A::AesCbc, usage(U::Encrypt)).unwrap();
    assert_eq!(f.head, 32 | u64::from(usage(U::Encrypt)) << 8);
    // ...not to decrypt, not for CTR, not for nothing, not as its client 3 (Bob).
    let refused = [
        (0, A::AesCbc, usage(U::Decrypt)),
        (0, A::AesCbc, usage(U::Encrypt) | usage(U::Decrypt)),
        (0, A::AesCtr, usage(U::Encrypt)),
        (0, A::AesCbc, 0),
        (0, A::AesCbc, usage(U::Export)),
    ];
    for (k, alg, wants) in refused {
        assert_eq!(
            s.fetch(DRIVER, k, h, alg, wants),
            Err(KeysError::NotPermitted)
        );
    }
    assert_eq!(
        s.fetch(DRIVER, 3, h, A::AesCbc, usage(U::Encrypt)),
        Err(KeysError::UnknownKey)
    );
    // A driver channel with no client of ours, a client calling fetch: not permitted.
    assert_eq!(
        s.fetch(DRIVER, 1, h, A::AesCbc, 2),
        Err(KeysError::NotPermitted)
    );
    assert_eq!(
        s.fetch(ALICE, 0, h, A::AesCbc, 2),
        Err(KeysError::NotPermitted)
    );
    // The provisioner's keys are for no driver (it has no `use` right).
    let mine = s.generate(PROVISIONER, encrypt_only, 16).unwrap();
    assert_eq!(
        s.fetch(DRIVER, 4, mine, A::AesCbc, 2),
        Err(KeysError::NotPermitted)
    );
}

#[test]
fn policies_that_make_no_sense_are_refused() {
    let mut s = store();
    let bad = [
        (policy(&[], &[U::Encrypt]), 16, KeysError::BadPolicy),
        (policy(&[A::AesCbc], &[]), 16, KeysError::BadPolicy),
        (
            policy(&[A::AesCbc, A::HmacSha256], &[U::Encrypt]),
            16,
            KeysError::BadPolicy,
        ),
        (
            policy(&[A::HmacSha256], &[U::Encrypt]),
            16,
            KeysError::BadPolicy,
        ),
        (policy(&[A::AesGcm], &[U::Sign]), 16, KeysError::BadPolicy),
        (
            policy(&[A::HmacSha1], &[U::Derive]),
            16,
            KeysError::BadPolicy,
        ),
        (
            policy(&[A::HkdfSha256], &[U::Sign]),
            16,
            KeysError::BadPolicy,
        ),
        (
            policy(&[A::AesCbc], &[U::Encrypt]),
            20,
            KeysError::BadKeySize,
        ),
        (
            policy(&[A::HmacSha256], &[U::Sign]),
            65,
            KeysError::BadKeySize,
        ),
        (
            policy(&[A::HmacSha256], &[U::Sign]),
            0,
            KeysError::BadKeySize,
        ),
        (
            policy(&[A::Ed25519Verify], &[U::Verify]),
            16,
            KeysError::BadKeySize,
        ),
    ];
    for (p, len, e) in bad {
        assert_eq!(s.generate(ALICE, p, len), Err(e), "{p:?} {len}");
    }
    let unknown_bit = Policy {
        algorithms: 1 << 20,
        usage: 2,
        reserved: [0; 3],
    };
    assert_eq!(
        s.generate(ALICE, unknown_bit, 16),
        Err(KeysError::BadPolicy)
    );
    let unknown_use = Policy {
        algorithms: algorithm(A::AesCbc),
        usage: 1 << 7,
        reserved: [0; 3],
    };
    assert_eq!(
        s.generate(ALICE, unknown_use, 16),
        Err(KeysError::BadPolicy)
    );
    assert_eq!(s.held(), 1, "the provisioned key alone");
}

#[test]
fn rights_and_quotas_come_from_the_configuration() {
    let mut s = store();
    let p = policy(&[A::AesEcb], &[U::Encrypt]);
    // Alice may not import; Bob may not import; a stranger may do nothing.
    assert_eq!(s.import(ALICE, p, 16, [1; 8]), Err(KeysError::NotPermitted));
    assert_eq!(s.generate(Caller(9), p, 16), Err(KeysError::NotPermitted));
    assert_eq!(s.generate(DRIVER, p, 16), Err(KeysError::NotPermitted));
    // Bob's quota is 2: the flood stops at it, and what he holds is still his.
    let bob: Vec<u32> = (0..2).map(|_| s.generate(BOB, p, 16).unwrap()).collect();
    for _ in 0..100 {
        assert_eq!(s.generate(BOB, p, 16), Err(KeysError::QuotaExceeded));
    }
    assert!(bob.iter().all(|h| s.attributes(BOB, *h).is_ok()));
    // The driver may let Bob (its client 3) open raw-key sessions, Alice (0) not.
    // Client 6 of the driver is none of the store's, named raw.
    assert_eq!(s.raw_keys(DRIVER), Ok(1 << 3 | 1 << 6));
    assert_eq!(s.raw_keys(ALICE), Err(KeysError::NotPermitted));
    // A store whose slots are all held answers StoreFull, not another's key.
    let mut big = KeyStore::new(
        Config::parse(b"client 1 create quota=255\nclient 2 create quota=1").unwrap(),
        1,
        counting,
    );
    for _ in 0..CAPACITY {
        big.generate(ALICE, p, 16).unwrap();
    }
    assert_eq!(big.generate(BOB, p, 16), Err(KeysError::StoreFull));
    // Forgotten (its client died), every key of Alice's goes, wiped.
    assert_eq!(big.forget(ALICE), CAPACITY);
    assert_eq!((big.held(), big.wiped), (0, CAPACITY as u32));
}

#[test]
fn no_randomness_makes_no_key() {
    let mut s = KeyStore::new(Config::parse(CONFIG.as_bytes()).unwrap(), 1, failing);
    let p = policy(&[A::AesGcm], &[U::Encrypt]);
    assert_eq!(s.generate(ALICE, p, 16), Err(KeysError::NoRandomness));
    assert_eq!(s.held(), 1, "the provisioned key alone");
}

#[test]
fn a_bad_configuration_is_rejected_whole() {
    let bad: &[(&str, usize)] = &[
        ("client 62 use", 1),
        ("client 1 use\nclient 1 create", 2),
        ("client 1 fly", 1),
        ("client 1 quota=300", 1),
        ("server 4", 1),
        ("device-key 0011", 1),
        ("driver 5 0=1", 0),
        ("client 1 use\ndriver 5 0=1 0=1", 2),
        ("client 1 use\ndriver 5 0=1 0=raw", 2),
        ("driver 5 0=cooked", 1),
        (
            "client 1\ndevice-key 000102030405060708090A0B0C0D0E0F\ndevice-key 000102030405060708090A0B0C0D0E0F",
            3,
        ),
    ];
    for (text, line) in bad {
        assert_eq!(
            Config::parse(text.as_bytes()).map_err(|e| e.line),
            Err(*line),
            "{text}"
        );
    }
    // A prefilled region's zeros past the file end it.
    let mut region = b"client 1 use quota=1\n".to_vec();
    region.resize(4096, 0);
    assert!(Config::parse(&region).unwrap().client(1).is_some());
}

#[test]
fn a_client_that_comes_back_loses_its_dead_incarnations_keys() {
    let mut s = store();
    let p = policy(&[A::AesGcm], &[U::Encrypt]);
    assert_eq!(s.hello(ALICE, 1), Ok(0));
    let keys: Vec<u32> = (0..2).map(|_| s.generate(ALICE, p, 16).unwrap()).collect();
    let bob = s.generate(BOB, p, 16).unwrap();
    // The same incarnation again changes nothing.
    assert_eq!(s.hello(ALICE, 1), Ok(0));
    assert!(keys.iter().all(|h| s.attributes(ALICE, *h).is_ok()));
    // Restarted: its keys are wiped, Bob's are not, and strangers may not say hello.
    assert_eq!(s.hello(ALICE, 2), Ok(2));
    assert!(
        keys.iter()
            .all(|h| s.attributes(ALICE, *h) == Err(KeysError::UnknownKey))
    );
    assert!(s.attributes(BOB, bob).is_ok());
    assert_eq!(s.wiped, 2);
    assert_eq!(s.hello(DRIVER, 1), Err(KeysError::NotPermitted));
}

#[test]
fn a_provisioned_verify_key_is_its_owners_outlives_its_restarts_and_may_only_verify() {
    let mut s = store();
    let h = s.provisioned(ALICE, 0).unwrap();
    let a = s.attributes(ALICE, h).unwrap();
    assert_eq!((a.len, a.floor, a.owner), (32, 3, 1));
    assert_eq!(a.policy.algorithms, algorithm(A::Ed25519Verify));
    assert_eq!(
        exported(&mut s, ALICE, h),
        hex("70de32b4fcf29624db3783f5d029b194023d850d7b3ac647c4b43edd86ecbc27")
    );
    // Nobody else's, and no second one.
    assert_eq!(s.provisioned(BOB, 0), Err(KeysError::UnknownKey));
    assert_eq!(s.provisioned(ALICE, 1), Err(KeysError::UnknownKey));
    assert_eq!(s.attributes(BOB, h), Err(KeysError::UnknownKey));
    // A driver may not have it to encrypt, and Alice's restart does not wipe it.
    assert_eq!(
        s.fetch(DRIVER, 0, h, A::AesEcb, usage(U::Encrypt)),
        Err(KeysError::NotPermitted)
    );
    s.hello(ALICE, 1).unwrap();
    s.hello(ALICE, 2).unwrap();
    assert_eq!(s.provisioned(ALICE, 0), Ok(h));
    // Only public verify keys may be written in a configuration.
    for bad in [
        "client 1\nkey 1 aes-cbc encrypt 000102030405060708090a0b0c0d0e0f",
        "client 1\nkey 1 ed25519-verify sign 70de32b4fcf29624db3783f5d029b194023d850d7b3ac647c4b43edd86ecbc27",
        "client 1\nkey 1 ed25519-verify export 70de32b4fcf29624db3783f5d029b194023d850d7b3ac647c4b43edd86ecbc27",
        "key 1 ed25519-verify verify 70de32b4fcf29624db3783f5d029b194023d850d7b3ac647c4b43edd86ecbc27",
    ] {
        assert!(Config::parse(bad.as_bytes()).is_err(), "{bad}");
    }
}

/// A client that ended for good (its supervisor says so): its keys are wiped, the
/// driver serving it is told on which of its channels, once; nobody else may say it,
/// and a supervisor may say it only of its own children.
#[test]
fn a_client_its_supervisor_ended_loses_its_keys_and_its_drivers_are_told() {
    let mut s = store();
    let p = policy(&[A::AesGcm], &[U::Encrypt]);
    let alice: Vec<u32> = (0..2).map(|_| s.generate(ALICE, p, 16).unwrap()).collect();
    let bob = s.generate(BOB, p, 16).unwrap();
    assert_eq!(
        s.ended(ALICE, 2),
        Err(KeysError::NotPermitted),
        "not a supervisor"
    );
    assert_eq!(s.ended(DRIVER, 2), Err(KeysError::NotPermitted));
    assert_eq!(
        s.ended(SUPERVISOR, 3),
        Err(KeysError::NotPermitted),
        "no such child"
    );
    assert_eq!(s.take_notices(), 0);
    assert_eq!(s.ended(SUPERVISOR, 2), Ok(2), "Alice's two keys");
    assert!(
        alice
            .iter()
            .all(|h| s.attributes(ALICE, *h) == Err(KeysError::UnknownKey))
    );
    assert!(s.attributes(BOB, bob).is_ok(), "Bob's stays");
    // The driver serves Alice on its channel 0: it is notified, and asks.
    assert_eq!(s.take_notices(), 1 << 5);
    assert_eq!(s.take_notices(), 0, "once");
    assert_eq!(s.ended_clients(ALICE), Err(KeysError::NotPermitted));
    assert_eq!(s.ended_clients(DRIVER), Ok(1 << 0));
    assert_eq!(s.ended_clients(DRIVER), Ok(0), "told once");
    assert_eq!(s.ended(SUPERVISOR, 7), Ok(1));
    assert_eq!(s.ended_clients(DRIVER), Ok(1 << 3), "Bob on its channel 3");
    // A supervisor's child must be one of the store's clients, and never raw.
    for bad in [
        "supervisor 9 1=4\nclient 1 use quota=1\n",
        "supervisor 9 1=raw\n",
    ] {
        assert!(Config::parse(bad.as_bytes()).is_err(), "{bad}");
    }
}
