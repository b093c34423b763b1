//! Keys by handle in a whole system on the host backend (system/keys-host.system): the
//! key store, the CPU Cipher driver fetching keys from it, a client encrypting by
//! handle and a hostile one. Each client checks its own answers and exits 0 only when
//! all were right; this test checks their verdicts and then reads the memory of the
//! driver and the key store, once the client destroyed its keys and closed its
//! sessions, for any 8 bytes of the key the client provisioned: every copy must have
//! been wiped (the session's, the engine's key cache, the store's slot, the message
//! words, the stack frames that decoded them).

mod common;

use common::lines;

/// FIPS-197 C.3's key, the one `kat-keys` provisions.
const KEY: [u8; 32] = {
    let mut k = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        k[i] = i as u8;
        i += 1;
    }
    k
};

/// RFC 4231 test case 4's HMAC key and the GCM key `kat-keyed` imports (the first
/// 128-bit payload case of NIST's gcmEncryptExtIV128).
const HMAC_KEY: [u8; 25] = {
    let mut k = [0u8; 25];
    let mut i = 0;
    while i < 25 {
        k[i] = i as u8 + 1;
        i += 1;
    }
    k
};
const GCM_KEY: [u8; 16] = [
    0x7f, 0xdd, 0xb5, 0x74, 0x53, 0xc2, 0x41, 0xd0, 0x3e, 0xfb, 0xed, 0x3a, 0xc4, 0x4e, 0x37, 0x1c,
];

/// Pieces of `key` (8 bytes each) found in `pid`'s writable memory, with where;
/// `Err` if this process may not read it (reading a non-dumpable process's memory takes
/// CAP_SYS_PTRACE).
fn pieces_in(pid: u32, key: &[u8]) -> Result<Vec<String>, std::io::Error> {
    use std::io::{Read, Seek, SeekFrom};
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
    let mut mem = std::fs::File::open(format!("/proc/{pid}/mem"))?;
    let mut found = Vec::new();
    for line in maps.lines() {
        let mut f = line.split_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else {
            continue;
        };
        // Writable memory only: a key the PD received lands there; read-only maps are
        // the binary (which holds no key of the client's) and read-only regions.
        if !perms.starts_with("rw") {
            continue;
        }
        let (lo, hi) = range.split_once('-').unwrap();
        let (lo, hi) = (
            u64::from_str_radix(lo, 16).unwrap(),
            u64::from_str_radix(hi, 16).unwrap(),
        );
        let mut bytes = vec![0u8; (hi - lo) as usize];
        mem.seek(SeekFrom::Start(lo))?;
        if mem.read_exact(&mut bytes).is_err() {
            continue;
        }
        for (n, piece) in key.chunks_exact(8).enumerate() {
            for (at, _) in bytes.windows(8).enumerate().filter(|(_, w)| *w == piece) {
                // What is around it says which copy it is.
                let around = &bytes[at.saturating_sub(16)..(at + 24).min(bytes.len())];
                found.push(format!(
                    "piece {n} at {:#x} ({}): {around:02x?}",
                    lo + at as u64,
                    line
                ));
            }
        }
    }
    Ok(found)
}

#[test]
fn keys_by_handle_are_used_refused_as_they_should_be_and_wiped() {
    let _turn = common::serial();
    let system = common::boot("keys-host.system");
    let user = system.wait_exit("kat_keys", common::WAIT);
    let hostile = system.wait_exit("hostile_keys", common::WAIT);
    let on_omap = system.wait_exit("kat_keys_omap", common::WAIT);
    let keyed = system.wait_exit("kat_keyed", common::WAIT);
    let out = common::output(&system);
    assert!(
        user && hostile && on_omap && keyed,
        "{}",
        common::show(&out, &system.events())
    );
    for pd in ["kat_keys", "kat_keys_omap"] {
        let verdict = lines(&out, pd, "verdict");
        assert!(
            verdict.len() == 1 && verdict[0].contains("all 20 checks passed"),
            "{pd}: {verdict:?}"
        );
    }
    let verdict = lines(&out, "kat_keyed", "verdict");
    assert!(
        verdict.len() == 1 && verdict[0].contains("all 28 checks passed"),
        "{verdict:?}"
    );
    let verdict = lines(&out, "hostile_keys", "verdict");
    assert!(
        verdict.len() == 1 && verdict[0].contains("all 30 checks passed"),
        "{verdict:?}"
    );
    assert!(out.iter().all(|(_, l)| !l.contains("FAIL")));
    // What a session by handle costs: one key store fetch per open_session_by_key call
    // (refused ones too), none for a raw-key open (refused before any).
    let opens_of = |pds: &[&str]| -> u32 {
        pds.iter()
            .map(|pd| {
                let v = lines(&out, pd, "opens by handle");
                let words: Vec<&str> = v[0].split_whitespace().collect();
                let at = words.iter().position(|w| *w == "opens").expect("the count");
                words[at - 1].parse::<u32>().expect("a number")
            })
            .sum()
    };
    for (clients, drivers) in [
        (&["kat_keys", "hostile_keys"][..], &["cpu_cipher_trace"][..]),
        (&["kat_keys_omap"][..], &["omap_trace"][..]),
        (&["kat_keyed"][..], &["cpu_mac_trace", "cpu_aead_trace"][..]),
    ] {
        let opens = opens_of(clients);
        let fetches: u32 = drivers
            .iter()
            .map(|d| {
                let trace = system.trace(d).expect("the driver keeps a trace");
                trace.count(pd_trace::Kind::KeyFetched)
            })
            .sum();
        assert_eq!(opens, fetches, "one fetch per open by handle: {drivers:?}");
        eprintln!("{clients:?}: {opens} opens by handle, {fetches} key store fetches");
    }
    // The OMAP engine's model counts each time its key registers went from holding no
    // key to holding one, and back: with every session closed, every key loaded was
    // cleared (kat-keys's last key is one it had generated, which no scan could name).
    let ledger = system
        .read_region("omap_ledger")
        .expect("the ledger region");
    let count = |e: cost_ledger::Event| {
        let at = 8 * e as usize;
        u64::from_le_bytes(ledger[at..at + 8].try_into().unwrap())
    };
    let loaded = count(cost_ledger::Event::KeyLoaded);
    let cleared = count(cost_ledger::Event::KeyCleared);
    assert!(
        loaded > 1 && cleared == loaded,
        "keys loaded into the engine {loaded}, cleared {cleared}"
    );
    eprintln!("omap_aes: {loaded} key(s) loaded into the engine's registers, {cleared} cleared");
    // The driver says where its keys come from, and that no client may use raw keys.
    let said = lines(&out, "cpu_cipher", "keys by handle from the key store");
    assert!(
        said.len() == 1 && said[0].contains("raw keys allowed to clients Some(0)"),
        "{said:?}"
    );
    // omap_aes's process holds the engine's model too: its registers are read with it.
    for pd in ["cpu_cipher", "key_store", "omap_aes"] {
        no_key_in(&system, pd, "once kat-keys destroyed its keys");
    }
    for pd in ["cpu_mac", "cpu_aead", "key_store"] {
        for key in [&HMAC_KEY[..], &GCM_KEY] {
            no_piece_in(&system, pd, key, "of kat-keyed's");
        }
    }
    system.shutdown();
}

/// Reads `pd`'s memory for the key: none may be there (skipped, loudly, where this
/// process may not read another's memory).
fn no_key_in(system: &host_runner::System, pd: &str, when: &str) {
    no_piece_in(system, pd, &KEY, when)
}

/// As [`no_key_in`], for `key`.
fn no_piece_in(system: &host_runner::System, pd: &str, key: &[u8], when: &str) {
    let pid = system.pid(pd).expect("still running");
    match pieces_in(pid, key) {
        Ok(found) => assert!(
            found.is_empty(),
            "{pd} still holds the key {when}: {found:?}"
        ),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            eprintln!("SKIPPED: reading {pd}'s memory needs CAP_SYS_PTRACE: {e}");
        }
        Err(e) => panic!("reading {pd}'s memory: {e}"),
    }
}

/// Boots `system`, waits until kat-keys holds its keys and sessions, checks the store
/// holds the key then (a later scan would otherwise find nothing for any reason), and
/// kills kat-keys.
fn killed_holding_its_keys(system: &str) -> host_runner::System {
    let system = common::boot(system);
    let holding = system.wait_until(common::WAIT, |_, out| {
        out.iter()
            .any(|(pd, l)| pd == "kat_keys" && l.contains("holding its keys"))
            .then_some(())
    });
    let out = common::output(&system);
    assert!(
        holding.is_some(),
        "{}",
        common::show(&out, &system.events())
    );
    if let Ok(found) = pieces_in(system.pid("key_store").unwrap(), &KEY) {
        assert!(!found.is_empty(), "the store holds the live key");
    }
    assert!(system.signal("kat_keys", host_runner::Signal::KILL));
    system
}

/// A client killed while its keys and sessions are live (system/keys-death.system): the
/// store holds its key until it comes back; its new incarnation's hello wipes them, the
/// driver closes the dead one's sessions when it sees the new one, and then neither the
/// store's nor the driver's memory holds any piece of the key. (Until the host runtime
/// wiped its own copy of a call's words, the driver kept the tail of the key kat-keys
/// sent raw to see it refused: the words past the reply's in that copy.)
#[test]
fn a_dead_clients_keys_are_wiped_when_it_comes_back() {
    use host_runner::Event;
    let _turn = common::serial();
    let system = killed_holding_its_keys("keys-death.system");
    let back = system.wait_exit("kat_keys", common::WAIT);
    let out = common::output(&system);
    assert!(back, "{}", common::show(&out, &system.events()));
    assert!(
        system
            .events()
            .iter()
            .any(|e| matches!(e, Event::Restarted { pd, .. } if pd == "kat_keys")),
        "restarted by the runner"
    );
    let verdict = lines(&out, "kat_keys", "came back");
    assert!(
        verdict.iter().any(|l| l.contains("all 4 checks passed")),
        "{verdict:?}"
    );
    assert!(out.iter().all(|(_, l)| !l.contains("FAIL")), "{out:?}");
    // The driver saw the new incarnation and closed the dead one's sessions.
    let closed = lines(&out, "cpu_cipher", "came back: closed 3 session(s)");
    assert_eq!(closed.len(), 1, "{out:?}");
    no_key_in(&system, "key_store", "after its owner died and came back");
    no_key_in(&system, "cpu_cipher", "after its client died and came back");
    system.shutdown();
}

/// A client that ends for good with its keys and sessions live (system/keys-end.system):
/// its supervisor (its parent) hears of its fault, leaves it stopped and tells the key
/// store, which wipes its keys and notifies its driver; the driver closes its sessions.
/// Then neither the store's nor the driver's memory holds any piece of the key. Before
/// this, such a client's keys stayed in the store, and its sessions (with their keys)
/// in the driver, until the system stopped.
#[test]
fn a_client_that_ends_for_good_has_its_keys_and_sessions_wiped() {
    let _turn = common::serial();
    let system = killed_holding_its_keys("keys-end.system");
    let told = system.wait_until(common::WAIT, |_, out| {
        let said = |pd: &str, what: &str| out.iter().any(|(p, l)| p == pd && l.contains(what));
        (said("supervisor", "Some(Ok(2)) key(s) wiped")
            && said("cpu_cipher", "client 0 ended: closed 3 session(s)"))
        .then_some(())
    });
    let out = common::output(&system);
    assert!(told.is_some(), "{}", common::show(&out, &system.events()));
    assert!(out.iter().all(|(_, l)| !l.contains("FAIL")), "{out:?}");
    no_key_in(&system, "key_store", "after its owner ended");
    no_key_in(&system, "cpu_cipher", "after its client ended");
    system.shutdown();
}
