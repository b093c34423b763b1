//! A PD cannot leave pd-runtime's host sandbox: every way out that a hostile client
//! tried (issue 14: /proc of another PD, signals, tracing, exec, new memory objects;
//! since, forks and futex requeues) fails with EPERM (clone3: ENOSYS), and neither end
//! of a channel can make the other's kernel pages writable (to forge its notifications,
//! calls or replies).

mod common;

use common::{boot, wait_line};
use host_runner::Options;

#[test]
fn every_way_out_of_the_sandbox_is_refused() {
    let system = boot("escape.system", Options::default());
    for pd in ["escape", "peer"] {
        assert!(
            wait_line(&system, pd, "escape: "),
            "{:?}",
            system.output(pd)
        );
    }
    for pd in ["escape", "peer"] {
        let out = system.output(pd);
        let escaped: Vec<_> = out.iter().filter(|l| l.starts_with("ESCAPED")).collect();
        assert!(escaped.is_empty(), "{pd}: {escaped:?}");
        // Eighteen attempts, and the two read-only pages of its one channel: the
        // peer's PD page and its channel end.
        let pages = out
            .iter()
            .filter(|l| *l == "refused: making a peer's kernel page writable")
            .count();
        assert_eq!(pages, 2, "{pd}: {out:?}");
        assert!(
            out.iter().any(|l| l == "escape: 20 of 20 refused"),
            "{pd}: {out:?}"
        );
    }
    // Console records naming another PD are filed under their writer, as written; one
    // that is not UTF-8 ends nothing.
    for (pd, other) in [("escape", "peer"), ("peer", "escape")] {
        let out = system.output(pd);
        let forged = |by: &str| {
            out.iter()
                .filter(|l| l.ends_with(&format!(":FORGED by {by}")))
                .count()
        };
        assert_eq!((forged(pd), forged(other)), (8, 0), "{pd}: {out:?}");
        assert!(
            out.iter()
                .any(|l| l == "console: still read after a record that is not UTF-8"),
            "{pd}: {out:?}"
        );
    }
    assert!(system.output("?").is_empty());
    system.shutdown();
}

/// The same attempts with the whole system run by an unprivileged user (as root, this
/// test runs the runner as `nobody`; otherwise as whoever runs it): no attack relied on
/// root's rights, and none is stopped only by their absence.
#[test]
fn every_way_out_is_refused_to_an_unprivileged_user_too() {
    use std::os::unix::process::CommandExt;
    let runner = host_runner::default_bin_dir()
        .expect("test binary path")
        .join("host-runner");
    let mut cmd = std::process::Command::new(runner);
    cmd.args(["-q", "--seconds", "2"])
        .arg(common::system_file("escape.system"));
    let root = rustix::process::geteuid().is_root();
    if root {
        // std drops the supplementary groups when it changes the uid as root.
        cmd.uid(65534).gid(65534);
    }
    let out = cmd.output().expect("host-runner runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for pd in ["escape", "peer"] {
        assert!(
            text.lines()
                .any(|l| l == format!("[{pd}] escape: 20 of 20 refused")),
            "as uid {}: {text}",
            if root {
                65534
            } else {
                rustix::process::geteuid().as_raw()
            }
        );
    }
    assert!(!text.contains("ESCAPED"), "{text}");
}

/// A PD holds no capability, whoever runs it: its effective, permitted, inheritable and
/// ambient sets are empty, and run by root (as CI runs), its bounding set too, so no
/// capability can come back (a PD run as root had kept all of root's, issue 32).
#[test]
fn a_pd_holds_no_capability() {
    let system = boot("escape.system", Options::default());
    assert!(wait_line(&system, "escape", "escape: "));
    let root = rustix::process::geteuid().is_root();
    for pd in ["escape", "peer"] {
        let pid = system.pid(pd).expect("running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let set = |name: &str| {
            let line = status
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}:\t")))
                .unwrap_or_else(|| panic!("{name} in {status}"));
            u64::from_str_radix(line.trim(), 16).unwrap()
        };
        for name in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
            assert_eq!(set(name), 0, "{pd}: {name}");
        }
        if root {
            assert_eq!(
                set("CapBnd"),
                0,
                "{pd}: run by root, its bounding set is empty"
            );
        }
    }
    system.shutdown();
}

/// A PD's CPU weight follows its priority and its private memory is bounded: in the
/// hasher system (client 100, hasher 150, power manager 200) each runs at the nice value
/// `nice_of` gives (0 for the highest, one step per 32 below), and each has the runner's
/// data limit (a PD had no limit and no weight from its priority, issue 32).
#[test]
fn pds_weigh_by_priority_and_have_bounded_memory() {
    let system = boot("hasher.system", Options::default());
    for (pd, priority) in [("client", 100u8), ("hasher", 150), ("power", 200)] {
        let Some(pid) = system.pid(pd) else {
            continue; // the client may have finished already
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // Past the command name in parentheses: state is field 3, nice field 19.
        let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
        let nice: i32 = fields[19 - 3].parse().unwrap();
        assert_eq!(nice, host_runner::nice_of(priority, 200), "{pd}");
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
        let data = limits
            .lines()
            .find(|l| l.starts_with("Max data size"))
            .unwrap();
        let soft: u64 = data.split_whitespace().nth(3).unwrap().parse().unwrap();
        assert_eq!(soft, host_runner::PD_DATA_LIMIT, "{pd}: {data}");
    }
    assert_eq!(host_runner::nice_of(100, 200), 3);
    system.shutdown();
}
