//! The system console: one pipe every PD's debug output goes to, as `<index>:<line>`
//! records written whole (below PIPE_BUF, so atomic), read by one thread that files each
//! line under its PD. One pipe keeps lines from all PDs in the order they were written,
//! which a pipe per PD cannot.

use std::io::Write;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::pipe::{PipeFlags, pipe_with};

use crate::spawn::copy_lines;
use crate::system::Shared;

pub(crate) struct Console {
    write: OwnedFd,
    reader: JoinHandle<()>,
    /// Markers the reader has passed (see [`Console::sync`]).
    passed: Receiver<u64>,
    marks: u64,
}

impl Console {
    /// `names[i]` is the PD with index `i + 1`.
    pub(crate) fn open(
        names: Vec<String>,
        shared: Arc<Shared>,
        echo: Echo,
    ) -> std::io::Result<Self> {
        let (r, write) = pipe_with(PipeFlags::CLOEXEC)?;
        let (marks, passed) = channel();
        let reader = std::thread::Builder::new()
            .name("console".into())
            .spawn(move || copy_lines(r, |rec| record(&shared, &echo, &names, &marks, rec)))?;
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
    /// last lines are filed before its death is reported. Writes a marker (index 0,
    /// which no PD has) and waits, at most a second, for the reader to pass it.
    pub(crate) fn sync(&mut self) {
        self.marks += 1;
        let mark = self.marks;
        if rustix::io::write(&self.write, format!("0:{mark}\n").as_bytes()).is_err() {
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

/// Which PDs' lines are printed: none, all, or only those named.
#[derive(Clone, Debug)]
pub(crate) struct Echo {
    on: bool,
    only: Arc<[String]>,
}

impl Echo {
    pub(crate) fn new(on: bool, only: &[String]) -> Self {
        Echo {
            on,
            only: only.into(),
        }
    }

    fn shows(&self, pd: &str) -> bool {
        self.on && (self.only.is_empty() || self.only.iter().any(|n| n == pd))
    }
}

/// One output line of PD `pd`: echoed if asked, kept for [`System::output`](crate::System).
pub(crate) fn emit(shared: &Shared, echo: &Echo, pd: &str, line: String) {
    if echo.shows(pd) {
        // One write per line: threads echoing for different PDs never split a line.
        let _ = std::io::stdout().write_all(format!("[{pd}] {line}\n").as_bytes());
    }
    shared.update(|st| st.output.push((pd.to_string(), line)));
}

/// Files one record, `<index>:<line>`, or passes a marker on.
fn record(shared: &Shared, echo: &Echo, names: &[String], marks: &Sender<u64>, rec: String) {
    let Some((index, line)) = rec.split_once(':') else {
        return emit(shared, echo, "?", rec);
    };
    match index.parse::<usize>() {
        Ok(0) => {
            if let Ok(mark) = line.parse() {
                let _ = marks.send(mark);
            }
        }
        Ok(i) if i <= names.len() => emit(shared, echo, &names[i - 1], line.to_string()),
        // Only PDs write here; a malformed record is still shown, not lost.
        _ => emit(shared, echo, "?", rec),
    }
}
