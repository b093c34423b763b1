//! Why a system did not boot, each naming the file or PD at fault.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug)]
pub enum BootError {
    /// The `.system` file is unreadable or breaks a rule (every error, from system-desc).
    Desc(Vec<system_desc::Error>),
    /// Program images with no host binary: every one, each as (PD, image, the binary
    /// looked for).
    MissingBinaries(Vec<(String, PathBuf, PathBuf)>),
    /// Creating kernel objects or starting a process failed.
    Os { pd: Option<String>, what: String },
    /// A PD died before its `init` returned; `last_words`: the last lines it printed
    /// (a PD says why it gives up before it exits).
    InitFault {
        pd: String,
        cause: String,
        last_words: Vec<String>,
    },
    /// A PD was still in `init` when the boot deadline passed.
    InitTimeout { pd: String, after: Duration },
}

impl fmt::Display for BootError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BootError::Desc(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
            BootError::MissingBinaries(missing) => {
                for (i, (pd, image, binary)) in missing.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(
                        f,
                        "PD {pd}: program image {} has no host binary {}",
                        image.display(),
                        binary.display()
                    )?;
                }
                write!(
                    f,
                    "\n(the workspace's PD binaries: `cargo build --workspace --bins`, or \
                     `make test`; elsewhere, --bin-dir names their directory)"
                )
            }
            BootError::Os { pd: Some(pd), what } => write!(f, "PD {pd}: {what}"),
            BootError::Os { pd: None, what } => write!(f, "{what}"),
            BootError::InitFault {
                pd,
                cause,
                last_words,
            } => {
                write!(f, "PD {pd} faulted during init: {cause}")?;
                if !last_words.is_empty() {
                    write!(f, "; its last lines:")?;
                }
                for l in last_words {
                    write!(f, "\n  [{pd}] {l}")?;
                }
                Ok(())
            }
            BootError::InitTimeout { pd, after } => {
                write!(f, "PD {pd} did not finish init within {after:?}")
            }
        }
    }
}

impl std::error::Error for BootError {}
