//! What every tool of this crate says and does the same way at its edges, as coreutils
//! does: errors as `tool: what: reason` with the reason in strerror's words (no
//! `(os error N)`), names quoted in errors only where a shell would need it, and a
//! standard output whose write errors end the run as `tool: write error: reason`,
//! status 1, instead of a panic (Rust's `println!` panics on a full disk and says
//! nothing of a closed descriptor).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;

/// An I/O error in the words coreutils prints: strerror's text, without Rust's
/// `(os error N)` suffix.
pub fn io_text(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// `name` as coreutils shows it in an error message (gnulib's `quotef`, shell style):
/// as it is when a shell would take it literally; else in double quotes when a single
/// quote is its only trouble, in single quotes otherwise (a quote inside as `'\''`).
/// Bytes outside ASCII count as trouble: what they need depends on the locale.
pub fn quote(name: &str) -> String {
    let plain = |(i, c): (usize, char)| {
        c.is_ascii_alphanumeric() || "%+,-./:=@_".contains(c) || (i > 0 && "~#".contains(c))
    };
    if !name.is_empty() && name.chars().enumerate().all(plain) {
        return name.to_string();
    }
    let only_quotes = name
        .chars()
        .enumerate()
        .all(|(i, c)| c == '\'' || (plain((i, c)) || c == ' ') && !"$`\\!\"".contains(c));
    if name.contains('\'') && only_quotes {
        format!("\"{name}\"")
    } else {
        format!("'{}'", name.replace('\'', "'\\''"))
    }
}

/// A tool's name, for its messages.
#[derive(Clone, Copy)]
pub struct Tool(pub &'static str);

impl Tool {
    /// Prints `tool: what` on standard error.
    pub fn warn(self, what: impl std::fmt::Display) {
        eprintln!("{}: {what}", self.0);
    }

    /// Prints `tool: what` and exits with status 1.
    pub fn die(self, what: impl std::fmt::Display) -> ! {
        self.warn(what);
        std::process::exit(1)
    }

    /// A standard output that reports its write errors as this tool's. Call it
    /// before the tool opens any file: a closed descriptor 1 is found here and held
    /// (on `/dev/null`), so that no file opened later lands on it and takes the output.
    pub fn stdout(self) -> Out {
        Out {
            tool: self,
            file: None,
            closed: stdout_closed(),
        }
    }
}

/// Standard output through a descriptor of our own, so that every write error reaches
/// us (Rust's `Stdout` takes a closed descriptor for a sink). Opened at the first
/// write: with nothing written, a closed standard output is no error (coreutils'
/// `close_stdout` agrees).
pub struct Out {
    tool: Tool,
    file: Option<io::BufWriter<File>>,
    closed: bool,
}

/// Whether standard output was closed when the tool started. Rust's runtime opens
/// `/dev/null` read-write on a closed descriptor 1 before `main` (so that no file
/// lands there), and a shell's `>/dev/null` opens it write-only: a read-write
/// `/dev/null` on 1 is the runtime's stand-in, and writing to it would lose the output
/// without a word where coreutils says `write error: Bad file descriptor`.
pub fn stdout_closed() -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(null) = std::fs::metadata("/dev/null") else {
        return false;
    };
    let Ok(out) = io::stdout().as_fd().try_clone_to_owned().map(File::from) else {
        return true;
    };
    let Ok(m) = out.metadata() else {
        return true;
    };
    // SAFETY: F_GETFL reads a descriptor's status flags and touches no memory.
    let flags = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFL) };
    m.file_type().is_char_device()
        && m.rdev() == null.rdev()
        && flags != -1
        && flags & libc::O_ACCMODE == libc::O_RDWR
}

impl Out {
    /// Writes `line` and a newline, or ends the run with `write error: ...`.
    pub fn line(&mut self, line: impl std::fmt::Display) {
        let tool = self.tool;
        if self.closed {
            let e = io::Error::from_raw_os_error(libc::EBADF);
            tool.die(format_args!("write error: {}", io_text(&e)));
        }
        let file = match &mut self.file {
            Some(f) => f,
            None => {
                let fd = io::stdout()
                    .as_fd()
                    .try_clone_to_owned()
                    .unwrap_or_else(|e| tool.die(format_args!("write error: {}", io_text(&e))));
                self.file.insert(io::BufWriter::new(File::from(fd)))
            }
        };
        if let Err(e) = writeln!(file, "{line}") {
            tool.die(format_args!("write error: {}", io_text(&e)));
        }
    }

    /// Flushes what is buffered, or ends the run with `write error: ...`. Lines reach
    /// the descriptor at the latest here; call it before the run's status is decided.
    pub fn finish(&mut self) {
        if let Some(f) = &mut self.file
            && let Err(e) = f.flush()
        {
            self.tool.die(format_args!("write error: {}", io_text(&e)));
        }
    }
}

impl Drop for Out {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_as_strerror() {
        let e = io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(io_text(&e), "No space left on device");
        assert_eq!(
            io_text(&io::Error::other("Is a directory")),
            "Is a directory"
        );
    }

    #[test]
    fn names_are_quoted_only_where_a_shell_needs_it() {
        assert_eq!(quote("dir/a-b_c.txt"), "dir/a-b_c.txt");
        assert_eq!(quote("a b)c"), "'a b)c'");
        assert_eq!(quote("a\\b"), "'a\\b'");
        assert_eq!(quote("it's"), "\"it's\"");
        assert_eq!(quote("it's $x"), "'it'\\''s $x'");
        assert_eq!(quote("x~y#"), "x~y#");
        assert_eq!(quote("#a"), "'#a'");
        assert_eq!(quote(""), "''");
    }
}
