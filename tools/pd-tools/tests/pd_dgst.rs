//! pd-dgst prints what md5sum/sha1sum/sha224sum/sha256sum/sha384sum/sha512sum print,
//! byte for byte, and the digests RustCrypto computes, for files of every interesting
//! size (empty, one byte, the block and padding boundaries of 64-byte blocks, 55/56/63/
//! 64/65, and of SHA-384/512's 128-byte ones, 111/112/127/128/129, and larger than the
//! client's data region so the file is streamed in several updates), on both engines
//! (SEC1 without SHA-384/512, which it refuses) and on SEC1's chained and copy paths.

mod common;

use common::{Dir, bytes, path_str, run};
use pd_tools::algs::digest_alg;
use pd_tools::hexfmt;
use pd_tools::refcrypto;
use pd_tools::systems::DATA_SIZE;

const EXE: &str = env!("CARGO_BIN_EXE_pd-dgst");
const SIZES: [usize; 15] = [
    0,
    1,
    55,
    56,
    63,
    64,
    65,
    111,
    112,
    127,
    128,
    129,
    1000,
    DATA_SIZE,
    2 * DATA_SIZE + 7,
];

fn coreutils(alg: &str, files: &[&str]) -> Option<String> {
    let out = std::process::Command::new(format!("{alg}sum"))
        .args(files)
        .output()
        .ok()?;
    assert!(out.status.success());
    Some(String::from_utf8(out.stdout).unwrap())
}

fn check(engine: &str, alg: &str, path: &str) {
    let dir = Dir::new(&format!("dgst-{engine}-{alg}-{path}"));
    let mut files = Vec::new();
    let mut want = String::new();
    for (i, &n) in SIZES.iter().enumerate() {
        let data = bytes(i as u64 + 1, n);
        let f = dir.file(&format!("f{n}"), &data);
        let d = refcrypto::digest(digest_alg(alg).unwrap(), &data);
        want += &format!("{}  {}\n", hexfmt::encode(&d), path_str(&f));
        files.push(f);
    }
    let names: Vec<&str> = files.iter().map(|f| path_str(f)).collect();
    let mut args = vec!["--engine", engine, "--alg", alg, "--path", path];
    args.extend(&names);
    let out = run(EXE, &args, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{engine} {alg} {path}: {stderr}");
    let got = String::from_utf8(out.stdout).unwrap();
    assert_eq!(got, want, "{engine} {alg} {path} against RustCrypto");
    if let Some(cu) = coreutils(alg, &names) {
        assert_eq!(got, cu, "{engine} {alg} {path} against {alg}sum");
    }
}

#[test]
fn cpu_engine_matches_coreutils_and_rustcrypto() {
    for alg in pd_tools::algs::DIGESTS {
        check("cpu", alg, "auto");
    }
}

#[test]
fn sec1_matches_coreutils_and_rustcrypto_chained_and_copied() {
    for alg in ["md5", "sha1", "sha224", "sha256"] {
        check("sec1", alg, "chained");
    }
    check("sec1", "md5", "copy");
    // SHA-224's software-initialised context on the old strategy too.
    check("sec1", "sha224", "copy");
}

#[test]
fn sec1_refuses_sha384_and_sha512_before_booting() {
    for alg in ["sha384", "sha512"] {
        let out = run(EXE, &["--engine", "sec1", "-a", alg], Some(b"abc"));
        assert_eq!(out.status.code(), Some(1), "{alg}");
        assert!(out.stdout.is_empty(), "{alg}: no digest");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(&format!("-a {alg}: the sec1 driver does not offer it")),
            "{err}"
        );
    }
}

/// `-c` takes lines of each algorithm's length, GNU and `--tag`'s BSD ones (`SHA512
/// (NAME) = HEX`), as sha224sum/sha384sum/sha512sum print them; a line of another
/// algorithm's length is improperly formatted.
#[test]
fn check_mode_takes_each_sha2_length_and_tag() {
    let d = Dir::new("dgst-check-sha2");
    let files: Vec<_> = (0..2)
        .map(|i| d.file(&format!("f{i}"), &bytes(40 + i as u64, 130 + i)))
        .collect();
    let paths: Vec<&str> = files.iter().map(|f| path_str(f)).collect();
    for alg in ["sha224", "sha384", "sha512"] {
        for tag in [false, true] {
            let mut args = vec!["-a", alg];
            if tag {
                args.push("--tag");
            }
            args.extend(&paths);
            let out = run(EXE, &args, None);
            assert!(out.status.success(), "{alg}");
            let sums = String::from_utf8(out.stdout).unwrap();
            if tag {
                let want = format!("{} (", alg.to_ascii_uppercase());
                assert!(sums.lines().all(|l| l.starts_with(&want)), "{sums}");
            }
            if let Some(real) = coreutils_args(alg, tag, &paths) {
                assert_eq!(sums, real, "{alg} tag {tag}: byte-identical to {alg}sum");
            }
            let list = d.file(&format!("{alg}-{tag}.sums"), sums.as_bytes());
            let check = run(EXE, &["-a", alg, "-c", "--strict", path_str(&list)], None);
            let out = String::from_utf8(check.stdout).unwrap();
            assert!(check.status.success(), "{alg} tag {tag}: {out}");
            assert_eq!(out.matches(": OK").count(), 2, "{out}");
        }
    }
    // A SHA-256 list read as SHA-512: every line has the wrong length.
    let out = run(EXE, &["-a", "sha256"], Some(b"x"));
    let list = d.file("sha256.sums", &out.stdout);
    let check = run(EXE, &["-a", "sha512", "-c", path_str(&list)], None);
    assert_eq!(check.status.code(), Some(1));
    let err = String::from_utf8(check.stderr).unwrap();
    assert!(err.contains("no properly formatted"), "{err}");
}

fn coreutils_args(alg: &str, tag: bool, files: &[&str]) -> Option<String> {
    let mut cmd = std::process::Command::new(format!("{alg}sum"));
    if tag {
        cmd.arg("--tag");
    }
    let out = cmd.args(files).output().ok()?;
    assert!(out.status.success());
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn stdin_dash_and_a_missing_file_behave_like_coreutils() {
    let data = bytes(99, DATA_SIZE + 100);
    let dir = Dir::new("dgst-stdin");
    let missing = dir.0.join("missing");
    let out = run(
        EXE,
        &[
            "--engine",
            "sec1",
            "--alg",
            "sha256",
            "-",
            path_str(&missing),
        ],
        Some(&data),
    );
    let want = format!(
        "{}  -\n",
        hexfmt::encode(&refcrypto::digest(digest_alg("sha256").unwrap(), &data))
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), want);
    assert_eq!(out.status.code(), Some(1), "a missing file fails the run");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("No such file or directory"), "{err}");
    // No file at all: stdin, named `-` as coreutils does.
    let out = run(EXE, &["--alg", "md5"], Some(b"abc"));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "900150983cd24fb0d6963f7d28e17f72  -\n"
    );
}

#[test]
fn a_path_the_engine_does_not_offer_is_refused_before_booting() {
    let out = run(
        EXE,
        &["--engine", "cpu", "--path", "chained", "-a", "sha256"],
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--path chained: the cpu driver does not offer it for hashes; it offers auto"),
        "{err}"
    );
    let v = run(EXE, &["--version"], None);
    assert!(String::from_utf8(v.stdout).unwrap().starts_with("pd-dgst "));
}

/// Names with a backslash or a line break are escaped as coreutils does, and `-c`
/// checks a list as `sha256sum -c` does (each line, the warnings, exit 1 on a mismatch),
/// compared byte for byte with the real tool where it is installed.
#[test]
fn escaped_names_and_check_mode_match_coreutils() {
    let d = Dir::new("dgst-check");
    let names = ["plain", "back\\slash", "new\nline"];
    let files: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| d.file(n, &bytes(i as u64, 100 + i)))
        .collect();
    let paths: Vec<&str> = files.iter().map(|f| path_str(f)).collect();
    let mut args = vec!["-a", "sha256"];
    args.extend(&paths);
    let out = run(EXE, &args, None);
    assert!(out.status.success());
    let sums = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = sums.lines().collect();
    assert_eq!(lines.len(), 3, "{sums}");
    assert!(!lines[0].starts_with('\\'));
    assert!(
        lines[1].starts_with('\\') && lines[1].ends_with("back\\\\slash"),
        "{sums}"
    );
    assert!(
        lines[2].starts_with('\\') && lines[2].ends_with("new\\nline"),
        "{sums}"
    );
    if let Ok(real) = std::process::Command::new("sha256sum")
        .args(&paths)
        .output()
    {
        assert_eq!(sums.as_bytes(), real.stdout, "byte-identical to sha256sum");
    }
    let list = d.file("sums", sums.as_bytes());
    let check = run(EXE, &["-a", "sha256", "-c", path_str(&list)], None);
    assert!(check.status.success());
    let out = String::from_utf8(check.stdout).unwrap();
    assert!(out.contains(": OK") && !out.contains("FAILED"), "{out}");
    // One file changes: FAILED, the warning, exit 1.
    std::fs::write(&files[0], b"changed").unwrap();
    let check = run(EXE, &["-a", "sha256", "-c", path_str(&list)], None);
    assert_eq!(check.status.code(), Some(1));
    let out = String::from_utf8(check.stdout).unwrap();
    assert!(out.contains("plain: FAILED"), "{out}");
    let err = String::from_utf8(check.stderr).unwrap();
    assert!(
        err.contains("WARNING: 1 computed checksum did NOT match"),
        "{err}"
    );
    assert!(
        !err.contains("hashing"),
        "no progress line off a terminal: {err}"
    );
}

/// The HMAC of `data` keyed by `key` with hash `alg`, by RustCrypto's hmac.
fn reference_hmac(alg: &str, key: &[u8], data: &[u8]) -> Vec<u8> {
    use hmac::{Hmac, Mac};
    fn tag<M: Mac + hmac::digest::KeyInit>(key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut m = <M as hmac::digest::KeyInit>::new_from_slice(key).unwrap();
        m.update(data);
        m.finalize().into_bytes().to_vec()
    }
    match alg {
        "md5" => tag::<Hmac<md5::Md5>>(key, data),
        "sha1" => tag::<Hmac<sha1::Sha1>>(key, data),
        "sha224" => tag::<Hmac<sha2::Sha224>>(key, data),
        "sha256" => tag::<Hmac<sha2::Sha256>>(key, data),
        "sha384" => tag::<Hmac<sha2::Sha384>>(key, data),
        "sha512" => tag::<Hmac<sha2::Sha512>>(key, data),
        _ => unreachable!("{alg}"),
    }
}

/// `--hmac KEY`: the published HMAC vectors whose key and data are text (RFC 2202 and
/// RFC 4231 case 2, "Jefe", every hash), and a file streamed through the data region in
/// several updates against RustCrypto's hmac and, where it is installed, `openssl dgst
/// -hmac`, line for line (`HMAC-SHA2-256(NAME)= HEX`).
#[test]
fn hmac_gives_the_published_tags_and_what_openssl_prints() {
    use kat_vectors::Bytes;
    let dir = Dir::new("dgst-hmac");
    let mut tested = 0;
    for v in kat_vectors::HMAC {
        let (Bytes::Text(key), Bytes::Text(data)) = (&v.key, &v.data) else {
            continue;
        };
        let alg = format!("{:?}", v.algorithm).to_ascii_lowercase();
        let full = 2 * reference_hmac(&alg, b"k", b"").len();
        if v.tag.len() != full {
            continue; // a truncated tag (case 5): pd-dgst prints the whole one
        }
        let f = dir.file(&format!("{}-{tested}", alg), data);
        let key = std::str::from_utf8(key).unwrap();
        let out = run(EXE, &["-a", &alg, "--hmac", key, path_str(&f)], None);
        assert!(
            out.status.success(),
            "{}: {}",
            v.source,
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(
            line.ends_with(&format!("({})= {}\n", path_str(&f), v.tag)),
            "{}: {line}",
            v.source
        );
        tested += 1;
    }
    assert_eq!(tested, 6, "case 2 of both RFCs, for each of the six hashes");
    let data = bytes(7, 2 * DATA_SIZE + 7);
    let f = dir.file("streamed", &data);
    for alg in pd_tools::algs::DIGESTS {
        let key = "a key of some length, longer than nothing";
        let out = run(EXE, &["-a", alg, "--hmac", key, path_str(&f)], None);
        assert!(out.status.success(), "{alg}");
        let got = String::from_utf8(out.stdout).unwrap();
        let want = hexfmt::encode(&reference_hmac(alg, key.as_bytes(), &data));
        assert!(got.ends_with(&format!("= {want}\n")), "{alg}: {got}");
        if let Ok(o) = std::process::Command::new("openssl")
            .args(["dgst", &format!("-{alg}"), "-hmac", key, path_str(&f)])
            .output()
            && o.status.success()
        {
            assert_eq!(
                got,
                String::from_utf8(o.stdout).unwrap(),
                "{alg} against openssl"
            );
        }
    }
    let sec1 = run(
        EXE,
        &["--engine", "sec1", "-a", "sha1", "--hmac", "k"],
        Some(b"x"),
    );
    assert_eq!(sec1.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&sec1.stderr).contains("offers no HMAC"));
}
