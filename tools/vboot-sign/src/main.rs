//! `vboot-sign`: makes signing keys, signs boot images into manifests, and verifies an
//! image against a manifest on the host with the same check the verified-boot PD runs.
//!
//! A public key is a file of 64 hex digits (what the verified-boot PD embeds); a secret
//! key is the Ed25519 seed in 64 hex digits under a header line that says what it is, so
//! neither can be used for the other, written readable by its owner only (0600). A
//! manifest is the binary file the verified-boot PD reads (see the `vboot` crate).

use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ed25519_dalek::{Signer, SigningKey};
use sha2::{Digest, Sha256};
use vboot::{Manifest, ManifestBody};

#[derive(Parser)]
#[command(version, about = "Sign and verify crypto-pd boot images")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Make a new signing key (secret) and its public key.
    Keygen {
        /// Where to write the secret key (created readable by you only).
        #[arg(long)]
        secret: PathBuf,
        /// Where to write the public key (what the verifier trusts).
        #[arg(long)]
        public: PathBuf,
        /// Replace key files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Sign an image into a manifest.
    Sign {
        /// The secret key (from keygen --secret).
        #[arg(long)]
        secret: PathBuf,
        /// Image name recorded in the manifest (at most 32 bytes).
        #[arg(long)]
        name: String,
        /// Image version recorded in the manifest (the verifier's rollback floor
        /// refuses lower ones).
        #[arg(long)]
        version: u32,
        /// The boot image to sign.
        #[arg(long)]
        image: PathBuf,
        /// Where to write the manifest (a new file: see --force).
        #[arg(long)]
        manifest: PathBuf,
        /// Replace a manifest that already exists.
        #[arg(long)]
        force: bool,
    },
    /// Verify an image against a manifest; exits 1 with the reason if it does not verify.
    Verify {
        /// The public key the verifier trusts (from keygen --public).
        #[arg(long)]
        public: PathBuf,
        /// Lowest acceptable version (the rollback floor the device enforces; 0 accepts
        /// every version). Required: a verifier that assumed one would check rollback
        /// differently from the device it stands in for.
        #[arg(long, value_name = "VERSION")]
        floor: u32,
        /// The boot image.
        #[arg(long)]
        image: PathBuf,
        /// Its manifest.
        #[arg(long)]
        manifest: PathBuf,
    },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first line of a secret key file.
const SECRET_HEADER: &str = "vboot-sign secret key (Ed25519 seed): keep it private";

/// 64 hex digits as 32 bytes.
fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let bytes: Result<Vec<u8>, _> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2).unwrap_or("zz"), 16))
        .collect();
    bytes.ok().and_then(|b| <[u8; 32]>::try_from(b).ok())
}

/// An I/O error in strerror's words, without Rust's `(os error N)` suffix.
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// `path: reason` for an I/O error on `path`.
fn io_fail(path: &Path, e: &std::io::Error) -> String {
    format!("{}: {}", path.display(), io_text(e))
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| io_fail(path, &e))
}

fn read_secret(path: &Path) -> Result<[u8; 32], String> {
    let text = read_text(path)?;
    let mut lines = text.lines();
    match lines.next().map(str::trim) {
        Some(SECRET_HEADER) => lines
            .next()
            .and_then(|l| parse_hex(l.trim()))
            .ok_or_else(|| format!("{}: a damaged secret key", path.display())),
        Some(l) if parse_hex(l).is_some() => Err(format!(
            "{}: this is a public key; signing needs the secret key (keygen --secret)",
            path.display()
        )),
        _ => Err(format!("{}: not a vboot-sign secret key", path.display())),
    }
}

fn read_public(path: &Path) -> Result<[u8; 32], String> {
    let text = read_text(path)?;
    let first = text.lines().next().unwrap_or("").trim();
    if first == SECRET_HEADER {
        return Err(format!(
            "{}: this is a secret key; verifying needs the public key (keygen --public)",
            path.display()
        ));
    }
    parse_hex(first).ok_or_else(|| {
        format!(
            "{}: not a key (a public key is 64 hex digits)",
            path.display()
        )
    })
}

/// Writes `bytes` to a new file, or over an old one only with `force` (`command` names
/// the subcommand whose --force that is); `private` ones readable by their owner only,
/// from the moment they exist. The file is created exclusively, so a file made between
/// a caller's check and this write is not replaced either.
fn write_new(
    path: &Path,
    bytes: &[u8],
    command: &str,
    force: bool,
    private: bool,
) -> Result<(), String> {
    let fail = |e: std::io::Error| io_fail(path, &e);
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).mode(if private { 0o600 } else { 0o644 });
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    let mut f = opts.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => exists(path, command),
        _ => fail(e),
    })?;
    if private {
        // An existing file keeps its mode through `open`: set it.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))
            .map_err(fail)?;
    }
    f.write_all(bytes).map_err(fail)
}

fn exists(path: &Path, command: &str) -> String {
    format!(
        "{}: File exists ({command} --force replaces it)",
        path.display()
    )
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| io_fail(path, &e))
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Keygen {
            secret,
            public,
            force,
        } => {
            if !force {
                for p in [&secret, &public] {
                    if p.exists() {
                        return Err(exists(p, "keygen"));
                    }
                }
            }
            // The OS's entropy source, read directly: no RNG crate needed for 32 bytes.
            let mut seed = [0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut seed))
                .map_err(|e| io_fail(Path::new("/dev/urandom"), &e))?;
            let key = SigningKey::from_bytes(&seed);
            let secret_text = format!("{SECRET_HEADER}\n{}\n", hex(&seed));
            write_new(&secret, secret_text.as_bytes(), "keygen", force, true)?;
            let public_text = format!("{}\n", hex(key.verifying_key().as_bytes()));
            write_new(&public, public_text.as_bytes(), "keygen", force, false)?;
            println!("public key {}", hex(key.verifying_key().as_bytes()));
            Ok(())
        }
        Command::Sign {
            secret,
            name,
            version,
            image,
            manifest,
            force,
        } => {
            // Before the key and image are read: replacing a manifest is refused however
            // the rest would have gone.
            if !force && manifest.exists() {
                return Err(exists(&manifest, "sign"));
            }
            if name.len() > vboot::NAME_MAX {
                return Err(format!("name longer than {} bytes", vboot::NAME_MAX));
            }
            let key = SigningKey::from_bytes(&read_secret(&secret)?);
            let data = read(&image)?;
            let body = ManifestBody::new(
                &name,
                data.len() as u64,
                Sha256::digest(&data).into(),
                version,
            );
            let signature = key.sign(&body.encode()).to_bytes();
            let bytes = Manifest { body, signature }.encode();
            write_new(&manifest, &bytes, "sign", force, false)?;
            println!(
                "{}: {} bytes, sha256 {}, version {version}",
                manifest.display(),
                data.len(),
                hex(&body.sha256)
            );
            Ok(())
        }
        Command::Verify {
            public,
            floor,
            image,
            manifest,
        } => {
            let key = read_public(&public)?;
            let data = read(&image)?;
            let m = read(&manifest)?;
            let hash = |n: u64| Ok(Sha256::digest(&data[..n as usize]).into());
            match vboot::check_whole(&m, &key, floor, data.len() as u64, hash) {
                Ok(body) => {
                    println!(
                        "{}: verified ({}, version {}, floor {floor}, {} bytes)",
                        image.display(),
                        String::from_utf8_lossy(body.name()),
                        body.version,
                        body.length
                    );
                    Ok(())
                }
                Err(e) => Err(format!("{}: not verified: {e}", image.display())),
            }
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vboot-sign: {e}");
            ExitCode::FAILURE
        }
    }
}
