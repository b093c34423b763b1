//! `vboot-sign`: makes signing keys, signs boot images into manifests, and verifies an
//! image against a manifest on the host with the same check the verified-boot PD runs.
//!
//! Keys are files of 64 hex digits (the Ed25519 secret seed, or the public key); a
//! manifest is the binary file the verified-boot PD reads (see the `vboot` crate).

use std::io::Read;
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
        #[arg(long)]
        secret: PathBuf,
        #[arg(long)]
        public: PathBuf,
    },
    /// Sign an image into a manifest.
    Sign {
        #[arg(long)]
        secret: PathBuf,
        /// Image name recorded in the manifest (at most 32 bytes).
        #[arg(long)]
        name: String,
        #[arg(long)]
        version: u32,
        #[arg(long)]
        image: PathBuf,
        #[arg(long)]
        manifest: PathBuf,
    },
    /// Verify an image against a manifest; exits 1 with the reason if it does not verify.
    Verify {
        #[arg(long)]
        public: PathBuf,
        /// Lowest acceptable version (rollback floor).
        #[arg(long, default_value_t = 0)]
        floor: u32,
        #[arg(long)]
        image: PathBuf,
        #[arg(long)]
        manifest: PathBuf,
    },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn read_key(path: &Path) -> Result<[u8; 32], String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = text.trim();
    let bytes: Result<Vec<u8>, _> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2).unwrap_or("zz"), 16))
        .collect();
    bytes
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| format!("{}: not a key (64 hex digits)", path.display()))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Keygen { secret, public } => {
            // The OS's entropy source, read directly: no RNG crate needed for 32 bytes.
            let mut seed = [0u8; 32];
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut seed))
                .map_err(|e| format!("/dev/urandom: {e}"))?;
            let key = SigningKey::from_bytes(&seed);
            write(&secret, format!("{}\n", hex(&seed)).as_bytes())?;
            write(
                &public,
                format!("{}\n", hex(key.verifying_key().as_bytes())).as_bytes(),
            )?;
            println!("public key {}", hex(key.verifying_key().as_bytes()));
            Ok(())
        }
        Command::Sign {
            secret,
            name,
            version,
            image,
            manifest,
        } => {
            if name.len() > vboot::NAME_MAX {
                return Err(format!("name longer than {} bytes", vboot::NAME_MAX));
            }
            let key = SigningKey::from_bytes(&read_key(&secret)?);
            let data = read(&image)?;
            let body = ManifestBody::new(
                &name,
                data.len() as u64,
                Sha256::digest(&data).into(),
                version,
            );
            let signature = key.sign(&body.encode()).to_bytes();
            write(&manifest, &Manifest { body, signature }.encode())?;
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
            let key = read_key(&public)?;
            let data = read(&image)?;
            let m = read(&manifest)?;
            let hash = |n: u64| Ok(Sha256::digest(&data[..n as usize]).into());
            match vboot::check(&m, &key, floor, data.len() as u64, hash) {
                Ok(body) => {
                    println!(
                        "{}: verified ({}, version {}, {} bytes)",
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
