//! Hex in and out (keys, IVs, digests).

/// Lower-case hex of `bytes`, as md5sum prints.
pub fn encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of a hex string (either case, no separators).
pub fn decode(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in {s:?}"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("not hex: {s:?}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_bad_input() {
        assert_eq!(encode(&[0, 0xab, 0x1f]), "00ab1f");
        assert_eq!(decode("00AB1f").unwrap(), vec![0, 0xab, 0x1f]);
        assert!(decode("abc").is_err());
        assert!(decode("zz").is_err());
    }
}
