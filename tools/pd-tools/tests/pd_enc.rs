//! pd-enc equals RustCrypto for every algorithm, engine and path, in both directions,
//! for inputs larger than a request (several requests, the IV carried by the driver
//! between them) and a CTR tail that is not a whole block; decrypting gives the input
//! back. A length that ECB/CBC cannot take is a clear error.

mod common;

use common::{Dir, bytes, path_str, run};
use pd_tools::algs::CipherAlg;
use pd_tools::hexfmt;
use pd_tools::refcrypto;

const EXE: &str = env!("CARGO_BIN_EXE_pd-enc");
const ALGS: [&str; 6] = pd_tools::algs::CIPHERS;

fn check(engine: &str, path: &str) {
    let dir = Dir::new(&format!("enc-{engine}-{path}"));
    for (i, alg_name) in ALGS.iter().enumerate() {
        let alg = CipherAlg::parse(alg_name).unwrap();
        let key = bytes(100 + i as u64, alg.key_len);
        let iv = bytes(200 + i as u64, 16);
        // Three 16 KiB requests and a bit; CTR gets a tail of 5 bytes, except on OMAP
        // DMA, which takes whole blocks only (its refusal is checked below).
        let tail = !alg.whole_blocks() && (engine, path) != ("omap-aes", "dma");
        let len = 3 * 16 * 1024 + 48 + if tail { 5 } else { 0 };
        let plain = bytes(300 + i as u64, len);
        let mut want = plain.clone();
        refcrypto::crypt(alg, true, &key, &iv, &mut want);
        let (k, v) = (hexfmt::encode(&key), hexfmt::encode(&iv));
        let base = [
            "--engine", engine, "--path", path, "--alg", alg_name, "--key", &k, "--iv", &v,
        ];
        // Encrypt from stdin to stdout.
        let mut args = base.to_vec();
        args.push("-e");
        let out = run(EXE, &args, Some(&plain));
        let what = format!("{engine} {path} {alg_name}");
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == want,
            "{what}: encryption differs from RustCrypto"
        );
        // Decrypt from a file to a file.
        let ct = dir.file("ct", &want);
        let pt = dir.0.join("pt");
        let mut args = base.to_vec();
        args.extend(["-d", "-i", path_str(&ct), "-o", path_str(&pt)]);
        let out = run(EXE, &args, None);
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::read(&pt).unwrap() == plain, "{what}: round trip");
    }
}

#[test]
fn cpu_engine_equals_rustcrypto() {
    check("cpu", "cpu");
    check("cpu", "adaptive");
}

#[test]
fn omap_aes_equals_rustcrypto_on_every_path() {
    for path in ["pio", "dma", "adaptive"] {
        check("omap-aes", path);
    }
}

#[test]
fn stm32_cryp_equals_rustcrypto_on_every_path() {
    for path in ["pio", "dma", "adaptive"] {
        check("stm32-cryp", path);
    }
}

#[test]
fn a_ctr_tail_on_omap_dma_is_refused_not_bounced() {
    let key = "000102030405060708090a0b0c0d0e0f";
    let args = [
        "--engine",
        "omap-aes",
        "--path",
        "dma",
        "--alg",
        "aes-128-ctr",
        "-e",
        "--key",
        key,
        "--iv",
        key,
    ];
    let out = run(EXE, &args, Some(&bytes(3, 37)));
    // A refusal the driver alone can make, said in words with its meaning.
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(err.contains("the engine cannot take"), "{err}");
    assert!(!err.contains("Ok(Err("), "{err}");
    refused(out, "UnsupportedPath");
}

/// The run failed with status 1 and said `want` on stderr.
fn refused(out: std::process::Output, want: &str) {
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(want), "{err}");
}

#[test]
fn a_partial_block_for_ecb_or_cbc_is_a_clear_error() {
    let dir = Dir::new("enc-partial");
    let f = dir.file("odd", &bytes(1, 33));
    let key = "000102030405060708090a0b0c0d0e0f";
    // From a file: refused before the system boots.
    let out = run(
        EXE,
        &[
            "--alg",
            "aes-128-cbc",
            "--key",
            key,
            "--iv",
            key,
            "-i",
            path_str(&f),
        ],
        None,
    );
    refused(out, "not a multiple of 16");
    // From a pipe: found at the end of the input, by the client PD.
    let out = run(
        EXE,
        &[
            "--engine",
            "omap-aes",
            "--alg",
            "aes-128-ecb",
            "-e",
            "--key",
            key,
            "--iv",
            key,
        ],
        Some(&bytes(2, 33)),
    );
    refused(out, "not a multiple of 16");
    // A key of the wrong length for the algorithm.
    let out = run(
        EXE,
        &["--alg", "aes-256-cbc", "-e", "--key", key, "--iv", key],
        Some(&[0; 16]),
    );
    refused(out, "32-byte key");
}

/// Ordinary mistakes are refused before anything boots, each with its reason and exit 1.
#[test]
fn ordinary_mistakes_are_refused_before_booting_with_their_reason() {
    let dir = Dir::new("enc-mistakes");
    let input = dir.file("in", &bytes(2, 32));
    let key = "000102030405060708090a0b0c0d0e0f";
    let missing = dir.0.join("no-such-dir/out");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--engine", "cpu", "--path", "dma"],
            "--path dma: the cpu driver does not offer it for ciphers; it offers cpu, adaptive",
        ),
        (
            &["--engine", "omap-aes", "--path", "cpu"],
            "--path cpu: the omap-aes driver does not offer it for ciphers; it offers pio, dma, adaptive",
        ),
        (&["-o", path_str(&dir.0)], "Is a directory"),
        (&["-o", path_str(&missing)], "no directory"),
    ];
    for (extra, want) in cases {
        let mut args = vec![
            "-a",
            "aes-128-cbc",
            "-e",
            "--key",
            key,
            "--iv",
            key,
            "-i",
            path_str(&input),
        ];
        args.extend_from_slice(extra);
        let out = run(EXE, &args, None);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("pd-enc: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("PDT_ECHO") && !err.contains("faulted"),
            "{err}"
        );
    }
    assert!(!missing.exists());
}

#[test]
fn every_option_has_help_and_the_tool_a_version() {
    let help = String::from_utf8(run(EXE, &["--help"], None).stdout).unwrap();
    for line in ["-e", "-d", "-a, --alg", "--engine", "--path", "no padding"] {
        assert!(help.contains(line), "{line}: {help}");
    }
    let version = run(EXE, &["--version"], None);
    assert!(version.status.success());
    assert!(
        String::from_utf8(version.stdout)
            .unwrap()
            .starts_with("pd-enc ")
    );
}

/// Published answers through the tool itself, on every engine: SP 800-38A F.1.1
/// (ECB-AES128), F.2.3 (CBC-AES192) and F.5.5 (CTR-AES256), encrypt and decrypt
/// (the comparisons above are against RustCrypto, which the CPU engine is built on).
#[test]
fn sp800_38a_through_the_tool_on_every_engine() {
    let pick = |name: &str| {
        kat_vectors::SP800_38A
            .iter()
            .find(|v| v.0 == name)
            .expect("published")
    };
    let hex = |s: &str| hexfmt::decode(s).unwrap();
    for engine in ["cpu", "omap-aes", "stm32-cryp"] {
        for (name, alg) in [
            ("F.1.1 ECB-AES128", "aes-128-ecb"),
            ("F.2.3 CBC-AES192", "aes-192-cbc"),
            ("F.5.5 CTR-AES256", "aes-256-ctr"),
        ] {
            let &(_, _, key, iv, ct) = pick(name);
            let (pt, ct) = (hex(kat_vectors::PLAIN), hex(ct));
            for (dir, from, to) in [("-e", &pt, &ct), ("-d", &ct, &pt)] {
                let args = [
                    "--engine", engine, "--alg", alg, "--key", key, "--iv", iv, dir,
                ];
                let out = run(EXE, &args, Some(from));
                assert!(
                    out.status.success(),
                    "{engine} {name} {dir}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(&out.stdout, to, "{engine} {name} {dir}");
            }
        }
    }
}

/// `--random-iv`: the CPU driver draws the IV from the host's Rng driver; pd-enc prints
/// it on stderr as `iv=HEX`; the ciphertext is RustCrypto's under it and decrypts with
/// it; two runs draw two IVs. Engines without an Rng service and ECB refuse it.
#[test]
fn a_random_iv_is_drawn_by_the_driver_printed_and_decrypts() {
    let dir = Dir::new("enc-random-iv");
    let key = bytes(7, 16);
    let k = hexfmt::encode(&key);
    for alg_name in ["aes-128-cbc", "aes-128-ctr"] {
        let alg = CipherAlg::parse(alg_name).unwrap();
        // Past one request (the first is 16 bytes short, leaving room for the IV).
        let len = 2 * 16 * 1024 + if alg.whole_blocks() { 32 } else { 7 };
        let plain = bytes(300, len);
        let enc = |_: u32| {
            let out = run(
                EXE,
                &["-a", alg_name, "-e", "--key", &k, "--random-iv"],
                Some(&plain),
            );
            assert!(
                out.status.success(),
                "{alg_name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let err = String::from_utf8(out.stderr).unwrap();
            let iv = err
                .lines()
                .find_map(|l| l.strip_prefix("iv="))
                .unwrap_or_else(|| panic!("{alg_name}: no iv= line in {err:?}"))
                .to_string();
            (iv, out.stdout)
        };
        let (iv, cipher) = enc(0);
        let (iv2, _) = enc(1);
        assert_ne!(iv, iv2, "{alg_name}: two runs, two IVs");
        let mut want = plain.clone();
        refcrypto::crypt(alg, true, &key, &hexfmt::decode(&iv).unwrap(), &mut want);
        assert_eq!(
            cipher, want,
            "{alg_name}: as RustCrypto under the printed IV"
        );
        let file = dir.0.join(format!("{alg_name}.enc"));
        std::fs::write(&file, &cipher).unwrap();
        let out = run(
            EXE,
            &[
                "-a",
                alg_name,
                "-d",
                "--key",
                &k,
                "--iv",
                &iv,
                "-i",
                path_str(&file),
            ],
            None,
        );
        assert!(out.status.success());
        assert_eq!(
            out.stdout, plain,
            "{alg_name}: decrypts with the printed IV"
        );
    }
    for args in [
        &[
            "--engine",
            "omap-aes",
            "-a",
            "aes-128-cbc",
            "--key",
            &k,
            "--random-iv",
        ][..],
        &["-a", "aes-128-ecb", "--key", &k, "--random-iv"][..],
        &["-a", "aes-128-cbc", "-d", "--key", &k, "--random-iv"][..],
    ] {
        let out = run(EXE, args, Some(&[0u8; 16]));
        assert!(!out.status.success(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}: says why");
    }
}
