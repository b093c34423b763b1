//! Every call of every interface, through the client stub, the message words and the
//! server dispatch, arrives intact and its reply comes back intact.

use std::cell::RefCell;

use pd_idl::wire::{self, CallError, Caller, Message, ServerDied, Transport};
use pd_idl::{cipher, digest, power};
use proptest::prelude::*;

/// A transport that dispatches straight into a server, as a PPC would, recording the
/// message words so tests can check what crossed.
struct Loopback<'s, F> {
    serve: F,
    sent: &'s RefCell<Vec<Message>>,
}

impl<F: FnMut(&Message) -> Message> Transport for Loopback<'_, F> {
    fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
        assert!(msg.words <= wire::MSG_WORDS);
        self.sent.borrow_mut().push(msg.clone());
        Ok((self.serve)(msg))
    }
}

/// Records what reached it and answers with what the test chose.
#[derive(Default)]
struct Recorder {
    seen: Vec<String>,
    fail: Option<u16>,
}

impl power::Server for Recorder {
    fn acquire(
        &mut self,
        caller: Caller,
        engine: power::Engine,
    ) -> Result<power::Grant, power::PowerError> {
        self.seen.push(format!("acquire {caller:?} {engine:?}"));
        match self.fail {
            Some(code) => Err(power::PowerError::try_from(code).unwrap()),
            None => Ok(power::Grant {
                engine: engine.into(),
                reserved: [0; 3],
                generation: 7,
            }),
        }
    }

    fn release(&mut self, caller: Caller, grant: power::Grant) -> Result<(), power::PowerError> {
        self.seen.push(format!("release {caller:?} {grant:?}"));
        Ok(())
    }
}

impl cipher::Server for Recorder {
    fn open_session(
        &mut self,
        caller: Caller,
        mode: cipher::Mode,
        path: cipher::Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, cipher::CipherError> {
        self.seen.push(format!(
            "open {caller:?} {mode:?} {path:?} {key_len} {key:?} {iv:?}"
        ));
        match self.fail {
            Some(code) => Err(cipher::CipherError::try_from(code).unwrap()),
            None => Ok(u32::from(key_len) << 16 | u32::from(key[0])),
        }
    }

    fn open_session_by_key(
        &mut self,
        caller: Caller,
        mode: cipher::Mode,
        path: cipher::Path,
        handle: u32,
        usage: u8,
        iv: [u8; 16],
    ) -> Result<u32, cipher::CipherError> {
        self.seen.push(format!(
            "open by key {caller:?} {mode:?} {path:?} {handle:#x} {usage} {iv:?}"
        ));
        Ok(handle ^ u32::from(usage))
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), cipher::CipherError> {
        self.seen.push(format!("close {caller:?} {session}"));
        Ok(())
    }

    fn capabilities(&mut self, caller: Caller) -> Result<u64, cipher::CipherError> {
        self.seen.push(format!("capabilities {caller:?}"));
        match self.fail {
            Some(code) => Err(cipher::CipherError::try_from(code).unwrap()),
            None => Ok(1 << cipher::Mode::Cbc as u8 | 1 << 63),
        }
    }
}

impl digest::Server for Recorder {
    fn open_session(
        &mut self,
        caller: Caller,
        algorithm: digest::Algorithm,
        path: digest::HashPath,
    ) -> Result<u32, digest::DigestError> {
        self.seen
            .push(format!("open {caller:?} {algorithm:?} {path:?}"));
        Ok(algorithm as u32 * 10 + path as u32)
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), digest::DigestError> {
        self.seen.push(format!("close {caller:?} {session}"));
        match self.fail {
            Some(code) => Err(digest::DigestError::try_from(code).unwrap()),
            None => Ok(()),
        }
    }

    fn capabilities(&mut self, caller: Caller) -> Result<u64, digest::DigestError> {
        self.seen.push(format!("capabilities {caller:?}"));
        Ok(u64::MAX)
    }
}

#[test]
fn power_calls_round_trip() {
    let server = RefCell::new(Recorder::default());
    let sent = RefCell::new(Vec::new());
    let mut client = power::Client::new(Loopback {
        serve: |m: &Message| power::dispatch(&mut *server.borrow_mut(), Caller(3), m),
        sent: &sent,
    });
    for engine in power::Engine::ALL {
        let grant = client.acquire(engine).unwrap();
        assert_eq!(grant.engine.get(), Ok(engine));
        assert_eq!(grant.generation, 7);
        assert_eq!(client.release(grant), Ok(()));
    }
    {
        let seen = &server.borrow().seen;
        assert_eq!(seen.len(), 8);
        assert_eq!(seen[0], "acquire Caller(3) OmapAes");
        assert!(seen[1].starts_with("release Caller(3) Grant { engine: EngineRaw(1)"));
    }
    // Ops are numbered from 1 in file order; an engine travels as its declared value.
    assert_eq!(sent.borrow()[0].label, power::OP_ACQUIRE);
    assert_eq!(power::OP_ACQUIRE, 1);
    assert_eq!(power::OP_RELEASE, 2);
    assert_eq!(sent.borrow()[0].payload()[0], power::Engine::OmapAes as u8);

    server.borrow_mut().fail = Some(power::PowerError::StaleGrant as u16);
    assert_eq!(
        client.acquire(power::Engine::Sec1),
        Err(CallError::Server(power::PowerError::StaleGrant))
    );
}

proptest! {
    #[test]
    fn cipher_open_carries_every_argument(
        mode in prop::sample::select(cipher::Mode::ALL.to_vec()),
        path in prop::sample::select(cipher::Path::ALL.to_vec()),
        key_len in any::<u8>(),
        key in any::<[u8; 32]>(),
        iv in any::<[u8; 16]>(),
    ) {
        let server = RefCell::new(Recorder::default());
        let sent = RefCell::new(Vec::new());
        let mut client = cipher::Client::new(Loopback {
            serve: |m: &Message| cipher::dispatch(&mut *server.borrow_mut(), Caller(9), m),
            sent: &sent,
        });
        let session = client.open_session(mode, path, key_len, key, iv).unwrap();
        prop_assert_eq!(session, u32::from(key_len) << 16 | u32::from(key[0]));
        prop_assert_eq!(
            &server.borrow().seen[0],
            &format!("open Caller(9) {mode:?} {path:?} {key_len} {key:?} {iv:?}")
        );
        prop_assert_eq!(client.close_session(session), Ok(()));
        prop_assert_eq!(&server.borrow().seen[1], &format!("close Caller(9) {session}"));
    }
}

/// `capabilities` takes no argument words and answers all 64 bits; an error is typed; a
/// call with words it does not take is a protocol error that never reaches the server.
#[test]
fn capabilities_round_trip() {
    let server = RefCell::new(Recorder::default());
    let sent = RefCell::new(Vec::new());
    let mut client = cipher::Client::new(Loopback {
        serve: |m: &Message| cipher::dispatch(&mut *server.borrow_mut(), Caller(2), m),
        sent: &sent,
    });
    assert_eq!(client.capabilities(), Ok(1 << 2 | 1 << 63));
    assert_eq!(cipher::OP_CAPABILITIES, 3);
    assert_eq!(sent.borrow()[0].words, 0, "no argument words");
    assert_eq!(server.borrow().seen, ["capabilities Caller(2)"]);
    server.borrow_mut().fail = Some(cipher::CipherError::BadRequest as u16);
    assert_eq!(
        client.capabilities(),
        Err(CallError::Server(cipher::CipherError::BadRequest))
    );
    let mut with_words = Message::empty(cipher::OP_CAPABILITIES);
    with_words.words = 1;
    let reply = cipher::dispatch(&mut *server.borrow_mut(), Caller(2), &with_words);
    assert_eq!(
        reply.label,
        wire::PROTOCOL_BASE + wire::ProtocolError::Oversized as u64
    );
    assert_eq!(
        server.borrow().seen.len(),
        2,
        "the malformed call reached nobody"
    );
    let mut digests = digest::Client::new(Loopback {
        serve: |m: &Message| digest::dispatch(&mut *server.borrow_mut(), Caller(2), m),
        sent: &sent,
    });
    assert_eq!(digests.capabilities(), Ok(u64::MAX));
}

/// A session by handle carries the handle and the usages, and no key bytes.
#[test]
fn open_by_key_round_trips_without_key_bytes() {
    let server = RefCell::new(Recorder::default());
    let sent = RefCell::new(Vec::new());
    let mut client = cipher::Client::new(Loopback {
        serve: |m: &Message| cipher::dispatch(&mut *server.borrow_mut(), Caller(5), m),
        sent: &sent,
    });
    let opened = client.open_session_by_key(
        cipher::Mode::Ctr,
        cipher::Path::Dma,
        0xA5A5_0102,
        2,
        [7; 16],
    );
    assert_eq!(opened, Ok(0xA5A5_0100));
    assert_eq!(cipher::OP_OPEN_SESSION_BY_KEY, 4);
    // mode, path, handle, usage, IV: 1 + 1 + 4 + 1 + 16 bytes in three words.
    assert_eq!(sent.borrow()[0].words, 3);
    assert_eq!(
        server.borrow().seen,
        [format!(
            "open by key Caller(5) Ctr Dma 0xa5a50102 2 {:?}",
            [7u8; 16]
        )]
    );
}

#[test]
fn cipher_errors_come_back_typed() {
    let server = RefCell::new(Recorder::default());
    let sent = RefCell::new(Vec::new());
    let mut client = cipher::Client::new(Loopback {
        serve: |m: &Message| cipher::dispatch(&mut *server.borrow_mut(), Caller(1), m),
        sent: &sent,
    });
    for e in cipher::CipherError::ALL {
        server.borrow_mut().fail = Some(e as u16);
        let r = client.open_session(cipher::Mode::Cbc, cipher::Path::Dma, 16, [0; 32], [0; 16]);
        assert_eq!(r, Err(CallError::Server(e)));
        assert_eq!(sent.borrow().last().unwrap().label, cipher::OP_OPEN_SESSION);
    }
}

#[test]
fn digest_calls_round_trip() {
    let server = RefCell::new(Recorder::default());
    let sent = RefCell::new(Vec::new());
    let mut client = digest::Client::new(Loopback {
        serve: |m: &Message| digest::dispatch(&mut *server.borrow_mut(), Caller(2), m),
        sent: &sent,
    });
    for alg in digest::Algorithm::ALL {
        for path in digest::HashPath::ALL {
            let s = client.open_session(alg, path).unwrap();
            assert_eq!(s, alg as u32 * 10 + path as u32);
        }
    }
    server.borrow_mut().fail = Some(digest::DigestError::UnknownSession as u16);
    assert_eq!(
        client.close_session(99),
        Err(CallError::Server(digest::DigestError::UnknownSession))
    );
    assert_eq!(server.borrow().seen.last().unwrap(), "close Caller(2) 99");
}

/// A server that dies during the first `deaths` calls.
struct Dying<'a> {
    deaths: u32,
    calls: u32,
    server: &'a RefCell<Recorder>,
}

impl Transport for Dying<'_> {
    fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
        self.calls += 1;
        if self.calls <= self.deaths {
            return Err(ServerDied);
        }
        Ok(cipher::dispatch(
            &mut *self.server.borrow_mut(),
            Caller(0),
            msg,
        ))
    }
}

#[test]
fn restarts_are_reported_and_idempotent_ops_retried_once() {
    let server = RefCell::new(Recorder::default());
    let mut client = cipher::Client::new(Dying {
        deaths: 1,
        calls: 0,
        server: &server,
    });
    // open_session is not idempotent: one death is reported, not retried.
    assert_eq!(
        client.open_session(cipher::Mode::Ctr, cipher::Path::Pio, 16, [1; 32], [0; 16]),
        Err(CallError::Server(cipher::CipherError::ServerRestarted))
    );
    assert_eq!(client.transport().calls, 1);
    // close_session is idempotent: retried once after a death, and succeeds.
    client.transport().deaths = 2;
    assert_eq!(client.close_session(5), Ok(()));
    assert_eq!(client.transport().calls, 3);
    // ...but not forever.
    client.transport().deaths = 10;
    assert_eq!(
        client.close_session(5),
        Err(CallError::Server(cipher::CipherError::ServerRestarted))
    );
    assert_eq!(client.transport().calls, 5);
}
