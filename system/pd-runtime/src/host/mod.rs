//! The host backend: a PD is a Linux process started by `host-runner`.
//!
//! At start the process reads its [`boot::BootInfo`], maps its memory regions (a memfd
//! each, with the `map`'s permissions, so a write through a read-only map is a SIGSEGV
//! the runner reports as a fault), its own PD page and channel ends read-write and its
//! peers' read-only ([`page`]), closes every descriptor it mapped, enters its sandbox
//! (`sandbox`), runs `init`, marks itself running and enters the event loop: spin
//! briefly, then sleep on its page's word and its peers' bells until a child fault, a
//! call or a notification arrives, and hand them to the handler in that order (one
//! call per round, lowest channel first).
//!
//! Message words are process globals, as the IPC buffer is on seL4: the PD is
//! single-threaded as far as the API goes.
//!
//! Debug output ([`crate::debug_puts`]) goes to the console socket named in the boot
//! information, a line a record, one `write` each, so the runner sees every PD's lines
//! in the order they were written (and knows each record's writer by its pid). Anything else a PD
//! writes to stdout or stderr (a panic message) reaches the runner through its own pipe.

pub mod boot;
mod map;
pub mod page;
mod sandbox;

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::vec::Vec;
use std::{eprintln, process};

use pd_idl::wire::{MSG_WORDS, ServerDied};

use crate::{Channel, ChannelSet, Child, Handler, MemoryRegion, MessageInfo, debug_println};
use boot::{BootInfo, PERM_W};
use page::{EndPage, Link, PdPage, RUNNING, page_at, wait};

/// Request bytes on the monitor pipe: `[op, child id]`.
pub const MONITOR_RESTART: u8 = 1;
pub const MONITOR_STOP: u8 = 2;

struct Peer {
    link: Link<'static>,
    /// This end may call / notify.
    pp: bool,
    notify: bool,
    /// The other end may call / notify us: what it sends otherwise is ignored.
    takes_calls: bool,
    takes_notes: bool,
}

struct Host {
    info: BootInfo,
    page: &'static PdPage,
    peers: Vec<(u8, Peer)>,
    /// The words this PD sleeps on: its page's `wake` and each peer's bell.
    bells: Vec<&'static AtomicU32>,
    /// Every kernel page mapped: (address, writable).
    pages: Vec<(usize, bool)>,
    /// (info index, address) of each mapped region.
    regions: Vec<(usize, usize)>,
    /// Interrupts: (masked, latched) channel bits; device models may run on other threads.
    irq: Mutex<(u64, u64)>,
    /// Granted host descriptors not yet taken by the PD.
    files: Mutex<Vec<(std::string::String, std::os::fd::OwnedFd)>>,
}

static HOST: OnceLock<Host> = OnceLock::new();
static MRS: [AtomicU64; MSG_WORDS] = [const { AtomicU64::new(0) }; MSG_WORDS];

fn host() -> &'static Host {
    HOST.get()
        .expect("pd-runtime used before the PD booted (call it from init or a handler)")
}

fn boot() -> Result<Host, std::string::String> {
    let info = map::read_boot_info()?;
    // Our page and our channel ends read-write; the peers' pages and ends read-only.
    let rw = core::iter::once(info.page_fd).chain(info.channels.iter().map(|c| c.out_fd));
    let ro = info.channels.iter().flat_map(|c| [c.in_fd, c.peer_page_fd]);
    let writable: Vec<i32> = rw.clone().collect();
    let pages = map::map_pages(rw, ro)?;
    let at = |fd: i32| {
        pages
            .iter()
            .find(|(f, _)| *f == fd)
            .expect("mapped above")
            .1
    };
    let mut regions = Vec::new();
    for (i, r) in info.regions.iter().enumerate() {
        let ptr = map::map_fd(r.fd, r.size, r.vaddr, r.perms)
            .map_err(|e| std::format!("region {}: {e}", r.mr))?;
        regions.push((i, ptr as usize));
    }
    // SAFETY (each page_at): PAGE_SIZE shared mappings made above, never unmapped; the
    // read-only ones are only loaded from (page's contract).
    let page: &'static PdPage = unsafe { page_at(at(info.page_fd)) };
    let peers: Vec<(u8, Peer)> = info
        .channels
        .iter()
        .map(|c| {
            let link = Link {
                out: unsafe { page_at::<EndPage>(at(c.out_fd)) },
                inp: unsafe { page_at::<EndPage>(at(c.in_fd)) },
                peer: unsafe { page_at::<PdPage>(at(c.peer_page_fd)) },
            };
            let peer = Peer {
                link,
                pp: c.pp,
                notify: c.notify,
                takes_calls: c.remote_pp,
                takes_notes: c.remote_notify,
            };
            (c.id, peer)
        })
        .collect();
    let bells = core::iter::once(&page.wake)
        .chain(peers.iter().map(|(_, p)| &p.link.inp.bell))
        .collect();
    let files = info
        .files
        .iter()
        .map(|f| Ok((f.name.clone(), map::inherited(f.fd)?)))
        .collect::<Result<_, std::string::String>>()?;
    let pages = pages
        .iter()
        .map(|(fd, ptr)| (*ptr as usize, writable.contains(fd)))
        .collect();
    Ok(Host {
        page,
        info,
        peers,
        bells,
        pages,
        regions,
        irq: Mutex::new((0, 0)),
        files: Mutex::new(files),
    })
}

/// Boots the PD and runs its event loop; never returns.
pub fn run<H: Handler>(init: impl FnOnce() -> H) -> ! {
    match boot() {
        Ok(h) => {
            let _ = HOST.set(h);
        }
        Err(e) => {
            eprintln!("pd-runtime: cannot boot: {e}");
            process::exit(70);
        }
    }
    // Boot mapped what the .system file grants and closed the descriptors; from here on
    // the PD reaches nothing else of the host.
    if let Err(e) = sandbox::enter() {
        eprintln!("pd-runtime: cannot confine this PD: {e}");
        process::exit(70);
    }
    let host = host();
    let mut handler = init();
    host.page.state.store(RUNNING, SeqCst);
    let page = host.page;
    let mut words = [0u64; MSG_WORDS];
    // Calls are taken round-robin (`page::next_call`): from the peer after the last
    // one served.
    let mut first_caller = 0;
    // Secret replies not yet cleared: bit i for `host.peers[i]`, with the call's seq.
    let (mut secrets, mut secret_seq) = (0u64, [0u32; 64]);
    loop {
        let (faults, call, notes) = wait(page, host.info.spin, &host.bells, || {
            // The caller rings once it has read a secret reply.
            let mut left = secrets;
            while left != 0 {
                let i = left.trailing_zeros() as usize;
                left &= left - 1;
                if host.peers[i].1.link.clear_reply(secret_seq[i]) {
                    secrets &= !(1 << i);
                }
            }
            // Load before swapping: a spinning PD must not keep writing the lines its
            // own threads and the runner write. SeqCst, as `page::wait` requires.
            let take = |w: &AtomicU64| match w.load(SeqCst) {
                0 => 0,
                _ => w.swap(0, SeqCst),
            };
            let faults = take(&page.faults);
            let mut notes = take(&page.irqs);
            for (id, p) in &host.peers {
                if p.takes_notes && page.take_notes(*id, p.link.inp) {
                    notes |= 1 << (id & 63);
                }
            }
            let call = page::next_call(host.peers.len(), first_caller, |i| {
                let (id, p) = &host.peers[i];
                let c = p.takes_calls.then(|| p.link.take_call(&mut words))??;
                Some((*id, p.link, c))
            });
            (faults != 0 || call.is_some() || notes != 0).then_some((faults, call, notes))
        });
        let call = call.map(|(i, c)| {
            first_caller = i + 1;
            (i, c)
        });
        for id in ChannelSet(faults).iter().map(Channel::index) {
            let info = page.fault_info[usize::from(id)].load(SeqCst);
            set_mr(0, info & 0xFFFF_FFFF);
            let _ = handler.fault(Child::new(id), MessageInfo::new(info >> 32, 1));
        }
        if let Some((i, (caller, link, (seq, label, count)))) = call {
            for (mr, w) in MRS.iter().zip(&words[..count]) {
                mr.store(*w, Relaxed);
            }
            let reply = handler.protected(Channel::new(caller), MessageInfo::new(label, count));
            let n = reply.count();
            for (w, mr) in words[..n].iter_mut().zip(&MRS) {
                *w = mr.load(Relaxed);
            }
            if i < 64 && secrets & (1 << i) != 0 {
                // A new call: the caller read the last (secret) reply; clear it now,
                // before this reply reuses the words.
                link.clear_words();
                secrets &= !(1 << i);
            }
            let secret = SECRET_REPLY.swap(false, Relaxed);
            link.reply(seq, reply.label(), &words[..n], secret);
            if secret && i < 64 {
                secrets |= 1 << i;
                secret_seq[i] = seq;
            }
            // The call's words beyond the reply's stayed in this copy (seL4 has none): a
            // call may carry key bytes (a raw-key open), which the handler wiped in the
            // message words, not here.
            zeroize::Zeroize::zeroize(&mut words);
        }
        if notes != 0 {
            handler.notified(ChannelSet(notes));
        }
    }
}

/// Takes the host descriptor the embedding tool granted this PD under `name` (an input
/// or output file of a tool's client PD), once: the sandbox lets a PD open no file
/// itself. `None` if there is none, or it was taken.
pub fn take_file(name: &str) -> Option<std::fs::File> {
    let mut files = host().files.lock().unwrap_or_else(|e| e.into_inner());
    let at = files.iter().position(|(n, _)| n == name)?;
    Some(std::fs::File::from(files.swap_remove(at).1))
}

/// Where this PD's kernel pages are mapped and whether each is writable here: its own
/// PD page and channel ends are, its peers' are not. For tests that check a PD cannot
/// make a peer's page writable (the addresses are no secret: they are in its own
/// address space).
pub fn kernel_pages() -> Vec<(*const u8, bool)> {
    host()
        .pages
        .iter()
        .map(|&(addr, w)| (addr as *const u8, w))
        .collect()
}

fn peer(ch: u8) -> Option<&'static Peer> {
    host()
        .peers
        .iter()
        .find(|(id, _)| *id == ch)
        .map(|(_, p)| p)
}

pub(crate) fn notify(ch: u8) {
    match peer(ch) {
        Some(p) if p.notify => p.link.out.notify(p.link.peer),
        _ => debug_println!("{}: cannot notify on channel {ch}", pd_name()),
    }
}

pub(crate) fn pp_call(ch: u8, msg: MessageInfo) -> Result<MessageInfo, ServerDied> {
    let Some(p) = peer(ch).filter(|p| p.pp) else {
        panic!("{}: channel {ch} has no pp=\"true\" end here", pd_name());
    };
    let mut words = [0u64; MSG_WORDS];
    for (w, mr) in words[..msg.count()].iter_mut().zip(&MRS) {
        *w = mr.load(Relaxed);
    }
    let h = host();
    let called = p
        .link
        .call(h.page, h.info.spin, msg.label(), &mut words, msg.count());
    let copied = called.map(|(label, count)| {
        for (mr, w) in MRS.iter().zip(&words[..count]) {
            mr.store(*w, Relaxed);
        }
        (label, count)
    });
    // The message words' copy here (seL4 has none): a call or reply may carry key
    // bytes, which the message words' owner wipes there, not here.
    zeroize::Zeroize::zeroize(&mut words);
    let (label, count) = copied?;
    Ok(MessageInfo::new(label, count))
}

/// Raises interrupt `irq` (its number in the `.system` file) on this PD: the device-model
/// hook. Delivered as a notification on the irq's channel unless that channel's
/// interrupt is masked (delivered and not yet acked), in which case it is latched and
/// delivered at [`Channel::irq_ack`]. Returns false if this PD has no such irq.
/// Safe to call from any thread of the PD process.
pub fn raise_irq(irq: u64) -> bool {
    let h = host();
    let Some(ch) = h.info.irqs.iter().find(|i| i.irq == irq).map(|i| i.id) else {
        return false;
    };
    let bit = 1u64 << ch;
    let mut state = h.irq.lock().unwrap_or_else(|e| e.into_inner());
    if state.0 & bit != 0 {
        state.1 |= bit;
    } else {
        state.0 |= bit;
        h.page.raise_irq(ch);
    }
    true
}

/// How a device model says whether a level-triggered line is still asserted.
static IRQ_LEVEL: OnceLock<fn(u64) -> bool> = OnceLock::new();

/// The device-model hook for level-triggered interrupts: `level(irq)` says whether line
/// `irq` is asserted. With it, an interrupt still asserted when the PD acknowledges it
/// is delivered again, as a GIC does at end of interrupt for a level-triggered line
/// (without it, only [`raise_irq`] delivers). Set once; later calls are ignored.
pub fn set_irq_level(level: fn(u64) -> bool) {
    let _ = IRQ_LEVEL.set(level);
}

pub(crate) fn irq_ack(ch: u8) {
    let h = host();
    let Some(irq) = h.info.irqs.iter().find(|i| i.id == ch) else {
        debug_println!("{}: channel {ch} has no irq to ack", pd_name());
        return;
    };
    let level = !irq.edge && IRQ_LEVEL.get().is_some_and(|asserted| asserted(irq.irq));
    let bit = 1u64 << ch;
    let mut state = h.irq.lock().unwrap_or_else(|e| e.into_inner());
    state.0 &= !bit;
    if state.1 & bit != 0 || level {
        state.1 &= !bit;
        state.0 |= bit;
        h.page.raise_irq(ch);
    }
}

fn monitor(op: u8, id: u8) {
    let h = host();
    if h.info.monitor_fd < 0 || !h.info.children.iter().any(|c| c.id == id) {
        debug_println!("{}: no child {id}", pd_name());
        return;
    }
    let fd = h.info.monitor_fd;
    // SAFETY: the monitor descriptor is inherited, owned by the runtime for the life of
    // the process and never closed; borrowing it for one write is sound.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    // Two bytes are below PIPE_BUF, so the write is atomic.
    if let Err(e) = rustix::io::write(fd, &[op, id]) {
        debug_println!("{}: monitor pipe: {e}", pd_name());
    }
}

pub(crate) fn child_restart(id: u8) {
    monitor(MONITOR_RESTART, id)
}

pub(crate) fn child_stop(id: u8) {
    monitor(MONITOR_STOP, id)
}

/// A restart is a new process: nothing of the stack survives it to wipe.
pub(crate) fn scrubbed_to(_lowest: usize) {}

pub(crate) fn starts() -> u32 {
    host().page.starts.load(SeqCst)
}

pub(crate) fn pd_name() -> &'static str {
    HOST.get().map_or("?", |h| h.info.name.as_str())
}

pub(crate) fn is_passive() -> bool {
    host().info.passive
}

pub(crate) fn notifiable() -> u64 {
    host()
        .peers
        .iter()
        .filter(|(id, p)| p.notify && *id < 64)
        .fold(0, |set, (id, _)| set | 1 << id)
}

pub(crate) fn irq_channels() -> u64 {
    host().info.irqs.iter().fold(0, |set, i| set | 1 << i.id)
}

pub(crate) fn memory_region(symbol: &str) -> Option<MemoryRegion> {
    let h = host();
    h.regions.iter().find_map(|&(i, addr)| {
        let r = &h.info.regions[i];
        (r.symbol == symbol).then_some(MemoryRegion {
            vaddr: addr as *mut u8,
            size: r.size as usize,
            paddr: r.paddr,
            writable: r.perms & PERM_W != 0,
        })
    })
}

/// Every setvar symbol of this PD and its value, as the Microkit tool would patch them
/// into its image: each region's `setvar_vaddr` (where the region really is in this
/// process), then the `.system` file's other setvars. For a PD that does not ask by
/// name: a C PD's globals (`host-libmicrokit` writes them before `init`).
pub fn setvars() -> Vec<(std::string::String, u64)> {
    let h = host();
    let regions = h.regions.iter().filter_map(|&(i, addr)| {
        let r = &h.info.regions[i];
        (!r.symbol.is_empty()).then(|| (r.symbol.clone(), addr as u64))
    });
    let vars = h.info.vars.iter().map(|v| (v.symbol.clone(), v.value));
    regions.chain(vars).collect()
}

pub(crate) fn var(symbol: &str) -> Option<u64> {
    // A vaddr symbol means where the region really is in this process.
    if let Some(r) = memory_region(symbol) {
        return Some(r.vaddr as u64);
    }
    host()
        .info
        .vars
        .iter()
        .find(|v| v.symbol == symbol)
        .map(|v| v.value)
}

/// The reply being made carries secrets (see `ipc::reply_is_secret`).
static SECRET_REPLY: AtomicBool = AtomicBool::new(false);

pub(crate) fn reply_is_secret() {
    SECRET_REPLY.store(true, Relaxed);
}

pub(crate) fn set_mr(i: usize, value: u64) {
    MRS[i].store(value, Relaxed)
}

pub(crate) fn get_mr(i: usize) -> u64 {
    MRS[i].load(Relaxed)
}

/// The debug line being assembled (debug output may arrive in pieces).
static CONSOLE: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// Longest record written at once (the runner reads up to 4096 bytes a record).
const RECORD_MAX: usize = 4000;

pub(crate) fn console_puts(s: &str) -> bool {
    debug_puts(s);
    true
}

pub(crate) fn debug_puts(s: &str) {
    let fd = HOST.get().map_or(-1, |h| h.info.console_fd);
    if fd < 0 {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(s.as_bytes());
        let _ = out.flush();
        return;
    }
    let mut line = CONSOLE.lock().unwrap_or_else(|e| e.into_inner());
    for &b in s.as_bytes() {
        if b == b'\n' || line.len() == RECORD_MAX {
            console_record(fd, &line);
            line.clear();
        }
        if b != b'\n' {
            line.push(b);
        }
    }
}

/// Writes one line to the console, one record (the runner knows the writer by its pid).
fn console_record(fd: i32, line: &[u8]) {
    // SAFETY: the console descriptor is inherited, owned by the runtime for the life of
    // the process and never closed.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
    let _ = rustix::io::write(fd, line);
}

pub(crate) fn exit(code: i32) -> ! {
    let line = CONSOLE.lock().unwrap_or_else(|e| e.into_inner());
    let fd = HOST.get().map_or(-1, |h| h.info.console_fd);
    if fd >= 0 && !line.is_empty() {
        console_record(fd, &line);
    }
    let _ = std::io::stdout().flush();
    process::exit(code)
}
