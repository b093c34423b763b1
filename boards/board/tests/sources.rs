//! The repository stands alone: every published figure our models reproduce is cited by
//! the public name of its Linux change (boards/SOURCES.md), never by a file outside the
//! repository ("seed N", the team's shared notes).

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            walk(&path, out);
        } else if [".rs", ".md", ".idl", ".system", ".toml"]
            .iter()
            .any(|e| name.ends_with(e))
            || name == "Makefile"
        {
            out.push(path);
        }
    }
}

#[test]
fn no_file_cites_a_source_outside_the_repository() {
    let mut files = Vec::new();
    walk(&repo(), &mut files);
    assert!(
        files.len() > 100,
        "walked the repository ({} files)",
        files.len()
    );
    // Built from pieces so that this file does not cite them itself.
    let banned = [
        ["seed", " 00"].concat(),
        ["Seed", " 00"].concat(),
        ["COSTS", ".md"].concat(),
        ["seeds", "/"].concat(),
    ];
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if banned.iter().any(|b| line.contains(b.as_str())) {
                found.push(format!("{}:{}: {line}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cites outside the repository:\n{}",
        found.join("\n")
    );
}

#[test]
fn sources_md_names_every_change_the_speed_tool_reproduces() {
    let sources = std::fs::read_to_string(repo().join("boards/SOURCES.md")).unwrap();
    for (flag, title) in [
        (
            "omap-idle-start",
            "Don't idle/start AES device between Encrypt operations",
        ),
        (
            "omap-dma-pio",
            "crypto: omap-aes: DMA and PIO mode improvements",
        ),
        (
            "stm32-dma",
            "Use DMA when buffer are aligned and with expected size",
        ),
        (
            "talitos-chain",
            "crypto: talitos - chain in buffered data for ahash on SEC1",
        ),
    ] {
        assert!(sources.contains(&format!("(`{flag}`)")), "{flag}");
        assert!(sources.contains(title), "{title}");
    }
}
