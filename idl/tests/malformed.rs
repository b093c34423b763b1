//! Malformed calls never reach the server: each is answered with its own protocol error.
//! Replies a client cannot make sense of are errors too, never panics.

use pd_idl::wire::{self, CallError, Caller, Message, ProtocolError};
use pd_idl::{cipher, power};

/// A server that must not be reached.
struct Untouchable;

impl power::Server for Untouchable {
    fn acquire(&mut self, _: Caller, _: power::Engine) -> Result<power::Grant, power::PowerError> {
        panic!("a malformed call reached the server")
    }
    fn release(&mut self, _: Caller, _: power::Grant) -> Result<(), power::PowerError> {
        panic!("a malformed call reached the server")
    }
}

fn answer(msg: &Message) -> u64 {
    power::dispatch(&mut Untouchable, Caller(0), msg).label
}

fn protocol(e: ProtocolError) -> u64 {
    wire::PROTOCOL_BASE + e as u64
}

#[test]
fn unknown_ops() {
    for label in [0, 3, 4, 0xFFFF, u64::MAX] {
        let mut msg = Message::empty(label);
        msg.words = 1;
        assert_eq!(
            answer(&msg),
            protocol(ProtocolError::UnknownOp),
            "op {label}"
        );
    }
}

#[test]
fn truncated_and_oversized_arguments() {
    // acquire takes one byte: one word.
    let mut msg = Message::empty(power::OP_ACQUIRE);
    msg.words = 0;
    assert_eq!(answer(&msg), protocol(ProtocolError::Truncated));
    for words in [2, 9, 64, 65, usize::MAX] {
        msg.words = words;
        msg.mrs[0] = power::Engine::Sec1 as u64;
        assert_eq!(
            answer(&msg),
            protocol(ProtocolError::Oversized),
            "{words} words"
        );
    }
}

#[test]
fn values_no_type_allows() {
    for bad in [0u64, 5, 0xFF] {
        let mut msg = Message::empty(power::OP_ACQUIRE);
        msg.words = 1;
        msg.mrs[0] = bad;
        assert_eq!(
            answer(&msg),
            protocol(ProtocolError::BadValue),
            "engine {bad}"
        );
    }
    // An unknown engine inside a Grant struct: the raw field carries it, so the call
    // decodes and it is the server's job to refuse (see the power manager).
    let mut msg = Message::empty(power::OP_RELEASE);
    msg.words = 1;
    msg.mrs[0] = 0xEE;
    let mut recorded = None;
    struct Catch<'a>(&'a mut Option<power::Grant>);
    impl power::Server for Catch<'_> {
        fn acquire(
            &mut self,
            _: Caller,
            _: power::Engine,
        ) -> Result<power::Grant, power::PowerError> {
            unreachable!()
        }
        fn release(&mut self, _: Caller, g: power::Grant) -> Result<(), power::PowerError> {
            *self.0 = Some(g);
            g.engine
                .get()
                .map(|_| ())
                .map_err(|_| power::PowerError::UnknownEngine)
        }
    }
    let reply = power::dispatch(&mut Catch(&mut recorded), Caller(0), &msg);
    assert_eq!(reply.label, power::PowerError::UnknownEngine as u64);
    assert_eq!(
        recorded.unwrap().engine.get(),
        Err(wire::UnknownValue(0xEE))
    );
}

#[test]
fn every_protocol_error_decodes_on_the_client() {
    for e in [
        ProtocolError::UnknownOp,
        ProtocolError::Truncated,
        ProtocolError::Oversized,
        ProtocolError::BadValue,
    ] {
        let r: Result<(), CallError<cipher::CipherError>> =
            wire::decode_reply(&Message::protocol_error(e));
        assert_eq!(r, Err(CallError::Protocol(e)));
    }
}

#[test]
fn nonsense_replies_are_bad_replies() {
    type R = Result<u32, CallError<cipher::CipherError>>;
    // An error code the enum lacks.
    let r: R = wire::decode_reply(&Message::empty(999));
    assert_eq!(r, Err(CallError::BadReply));
    // A protocol code nobody defined.
    let r: R = wire::decode_reply(&Message::empty(wire::PROTOCOL_BASE + 77));
    assert_eq!(r, Err(CallError::BadReply));
    // OK with too few words for a u32.
    let r: R = wire::decode_reply(&Message::empty(0));
    assert_eq!(r, Err(CallError::BadReply));
    // OK with far too many.
    let mut m = Message::empty(0);
    m.words = 64;
    let r: R = wire::decode_reply(&m);
    assert_eq!(r, Err(CallError::BadReply));
}

#[test]
fn every_argument_set_fits_in_64_words() {
    // That it fits in 64 words is asserted at compile time; this pins the encoding.
    use hubpack::SerializedSize;
    assert_eq!(cipher::OpenSessionArgs::MAX_SIZE, 1 + 1 + 1 + 32 + 16);
}
