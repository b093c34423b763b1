//! `speed --host-limit`: the CPU engine through the isolated driver beside in-process
//! RustCrypto at the same sizes, in one run: what isolation costs on this machine.

use std::time::Instant;

use super::measure::{Alg, Measured};
use crate::refcrypto;

/// In-process RustCrypto ns per op at `size` (key schedule per op, as the driver does
/// per request), run for about `seconds`.
pub fn in_process_ns(alg: Alg, size: usize, seconds: f64) -> f64 {
    let mut data: Vec<u8> = (0..size).map(|i| i as u8).collect();
    let key = [0x5a; 32];
    let iv = [0xa5; 16];
    let mut ops = 0u64;
    let start = Instant::now();
    loop {
        for _ in 0..16 {
            match alg {
                Alg::Cipher(c) => refcrypto::crypt(c, true, &key[..c.key_len], &iv, &mut data),
                Alg::Digest(d) => {
                    let out = refcrypto::digest(d, &data);
                    data[0] ^= out[0];
                }
            }
            ops += 1;
        }
        if start.elapsed().as_secs_f64() >= seconds {
            break;
        }
    }
    std::hint::black_box(&data);
    start.elapsed().as_nanos() as f64 / ops as f64
}

/// The side-by-side table for a CPU-engine measurement.
pub fn table(m: &Measured, seconds: f64) -> String {
    let mut out = format!(
        "host limit: {} through the isolated CPU driver PD vs in-process RustCrypto (host real time)\n",
        m.job.alg.name()
    );
    out += &format!(
        "{:>7} {:>14} {:>14} {:>12} {:>12} {:>8}\n",
        "size", "PD ns/op", "in-proc ns/op", "PD MB/s", "in-proc MB/s", "ratio"
    );
    for s in m.samples.iter().filter(|s| s.measured()) {
        let pd = s.host_ns_per_op();
        let local = in_process_ns(m.job.alg, s.size, seconds);
        out += &format!(
            "{:>7} {:>14.0} {:>14.0} {:>12.1} {:>12.1} {:>7.2}x\n",
            s.size,
            pd,
            local,
            s.size as f64 * 1e3 / pd,
            s.size as f64 * 1e3 / local,
            pd / local
        );
    }
    out += "  (ratio = time through the PDs / time in process: the cost of the queue round trip and the PD boundary)\n";
    out
}
