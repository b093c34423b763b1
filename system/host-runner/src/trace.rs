//! A PD's trace (`pd-trace`) as the runner shows it: which regions of a system hold one,
//! and a dump in lines with runs of one event collapsed into one line with a count, as
//! Hubris's humility shows a ring buffer (a driver serving one client on one path fills
//! its ring with a single event).

use std::os::fd::OwnedFd;

use pd_trace::Snapshot;
use system_desc::SystemDescription;

/// The `setvar_vaddr` a PD maps its trace region under (`pd_trace::Trace`'s region).
pub const TRACE_SYMBOL: &str = "trace";

/// The regions of `desc` that hold a trace, each with the PD that writes it (maps it
/// writable as [`TRACE_SYMBOL`]), in file order: a region only read there (a test
/// client's view of a driver's trace) is the writer's.
pub fn trace_regions(desc: &SystemDescription) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for entry in desc.all_pds() {
        for map in &entry.pd.maps {
            let traced = map.setvar_vaddr.as_deref() == Some(TRACE_SYMBOL) && map.perms.write;
            if traced && !out.iter().any(|(r, _)| *r == map.mr) {
                out.push((map.mr.clone(), entry.pd.name.clone()));
            }
        }
    }
    out
}

/// The trace's summary: how many events, whether a request is in flight, the counters.
pub fn summary_lines(t: &Snapshot) -> Vec<String> {
    let state = if t.busy {
        "a request in flight"
    } else {
        "idle"
    };
    let counts: Vec<String> = pd_trace::KINDS
        .iter()
        .filter(|k| t.count(**k) > 0)
        .map(|k| format!("{k:?} {}", t.count(*k)))
        .collect();
    vec![
        format!("{} events, {state}", t.written),
        format!("counts: {}", counts.join(", ")),
    ]
}

/// Longest cycle of events collapsed: a request done by interrupt is two (`Interrupt`,
/// `DoneDma`); a digest session of one update and its final, seven (power acquired,
/// opened, hashed, interrupt, hashed, closed, power released).
const CYCLE: usize = 8;

/// The ring's events, oldest first, one line per run of the same event (kind and
/// argument) or the same few events at consecutive sequence numbers, with its count:
/// `#7 Started 1`, `#8-#70 DonePio 0 x63`, `#71-#74 Interrupt 21, DoneDma 1 x2`.
pub fn event_lines(t: &Snapshot) -> Vec<String> {
    let ring: Vec<pd_trace::Entry> = t.ring.iter().flatten().copied().collect();
    let same = |a: &pd_trace::Entry, b: &pd_trace::Entry| a.kind == b.kind && a.arg == b.arg;
    // How many times ring[at..at + cycle] repeats from `at` on, with no event missing.
    let repeats = |at: usize, cycle: usize| {
        let mut n = 1;
        while let Some(next) = ring.get(at + cycle * n..at + cycle * (n + 1)) {
            let prev = &ring[at + cycle * (n - 1)..at + cycle * n];
            let whole = next[0].seq == prev[cycle - 1].seq.wrapping_add(1)
                && next
                    .windows(2)
                    .all(|w| w[1].seq == w[0].seq.wrapping_add(1));
            if !whole || !prev.iter().zip(next).all(|(a, b)| same(a, b)) {
                break;
            }
            n += 1;
        }
        n
    };
    let mut lines = Vec::new();
    let mut at = 0;
    while at < ring.len() {
        let (cycle, n) = (1..=CYCLE)
            .filter(|c| {
                let block = ring.get(at..at + c);
                block.is_some_and(|b| b.windows(2).all(|w| w[1].seq == w[0].seq.wrapping_add(1)))
            })
            .map(|c| (c, repeats(at, c)))
            .filter(|&(_, n)| n > 1)
            // The most events covered; of those, the shortest cycle.
            .max_by_key(|&(c, n)| (c * n, std::cmp::Reverse(c)))
            .unwrap_or((1, 1));
        let events: Vec<String> = ring[at..at + cycle]
            .iter()
            .map(|e| format!("{:?} {}", e.kind, e.arg))
            .collect();
        let (first, last) = (ring[at].seq, ring[at + cycle * n - 1].seq);
        lines.push(if n == 1 {
            format!("#{first} {}", events.join(", "))
        } else {
            format!("#{first}-#{last} {} x{n}", events.join(", "))
        });
        at += cycle * n;
    }
    lines
}

/// The whole dump of region `name`'s trace (`None`: no PD has written one there yet),
/// each line prefixed for the runner's stderr.
pub fn dump(name: &str, t: Option<&Snapshot>) -> String {
    let Some(t) = t else {
        return format!("host-runner: trace {name}: no trace in that region (yet)\n");
    };
    summary_lines(t)
        .into_iter()
        .chain(event_lines(t))
        .map(|l| format!("host-runner: trace {name}: {l}\n"))
        .collect()
}

/// Lines of a faulted PD's trace shown with its fault.
pub const TAIL_LINES: usize = 8;

/// The last [`TAIL_LINES`] lines of `pd`'s trace in region `name`, after its fault.
pub fn tail(pd: &str, name: &str, t: &Snapshot) -> String {
    let lines = event_lines(t);
    let skip = lines.len().saturating_sub(TAIL_LINES);
    let state = if t.busy { ", a request in flight" } else { "" };
    let mut out = format!(
        "host-runner: PD {pd}: its last events before the fault (trace {name}, {} events{state}):\n",
        t.written
    );
    for l in &lines[skip..] {
        out.push_str(&format!("host-runner: trace {name}: {l}\n"));
    }
    out
}

/// A copy of a memory region's bytes as they are now, through its descriptor.
pub(crate) fn read(fd: &OwnedFd) -> Option<Vec<u8>> {
    let len = rustix::fs::fstat(fd).ok()?.st_size as usize;
    let mut bytes = vec![0u8; len];
    let mut done = 0;
    while done < len {
        match rustix::io::pread(fd, &mut bytes[done..], done as u64) {
            Ok(0) | Err(_) => return None,
            Ok(n) => done += n,
        }
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pd_trace::{Kind, Layout, Trace};
    use shared_region::SharedRegion;

    #[repr(C, align(64))]
    struct Mem([u8; Layout::BYTES]);

    fn snapshot(events: &[(Kind, u32)]) -> Snapshot {
        let mut mem = Mem([0; Layout::BYTES]);
        let trace = Trace::new(Some(SharedRegion::new(&mut mem.0)));
        for &(k, a) in events {
            trace.record(k, a);
        }
        Snapshot::parse(&mem.0).expect("a trace")
    }

    #[test]
    fn runs_of_one_event_collapse_into_a_line_with_a_count() {
        let mut events = vec![(Kind::Started, 1)];
        events.extend(std::iter::repeat_n((Kind::DonePio, 0), 63));
        events.extend([(Kind::DoneDma, 0), (Kind::DoneDma, 0), (Kind::DoneDma, 1)]);
        let t = snapshot(&events);
        assert_eq!(
            event_lines(&t),
            [
                "#3-#63 DonePio 0 x61",
                "#64-#65 DoneDma 0 x2",
                "#66 DoneDma 1"
            ],
            "the ring keeps the last 64 events: #0 to #2 fell out"
        );
        let lines = tail("drv", "drv_trace", &t);
        assert_eq!(lines.lines().count(), 4, "{lines}");
        assert!(lines.contains("(trace drv_trace, 67 events)"), "{lines}");
    }

    #[test]
    fn a_repeated_cycle_of_events_collapses_too() {
        let mut events = vec![(Kind::SessionOpened, 0)];
        for _ in 0..5 {
            events.extend([(Kind::Interrupt, 21), (Kind::DoneDma, 1)]);
        }
        events.extend([(Kind::Interrupt, 21), (Kind::SessionClosed, 0)]);
        let t = snapshot(&events);
        assert_eq!(
            event_lines(&t),
            [
                "#0 SessionOpened 0",
                "#1-#10 Interrupt 21, DoneDma 1 x5",
                "#11 Interrupt 21",
                "#12 SessionClosed 0"
            ]
        );
    }

    #[test]
    fn a_repeat_after_a_torn_entry_starts_a_new_run() {
        let mut mem = Mem([0; Layout::BYTES]);
        let trace = Trace::new(Some(SharedRegion::new(&mut mem.0)));
        for _ in 0..3 {
            trace.record(Kind::Interrupt, 20);
        }
        // Entry #1's sequence word, as while it is being rewritten.
        let at = Layout::BYTES - 12 * pd_trace::RING + 12;
        mem.0[at..at + 4].copy_from_slice(&0u32.to_ne_bytes());
        let t = Snapshot::parse(&mem.0).expect("a trace");
        assert_eq!(event_lines(&t), ["#0 Interrupt 20", "#2 Interrupt 20"]);
    }
}
