#![no_main]
//! `fuzz_targets::driver_serve` under libFuzzer (see the fuzz-targets crate docs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_targets::driver_serve(data);
});
