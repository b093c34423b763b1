//! The message layer under every generated interface: how a call and its reply sit in the
//! 64 message words of a protected procedure call, and how malformed ones are refused.
//!
//! A call is `label = op number` and the hubpack encoding of its arguments in the message
//! words. A reply's label says what it is:
//!
//! | label             | meaning                                               |
//! | ----------------- | ----------------------------------------------------- |
//! | 0                 | OK; the words hold the hubpack-encoded `ok` value     |
//! | 1 ..= 0xFFFF      | the interface's error enum, by value                  |
//! | 0x1_0000 + code   | [`ProtocolError`]: the call itself was malformed      |
//!
//! The server runtime never trusts a call: too few words, too many words, an unknown op or
//! a value no type allows are each answered with their own [`ProtocolError`].

use hubpack::SerializedSize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use zerocopy::IntoBytes;

/// Message words in one call or reply (Microkit's limit).
pub const MSG_WORDS: usize = 64;
/// Bytes those words hold.
pub const MSG_BYTES: usize = MSG_WORDS * 8;
/// Reply labels at and above this carry a [`ProtocolError`].
pub const PROTOCOL_BASE: u64 = 0x1_0000;

/// One call or reply: a label and up to 64 message words.
#[derive(Clone, PartialEq, Eq)]
pub struct Message {
    pub label: u64,
    /// Words in use (0..=64).
    pub words: usize,
    pub mrs: [u64; MSG_WORDS],
}

impl core::fmt::Debug for Message {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Message")
            .field("label", &self.label)
            .field("mrs", &&self.mrs[..self.words.min(MSG_WORDS)])
            .finish()
    }
}

impl Message {
    pub fn empty(label: u64) -> Self {
        Message {
            label,
            words: 0,
            mrs: [0; MSG_WORDS],
        }
    }

    /// `value` hubpack-encoded under `label`.
    pub fn encode<T: Serialize + SerializedSize>(label: u64, value: &T) -> Self {
        let mut msg = Message::empty(label);
        // Cannot fail: generated code asserts at compile time that T::MAX_SIZE fits.
        let n = hubpack::serialize(msg.mrs.as_mut_bytes(), value)
            .expect("interface types fit in 64 message words (asserted at build time)");
        msg.words = n.div_ceil(8);
        msg
    }

    /// The bytes of the words in use.
    pub fn payload(&self) -> &[u8] {
        &self.mrs.as_bytes()[..self.words.min(MSG_WORDS) * 8]
    }

    pub fn protocol_error(e: ProtocolError) -> Self {
        Message::empty(PROTOCOL_BASE + e as u64)
    }
}

/// Why a call was refused before reaching the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u16)]
pub enum ProtocolError {
    /// No op has this number.
    UnknownOp = 1,
    /// Fewer words than the op's arguments need.
    Truncated = 2,
    /// More words than the op's arguments can fill.
    Oversized = 3,
    /// A value no argument type allows (an unknown enum value).
    BadValue = 4,
}

impl ProtocolError {
    fn from_label(label: u64) -> Option<Self> {
        Some(match label.checked_sub(PROTOCOL_BASE)? {
            1 => ProtocolError::UnknownOp,
            2 => ProtocolError::Truncated,
            3 => ProtocolError::Oversized,
            4 => ProtocolError::BadValue,
            _ => return None,
        })
    }
}

/// A value read from shared memory or a message that its enum does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownValue(pub u64);

/// The channel a call arrived on: who the caller is, as the system description says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Caller(pub u32);

/// The server ended (faulted or was restarted) before it replied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerDied;

/// How a client stub reaches its server: a protected procedure call on the runtime.
pub trait Transport {
    fn call(&mut self, msg: &Message) -> Result<Message, ServerDied>;
}

/// Implemented by generated error enums.
pub trait ErrorCode: Sized + Copy {
    const SERVER_RESTARTED: Self;
    fn code(self) -> u16;
    fn from_code(code: u16) -> Option<Self>;
}

/// What a call through a client stub can fail with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallError<E> {
    /// The server's own answer (including `ServerRestarted`).
    Server(E),
    /// The server refused the call as malformed: client and server disagree on the
    /// interface.
    Protocol(ProtocolError),
    /// A reply the client cannot decode.
    BadReply,
}

/// Decodes a call's arguments, refusing anything but exactly the words they need.
pub fn decode_args<T: DeserializeOwned + SerializedSize>(
    msg: &Message,
) -> Result<T, ProtocolError> {
    let want = T::MAX_SIZE.div_ceil(8);
    if msg.words < want {
        return Err(ProtocolError::Truncated);
    }
    if msg.words > want {
        return Err(ProtocolError::Oversized);
    }
    match hubpack::deserialize::<T>(msg.payload()) {
        Ok((value, _padding)) => Ok(value),
        Err(hubpack::Error::Truncated | hubpack::Error::Overrun) => Err(ProtocolError::Truncated),
        Err(_) => Err(ProtocolError::BadValue),
    }
}

/// The reply for a server method's result.
pub fn reply<T: Serialize + SerializedSize, E: ErrorCode>(result: Result<T, E>) -> Message {
    match result {
        Ok(value) => Message::encode(0, &value),
        Err(e) => Message::empty(u64::from(e.code())),
    }
}

/// Decodes a reply into the client's result.
pub fn decode_reply<T: DeserializeOwned + SerializedSize, E: ErrorCode>(
    msg: &Message,
) -> Result<T, CallError<E>> {
    match msg.label {
        0 => decode_args::<T>(msg).map_err(|_| CallError::BadReply),
        code @ 1..=0xFFFF => {
            Err(E::from_code(code as u16).map_or(CallError::BadReply, CallError::Server))
        }
        label => {
            Err(ProtocolError::from_label(label).map_or(CallError::BadReply, CallError::Protocol))
        }
    }
}

/// One call through a stub: encode, send, decode; an idempotent op is sent once more if
/// the server died during the first attempt.
pub fn call<A, T, E, X>(
    transport: &mut X,
    op: u64,
    args: &A,
    idempotent: bool,
) -> Result<T, CallError<E>>
where
    A: Serialize + SerializedSize,
    T: DeserializeOwned + SerializedSize,
    E: ErrorCode,
    X: Transport,
{
    let msg = Message::encode(op, args);
    let attempts = if idempotent { 2 } else { 1 };
    for _ in 0..attempts {
        if let Ok(reply) = transport.call(&msg) {
            return decode_reply(&reply);
        }
    }
    Err(CallError::Server(E::SERVER_RESTARTED))
}

/// Arrays in calls, (de)serialized by a loop: serde's own array impls unroll an
/// element's decoding per index (`[u8; 32]` is 32 copies of the bounds check and error
/// path), which cost the size-optimised driver PDs kilobytes of flash for their keys and
/// IVs. The bytes on the wire are the same (a tuple of the elements, as serde writes an
/// array). idlc puts `#[serde(with = "wire::array")]` on every array field of a type that
/// crosses a call.
pub mod array {
    use core::marker::PhantomData;

    use serde::de::{Error, SeqAccess, Visitor};
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize, const N: usize>(
        array: &[T; N],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(N)?;
        for e in array {
            t.serialize_element(e)?;
        }
        t.end()
    }

    pub fn deserialize<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
    where
        D: Deserializer<'de>,
        T: Deserialize<'de> + Copy + Default,
    {
        struct Elements<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Copy + Default, const N: usize> Visitor<'de> for Elements<T, N> {
            type Value = [T; N];
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "an array of {N}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
                let mut out = [T::default(); N];
                for (i, slot) in out.iter_mut().enumerate() {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| A::Error::invalid_length(i, &self))?;
                }
                Ok(out)
            }
        }
        d.deserialize_tuple(N, Elements::<T, N>(PhantomData))
    }
}
