//! Boot information: what the runner tells a PD process about itself, hubpack-encoded in
//! a memfd the PD inherits (its descriptor number in the `PD_BOOT_FD` environment
//! variable).
//!
//! hubpack encodes fixed-size values only, so the format is a sequence: a `Header`,
//! then each record's fixed part followed by its strings, each string a hubpack `u16`
//! length and that many UTF-8 bytes. File descriptors named here are open in the PD
//! (the runner leaves exactly these inheritable).

use std::string::String;
use std::vec::Vec;

use hubpack::SerializedSize;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The environment variable holding the boot memfd's descriptor number.
pub const BOOT_FD_ENV: &str = "PD_BOOT_FD";
/// Bumped whenever the encoding changes; runner and PD must agree.
pub const VERSION: u32 = 4;

/// Everything a PD learns at boot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BootInfo {
    pub name: String,
    /// Position of the PD in the runner's table; identifies it as a caller (never 0).
    pub index: u8,
    pub priority: u8,
    pub passive: bool,
    /// Iterations to spin on a futex word before sleeping (0: always sleep).
    pub spin: u32,
    /// This PD's kernel page.
    pub page_fd: i32,
    /// Write end of the pipe to the runner, for requests about children; -1 if none.
    pub monitor_fd: i32,
    /// Write end of the system console, shared by every PD: debug output goes there a
    /// line a record, one write each, so lines from all PDs stay in the order they were
    /// written (the runner knows each record's writer by its pid); -1: write to stdout.
    pub console_fd: i32,
    pub regions: Vec<RegionInfo>,
    pub channels: Vec<ChannelInfo>,
    pub irqs: Vec<IrqInfo>,
    pub children: Vec<ChildInfo>,
    pub vars: Vec<VarInfo>,
    /// Host descriptors the embedding tool granted this PD (an input file, say): the
    /// only way a sandboxed PD reaches a host file.
    pub files: Vec<FileInfo>,
}

/// A host descriptor granted to the PD under a name ([`crate::host::take_file`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileInfo {
    pub name: String,
    pub fd: i32,
}

/// Permission bits of [`RegionInfo::perms`].
pub const PERM_R: u8 = 1;
pub const PERM_W: u8 = 2;
pub const PERM_X: u8 = 4;

/// One `map` of a memory region into this PD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionInfo {
    pub mr: String,
    /// Its `setvar_vaddr` symbol, empty if none.
    pub symbol: String,
    pub fd: i32,
    pub size: u64,
    pub vaddr: u64,
    pub paddr: u64,
    pub perms: u8,
    pub cached: bool,
}

/// One channel end of this PD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelInfo {
    pub id: u8,
    /// The id the other end uses for this channel (what it sees as the caller).
    pub remote_id: u8,
    pub remote: String,
    pub pp: bool,
    pub notify: bool,
    /// The other end's `pp` and `notify`: what this end accepts from it.
    pub remote_pp: bool,
    pub remote_notify: bool,
    /// This end's page (what it sends), mapped read-write.
    pub out_fd: i32,
    /// The other end's page (what it sends), mapped read-only.
    pub in_fd: i32,
    /// The other end's PD page, mapped read-only.
    pub peer_page_fd: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IrqInfo {
    pub irq: u64,
    pub id: u8,
    pub edge: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChildInfo {
    pub id: u8,
    pub name: String,
}

/// A setvar symbol and its value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarInfo {
    pub symbol: String,
    pub value: u64,
}

#[derive(Serialize, Deserialize, SerializedSize)]
struct Header {
    version: u32,
    index: u8,
    priority: u8,
    passive: bool,
    spin: u32,
    page_fd: i32,
    monitor_fd: i32,
    console_fd: i32,
    counts: [u8; 6],
}

#[derive(Serialize, Deserialize, SerializedSize)]
struct RegionFixed(i32, u64, u64, u64, u8, bool);
#[derive(Serialize, Deserialize, SerializedSize)]
struct ChannelFixed(u8, u8, bool, bool, bool, bool, i32, i32, i32);
#[derive(Serialize, Deserialize, SerializedSize)]
struct IrqFixed(u64, u8, bool);

/// Why boot information could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootInfoError(pub &'static str);

impl BootInfo {
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer(Vec::new());
        let count = |n: usize| u8::try_from(n).expect("Microkit limits keep counts below 256");
        w.put(&Header {
            version: VERSION,
            index: self.index,
            priority: self.priority,
            passive: self.passive,
            spin: self.spin,
            page_fd: self.page_fd,
            monitor_fd: self.monitor_fd,
            console_fd: self.console_fd,
            counts: [
                count(self.regions.len()),
                count(self.channels.len()),
                count(self.irqs.len()),
                count(self.children.len()),
                count(self.vars.len()),
                count(self.files.len()),
            ],
        });
        w.put_str(&self.name);
        for r in &self.regions {
            w.put(&RegionFixed(
                r.fd, r.size, r.vaddr, r.paddr, r.perms, r.cached,
            ));
            w.put_str(&r.mr);
            w.put_str(&r.symbol);
        }
        for c in &self.channels {
            w.put(&ChannelFixed(
                c.id,
                c.remote_id,
                c.pp,
                c.notify,
                c.remote_pp,
                c.remote_notify,
                c.out_fd,
                c.in_fd,
                c.peer_page_fd,
            ));
            w.put_str(&c.remote);
        }
        for i in &self.irqs {
            w.put(&IrqFixed(i.irq, i.id, i.edge));
        }
        for c in &self.children {
            w.put(&c.id);
            w.put_str(&c.name);
        }
        for v in &self.vars {
            w.put(&v.value);
            w.put_str(&v.symbol);
        }
        for f in &self.files {
            w.put(&f.fd);
            w.put_str(&f.name);
        }
        w.0
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, BootInfoError> {
        let mut r = Reader(bytes);
        let h: Header = r.get()?;
        if h.version != VERSION {
            return Err(BootInfoError(
                "boot info version differs from this runtime's",
            ));
        }
        let mut info = BootInfo {
            name: r.get_str()?,
            index: h.index,
            priority: h.priority,
            passive: h.passive,
            spin: h.spin,
            page_fd: h.page_fd,
            monitor_fd: h.monitor_fd,
            console_fd: h.console_fd,
            ..BootInfo::default()
        };
        for _ in 0..h.counts[0] {
            let RegionFixed(fd, size, vaddr, paddr, perms, cached) = r.get()?;
            let (mr, symbol) = (r.get_str()?, r.get_str()?);
            info.regions.push(RegionInfo {
                mr,
                symbol,
                fd,
                size,
                vaddr,
                paddr,
                perms,
                cached,
            });
        }
        for _ in 0..h.counts[1] {
            let ChannelFixed(
                id,
                remote_id,
                pp,
                notify,
                remote_pp,
                remote_notify,
                out_fd,
                in_fd,
                peer_page_fd,
            ) = r.get()?;
            let remote = r.get_str()?;
            info.channels.push(ChannelInfo {
                id,
                remote_id,
                remote,
                pp,
                notify,
                remote_pp,
                remote_notify,
                out_fd,
                in_fd,
                peer_page_fd,
            });
        }
        for _ in 0..h.counts[2] {
            let IrqFixed(irq, id, edge) = r.get()?;
            info.irqs.push(IrqInfo { irq, id, edge });
        }
        for _ in 0..h.counts[3] {
            let id = r.get()?;
            info.children.push(ChildInfo {
                id,
                name: r.get_str()?,
            });
        }
        for _ in 0..h.counts[4] {
            let value = r.get()?;
            info.vars.push(VarInfo {
                value,
                symbol: r.get_str()?,
            });
        }
        for _ in 0..h.counts[5] {
            let fd = r.get()?;
            info.files.push(FileInfo {
                fd,
                name: r.get_str()?,
            });
        }
        if !r.0.is_empty() {
            return Err(BootInfoError("trailing bytes after boot info"));
        }
        Ok(info)
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn put<T: Serialize + SerializedSize>(&mut self, value: &T) {
        let at = self.0.len();
        self.0.resize(at + T::MAX_SIZE, 0);
        let n = hubpack::serialize(&mut self.0[at..], value).expect("sized by MAX_SIZE");
        self.0.truncate(at + n);
    }

    fn put_str(&mut self, s: &str) {
        let len = u16::try_from(s.len()).expect("names are short");
        self.put(&len);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn get<T: DeserializeOwned>(&mut self) -> Result<T, BootInfoError> {
        let (value, rest) =
            hubpack::deserialize(self.0).map_err(|_| BootInfoError("truncated or bad record"))?;
        self.0 = rest;
        Ok(value)
    }

    fn get_str(&mut self) -> Result<String, BootInfoError> {
        let len = usize::from(self.get::<u16>()?);
        if len > self.0.len() {
            return Err(BootInfoError("truncated string"));
        }
        let (s, rest) = self.0.split_at(len);
        self.0 = rest;
        let s = core::str::from_utf8(s).map_err(|_| BootInfoError("string is not UTF-8"))?;
        Ok(String::from(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn round_trips_and_refuses_truncation() {
        let info = BootInfo {
            name: "client".into(),
            index: 3,
            priority: 200,
            passive: true,
            spin: 1000,
            page_fd: 5,
            monitor_fd: -1,
            console_fd: 9,
            regions: vec![RegionInfo {
                mr: "buf".into(),
                symbol: "buf_vaddr".into(),
                fd: 6,
                size: 0x1000,
                vaddr: 0x4000_0000,
                paddr: 0x8000_0000,
                perms: PERM_R | PERM_W,
                cached: true,
            }],
            channels: vec![ChannelInfo {
                id: 1,
                remote_id: 4,
                remote: "server".into(),
                pp: true,
                notify: false,
                remote_pp: false,
                remote_notify: true,
                out_fd: 12,
                in_fd: 13,
                peer_page_fd: 7,
            }],
            irqs: vec![IrqInfo {
                irq: 33,
                id: 2,
                edge: true,
            }],
            children: vec![ChildInfo {
                id: 0,
                name: "kid".into(),
            }],
            vars: vec![VarInfo {
                symbol: "paddr".into(),
                value: 0x8000_0000,
            }],
            files: vec![FileInfo {
                name: "in".into(),
                fd: 11,
            }],
        };
        let bytes = info.encode();
        assert_eq!(BootInfo::decode(&bytes), Ok(info));
        for cut in 0..bytes.len() {
            assert!(BootInfo::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
