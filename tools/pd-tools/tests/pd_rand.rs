//! pd-rand as `openssl rand` is used: NUM raw bytes on stdout, `-hex` as one line of
//! lower-case hex, `-out FILE`, 0 bytes as nothing; runs longer than one fill (64 KiB)
//! come whole; two runs differ, and a long run's byte counts are what uniform bytes
//! give (a DRBG whose fill wrote nothing, or the same block over and over, fails).
mod common;

use common::{Dir, path_str, run};

const EXE: &str = env!("CARGO_BIN_EXE_pd-rand");

fn rand(args: &[&str]) -> Vec<u8> {
    let out = run(EXE, args, None);
    assert!(
        out.status.success(),
        "pd-rand {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn raw_bytes_come_whole_differ_between_runs_and_look_uniform() {
    let n = 200_000;
    let a = rand(&[&n.to_string()]);
    let b = rand(&[&n.to_string()]);
    assert_eq!((a.len(), b.len()), (n, n));
    assert_ne!(a, b, "two runs, two DRBG instances seeded apart");
    // Every 64 KiB fill is new bytes: no fill repeats the first.
    let fills: Vec<&[u8]> = a.chunks(64 * 1024).collect();
    assert!(fills[1..].iter().all(|f| f[..64] != fills[0][..64]));
    // 200,000 uniform bytes: each value 781 times on average, standard deviation 28;
    // 600..=960 is over six deviations either side.
    let mut counts = [0u32; 256];
    a.iter().for_each(|&x| counts[usize::from(x)] += 1);
    let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
    assert!(*lo >= 600 && *hi <= 960, "byte counts {lo}..{hi}");
}

#[test]
fn hex_is_one_line_and_out_writes_a_file() {
    let hex = rand(&["-hex", "32"]);
    let text = String::from_utf8(hex).unwrap();
    assert_eq!(text.len(), 65, "{text:?}");
    assert!(text.ends_with('\n'));
    assert!(
        text[..64]
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );

    let dir = Dir::new("rand-out");
    let file = dir.0.join("r.bin");
    assert!(rand(&["-out", path_str(&file), "1000"]).is_empty());
    assert_eq!(std::fs::read(&file).unwrap().len(), 1000);
    assert!(rand(&["0"]).is_empty());
    assert_eq!(rand(&["--prediction-resistance", "70000"]).len(), 70_000);
}

#[test]
fn a_bad_count_or_place_is_a_clear_error() {
    let out = run(EXE, &["lots"], None);
    assert!(!out.status.success());
    let out = run(EXE, &["-out", "/nonexistent-dir/x", "4"], None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pd-rand: ") && err.contains("nonexistent-dir"),
        "{err}"
    );
}
