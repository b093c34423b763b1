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

/// One pd-enc run; its output.
fn pd_enc(args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    run(EXE, args, stdin)
}

/// CAVP's GCM cases (failing tags included) and SP 800-38C's and CAVP's CCM cases
/// through `pd-enc -a aes-*-gcm|ccm`: the AAD from a file, the tag kept apart in
/// another. Sealing gives the published ciphertext and tag; opening gives the
/// plaintext back, or for a published FAIL (and for the published tag with a bit
/// flipped) exits 1 and leaves no output file.
#[test]
fn aead_vectors_through_the_tool_and_forged_tags_write_nothing() {
    let dir = Dir::new("enc-aead");
    let hex = |s: &str| hexfmt::decode(s).unwrap();
    let mut sealed = 0;
    let mut refused = 0;
    for (i, v) in kat_vectors::GCM.iter().chain(kat_vectors::CCM).enumerate() {
        let (key, nonce, ct, tag) = (v.key, v.nonce, hex(v.cipher), hex(v.tag));
        let bits = key.len() * 4;
        let mode = match v.algorithm {
            pd_idl::aead::AeadAlgorithm::AesGcm => "gcm",
            pd_idl::aead::AeadAlgorithm::AesCcm => "ccm",
        };
        let alg = format!("aes-{bits}-{mode}");
        let aad = dir.file(&format!("aad{i}"), &hex(v.aad));
        let tag_file = dir.0.join(format!("tag{i}"));
        let tag_len = tag.len().to_string();
        let base = [
            "-a",
            &alg,
            "--key",
            key,
            "--nonce",
            nonce,
            "--aad",
            path_str(&aad),
            "--tag",
            path_str(&tag_file),
            "--tag-len",
            &tag_len,
        ];
        if let Some(p) = v.plain {
            let mut args = base.to_vec();
            args.push("-e");
            let out = pd_enc(&args, Some(&hex(p)));
            assert!(
                out.status.success(),
                "{}: {}",
                v.source,
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, ct, "{}: ciphertext", v.source);
            assert_eq!(std::fs::read(&tag_file).unwrap(), tag, "{}: tag", v.source);
            sealed += 1;
        }
        let ct_file = dir.file(&format!("ct{i}"), &ct);
        let pt_file = dir.0.join(format!("pt{i}"));
        let mut opening = base.to_vec();
        opening.extend(["-d", "-i", path_str(&ct_file), "-o", path_str(&pt_file)]);
        std::fs::write(&tag_file, &tag).unwrap();
        let out = pd_enc(&opening, None);
        match v.plain {
            Some(p) => {
                assert!(
                    out.status.success(),
                    "{}: {}",
                    v.source,
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    std::fs::read(&pt_file).unwrap(),
                    hex(p),
                    "{}: opened",
                    v.source
                );
                // Forged: one tag bit flipped.
                let mut forged = tag.clone();
                forged[0] ^= 0x80;
                std::fs::write(&tag_file, &forged).unwrap();
                std::fs::remove_file(&pt_file).unwrap();
                let out = pd_enc(&opening, None);
                assert_eq!(out.status.code(), Some(1), "{}: forged", v.source);
                assert!(!pt_file.exists(), "{}: no output for a forgery", v.source);
                refused += 1;
            }
            None => {
                assert_eq!(out.status.code(), Some(1), "{}: a published FAIL", v.source);
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    err.contains("TagMismatch: the tag does not verify"),
                    "{err}"
                );
                assert!(!pt_file.exists(), "{}: no output for a FAIL", v.source);
                refused += 1;
            }
        }
    }
    let with_plain = kat_vectors::GCM
        .iter()
        .chain(kat_vectors::CCM)
        .filter(|v| v.plain.is_some())
        .count();
    assert_eq!(sealed, with_plain);
    assert_eq!(refused, kat_vectors::GCM.len() + kat_vectors::CCM.len());
}

/// `--random-nonce` (GCM sealing): the CPU driver draws the nonce from the host's Rng
/// driver, pd-enc prints `nonce=HEX`; the message is RustCrypto's under it and opens
/// with it; two runs draw two nonces. A message longer than one request takes (1 MiB
/// with its AAD: init/update/final is not offered yet) is refused before booting.
#[test]
fn a_random_gcm_nonce_is_drawn_printed_and_opens_and_long_messages_are_refused() {
    let dir = Dir::new("enc-aead-random");
    let key = bytes(9, 32);
    let k = hexfmt::encode(&key);
    let plain = bytes(77, 100_000);
    let tag = dir.0.join("tag");
    let seal = || {
        let out = pd_enc(
            &[
                "-a",
                "aes-256-gcm",
                "--key",
                &k,
                "--random-nonce",
                "--tag",
                path_str(&tag),
            ],
            Some(&plain),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8(out.stderr).unwrap();
        let nonce = err
            .lines()
            .find_map(|l| l.strip_prefix("nonce="))
            .unwrap()
            .to_string();
        (nonce, out.stdout, std::fs::read(&tag).unwrap())
    };
    let (nonce, ct, t) = seal();
    let (nonce2, _, _) = seal();
    assert_ne!(nonce, nonce2, "two runs, two nonces");
    use aes_gcm::aead::{AeadInPlace, KeyInit};
    let mut want = plain.clone();
    let want_tag = aes_gcm::Aes256Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt_in_place_detached(
            aes_gcm::Nonce::from_slice(&hexfmt::decode(&nonce).unwrap()),
            &[],
            &mut want,
        )
        .unwrap();
    assert!(ct == want, "as RustCrypto under the printed nonce");
    assert_eq!(t, want_tag.to_vec());
    std::fs::write(&tag, &t).unwrap();
    let out = pd_enc(
        &[
            "-a",
            "aes-256-gcm",
            "-d",
            "--key",
            &k,
            "--nonce",
            &nonce,
            "--tag",
            path_str(&tag),
        ],
        Some(&ct),
    );
    assert!(
        out.status.success() && out.stdout == plain,
        "opens with the printed nonce"
    );
    let big = dir.file("big", &bytes(1, pd_tools::systems::AEAD_DATA_SIZE + 1));
    let out = pd_enc(
        &[
            "-a",
            "aes-256-gcm",
            "--key",
            &k,
            "--random-nonce",
            "--tag",
            path_str(&tag),
            "-i",
            path_str(&big),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is more than one message takes"), "{err}");
}

#[test]
fn aead_mistakes_are_refused_before_booting_with_their_reason() {
    let k = "00".repeat(16);
    let n12 = "00".repeat(12);
    for (args, want) in [
        (
            vec![
                "-a",
                "aes-128-gcm",
                "--key",
                &k,
                "--nonce",
                "0011",
                "--tag",
                "/tmp/t",
            ],
            "--nonce: aes-128-gcm takes a 12-byte nonce, got 2 bytes",
        ),
        (
            vec![
                "-a",
                "aes-128-ccm",
                "--key",
                &k,
                "--nonce",
                &n12,
                "--tag",
                "/tmp/t",
                "--tag-len",
                "5",
            ],
            "--tag-len: aes-128-ccm takes an even length of 4 to 16 bytes, not 5",
        ),
        (
            vec!["-a", "aes-128-gcm", "--key", &k, "--nonce", &n12],
            "--tag FILE: where the tag is written",
        ),
        (
            vec![
                "-a",
                "aes-128-ccm",
                "--key",
                &k,
                "--random-nonce",
                "--tag",
                "/tmp/t",
            ],
            "--random-nonce: only GCM's nonces are drawn by the driver",
        ),
        (
            vec![
                "--engine",
                "omap-aes",
                "-a",
                "aes-128-gcm",
                "--key",
                &k,
                "--nonce",
                &n12,
                "--tag",
                "/tmp/t",
            ],
            "aes-128-gcm: the omap-aes driver offers no AEAD yet",
        ),
        (
            vec![
                "-a",
                "aes-128-cbc",
                "--key",
                &k,
                "--iv",
                &"00".repeat(16),
                "--aad",
                "/tmp/a",
            ],
            "--aad: aes-128-cbc is no AEAD",
        ),
    ] {
        let out = pd_enc(&args, Some(b""));
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
