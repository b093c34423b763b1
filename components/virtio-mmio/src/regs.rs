//! The virtio-mmio transport's registers and the generic virtio constants it needs.
//!
//! Offsets are bytes from the transport's base (virtio 1.2 §4.2.2 "MMIO Device Register
//! Layout", the modern layout, Version 2). The configuration space of the device starts
//! at [`CONFIG`]; each device's layout is its driver's.

/// "virt" in little-endian ASCII (§4.2.2 MagicValue).
pub const MAGIC_VALUE: usize = 0x000;
pub const MAGIC: u32 = 0x7472_6976;
/// Transport version: 2 = modern, 1 = legacy (§4.2.2 Version; legacy is §4.2.4).
pub const VERSION: usize = 0x004;
pub const VERSION_MODERN: u32 = 2;
/// Device type; 0 = no device behind this transport (§4.2.2 DeviceID, §5 device ids).
pub const DEVICE_ID: usize = 0x008;
/// Device ids (§5 "Device Types").
pub mod device_id {
    /// An entropy source (virtio-rng, §5.4).
    pub const ENTROPY: u32 = 4;
    /// A crypto device (virtio-crypto, §5.9).
    pub const CRYPTO: u32 = 20;
}
pub const VENDOR_ID: usize = 0x00c;
/// 32 feature bits of the bank chosen by DEVICE_FEATURES_SEL (§4.2.2).
pub const DEVICE_FEATURES: usize = 0x010;
pub const DEVICE_FEATURES_SEL: usize = 0x014;
pub const DRIVER_FEATURES: usize = 0x020;
pub const DRIVER_FEATURES_SEL: usize = 0x024;
/// Selects the queue the QUEUE_* registers below refer to (§4.2.2 QueueSel).
pub const QUEUE_SEL: usize = 0x030;
/// Largest queue size the device accepts; 0 = no such queue (§4.2.2 QueueNumMax).
pub const QUEUE_NUM_MAX: usize = 0x034;
pub const QUEUE_NUM: usize = 0x038;
/// 1 = the device may use the queue; read back to see whether it is in use (§4.2.2).
pub const QUEUE_READY: usize = 0x044;
/// Written with a queue index: "there are new buffers" (§4.2.2 QueueNotify).
pub const QUEUE_NOTIFY: usize = 0x050;
/// Bit 0: a used buffer was added; bit 1: configuration changed (§4.2.2).
pub const INTERRUPT_STATUS: usize = 0x060;
pub const INTERRUPT_ACK: usize = 0x064;
/// Device status (§2.1); writing 0 resets the device (§4.2.3.1).
pub const STATUS: usize = 0x070;
/// 64-bit physical addresses of the three parts of the selected queue (§4.2.2).
pub const QUEUE_DESC_LOW: usize = 0x080;
pub const QUEUE_DESC_HIGH: usize = 0x084;
pub const QUEUE_DRIVER_LOW: usize = 0x090;
pub const QUEUE_DRIVER_HIGH: usize = 0x094;
pub const QUEUE_DEVICE_LOW: usize = 0x0a0;
pub const QUEUE_DEVICE_HIGH: usize = 0x0a4;
/// Changes whenever the configuration space changes (§4.2.2 ConfigGeneration).
pub const CONFIG_GENERATION: usize = 0x0fc;
/// Start of the device-specific configuration space (§4.2.2 Config).
pub const CONFIG: usize = 0x100;
/// Bytes of one transport's register window (registers and the device's configuration).
pub const WINDOW: usize = 0x200;

/// Device status bits (§2.1 "Device Status Field").
pub mod status {
    pub const ACKNOWLEDGE: u32 = 1;
    pub const DRIVER: u32 = 2;
    pub const DRIVER_OK: u32 = 4;
    pub const FEATURES_OK: u32 = 8;
    pub const DEVICE_NEEDS_RESET: u32 = 64;
    pub const FAILED: u32 = 128;
}

/// Interrupt status bits (§4.2.2 InterruptStatus).
pub mod interrupt {
    pub const USED_BUFFER: u32 = 1;
    pub const CONFIG_CHANGE: u32 = 2;
}

/// Feature bit numbers every device has (§6 "Reserved Feature Bits").
pub mod feature {
    /// Compliance with virtio 1.0 or later: mandatory for a modern device (§6).
    pub const VERSION_1: u32 = 32;
    /// The device may be behind an IOMMU or otherwise restricted; our addresses are
    /// physical, which is what it then expects (§6 VIRTIO_F_ACCESS_PLATFORM).
    pub const ACCESS_PLATFORM: u32 = 33;
}
