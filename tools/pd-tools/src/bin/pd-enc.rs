//! `pd-enc`: AES through an isolated Cipher driver PD, in the spirit of kcapi-enc.
//!
//! Boots a minimal system on the host backend (the engine's power manager if it has a
//! clock gate, its driver PD, and the `pdt-enc-client` PD) and runs the input through
//! it: raw bytes, no padding. For ECB and CBC a length that is not a multiple of 16 is
//! an error: found before anything is written when the input is a regular file, at the
//! end of the input otherwise (then the output holds every whole chunk before it, and
//! the exit status is 1). CTR takes any length. CBC and CTR need `--iv`; encryption is
//! the default, and openssl enc's spellings (`-aes-128-cbc -K .. -iv .. -in .. -out`)
//! are taken too.
//!
//! An AEAD (`-a aes-128-gcm`, 192 and 256, and `aes-*-ccm`) seals or opens the input as
//! one message through the CPU engine's Aead driver PD, with `--nonce` (or, GCM
//! sealing, `--random-nonce`: the driver draws it and pd-enc prints `nonce=HEX` on
//! standard error), `--aad FILE`, and the tag kept apart in `--tag FILE` as kcapi-enc
//! does: written when sealing, read and checked when opening. A tag that does not
//! verify exits 1 and writes no plaintext (an output file pd-enc created is removed).
//! The message is one request, so it is at most the Aead client's data region (1 MiB,
//! with its AAD): init/update/final, for longer ones, is not offered yet.
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_idl::cipher::Mode;
use pd_tools::algs::{AEADS, AeadAlg, CIPHERS, CipherAlg, DataPath, Engine};
use pd_tools::cli::{self, Tool, io_text, quote};
use pd_tools::hexfmt;
use pd_tools::run::run;
use pd_tools::systems::Kind;

const TOOL: Tool = Tool("pd-enc");

#[derive(Parser)]
#[command(
    name = "pd-enc",
    version,
    about = "Encrypt or decrypt through an isolated crypto-engine driver PD (host backend)",
    after_help = "openssl enc's spellings are taken too: -aes-128-cbc (and the other ciphers), \
-K, -iv, -in, -out, -e, -d and -nopad. pd-enc never pads, so CBC and ECB in openssl's \
spelling need -nopad, as `openssl enc -nopad` would be the same command."
)]
struct Args {
    /// The engine whose driver does the work: the OMAP AES or STM32 CRYP model, or the
    /// CPU.
    #[arg(long, value_parser = ["omap-aes", "stm32-cryp", "cpu"], default_value = "cpu")]
    engine: String,
    /// How the driver moves data: adaptive (PIO or DMA per request by size and
    /// alignment), pio, dma, or cpu (the CPU engine offers cpu and adaptive).
    #[arg(long, default_value = "adaptive", value_parser = DataPath::parser(true))]
    path: DataPath,
    /// The cipher or AEAD. CBC and ECB take no padding: the input must be whole 16-byte
    /// blocks (as `openssl enc -nopad`). GCM and CCM seal or open the whole input as one
    /// message (the CPU engine's).
    #[arg(short = 'a', long, value_parser = CIPHERS.iter().chain(&AEADS).copied().collect::<Vec<_>>())]
    alg: String,
    /// Encrypt (the default).
    #[arg(short = 'e', conflicts_with = "decrypt")]
    encrypt: bool,
    /// Decrypt.
    #[arg(short = 'd')]
    decrypt: bool,
    /// The key in hex (16, 24 or 32 bytes, as the algorithm says).
    #[arg(long)]
    key: String,
    /// The IV (CTR: the initial counter block) in hex, 16 bytes; required for CBC and
    /// CTR (there is no default: an all-zero IV repeated across messages leaks), not
    /// taken for ECB.
    #[arg(long, conflicts_with = "random_iv")]
    iv: Option<String>,
    /// Encrypting with CBC or CTR on the CPU engine: the driver draws the IV from its
    /// Rng service (a CTR_DRBG seeded through SP 800-90B's tests), and pd-enc prints it
    /// on standard error as `iv=HEX`, for the decrypt's `--iv`.
    #[arg(long, conflicts_with = "decrypt")]
    random_iv: bool,
    /// AEAD: the nonce in hex (GCM: 12 bytes; CCM: 7 to 13). Never reuse one under a
    /// key: a repeated GCM nonce gives away the authentication key.
    #[arg(long, conflicts_with = "random_nonce")]
    nonce: Option<String>,
    /// AEAD sealing with GCM: the driver draws the nonce from its Rng service (SP 800-38D
    /// 8.2.2), and pd-enc prints it on standard error as `nonce=HEX`, for the opening's
    /// `--nonce`.
    #[arg(long, conflicts_with = "decrypt")]
    random_nonce: bool,
    /// AEAD: the associated data, authenticated and not encrypted (default: none).
    #[arg(long, value_name = "FILE")]
    aad: Option<PathBuf>,
    /// AEAD: where the tag goes when sealing, where it is read from when opening.
    #[arg(long, value_name = "FILE")]
    tag: Option<PathBuf>,
    /// AEAD: the tag's length in bytes (GCM: 12 to 16; CCM: even, 4 to 16).
    #[arg(long, default_value_t = 16)]
    tag_len: usize,
    /// Input file (default: standard input).
    #[arg(short = 'i')]
    input: Option<PathBuf>,
    /// Output file (default: standard output); never the input file.
    #[arg(short = 'o')]
    output: Option<PathBuf>,
    /// Accepted for openssl's sake: pd-enc never pads.
    #[arg(long, hide = true)]
    nopad: bool,
}

/// openssl enc's single-dash spellings, as this tool's options; and whether a cipher
/// was named openssl's way (`-aes-128-cbc`), which pads unless `-nopad` is given.
fn openssl_habits(args: impl Iterator<Item = String>) -> (Vec<String>, bool) {
    let mut openssl_cipher = false;
    let out = args
        .flat_map(|a| {
            let long = |s: &str| vec![s.to_string()];
            match a.as_str() {
                "-in" => long("-i"),
                "-out" => long("-o"),
                "-K" => long("--key"),
                "-iv" => long("--iv"),
                "-nopad" => long("--nopad"),
                _ if a.starts_with("-aes-") && CipherAlg::parse(&a[1..]).is_ok() => {
                    openssl_cipher = true;
                    vec!["--alg".to_string(), a[1..].to_string()]
                }
                _ => vec![a],
            }
        })
        .collect();
    (out, openssl_cipher)
}

fn main() -> ExitCode {
    let (argv, openssl_cipher) = openssl_habits(std::env::args());
    let a = Args::parse_from(argv);
    let stdout_closed = cli::stdout_closed();
    let engine = match a.engine.as_str() {
        "omap-aes" => Engine::OmapAes,
        "stm32-cryp" => Engine::Stm32Cryp,
        _ => Engine::Cpu,
    };
    engine
        .check_path(a.path, true)
        .unwrap_or_else(|e| TOOL.die(e));
    if let Ok(aead) = AeadAlg::parse(&a.alg) {
        return aead_main(&a, engine, aead, stdout_closed);
    }
    for (given, what) in [
        (a.nonce.is_some() || a.random_nonce, "--nonce"),
        (a.aad.is_some(), "--aad"),
        (a.tag.is_some(), "--tag"),
    ] {
        if given {
            TOOL.die(format_args!(
                "{what}: {} is no AEAD (aes-128-gcm, aes-128-ccm, ...)",
                a.alg
            ));
        }
    }
    let alg = CipherAlg::parse(&a.alg).unwrap_or_else(|e| TOOL.die(e));
    if openssl_cipher && alg.whole_blocks() && !a.nopad {
        TOOL.die(format_args!(
            "-{}: pd-enc never pads; add -nopad (openssl enc -nopad is the same command)",
            a.alg
        ));
    }
    check_key(&a, alg.key_len);
    let iv = match (&a.iv, alg.mode) {
        (None, Mode::Ecb) if a.random_iv => {
            TOOL.die(format_args!("--random-iv: {} takes no IV", a.alg))
        }
        (None, Mode::Ecb) => "00".repeat(16),
        (None, _) if a.random_iv && engine != Engine::Cpu => TOOL.die(format_args!(
            "--random-iv: the {} driver has no Rng service here; bring an IV (--iv)",
            engine.name()
        )),
        (None, _) if a.random_iv => "random".to_string(),
        (None, _) => TOOL.die(format_args!(
            "--iv: {} needs an IV, 16 bytes in hex (openssl enc refuses too: iv undefined)",
            a.alg
        )),
        (Some(iv), _) => iv.clone(),
    };
    if iv != "random" {
        let bytes = hexfmt::decode(&iv).unwrap_or_else(|e| TOOL.die(format_args!("--iv: {e}")));
        if bytes.len() != 16 {
            TOOL.die(format_args!("--iv: 16 bytes expected, got {}", bytes.len()));
        }
    }
    // The tool opens both ends, checked before anything boots: the client PD is
    // sandboxed and opens no file itself.
    let input: OwnedFd = match &a.input {
        Some(p) => open_input(p, alg, &a.alg).into(),
        None => dup(std::io::stdin().as_fd(), "read error"),
    };
    let (output, _) = open_output(&a, stdout_closed);
    let env = vec![
        ("PDT_ALG".into(), a.alg.clone()),
        ("PDT_PATH".into(), a.path.name().to_string()),
        ("PDT_OP".into(), if a.decrypt { "d" } else { "e" }.into()),
        ("PDT_KEY".into(), a.key.clone()),
        ("PDT_IV".into(), iv),
    ];
    let files = vec![("in".to_string(), input), ("out".to_string(), output)];
    let report = run(
        engine,
        Kind::Cipher,
        "pdt-enc-client",
        env,
        files,
        Duration::from_secs(3600),
        &mut |_| {},
    )
    .unwrap_or_else(|e| TOOL.die(e));
    // As `openssl enc -p` shows the IV it used, on standard error: standard output may
    // be the ciphertext.
    for iv in report.tagged("iv") {
        eprintln!("iv={iv}");
    }
    ExitCode::SUCCESS
}

/// Seals or opens the input as one AEAD message through the CPU engine's Aead driver.
fn aead_main(a: &Args, engine: Engine, alg: AeadAlg, stdout_closed: bool) -> ExitCode {
    if engine != Engine::Cpu {
        TOOL.die(format_args!(
            "{}: the {} driver offers no AEAD yet (the CPU engine's does: --engine cpu)",
            a.alg,
            engine.name()
        ));
    }
    if a.iv.is_some() || a.random_iv {
        TOOL.die(format_args!(
            "--iv: {} takes a nonce (--nonce), not an IV",
            a.alg
        ));
    }
    check_key(a, alg.key_len);
    // The interface's own rules, so that a refusal is said here, before anything boots.
    let nonce = match (&a.nonce, a.random_nonce) {
        (Some(n), _) => {
            let bytes = hexfmt::decode(n).unwrap_or_else(|e| TOOL.die(format_args!("--nonce: {e}")));
            if !aead_service::nonce_ok(alg.algorithm, bytes.len()) {
                TOOL.die(format_args!(
                    "--nonce: {} takes {}, got {} bytes",
                    a.alg,
                    nonce_rule(alg),
                    bytes.len()
                ));
            }
            n.clone()
        }
        (None, true) if alg.algorithm == pd_idl::aead::AeadAlgorithm::AesGcm => "random".into(),
        (None, true) => TOOL.die(format_args!(
            "--random-nonce: only GCM's nonces are drawn by the driver (SP 800-38D 8.2.2); bring a nonce for {}",
            a.alg
        )),
        (None, false) => TOOL.die(format_args!(
            "--nonce: {} needs a nonce ({}), or --random-nonce when sealing with GCM",
            a.alg,
            nonce_rule(alg)
        )),
    };
    if !aead_service::tag_ok(alg.algorithm, a.tag_len) {
        TOOL.die(format_args!(
            "--tag-len: {} takes {}, not {}",
            a.alg,
            match alg.algorithm {
                pd_idl::aead::AeadAlgorithm::AesGcm => "12 to 16 bytes",
                pd_idl::aead::AeadAlgorithm::AesCcm => "an even length of 4 to 16 bytes",
            },
            a.tag_len
        ));
    }
    let Some(tag_path) = &a.tag else {
        TOOL.die("--tag FILE: where the tag is written (sealing) or read (opening)");
    };
    let sent_tag = if a.decrypt {
        let t = std::fs::read(tag_path)
            .unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(tag_path), io_text(&e))));
        if t.len() != a.tag_len {
            TOOL.die(format_args!(
                "{}: a {}-byte tag expected (--tag-len), the file has {} bytes",
                shown(tag_path),
                a.tag_len,
                t.len()
            ));
        }
        hexfmt::encode(&t)
    } else {
        check_output(tag_path, a.input.as_deref()).unwrap_or_else(|e| TOOL.die(e));
        String::new()
    };
    let open = |p: &Path| -> OwnedFd {
        let f = File::open(p)
            .unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(p), io_text(&e))));
        if f.metadata().is_ok_and(|m| m.is_dir()) {
            TOOL.die(format_args!("{}: Is a directory", shown(p)));
        }
        f.into()
    };
    let room = pd_tools::systems::AEAD_DATA_SIZE;
    let input: OwnedFd = match &a.input {
        Some(p) => {
            let fd = open(p);
            if let Ok(m) = std::fs::metadata(p)
                && m.is_file()
                && m.len() > room as u64
            {
                TOOL.die(format_args!(
                    "{}: {} bytes is more than one message takes ({room}: the driver takes a message in one request; init/update/final is not offered yet)",
                    shown(p),
                    m.len()
                ));
            }
            fd
        }
        None => dup(std::io::stdin().as_fd(), "read error"),
    };
    let mut files = vec![("in".to_string(), input)];
    if let Some(p) = &a.aad {
        files.push(("aad".to_string(), open(p)));
    }
    let (output, created) = open_output(a, stdout_closed);
    files.push(("out".to_string(), output));
    let env = vec![
        ("PDT_ALG".into(), a.alg.clone()),
        ("PDT_OP".into(), if a.decrypt { "d" } else { "e" }.into()),
        ("PDT_KEY".into(), a.key.clone()),
        ("PDT_NONCE".into(), nonce),
        ("PDT_TAG".into(), sent_tag),
        ("PDT_TAG_LEN".into(), a.tag_len.to_string()),
    ];
    let report = run(
        engine,
        Kind::Aead,
        "pdt-aead-client",
        env,
        files,
        Duration::from_secs(3600),
        &mut |_| {},
    )
    .unwrap_or_else(|e| {
        // Nothing of a refused message is left where the output was asked for.
        if let Some(p) = &created {
            let _ = std::fs::remove_file(p);
        }
        TOOL.die(e)
    });
    if !a.decrypt {
        let tag = report
            .tagged("tag")
            .next()
            .and_then(|t| hexfmt::decode(t).ok())
            .unwrap_or_else(|| TOOL.die("the client gave no tag"));
        std::fs::write(tag_path, tag)
            .unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(tag_path), io_text(&e))));
    }
    for n in report.tagged("nonce") {
        eprintln!("nonce={n}");
    }
    ExitCode::SUCCESS
}

/// The key, refused unless it is `key_len` bytes of hex.
fn check_key(a: &Args, key_len: usize) {
    let key = hexfmt::decode(&a.key).unwrap_or_else(|e| TOOL.die(format_args!("--key: {e}")));
    if key.len() != key_len {
        TOOL.die(format_args!(
            "--key: {} takes a {key_len}-byte key, got {} bytes",
            a.alg,
            key.len()
        ));
    }
}

/// The output, opened before anything boots (the sandboxed client opens no file), and
/// the path if this created it (so that a refusal can take it away again).
fn open_output(a: &Args, stdout_closed: bool) -> (OwnedFd, Option<PathBuf>) {
    match &a.output {
        Some(p) => {
            check_output(p, a.input.as_deref()).unwrap_or_else(|e| TOOL.die(e));
            let existed = p.exists();
            let f = File::create(p)
                .unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(p), io_text(&e))));
            (f.into(), (!existed).then(|| p.clone()))
        }
        None if stdout_closed => TOOL.die(format_args!(
            "write error: {}",
            io_text(&std::io::Error::from_raw_os_error(libc::EBADF))
        )),
        None => (dup(std::io::stdout().as_fd(), "write error"), None),
    }
}

/// The nonce lengths an AEAD takes, in words.
fn nonce_rule(alg: AeadAlg) -> &'static str {
    match alg.algorithm {
        pd_idl::aead::AeadAlgorithm::AesGcm => "a 12-byte nonce",
        pd_idl::aead::AeadAlgorithm::AesCcm => "a nonce of 7 to 13 bytes",
    }
}

/// A path as this tool's errors show it.
fn shown(p: &Path) -> String {
    quote(&p.to_string_lossy())
}

/// The input file, refused before anything boots if it is no file to read or, for a
/// cipher without padding, not whole blocks.
fn open_input(p: &Path, alg: CipherAlg, name: &str) -> File {
    let f =
        File::open(p).unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(p), io_text(&e))));
    let m = f
        .metadata()
        .unwrap_or_else(|e| TOOL.die(format_args!("{}: {}", shown(p), io_text(&e))));
    if m.is_dir() {
        TOOL.die(format_args!("{}: Is a directory", shown(p)));
    }
    if m.is_file() && alg.whole_blocks() && !m.len().is_multiple_of(16) {
        TOOL.die(format_args!(
            "{}: {} bytes is not a multiple of 16 ({name} has no padding)",
            shown(p),
            m.len(),
        ));
    }
    f
}

/// A descriptor of our own for `fd` (standard input or output), to grant to the client;
/// a closed one is a read or write error, as coreutils calls it.
fn dup(fd: BorrowedFd<'_>, what: &str) -> OwnedFd {
    fd.try_clone_to_owned()
        .unwrap_or_else(|e| TOOL.die(format_args!("{what}: {}", io_text(&e))))
}

/// Whether the output can be written where it is asked for, before anything boots:
/// not a directory, in a directory that exists, and not the input (creating it would
/// truncate the input before a byte of it is read; openssl does exactly that).
fn check_output(p: &Path, input: Option<&Path>) -> Result<(), String> {
    if p.is_dir() {
        return Err(format!("{}: Is a directory", shown(p)));
    }
    if let Some(dir) = p.parent()
        && !dir.as_os_str().is_empty()
        && !dir.is_dir()
    {
        return Err(format!("{}: no directory {}", shown(p), shown(dir)));
    }
    if let (Some(i), Ok(o)) = (input, std::fs::metadata(p))
        && let Ok(i) = std::fs::metadata(i)
        && (i.dev(), i.ino()) == (o.dev(), o.ino())
    {
        return Err(format!(
            "-o {}: is the input file; writing it would destroy the input before it is read",
            shown(p)
        ));
    }
    Ok(())
}
