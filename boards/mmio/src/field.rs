//! Bit fields of 32-bit registers, as `const` values the register maps declare.

/// The single-bit mask `1 << n`.
pub const fn bit(n: u32) -> u32 {
    1 << n
}

/// A field of `width` bits starting at bit `shift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub shift: u32,
    pub width: u32,
}

impl Field {
    pub const fn new(shift: u32, width: u32) -> Self {
        assert!(width >= 1 && shift + width <= 32);
        Self { shift, width }
    }

    /// The field's bits in place.
    pub const fn mask(self) -> u32 {
        (u32::MAX >> (32 - self.width)) << self.shift
    }

    /// The field's value in `reg`.
    pub const fn get(self, reg: u32) -> u32 {
        (reg & self.mask()) >> self.shift
    }

    /// `value` placed in the field (excess bits dropped).
    pub const fn val(self, value: u32) -> u32 {
        (value << self.shift) & self.mask()
    }

    /// `reg` with the field replaced by `value`.
    pub const fn set(self, reg: u32, value: u32) -> u32 {
        (reg & !self.mask()) | self.val(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_round_trips() {
        let f = Field::new(3, 2);
        assert_eq!(f.mask(), 0b11000);
        assert_eq!(f.val(2), 0b10000);
        assert_eq!(f.get(0xffff_ffff), 3);
        assert_eq!(f.set(0xffff_ffff, 1), 0xffff_ffef);
        assert_eq!(Field::new(0, 32).mask(), u32::MAX);
        assert_eq!(bit(31), 0x8000_0000);
    }
}
