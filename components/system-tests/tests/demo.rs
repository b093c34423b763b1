//! The default demo (`make run`, system/demo.system): every client finishes with its
//! engines' published answers and the boot image verified, and the runner's
//! `wait_for` ends the system only once all of them have.

mod common;

use std::time::Duration;

use common::{lines, show, system_file};
use host_runner::{Options, Outcome, System};

const CLIENTS: [&str; 10] = [
    "vboot",
    "kat_cpu",
    "kat_mac",
    "kat_aead",
    "kat_rng",
    "kat_keys",
    "kat_omap",
    "kat_stm32",
    "kat_sec1",
    "speed",
];

#[test]
fn every_client_of_the_demo_finishes_and_then_the_system_stops() {
    let _turn = common::serial();
    let opts = Options {
        stop_on_exit: true,
        wait_for: CLIENTS.iter().map(|c| c.to_string()).collect(),
        ..Options::default()
    };
    let system = System::boot(system_file("demo.system"), opts).expect("boots");
    let mut outcome = None;
    for _ in 0..600 {
        outcome = system.wait_outcome(Duration::from_millis(100));
        if outcome.is_some() {
            break;
        }
    }
    let out = system
        .wait_until(Duration::ZERO, |_, out| Some(out.to_vec()))
        .unwrap();
    let Some(Outcome::Exited { pd }) = outcome else {
        panic!("{outcome:?}\n{}", show(&out, &system.events()));
    };
    // The last client to finish ended the system; every one had finished by then.
    assert!(CLIENTS.contains(&pd.as_str()));
    assert_eq!(lines(&out, "vboot", "boot image verified").len(), 1);
    // Each AEAD case is opened; one with a plaintext is also sealed and forged; then 14
    // typed refusals (7 opens, 7 requests) and a message under a nonce the driver drew
    // from the Rng driver.
    let aead = {
        let cases = || kat_vectors::GCM.iter().chain(kat_vectors::CCM);
        cases().count() + 2 * cases().filter(|v| v.plain.is_some()).count() + 14 + 1
    };
    for (client, done) in [
        ("kat_cpu", "all 48 vectors passed"),
        ("kat_omap", "all 72 vectors passed"),
        ("kat_stm32", "all 72 vectors passed"),
        ("kat_sec1", "all 57 digests passed"),
        (
            "kat_mac",
            &format!("all {} answers passed", 3 * kat_vectors::HMAC.len()),
        ),
        ("kat_aead", &format!("all {aead} answers passed")),
        ("kat_rng", "all 12 answers passed"),
        ("kat_keys", "all 20 checks passed"),
    ] {
        assert_eq!(lines(&out, client, done).len(), 1, "{client}: {done}");
        assert!(lines(&out, client, "FAIL").is_empty(), "{client}");
    }
    // The speed table: a row per engine and size, the adaptive path choosing PIO for
    // 16 bytes and DMA for 4 KiB on both hardware engines, a modelled figure where a
    // board model exists.
    let rows = lines(&out, "speed", "speed: ");
    // The table says what its host column is: one run of a debug build (make run).
    assert_eq!(
        lines(&out, "speed", "one run, debug build").len(),
        1,
        "{rows:?}"
    );
    for (engine, size, path) in [
        ("omap-aes", 16, "pio"),
        ("omap-aes", 4096, "dma"),
        ("stm32-cryp", 16, "pio"),
        ("stm32-cryp", 4096, "dma"),
        ("cpu", 16, "cpu"),
    ] {
        let row = rows
            .iter()
            .find(|r| {
                let w: Vec<&str> = r.split_whitespace().collect();
                w.get(1) == Some(&engine) && w.get(2) == Some(&size.to_string().as_str())
            })
            .unwrap_or_else(|| panic!("no row for {engine} {size}: {rows:?}"));
        assert!(row.contains(&format!(" {path} ")), "{row}");
        assert_eq!(row.contains("(no model)"), engine == "cpu", "{row}");
    }
    system.shutdown();
}
