//! `systems/hasher.system`, the runtime's own demo (queues, PPC and a nested power
//! grant): every digest checked by the client against FIPS 180-2, the power grant taken
//! and given back, exit 0.

mod common;

use common::exited;
use host_runner::{Options, System};

#[test]
fn demo_hashes_the_fips_examples_across_pds() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/systems/hasher.system");
    let system = System::boot(path, Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let client = exited(&system, "client");
    assert_eq!(
        client
            .iter()
            .filter(|l| l.ends_with("matches FIPS 180-2"))
            .count(),
        3,
        "{client:?}"
    );
    let hasher = system.output("hasher");
    assert!(
        hasher.iter().any(|l| l.contains("Sec1 granted by power")),
        "{hasher:?}"
    );
    assert!(
        hasher.iter().any(|l| l.contains("Sec1 released (Ok(()))")),
        "{hasher:?}"
    );
}
