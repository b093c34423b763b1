//! The README's "Use it" commands run as written (from the repository's root, with the
//! tools and PD binaries built, as `make test` does first), so the README stays true.
//! They name the release tools `make tools` builds; where there are none (a test run
//! builds debug ones, and CI does not build everything twice) the same commands run
//! with the debug tools, which differ only in speed.
//! Also: `make` alone lists the targets.

use std::path::PathBuf;
use std::process::Command;

/// The tools the block shows, each of which must be built for it to run.
const TOOLS: [&str; 7] = [
    "pd-dgst",
    "pd-enc",
    "pd-rand",
    "speed",
    "host-runner",
    "system-check",
    "vboot-sign",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The first ```sh block after the "## Use it" heading.
fn use_it_block() -> String {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme.split("## Use it").nth(1).expect("a Use it section");
    let block = section.split("```sh\n").nth(1).expect("a sh block");
    block.split("```").next().unwrap().to_string()
}

#[test]
fn the_readme_use_it_commands_run() {
    let script = use_it_block();
    for tool in TOOLS {
        assert!(
            script.contains(&format!("target/release/{tool} ")),
            "{tool} is shown"
        );
    }
    let built = |dir: &str| {
        TOOLS
            .iter()
            .all(|t| root().join("target").join(dir).join(t).exists())
    };
    let script = if built("release") {
        script
    } else {
        assert!(built("debug"), "the tools are built");
        eprintln!("no release tools (make tools): running the block with target/debug");
        script.replace("target/release/", "target/debug/")
    };
    let out = Command::new("sh")
        .args(["-e", "-c", &script])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "README commands failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(": OK"), "the check passed: {stdout}");
    assert!(stdout.contains("verified (demo, version 1"), "{stdout}");
}

#[test]
fn make_alone_lists_the_targets() {
    let out = Command::new("make").current_dir(root()).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for target in [
        "make run",
        "make test",
        "make bench",
        "make pds",
        "make help",
    ] {
        assert!(text.contains(target), "{target}: {text}");
    }
}
