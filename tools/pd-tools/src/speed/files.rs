//! `speed --files MIB`: the file tools through the isolated CPU driver beside the
//! programs a user would otherwise run, on one file of MIB MiB, in one run: `pd-enc`
//! against `openssl enc -aes-128-cbc -nopad`, `pd-dgst --alg sha256` against
//! `sha256sum`, and `pd-rand` (random bytes from the Rng driver's CTR_DRBG) against
//! `openssl rand`, both writing MIB MiB to a file. Each pair runs alternately [`bench_stats::RUNS`] times (so a burst of
//! load hits both alike); the table gives each command's median wall time, its spread,
//! and the ratio of the medians.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The key and IV both encryptions use (any: the work does not depend on them).
const KEY: &str = "000102030405060708090a0b0c0d0e0f";
const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// One command's timings.
struct Timed {
    label: String,
    stats: bench_stats::Stats,
}

/// One comparison: ours against the reference program.
struct Pair {
    ours: Timed,
    theirs: Timed,
    /// The throughput target this comparison checks: in words, and the most our time
    /// may be as a multiple of theirs.
    target: (&'static str, f64),
}

/// Whether a ratio of our time to theirs meets a target of at most `limit`.
fn verdict(ratio: f64, limit: f64) -> &'static str {
    if ratio <= limit { "met" } else { "missed" }
}

/// Wall time of `cmd` (its output discarded unless it writes a file itself); an error if
/// it cannot start or fails.
fn time_once(cmd: &[String]) -> Result<f64, String> {
    let start = Instant::now();
    let status = Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", cmd[0]))?;
    let secs = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("{} failed: {status}", cmd.join(" ")));
    }
    Ok(secs)
}

/// `ours` and `theirs` (each a label and a command line) alternately, `RUNS` times each.
fn pair(
    (our_label, ours): (&str, Vec<String>),
    (their_label, theirs): (&str, Vec<String>),
    target: (&'static str, f64),
) -> Result<Pair, String> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..bench_stats::RUNS {
        a.push(time_once(&ours)?);
        b.push(time_once(&theirs)?);
    }
    Ok(Pair {
        ours: Timed {
            label: our_label.into(),
            stats: bench_stats::Stats::of(&a),
        },
        theirs: Timed {
            label: their_label.into(),
            stats: bench_stats::Stats::of(&b),
        },
        target,
    })
}

/// A file of `mib` MiB of varied bytes (made once; reused if it is already that size).
fn input(dir: &Path, mib: u64) -> Result<PathBuf, String> {
    let path = dir.join(format!("input-{mib}MiB.bin"));
    let bytes = mib << 20;
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes) {
        return Ok(path);
    }
    let mut chunk: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    for i in 0..mib {
        chunk[0] = i as u8;
        std::io::Write::write_all(&mut f, &chunk)
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(path)
}

/// Runs the comparisons in `dir` (the input and the outputs stay there) and returns the
/// table.
pub fn run(tools: &Path, dir: &Path, mib: u64) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = input(dir, mib)?;
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let tool = |name: &str| s(&tools.join(name));
    let (ours_out, theirs_out) = (s(&dir.join("pd-enc.out")), s(&dir.join("openssl.out")));
    let enc = pair(
        (
            "pd-enc --alg aes-128-cbc -e",
            vec![
                tool("pd-enc"),
                "--alg".into(),
                "aes-128-cbc".into(),
                "-e".into(),
                "--key".into(),
                KEY.into(),
                "--iv".into(),
                IV.into(),
                "-i".into(),
                s(&file),
                "-o".into(),
                ours_out.clone(),
            ],
        ),
        (
            "openssl enc -aes-128-cbc -nopad",
            vec![
                "openssl".into(),
                "enc".into(),
                "-aes-128-cbc".into(),
                "-nopad".into(),
                "-K".into(),
                KEY.into(),
                "-iv".into(),
                IV.into(),
                "-in".into(),
                s(&file),
                "-out".into(),
                theirs_out.clone(),
            ],
        ),
        ("pd-enc within 1.5x of openssl's time", 1.5),
    )?;
    // The comparison means something only if both wrote the same bytes.
    let same = std::fs::read(&ours_out).map_err(|e| e.to_string())?
        == std::fs::read(&theirs_out).map_err(|e| e.to_string())?;
    let dgst = pair(
        (
            "pd-dgst --alg sha256",
            vec![tool("pd-dgst"), "--alg".into(), "sha256".into(), s(&file)],
        ),
        ("sha256sum", vec!["sha256sum".into(), s(&file)]),
        ("pd-dgst at least as fast as sha256sum", 1.0),
    )?;
    let bytes = (mib << 20).to_string();
    let rand = pair(
        (
            "pd-rand -out",
            vec![
                tool("pd-rand"),
                "-out".into(),
                ours_out.clone(),
                bytes.clone(),
            ],
        ),
        (
            "openssl rand -out",
            vec![
                "openssl".into(),
                "rand".into(),
                "-out".into(),
                theirs_out.clone(),
                bytes,
            ],
        ),
        ("pd-rand within 2x of openssl's time", 2.0),
    )?;
    let size = |p: &str| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let all_random = size(&ours_out) == mib << 20 && size(&theirs_out) == mib << 20;
    for out in [&ours_out, &theirs_out] {
        let _ = std::fs::remove_file(out);
    }
    let mut t = format!(
        "file tools on one {mib} MiB file, through the isolated CPU driver PD vs the usual program, \
         alternately, wall time ({})\n",
        bench_stats::context()
    );
    t += &format!(
        "{:<28} {:>9} {:>8} {:<32} {:>9} {:>8} {:>7}  target\n",
        "ours", "median s", "spread", "theirs", "median s", "spread", "ratio"
    );
    for p in [&enc, &dgst, &rand] {
        let ratio = p.ours.stats.median / p.theirs.stats.median;
        t += &format!(
            "{:<28} {:>9.3} {:>8} {:<32} {:>9.3} {:>8} {:>6.2}x  {}: {}\n",
            p.ours.label,
            p.ours.stats.median,
            p.ours.stats.spread_cell(),
            p.theirs.label,
            p.theirs.stats.median,
            p.theirs.stats.spread_cell(),
            ratio,
            p.target.0,
            verdict(ratio, p.target.1)
        );
    }
    t += &format!(
        "  (ratio = our time / theirs; pd-enc's output {} openssl's)\n",
        if same {
            "is byte for byte"
        } else {
            "DIFFERS from"
        }
    );
    if !same {
        return Err(format!("{t}pd-enc and openssl enc wrote different bytes"));
    }
    if !all_random {
        return Err(format!(
            "{t}pd-rand or openssl rand wrote other than {mib} MiB"
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::verdict;

    #[test]
    fn a_target_is_met_up_to_its_limit_and_missed_past_it() {
        assert_eq!(verdict(1.49, 1.5), "met");
        assert_eq!(verdict(1.5, 1.5), "met");
        assert_eq!(verdict(1.51, 1.5), "missed");
        assert_eq!(verdict(0.28, 1.0), "met");
        assert_eq!(verdict(1.02, 1.0), "missed");
    }
}
