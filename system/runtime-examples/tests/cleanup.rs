//! Nothing leaks: a PD holds no descriptors but stdio and the system console (its regions
//! and pages are mapped, not open), maps exactly its own regions, and after shutdown every PD process is gone
//! and the runner holds exactly the descriptors it had before boot. One test in this
//! file, so descriptor counts are not disturbed by another test's system.

mod common;

use common::{WAIT, boot};
use host_runner::{Event, Options, Outcome, Signal};

fn open_fds(pid: &str) -> Vec<String> {
    let mut fds: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("procfs")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    fds.sort();
    fds
}

fn maps(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("procfs")
}

/// What `pid` holds open besides stdio: it must be the system console socket alone.
fn console_of(pid: u32) -> String {
    let fds = open_fds(&pid.to_string());
    let extra: Vec<&String> = fds
        .iter()
        .filter(|f| !["0", "1", "2"].contains(&f.as_str()))
        .collect();
    assert_eq!(extra.len(), 1, "PD {pid} holds {fds:?}");
    let target = std::fs::read_link(format!("/proc/{pid}/fd/{}", extra[0])).expect("procfs");
    let target = target.to_string_lossy().into_owned();
    assert!(target.starts_with("socket:"), "PD {pid} holds {target}");
    target
}

/// Checks `pid`'s descriptors and maps; returns its console socket.
fn check_pd(pid: u32, own: &str, peer: &str) -> String {
    let console = console_of(pid);
    let maps = maps(pid);
    for object in [
        "pd-region:ring",
        &format!("pd-page:{own}"),
        &format!("pd-page:{peer}"),
    ] {
        assert!(maps.contains(object), "PD {own} lacks {object}:\n{maps}");
    }
    assert!(
        !maps.contains("pd-boot:"),
        "PD {own} kept its boot memfd mapped"
    );
    console
}

#[test]
fn pds_hold_only_what_they_map_and_nothing_outlives_shutdown() {
    let before = open_fds("self").len();
    let system = boot("restart.system", Options::default());
    let ping = system.pid("ping").unwrap();
    let pong = system.pid("pong").unwrap();
    let console = check_pd(ping, "ping", "pong");
    assert_eq!(
        check_pd(pong, "pong", "ping"),
        console,
        "one console for all PDs"
    );

    assert!(system.signal("pong", Signal::KILL));
    // The new pong, once its init is done (its descriptors are closed by then).
    let pong2 = system.wait_until(WAIT, |events, _| {
        let at = events
            .iter()
            .position(|e| matches!(e, Event::Started { pd, incarnation: 2, .. } if pd == "pong"))?;
        let Event::Started { pid, .. } = events[at] else {
            unreachable!()
        };
        let running = events[at..]
            .iter()
            .any(|e| matches!(e, Event::Running { pd } if pd == "pong"));
        running.then_some(pid)
    });
    let pong2 = pong2.expect("pong restarted");
    assert_eq!(check_pd(pong2, "pong", "ping"), console);

    assert_eq!(system.shutdown(), Outcome::Shutdown);
    for pid in [ping, pong, pong2] {
        assert!(
            !std::path::Path::new(&format!("/proc/{pid}")).exists(),
            "pid {pid} lives"
        );
    }
    assert_eq!(open_fds("self").len(), before, "runner descriptors leaked");
}
