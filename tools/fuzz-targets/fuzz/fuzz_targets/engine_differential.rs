#![no_main]
//! `fuzz_targets::engine_differential` under libFuzzer (see the fuzz-targets crate docs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_targets::engine_differential(data));
