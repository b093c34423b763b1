//! Numbers as Microkit reads them.

/// Parse a number the way Microkit's `sdf_parse_number` does (`tool/microkit/src/sdf.rs`):
/// underscores anywhere are dropped (`0x1_000`), a lower-case `0x` prefix means hex,
/// anything else is decimal; the value must fit in a `u64`. `0X` is not hex there, so it
/// is not here either.
pub fn parse_number(text: &str) -> Option<u64> {
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    let (digits, radix) = match digits.strip_prefix("0x") {
        Some(hex) => (hex.to_string(), 16),
        None => (digits, 10),
    };
    // from_str_radix takes a leading '+', as Microkit's call does; it rejects "".
    u64::from_str_radix(&digits, radix).ok()
}

/// Parse a number the way Microkit reads ids and irq numbers: Rust's `str::parse` for a
/// signed integer, so decimal only, optional sign, no underscores. Wide enough that a
/// range check, not an overflow, rejects big values.
pub(crate) fn parse_decimal(text: &str) -> Option<i128> {
    text.parse::<i128>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_decimal_and_underscores() {
        assert_eq!(parse_number("4096"), Some(4096));
        assert_eq!(parse_number("0x1000"), Some(0x1000));
        assert_eq!(parse_number("0x1_000_000"), Some(0x100_0000));
        assert_eq!(parse_number("1_000"), Some(1000));
        assert_eq!(parse_number("0xffff_ffff_ffff_ffff"), Some(u64::MAX));
    }

    #[test]
    fn rejects_what_microkit_rejects() {
        for bad in [
            "",
            "0x",
            "0X10",
            "ten",
            "-1",
            "0x1g",
            "18446744073709551616",
            "1.5",
        ] {
            assert_eq!(parse_number(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn decimal_only_for_ids() {
        assert_eq!(parse_decimal("61"), Some(61));
        assert_eq!(parse_decimal("-1"), Some(-1));
        assert_eq!(parse_decimal("0x3"), None);
        assert_eq!(parse_decimal("1_0"), None);
    }
}
