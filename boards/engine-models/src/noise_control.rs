//! The byte a whole-system test writes at the start of a `noise_control` region to steer
//! an entropy model (the host's getrandom-fed one, the stm32mp1 RNG1 model), read by the
//! model before its next samples. One definition for the test clients that write it and
//! the models that read it; each model says how it plays each fault.

/// What the model's next samples do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Fault {
    /// Good noise.
    None = 0,
    /// One value repeated: a noise source stuck.
    Stuck = 1,
    /// Two values in turn (0x00, 0x55): never one twice in a row, so a repetition test
    /// cannot see it, but half of every window is the window's first value.
    Biased = 2,
    /// The device reports an error of its own (a seed or clock error).
    DeviceError = 3,
}

impl Fault {
    /// The fault a control byte names (an unknown byte is none).
    pub const fn from_byte(b: u8) -> Fault {
        match b {
            1 => Fault::Stuck,
            2 => Fault::Biased,
            3 => Fault::DeviceError,
            _ => Fault::None,
        }
    }

    pub const fn byte(self) -> u8 {
        self as u8
    }
}
