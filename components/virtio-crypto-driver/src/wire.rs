//! Everything the driver and the device exchange through memory: the split-virtqueue
//! structures (virtio 1.2 §2.7, `virtio-mmio`'s, re-exported) and virtio-crypto
//! requests (§5.9). All little-endian
//! (§2.7 and §5.9: `le16`/`le32`/`le64` fields, whatever the CPU), built from zerocopy's
//! byte-order types so they have no padding and alignment 1, and can sit at any offset.

use static_assertions::const_assert_eq;
use zerocopy::little_endian::{U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout};

pub use virtio_mmio::ring::*;

/// virtio-crypto service numbers (§5.9.4 `crypto_services` bits; §5.9.7.2 opcodes).
pub mod service {
    pub const CIPHER: u32 = 0;
}

/// `VIRTIO_CRYPTO_OPCODE(service, op)` (§5.9.7.2): service in bits 8.., op below.
const fn opcode(service: u32, op: u32) -> u32 {
    (service << 8) | op
}

/// Control-queue opcodes (§5.9.7.2).
pub mod ctrl_op {
    use super::{opcode, service};
    pub const CIPHER_CREATE_SESSION: u32 = opcode(service::CIPHER, 0x02);
    pub const CIPHER_DESTROY_SESSION: u32 = opcode(service::CIPHER, 0x03);
}

/// Data-queue opcodes (§5.9.7.3 `struct virtio_crypto_op_header`).
pub mod data_op {
    use super::{opcode, service};
    pub const CIPHER_ENCRYPT: u32 = opcode(service::CIPHER, 0x00);
    pub const CIPHER_DECRYPT: u32 = opcode(service::CIPHER, 0x01);
}

/// Cipher algorithm numbers (§5.9.4.1 "CIPHER services"; bits of `cipher_algo_l`).
pub mod cipher_algo {
    pub const AES_ECB: u32 = 2;
    pub const AES_CBC: u32 = 3;
    pub const AES_CTR: u32 = 4;
}

/// Session direction (`op` of `struct virtio_crypto_cipher_session_para`, §5.9.7.2.1.3).
pub mod session_op {
    pub const ENCRYPT: u32 = 1;
    pub const DECRYPT: u32 = 2;
}

/// `op_type` of symmetric sessions and requests (§5.9.7.2.1.3, §5.9.7.6): cipher only, no chaining.
pub const SYM_OP_CIPHER: u32 = 1;

/// Status codes the device returns (§5.9.7.1 "Operation Status").
pub mod status {
    pub const OK: u32 = 0;
    pub const ERR: u32 = 1;
    pub const BADMSG: u32 = 2;
    pub const NOTSUPP: u32 = 3;
    pub const INVSESS: u32 = 4;
    pub const NOSPC: u32 = 5;
    pub const KEY_REJECTED: u32 = 6;
}

/// Header of every control request (§5.9.7.2 `struct virtio_crypto_ctrl_header`; the
/// spec calls the last field reserved, Linux and QEMU use it as the data queue's index).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct CtrlHeader {
    pub opcode: U32,
    pub algo: U32,
    pub flag: U32,
    pub queue_id: U32,
}
const_assert_eq!(size_of::<CtrlHeader>(), 16);

/// `struct virtio_crypto_cipher_session_para` (§5.9.7.2.1.3).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct CipherSessionPara {
    pub algo: U32,
    pub keylen: U32,
    pub op: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<CipherSessionPara>(), 16);

/// `struct virtio_crypto_sym_create_session_req` for a plain cipher (§5.9.7.2.1.3): the
/// 48-byte union holds the cipher parameters, then `op_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct SymCreateSession {
    pub para: CipherSessionPara,
    pub union_padding: [u8; 32],
    pub op_type: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<SymCreateSession>(), 56);

/// `struct virtio_crypto_destroy_session_flf` padded to 56 bytes (§5.9.7.2.1, destroy session).
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DestroySession {
    pub session_id: U64,
    pub padding: [u8; 48],
}
const_assert_eq!(size_of::<DestroySession>(), 56);

/// `struct virtio_crypto_op_ctrl_req` (§5.9.7.2): the header and the opcode's fixed-length
/// fields, padded to VIRTIO_CRYPTO_CTRLQ_OP_SPEC_HDR_LEGACY = 56 bytes because
/// VIRTIO_CRYPTO_F_REVISION_1 is not negotiated; the key follows as its own buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct CtrlReq {
    pub header: CtrlHeader,
    pub body: [u8; 56],
}
const_assert_eq!(size_of::<CtrlReq>(), 72);

/// What a create-session request gets back (§5.9.7.2.1 `struct virtio_crypto_create_session_input`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct SessionInput {
    pub session_id: U64,
    pub status: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<SessionInput>(), 16);

/// Header of every data request (§5.9.7.3 `struct virtio_crypto_op_header`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct OpHeader {
    pub opcode: U32,
    pub algo: U32,
    pub session_id: U64,
    pub flag: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<OpHeader>(), 24);

/// `struct virtio_crypto_cipher_para` (§5.9.7.6): IV and data lengths in bytes.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout,
)]
#[repr(C)]
pub struct CipherPara {
    pub iv_len: U32,
    pub src_data_len: U32,
    pub dst_data_len: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<CipherPara>(), 16);

/// `struct virtio_crypto_op_data_req` for a plain cipher (§5.9.7.3, §5.9.7.6): header, then
/// `struct virtio_crypto_sym_data_req` (a 40-byte union holding the cipher parameters,
/// then `op_type`): the 48 fixed-length bytes of VIRTIO_CRYPTO_DATAQ_OP_SPEC_HDR_LEGACY
/// (REVISION_1 not negotiated), 72 bytes in all. IV, source, destination and a status byte follow as
/// separate buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, FromBytes, IntoBytes, Immutable, KnownLayout)]
#[repr(C)]
pub struct DataReq {
    pub header: OpHeader,
    pub para: CipherPara,
    pub union_padding: [u8; 24],
    pub op_type: U32,
    pub padding: U32,
}
const_assert_eq!(size_of::<DataReq>(), 72);

/// The device-writable status byte that ends a data request (§5.9.7.3 `struct
/// virtio_crypto_inhdr`) or a destroy-session request (§5.9.7.2.1).
pub const INHDR_LEN: usize = 1;

/// Offsets into the virtio-crypto configuration space (§5.9.5 `struct
/// virtio_crypto_config`), relative to [`crate::regs::CONFIG`]. Every field is a 32-bit
/// little-endian word except `max_size` (64 bits, read as two words).
pub mod config {
    pub const STATUS: usize = 0x00;
    /// Bit 0 of STATUS: the backend is ready (§5.9.5 VIRTIO_CRYPTO_S_HW_READY).
    pub const S_HW_READY: u32 = 1;
    pub const MAX_DATAQUEUES: usize = 0x04;
    pub const CRYPTO_SERVICES: usize = 0x08;
    pub const CIPHER_ALGO_L: usize = 0x0c;
    pub const CIPHER_ALGO_H: usize = 0x10;
    pub const HASH_ALGO: usize = 0x14;
    pub const MAC_ALGO_L: usize = 0x18;
    pub const MAC_ALGO_H: usize = 0x1c;
    pub const AEAD_ALGO: usize = 0x20;
    pub const MAX_CIPHER_KEY_LEN: usize = 0x24;
    pub const MAX_AUTH_KEY_LEN: usize = 0x28;
    /// `reserved` in virtio 1.2; `akcipher_algo` in later revisions and in Linux.
    pub const AKCIPHER_ALGO: usize = 0x2c;
    pub const MAX_SIZE: usize = 0x30;
    /// Bytes of the configuration space.
    pub const LEN: usize = 0x38;
}
