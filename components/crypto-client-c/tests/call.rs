//! The generated C call stubs (idl/include/crypto_pd/*.h) through crypto_pd_invoke,
//! against the Rust side's own `dispatch` and wire layer: the C encoding of each op's
//! arguments is what the Rust server decodes, the Rust reply is what the C stub
//! decodes; malformed and forged replies are BAD_REPLY; a server that dies is
//! ServerRestarted, after a second attempt for an idempotent op only.

mod common;

use std::ffi::c_void;

use common::c;
use pd_idl::wire::{self, Caller, Message, ProtocolError};
use pd_idl::{cipher, power};

type Call = extern "C" fn(*mut c_void, u64, u32, *mut u64, *mut u64, *mut u32) -> i32;

/// `crypto_pd_transport_t`.
#[repr(C)]
struct Transport {
    call: Call,
    ctx: *mut c_void,
}

/// What the transport does with a call.
enum Behaviour {
    /// Runs `dispatch` on the server.
    Serve,
    /// Reports the server dead this many more times, then serves.
    Die(u32),
    /// Answers with this label and word count, whatever the call.
    Forge(u64, u32),
}

struct Ctx {
    behaviour: Behaviour,
    /// Each call as the Rust side received it.
    calls: Vec<Message>,
    cipher: Cipher,
    power: Power,
    /// Which interface the calls are for.
    power_calls: bool,
}

/// An `open_session`'s arguments as the server received them.
type Opened = (cipher::Mode, cipher::Path, u8, [u8; 32], [u8; 16]);

/// An `open_session_by_key`'s arguments as the server received them.
type OpenedByKey = (cipher::Mode, cipher::Path, u32, u8, [u8; 16]);

#[derive(Default)]
struct Cipher {
    opened: Vec<Opened>,
    by_key: Vec<OpenedByKey>,
    closed: Vec<u32>,
}

impl cipher::Server for Cipher {
    fn open_session(
        &mut self,
        _: Caller,
        mode: cipher::Mode,
        path: cipher::Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, cipher::CipherError> {
        if key_len != 16 {
            return Err(cipher::CipherError::BadKeySize);
        }
        self.opened.push((mode, path, key_len, key, iv));
        Ok(0x0102_0304 + self.opened.len() as u32)
    }
    /// Handle 7 is the caller's; any other is unknown.
    fn open_session_by_key(
        &mut self,
        _: Caller,
        mode: cipher::Mode,
        path: cipher::Path,
        handle: u32,
        usage: u8,
        iv: [u8; 16],
    ) -> Result<u32, cipher::CipherError> {
        if handle != 7 {
            return Err(cipher::CipherError::UnknownKey);
        }
        self.by_key.push((mode, path, handle, usage, iv));
        Ok(0x0A0B_0C0D)
    }
    fn close_session(&mut self, _: Caller, session: u32) -> Result<(), cipher::CipherError> {
        self.closed.push(session);
        Ok(())
    }
    fn capabilities(&mut self, _: Caller) -> Result<u64, cipher::CipherError> {
        Ok(1 << cipher::Mode::Ecb as u8 | 1 << cipher::Mode::Cbc as u8)
    }
}

#[derive(Default)]
struct Power;

impl power::Server for Power {
    fn acquire(
        &mut self,
        _: Caller,
        engine: power::Engine,
    ) -> Result<power::Grant, power::PowerError> {
        Ok(power::Grant {
            engine: engine.into(),
            reserved: [0; 3],
            generation: 0xA1B2_C3D4,
        })
    }
    fn release(&mut self, _: Caller, grant: power::Grant) -> Result<(), power::PowerError> {
        if grant.generation == 0xA1B2_C3D4 {
            Ok(())
        } else {
            Err(power::PowerError::StaleGrant)
        }
    }
}

extern "C" fn call(
    ctx: *mut c_void,
    label: u64,
    words: u32,
    mrs: *mut u64,
    reply_label: *mut u64,
    reply_words: *mut u32,
) -> i32 {
    // SAFETY: the test's context, and the C caller's 64 words and out values.
    let (ctx, mrs, reply_label, reply_words) = unsafe {
        (
            &mut *ctx.cast::<Ctx>(),
            std::slice::from_raw_parts_mut(mrs, wire::MSG_WORDS),
            &mut *reply_label,
            &mut *reply_words,
        )
    };
    let mut msg = Message::empty(label);
    msg.words = words as usize;
    msg.mrs[..words as usize].copy_from_slice(&mrs[..words as usize]);
    ctx.calls.push(msg.clone());
    let reply = match ctx.behaviour {
        Behaviour::Die(0) | Behaviour::Serve => {
            if ctx.power_calls {
                power::dispatch(&mut ctx.power, Caller(1), &msg)
            } else {
                cipher::dispatch(&mut ctx.cipher, Caller(1), &msg)
            }
        }
        Behaviour::Die(ref mut n) => {
            *n -= 1;
            return 1;
        }
        Behaviour::Forge(label, words) => {
            let mut m = Message::empty(label);
            m.words = words as usize;
            m
        }
    };
    *reply_label = reply.label;
    *reply_words = reply.words as u32;
    mrs[..reply.words].copy_from_slice(&reply.mrs[..reply.words]);
    0
}

fn ctx(behaviour: Behaviour) -> Box<Ctx> {
    Box::new(Ctx {
        behaviour,
        calls: Vec::new(),
        cipher: Cipher::default(),
        power: Power,
        power_calls: false,
    })
}

fn transport(ctx: &mut Ctx) -> Transport {
    Transport {
        call,
        ctx: (ctx as *mut Ctx).cast(),
    }
}

type OpenSession =
    extern "C" fn(*const Transport, u8, u8, u8, *const u8, *const u8, *mut u32) -> u32;

fn open(t: &Transport, mode: u8, key_len: u8, session: &mut u32) -> u32 {
    // SAFETY: tests/c/stubs.c's declaration.
    let f: OpenSession = unsafe { c().lib.sym("test_cipher_open_session") };
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let iv: [u8; 16] = core::array::from_fn(|i| 0xF0 | i as u8);
    f(t, mode, 2, key_len, key.as_ptr(), iv.as_ptr(), session)
}

fn close(t: &Transport, session: u32) -> u32 {
    // SAFETY: as `open`.
    let f: extern "C" fn(*const Transport, u32) -> u32 =
        unsafe { c().lib.sym("test_cipher_close_session") };
    f(t, session)
}

const OK: u32 = 0;
const BAD_REPLY: u32 = 0x2_0000;

#[test]
fn c_calls_are_what_the_rust_server_decodes() {
    let mut cx = ctx(Behaviour::Serve);
    let t = transport(&mut cx);
    let mut session = 0;
    assert_eq!(open(&t, cipher::Mode::Cbc as u8, 16, &mut session), OK);
    assert_eq!(session, 0x0102_0305);
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let iv: [u8; 16] = core::array::from_fn(|i| 0xF0 | i as u8);
    assert_eq!(
        cx.cipher.opened,
        [(cipher::Mode::Cbc, cipher::Path::Pio, 16, key, iv)]
    );
    // Word for word what the Rust client stub sends for the same call.
    let args = cipher::OpenSessionArgs {
        mode: cipher::Mode::Cbc,
        path: cipher::Path::Pio,
        key_len: 16,
        key,
        iv,
    };
    assert_eq!(cx.calls[0], Message::encode(cipher::OP_OPEN_SESSION, &args));
    // The server's error comes back as its code.
    assert_eq!(
        open(&t, cipher::Mode::Cbc as u8, 15, &mut session),
        cipher::CipherError::BadKeySize as u32
    );
    assert_eq!(close(&t, 77), OK);
    assert_eq!(cx.cipher.closed, [77]);
    // A value no type allows is refused by the Rust dispatch, before the server.
    assert_eq!(
        open(&t, 9, 16, &mut session),
        wire::PROTOCOL_BASE as u32 + ProtocolError::BadValue as u32
    );
    assert_eq!(cx.cipher.opened.len(), 1);
}

#[test]
fn struct_arguments_and_replies_cross_both_ways() {
    let mut cx = ctx(Behaviour::Serve);
    cx.power_calls = true;
    let t = transport(&mut cx);
    // SAFETY: tests/c/stubs.c's declarations; power_grant_t is Grant's layout (asserted
    // by both sides).
    let acquire: extern "C" fn(*const Transport, u8, *mut power::Grant) -> u32 =
        unsafe { c().lib.sym("test_power_acquire") };
    let release: extern "C" fn(*const Transport, *const power::Grant) -> u32 =
        unsafe { c().lib.sym("test_power_release") };
    let mut grant = power::Grant {
        engine: power::EngineRaw(0),
        reserved: [9; 3],
        generation: 0,
    };
    assert_eq!(acquire(&t, power::Engine::Sec1 as u8, &mut grant), OK);
    assert_eq!(grant.engine.get(), Ok(power::Engine::Sec1));
    assert_eq!((grant.reserved, grant.generation), ([0; 3], 0xA1B2_C3D4));
    assert_eq!(release(&t, &grant), OK);
    grant.generation = 1;
    assert_eq!(release(&t, &grant), power::PowerError::StaleGrant as u32);
}

#[test]
fn malformed_and_forged_replies_are_bad_replies() {
    let mut session = 0;
    for (label, words, want) in [
        // OK with the wrong number of words for a u32.
        (0, 0, BAD_REPLY),
        (0, 2, BAD_REPLY),
        // An error code the interface does not have.
        (999, 0, BAD_REPLY),
        // A protocol error the wire layer does not have, and a label past them all.
        (wire::PROTOCOL_BASE + 9, 0, BAD_REPLY),
        (u64::MAX, 0, BAD_REPLY),
        // Known ones pass through.
        (
            wire::PROTOCOL_BASE + 1,
            0,
            wire::PROTOCOL_BASE as u32 + ProtocolError::UnknownOp as u32,
        ),
        (
            cipher::CipherError::NoPower as u64,
            0,
            cipher::CipherError::NoPower as u32,
        ),
    ] {
        let mut cx = ctx(Behaviour::Forge(label, words));
        let t = transport(&mut cx);
        assert_eq!(
            open(&t, 1, 16, &mut session),
            want,
            "label {label:#x}, {words} words"
        );
    }
}

#[test]
fn a_dead_server_is_server_restarted_and_idempotent_ops_retry_once() {
    let restarted = cipher::CipherError::ServerRestarted as u32;
    let mut session = 0;
    // open_session is not idempotent: one attempt.
    let mut cx = ctx(Behaviour::Die(1));
    let t = transport(&mut cx);
    assert_eq!(open(&t, 1, 16, &mut session), restarted);
    assert_eq!(cx.calls.len(), 1);
    // close_session is: the second attempt reaches the restarted server, with the
    // same words.
    let mut cx = ctx(Behaviour::Die(1));
    let t = transport(&mut cx);
    assert_eq!(close(&t, 5), OK);
    assert_eq!(cx.calls.len(), 2);
    assert_eq!(cx.calls[0], cx.calls[1]);
    assert_eq!(cx.cipher.closed, [5]);
    // Dead twice: reported, not retried a third time.
    let mut cx = ctx(Behaviour::Die(2));
    let t = transport(&mut cx);
    assert_eq!(close(&t, 5), restarted);
    assert_eq!(cx.calls.len(), 2);
}

type OpenByKey = extern "C" fn(*const Transport, u8, u8, u32, u8, *const u8, *mut u32) -> u32;

/// A C client opens a session by key handle with the generated stub: no key bytes in
/// the call, word for word what the Rust client sends, and the store's refusal comes
/// back as its code.
#[test]
fn a_c_client_opens_a_session_by_key_handle() {
    let mut cx = ctx(Behaviour::Serve);
    let t = transport(&mut cx);
    // SAFETY: tests/c/stubs.c's declaration.
    let f: OpenByKey = unsafe { c().lib.sym("test_cipher_open_session_by_key") };
    let iv: [u8; 16] = core::array::from_fn(|i| 0xA0 | i as u8);
    let (ctr, adaptive) = (cipher::Mode::Ctr, cipher::Path::Adaptive);
    let mut session = 0;
    let open = |handle, session: &mut u32| {
        f(
            &t,
            ctr as u8,
            adaptive as u8,
            handle,
            2,
            iv.as_ptr(),
            session,
        )
    };
    assert_eq!(open(7, &mut session), OK);
    assert_eq!(session, 0x0A0B_0C0D);
    assert_eq!(
        open(8, &mut session),
        cipher::CipherError::UnknownKey as u32
    );
    assert_eq!(cx.cipher.by_key, [(ctr, adaptive, 7, 2, iv)]);
    let args = cipher::OpenSessionByKeyArgs {
        mode: ctr,
        path: adaptive,
        handle: 7,
        usage: 2,
        iv,
    };
    assert_eq!(
        cx.calls[0],
        Message::encode(cipher::OP_OPEN_SESSION_BY_KEY, &args)
    );
}
