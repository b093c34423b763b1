//! `pd-sizes`: the footprint of each protection domain ELF (`make sizes`).
//!
//! Counts what the `microkit` tool loads, segment by segment (PT_LOAD program
//! headers): **text** = file bytes of read-only segments (code and constants: what
//! Hubris would put in flash), **data** = file bytes of writable segments (initialised
//! statics, including the symbols the tool patches), **bss** = the zero-filled rest of
//! writable segments. Berkeley `size(1)` counts sections instead and calls Rust's
//! `.data.rel.ro` data because of its section flags, though it is mapped read-only.
//!
//! **frames** is what seL4 really spends: the tool maps every segment page by page in
//! 4 KiB frames (`add_elf_to_spec` in `tool/microkit/src/capdl/builder.rs`), so each
//! segment costs its page-rounded span. Microkit adds per PD the stack (`stack_size`,
//! 8 KiB by default) and the 4 KiB IPC buffer, not counted here.
//!
//! Assumes little-endian ELF64 (every PD is aarch64). No dependencies: reading the
//! program headers is a few lines.

use std::process::ExitCode;

const PT_LOAD: u32 = 1;
const PF_W: u32 = 0x2;
const PAGE: u64 = 0x1000;

/// Bytes by class, and the 4 KiB frames the segments occupy.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sizes {
    text: u64,
    data: u64,
    bss: u64,
    frames: u64,
}

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(off..off + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(off..off + 8)?.try_into().ok()?))
}

/// The sizes of an ELF64 little-endian image, or why it is not one.
fn sizes(elf: &[u8]) -> Result<Sizes, &'static str> {
    if elf.get(..4) != Some(b"\x7fELF") || elf.get(4) != Some(&2) || elf.get(5) != Some(&1) {
        return Err("not a little-endian ELF64 file");
    }
    let bad = "truncated program headers";
    let phoff = u64_at(elf, 0x20).ok_or(bad)? as usize;
    let phentsize = usize::from(u16_at(elf, 0x36).ok_or(bad)?);
    let phnum = usize::from(u16_at(elf, 0x38).ok_or(bad)?);
    let mut s = Sizes::default();
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if u32_at(elf, ph).ok_or(bad)? != PT_LOAD {
            continue;
        }
        let flags = u32_at(elf, ph + 4).ok_or(bad)?;
        let vaddr = u64_at(elf, ph + 0x10).ok_or(bad)?;
        let filesz = u64_at(elf, ph + 0x20).ok_or(bad)?;
        let memsz = u64_at(elf, ph + 0x28).ok_or(bad)?;
        if memsz == 0 {
            continue;
        }
        if flags & PF_W == 0 {
            s.text += filesz;
        } else {
            s.data += filesz;
            s.bss += memsz.saturating_sub(filesz);
        }
        let first = vaddr / PAGE;
        let last = (vaddr + memsz - 1) / PAGE;
        s.frames += last - first + 1;
    }
    Ok(s)
}

/// `make sizes`: each PD's footprint.
#[derive(clap::Parser)]
#[command(
    name = "pd-sizes",
    version,
    about = "Text, data, bss and frames of each PD ELF"
)]
struct Args {
    /// The PD images (aarch64 ELF files).
    #[arg(required = true)]
    paths: Vec<String>,
    /// A PD's most flash (text + data) in bytes, as NAME=BYTES (NAME without `.elf`);
    /// repeatable. A PD over its budget is marked and the exit status is failure, as
    /// Hubris's build fails a task over its `max-sizes`.
    #[arg(long = "budget", value_name = "NAME=BYTES", value_parser = budget)]
    budgets: Vec<(String, u64)>,
}

fn budget(arg: &str) -> Result<(String, u64), String> {
    let (name, bytes) = arg
        .split_once('=')
        .ok_or_else(|| format!("{arg:?}: want NAME=BYTES"))?;
    let bytes = bytes
        .parse()
        .map_err(|_| format!("{arg:?}: {bytes:?} is not a byte count"))?;
    Ok((name.to_string(), bytes))
}

/// The PD an image's file name is of: the name without `.elf`, as budgets name it.
fn pd_name(file_name: &str) -> &str {
    file_name.strip_suffix(".elf").unwrap_or(file_name)
}

/// What a PD's flash is against its budget, if it has one: the mark for its line, and
/// whether it is over.
fn against(flash: u64, budget: Option<u64>) -> (String, bool) {
    match budget {
        None => (String::new(), false),
        Some(b) if flash > b => (format!("  OVER its budget of {b} by {} B", flash - b), true),
        Some(b) => (format!("  (budget {b}: {} B to spare)", b - flash), false),
    }
}

fn main() -> ExitCode {
    let Args { paths, budgets } = clap::Parser::parse();
    println!(
        "{:>8} {:>8} {:>8} {:>8} {:>8} {:>10}  pd",
        "text", "data", "bss", "flash", "ram", "frames"
    );
    let mut status = ExitCode::SUCCESS;
    for (i, (pd, _)) in budgets.iter().enumerate() {
        if budgets[..i].iter().any(|(other, _)| other == pd) {
            eprintln!("pd-sizes: two budgets for {pd}");
            status = ExitCode::FAILURE;
        }
    }
    let mut used = vec![false; budgets.len()];
    for path in &paths {
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.as_str(), |n| n.to_str().unwrap_or(path));
        let pd = pd_name(name);
        let budget = budgets.iter().position(|(n, _)| n == pd).map(|i| {
            used[i] = true;
            budgets[i].1
        });
        match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| sizes(&b).map_err(str::to_string))
        {
            Ok(s) => {
                let (mark, over) = against(s.text + s.data, budget);
                println!(
                    "{:>8} {:>8} {:>8} {:>8} {:>8} {:>6} KiB  {name}{mark}",
                    s.text,
                    s.data,
                    s.bss,
                    s.text + s.data,
                    s.data + s.bss,
                    s.frames * PAGE / 1024
                );
                if over {
                    status = ExitCode::FAILURE;
                }
            }
            Err(e) => {
                eprintln!("pd-sizes: {path}: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    for ((pd, _), used) in budgets.iter().zip(used) {
        if !used {
            eprintln!("pd-sizes: a budget for {pd}, which is not among the images");
            status = ExitCode::FAILURE;
        }
    }
    println!(
        "flash = text + data; ram = data + bss; frames = the 4 KiB pages its segments \
         occupy; Microkit adds an 8 KiB stack (default) and a 4 KiB IPC buffer per PD"
    );
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 with the given (type, flags, vaddr, filesz, memsz) headers.
    fn elf(phdrs: &[(u32, u32, u64, u64, u64)]) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[0x20..0x28].copy_from_slice(&64u64.to_le_bytes());
        b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes());
        b[0x38..0x3a].copy_from_slice(&(phdrs.len() as u16).to_le_bytes());
        for &(kind, flags, vaddr, filesz, memsz) in phdrs {
            let mut ph = vec![0u8; 56];
            ph[..4].copy_from_slice(&kind.to_le_bytes());
            ph[4..8].copy_from_slice(&flags.to_le_bytes());
            ph[0x10..0x18].copy_from_slice(&vaddr.to_le_bytes());
            ph[0x20..0x28].copy_from_slice(&filesz.to_le_bytes());
            ph[0x28..0x30].copy_from_slice(&memsz.to_le_bytes());
            b.extend(ph);
        }
        b
    }

    #[test]
    fn counts_segments_and_frames() {
        let image = elf(&[
            (PT_LOAD, 0x5, 0x20_0000, 0x1800, 0x1800), // text: 2 frames
            (PT_LOAD, 0x4, 0x20_2000, 0x100, 0x100),   // rodata: 1 frame
            (PT_LOAD, 0x6, 0x20_3ff8, 0x10, 0x20),     // data + bss across a page
            (0x6474_e551, 0x6, 0, 0, 0),               // PT_GNU_STACK: ignored
        ]);
        assert_eq!(
            sizes(&image),
            Ok(Sizes {
                text: 0x1900,
                data: 0x10,
                bss: 0x10,
                frames: 5
            })
        );
    }

    #[test]
    fn a_budget_is_met_to_the_byte_and_passed_by_one() {
        assert_eq!(against(100, None), (String::new(), false));
        assert!(!against(100, Some(100)).1);
        assert!(against(100, Some(164)).0.contains("64 B to spare"));
        let (mark, over) = against(101, Some(100));
        assert!(
            over && mark.contains("OVER its budget of 100 by 1 B"),
            "{mark}"
        );
        assert_eq!(budget("omap-aes=32768"), Ok(("omap-aes".into(), 32768)));
        assert!(budget("omap-aes").is_err());
        assert!(budget("omap-aes=32k").is_err());
    }

    #[test]
    fn refuses_what_is_not_elf64() {
        assert!(sizes(b"#!/bin/sh").is_err());
        let mut truncated = elf(&[(PT_LOAD, 0x5, 0, 1, 1)]);
        truncated.truncate(100);
        assert!(sizes(&truncated).is_err());
    }
}
