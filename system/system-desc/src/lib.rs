//! Loader and checker for seL4 Microkit system description files (`.system`, "SDF").
//!
//! A `.system` file names the protection domains (PDs) of a system, the memory regions
//! they share, the channels between them and the interrupts they own. Microkit's build
//! tool turns it into a bootable image; our host runner turns it into Linux processes.
//! Both need the same answer to "is this a valid system, and what does it say?": this
//! crate gives it, as plain data ([`SystemDescription`]) or as a list of every error
//! found ([`Error`], each with file, line, column and element).
//!
//! ```
//! let xml = r#"<system>
//!     <memory_region name="buf" size="0x1000" />
//!     <protection_domain name="client" priority="1">
//!         <program_image path="client.elf" />
//!         <map mr="buf" vaddr="0x4000000" setvar_vaddr="buf" />
//!     </protection_domain>
//!     <protection_domain name="server" priority="2">
//!         <program_image path="server.elf" />
//!     </protection_domain>
//!     <channel>
//!         <end pd="client" id="0" pp="true" />
//!         <end pd="server" id="0" />
//!     </channel>
//! </system>"#;
//! let sys = system_desc::parse(xml, "example.system").unwrap();
//! assert_eq!(sys.pd("server").unwrap().budget, 1000);
//! ```
//!
//! # What it assumes
//!
//! - The format and rules are Microkit 2.x's: the manual (`docs/manual.md`) and the
//!   tool's parser (`tool/microkit/src/sdf.rs`) at tag 2.3.0. [`limits`] lists each
//!   number with its source. Defaults are filled in, so consumers never re-derive them.
//! - Microkit stops at the first error; this crate reports all of them, and skips
//!   checks on an element that already has an error so one mistake gives one error.
//! - Where Microkit would panic (hex channel ids, an unknown `region_paddr`, a `cpu`
//!   above 255) this crate reports an error. Child PD ids are limited to 0..=63, which
//!   Microkit leaves unchecked (see [`limits::MAX_CHILD_ID`]).
//! - Only the ARM/RISC-V subset is modelled. Virtual machines, `cspace`, `domains`,
//!   IOMMU address spaces, x86 interrupts and I/O ports, and region prefill are
//!   rejected with [`ErrorKind::Unsupported`] rather than ignored.
//! - What depends on the kernel build is not checked: the highest mappable virtual
//!   address, the number of CPU cores, whether SMC forwarding is on.
//! - Paths (`program_image`) are kept as written; resolving them is the consumer's job.

#![forbid(unsafe_code)]

mod check;
mod ctx;
mod error;
pub mod limits;
mod model;
mod number;
mod parse;
mod query;

use std::path::Path;

pub use error::{Error, ErrorKind, Loc};
pub use limits::Arch;
pub use model::{
    Channel, ChannelEnd, Irq, Map, MemoryRegion, Perms, ProgramImage, ProtectionDomain, SetVar,
    Symbol, SymbolValue, SystemDescription, Trigger,
};
pub use number::parse_number;
pub use query::{Connection, PdEntry};

/// Parse and check `xml` for aarch64; `file` is only used to name it in errors.
pub fn parse(xml: &str, file: impl AsRef<Path>) -> Result<SystemDescription, Vec<Error>> {
    parse_for(xml, file, Arch::default())
}

/// As [`parse`], for a given architecture (it decides the valid page sizes).
pub fn parse_for(
    xml: &str,
    file: impl AsRef<Path>,
    arch: Arch,
) -> Result<SystemDescription, Vec<Error>> {
    parse::parse(xml, file.as_ref(), arch)
}

/// An I/O error in strerror's words, without Rust's `(os error N)` suffix.
fn io_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// Read `path` and [`parse`] it for aarch64.
pub fn parse_file(path: impl AsRef<Path>) -> Result<SystemDescription, Vec<Error>> {
    parse_file_for(path, Arch::default())
}

/// Read `path` and [`parse_for`] it.
pub fn parse_file_for(path: impl AsRef<Path>, arch: Arch) -> Result<SystemDescription, Vec<Error>> {
    let path = path.as_ref();
    match std::fs::read_to_string(path) {
        Ok(xml) => parse_for(&xml, path, arch),
        Err(e) => Err(vec![Error {
            kind: ErrorKind::Io,
            file: path.to_path_buf(),
            loc: Loc::default(),
            element: String::new(),
            message: format!("cannot read: {}", io_text(&e)),
        }]),
    }
}
