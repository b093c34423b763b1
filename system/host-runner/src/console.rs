//! The system console: one socket every PD's debug output goes to, a record per
//! message, read by one thread that files each line under the PD that wrote it. One
//! queue keeps lines from all PDs in the order they were written, which a pipe per PD
//! cannot.
//!
//! Which PD wrote a record is the kernel's word, not the record's: the reading end has
//! `SO_PASSCRED`, so each record comes with its writer's pid (a PD cannot send another
//! process's credentials: `sendmsg` is outside its sandbox, and only CAP_SYS_ADMIN may
//! name another pid), which the runner knows as one of its PDs'. (Records had been
//! `<index>:<line>` on a pipe, and a PD that wrote another's index filed lines, a
//! verdict among them, under that PD; and one record that was not UTF-8 ended the
//! reader, and every PD's output with it.) A `SOCK_SEQPACKET` pair: records keep their
//! bounds, and a burst waits only for room in the socket's buffer.

use std::io::{IoSliceMut, Write};
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SocketFlags, SocketType,
    recvmsg, socketpair, sockopt,
};

use crate::shared::{BYTES_PER_S, LINES_PER_S, Pushed, Shared};

/// Longest record kept: a longer one is cut here (the runtime writes at most 4000
/// bytes of a line at once).
const RECORD_MAX: usize = 4096;

/// How long a record from a pid not yet filed as a PD's waits for the runner to file it
/// (a PD may write before the runner has noted the pid its spawn returned).
const UNKNOWN_PID_WAIT: Duration = Duration::from_secs(2);

pub(crate) struct Console {
    write: OwnedFd,
    reader: JoinHandle<()>,
    /// Markers the reader has passed (see [`Console::sync`]).
    passed: Receiver<u64>,
    marks: u64,
}

impl Console {
    /// `names[i]` is the PD whose pid the runner keeps at `Status::pids[i]`.
    pub(crate) fn open(
        names: Vec<String>,
        shared: Arc<Shared>,
        echo: Echo,
    ) -> std::io::Result<Self> {
        let (read, write) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )?;
        sockopt::set_socket_passcred(&read, true)?;
        let (marks, passed) = channel();
        let reader = std::thread::Builder::new()
            .name("console".into())
            .spawn(move || {
                read_records(read, |pid, rec| {
                    record(&shared, &echo, &names, &marks, pid, rec)
                })
            })?;
        Ok(Console {
            write,
            reader,
            passed,
            marks: 0,
        })
    }

    /// The descriptor PDs inherit.
    pub(crate) fn write_end(&self) -> &OwnedFd {
        &self.write
    }

    /// Returns once the reader has taken every record written so far, so a dead PD's
    /// last lines are filed before its death is reported. Writes a marker (a record
    /// from the runner itself) and waits, at most a second, for the reader to pass it.
    pub(crate) fn sync(&mut self) {
        self.marks += 1;
        let mark = self.marks;
        if rustix::io::write(&self.write, format!("{mark}").as_bytes()).is_err() {
            return;
        }
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.passed.recv_timeout(left) {
                Ok(m) if m >= mark => return,
                Ok(_) => {}
                Err(_) => return,
            }
        }
    }

    /// Once every PD is gone: closing the last write end ends the reader.
    pub(crate) fn close(self) {
        drop(self.write);
        let _ = self.reader.join();
    }
}

/// Takes records from `from` until every write end is closed, giving `sink` each one
/// with its writer's pid (none if the kernel gave no credentials), as text (a byte that
/// is not UTF-8 becomes U+FFFD: a record is never dropped for its bytes).
fn read_records(from: OwnedFd, mut sink: impl FnMut(Option<u32>, String)) {
    let mut buf = vec![0u8; RECORD_MAX];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmCredentials(1))];
    loop {
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let got = recvmsg(
            &from,
            &mut [IoSliceMut::new(&mut buf)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        );
        let n = match got {
            Ok(r) => r.bytes.min(buf.len()),
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return,
        };
        let pid = control.drain().find_map(|m| match m {
            RecvAncillaryMessage::ScmCredentials(c) => Some(c.pid.as_raw_nonzero().get() as u32),
            _ => None,
        });
        // Every record carries its writer's credentials, the end of the stream (every
        // write end closed) none: an empty record is an empty line, not the end.
        if n == 0 && pid.is_none() {
            return;
        }
        let text = String::from_utf8_lossy(&buf[..n]);
        sink(pid, text.trim_end_matches('\n').to_string());
    }
}

/// Which PDs' lines are printed: none, all, or only those named; and whether the runner
/// says when a PD's lines are dropped for its rate.
#[derive(Clone, Debug)]
pub(crate) struct Echo {
    on: bool,
    only: Arc<[String]>,
    log: bool,
}

impl Echo {
    pub(crate) fn new(on: bool, only: &[String], log: bool) -> Self {
        Echo {
            on,
            only: only.into(),
            log,
        }
    }

    fn shows(&self, pd: &str) -> bool {
        self.on && (self.only.is_empty() || self.only.iter().any(|n| n == pd))
    }
}

/// One output line of PD `pd`: kept for [`System::output`](crate::System) and echoed if
/// asked, unless the PD is over its output rate (see [`LINES_PER_S`]): then dropped,
/// counted, and said when the first is.
pub(crate) fn emit(shared: &Shared, echo: &Echo, pd: &str, line: String) {
    let text = echo.shows(pd).then(|| format!("[{pd}] {line}\n"));
    let mut pushed = Pushed::Kept;
    shared.update(|st| pushed = st.output.push(pd, line, Instant::now()));
    if pushed == (Pushed::Dropped { first: true }) && echo.log {
        let _ = std::io::stderr().write_all(
            format!(
                "host-runner: PD {pd} writes over {LINES_PER_S} lines/s or {BYTES_PER_S} \
                 bytes/s: its lines beyond that are dropped, counted, the count said at the end\n"
            )
            .as_bytes(),
        );
    }
    if let (Some(text), Pushed::Kept) = (text, pushed) {
        // One write per line: threads echoing for different PDs never split a line.
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
}

/// Files one record under the PD whose pid wrote it, or passes the runner's own marker
/// on. A record from no PD of the system (none should come) is still shown, as `?`.
fn record(
    shared: &Shared,
    echo: &Echo,
    names: &[String],
    marks: &Sender<u64>,
    pid: Option<u32>,
    rec: String,
) {
    let Some(pid) = pid else {
        return emit(shared, echo, "?", rec);
    };
    if pid == std::process::id() {
        if let Ok(mark) = rec.parse() {
            let _ = marks.send(mark);
        }
        return;
    }
    // The latest PD started with this pid: records a dead PD left are still its own
    // (the runner forgets a dead PD's pid, not which PD it was); a pid never seen yet
    // waits for its spawn to be noted.
    let at = shared.wait(UNKNOWN_PID_WAIT, |st| {
        st.started
            .iter()
            .rev()
            .find(|(p, _)| *p == pid)
            .map(|&(_, i)| i)
    });
    match at.and_then(|i| names.get(i)) {
        Some(name) => emit(shared, echo, name, rec),
        None => emit(shared, echo, "?", rec),
    }
}
