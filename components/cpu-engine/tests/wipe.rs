//! A closed Cipher session leaves no key in the driver's session table: the table hands
//! it to the interface's `closed` in its slot, and Cipher's (its session is `Copy`, so
//! it cannot wipe itself when dropped) zeroes the key there.
use cipher_service::{Cipher, Session};
use cpu_engine::CpuEngine;
use pd_idl::cipher::{Mode, Path};
use pd_idl::wire::Caller;
use queued_service::{Interface, Sessions};

#[test]
fn closing_a_cipher_session_zeroes_its_key_where_it_lies() {
    let mut engine = CpuEngine::default();
    let mut sessions: Sessions<Session> = Sessions::default();
    let owner = Caller(1);
    let session = Session {
        iv: [0x11; 16],
        key: [0x5a; 32],
        owner,
        mode: Mode::Cbc,
        path: Path::Adaptive,
        key_len: 32,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
    };
    let id = sessions.open(owner, (), |_| Ok(session)).unwrap();
    let seen = sessions
        .close_with(owner, id, |s| {
            <Cipher<CpuEngine> as Interface>::closed(&mut engine, s);
            s.key
        })
        .unwrap();
    assert_eq!(seen, [0; 32], "wiped in the slot before it was dropped");
}
