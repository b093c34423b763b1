#![no_main]
//! `fuzz_targets::vboot_manifest` under libFuzzer (see the fuzz-targets crate docs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_targets::vboot_manifest(data));
