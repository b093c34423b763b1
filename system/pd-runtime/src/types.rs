//! The values of the API: channels, child PDs, message info, memory regions.

use pd_idl::wire::{MSG_WORDS, ServerDied};

use crate::backend;

/// A channel, by the id this PD's end has in the `.system` file (0..=61).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Channel(u8);

impl Channel {
    pub const fn new(id: u8) -> Self {
        Channel(id)
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    /// Signals the PD at the other end (`microkit_notify`). A channel this PD may not
    /// notify on is reported on the debug console and ignored, as seL4 ignores an
    /// invocation of an empty capability slot.
    pub fn notify(self) {
        backend::notify(self.0)
    }

    /// Unmasks the interrupt delivered on this channel (`microkit_irq_ack`); on the
    /// [`device_channel`](crate::device_channel), tells the device PD instead.
    pub fn irq_ack(self) {
        if crate::device_channel() == Some(self) {
            backend::notify(self.0)
        } else {
            backend::irq_ack(self.0)
        }
    }

    /// A protected procedure call (`microkit_ppcall`): the words set with
    /// [`set_mr`](crate::set_mr) travel to the callee, whose reply's words replace them.
    /// `Err(ServerDied)` if the callee faulted before replying.
    ///
    /// Panics if this end has no `pp="true"`: calling without the right is a bug in the PD.
    pub fn pp_call(self, msg: MessageInfo) -> Result<MessageInfo, ServerDied> {
        backend::pp_call(self.0, msg)
    }
}

/// A set of channels that have been notified, delivered together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelSet(pub u64);

impl ChannelSet {
    pub fn contains(self, ch: Channel) -> bool {
        ch.0 < 64 && self.0 & (1 << ch.0) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The channels in the set, lowest first.
    pub fn iter(self) -> Channels {
        Channels(self.0)
    }
}

/// A [`ChannelSet`]'s channels, lowest first: a step per channel in the set (its lowest
/// bit taken, then cleared). Looking at each of the 64 ids in turn cost a driver PD ~590
/// instructions a notification at opt-level z (its clients' set, walked on every one:
/// PMU counts under `make qemu-bench`), more than half of what isolation costs a
/// 16-byte request at depth 32.
#[derive(Clone, Copy, Debug)]
pub struct Channels(u64);

impl Iterator for Channels {
    type Item = Channel;

    fn next(&mut self) -> Option<Channel> {
        if self.0 == 0 {
            return None;
        }
        let id = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(Channel(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::vec::Vec;

    #[test]
    fn a_sets_channels_are_its_bits_lowest_first() {
        for bits in [
            0u64,
            1,
            1 << 63,
            0b1011_0001,
            u64::MAX,
            0x8000_0000_0000_0001,
        ] {
            let got: Vec<u8> = ChannelSet(bits).iter().map(Channel::index).collect();
            let want: Vec<u8> = (0..64).filter(|i| bits >> i & 1 != 0).collect();
            assert_eq!(got, want, "{bits:#x}");
        }
    }
}

/// A child PD, by the `id` its parent gives it in the `.system` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Child(u8);

impl Child {
    pub const fn new(id: u8) -> Self {
        Child(id)
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    /// Restarts the child from its entry point with fresh state (`microkit_pd_restart`).
    pub fn restart(self) {
        backend::child_restart(self.0)
    }

    /// Stops the child (`microkit_pd_stop`).
    pub fn stop(self) {
        backend::child_stop(self.0)
    }
}

/// A message's label and how many message words it uses (seL4's `seL4_MessageInfo`,
/// without capabilities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageInfo {
    label: u64,
    count: u8,
}

impl MessageInfo {
    /// Panics if `count` is above 64, Microkit's limit.
    pub fn new(label: u64, count: usize) -> Self {
        assert!(
            count <= MSG_WORDS,
            "{count} message words; the limit is {MSG_WORDS}"
        );
        MessageInfo {
            label,
            count: count as u8,
        }
    }

    pub fn label(self) -> u64 {
        self.label
    }

    pub fn count(self) -> usize {
        usize::from(self.count)
    }
}

/// Why a child PD faulted, as [`Handler::fault`](crate::Handler::fault) receives it in
/// the message label; message word 0 holds the detail (signal number, exit status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum FaultKind {
    /// A memory access the mapping does not allow (host: SIGSEGV, SIGBUS).
    VmFault = 1,
    /// A panic or abort (host: SIGABRT, or exit with a non-zero status).
    Abort = 2,
    /// Killed from outside (host: any other signal).
    Killed = 3,
}

impl FaultKind {
    pub fn from_label(label: u64) -> Option<Self> {
        Some(match label {
            1 => FaultKind::VmFault,
            2 => FaultKind::Abort,
            3 => FaultKind::Killed,
            _ => return None,
        })
    }
}

/// A memory region as mapped into this PD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryRegion {
    /// Where it is mapped here. On the host this is the `.system` vaddr when that address
    /// was free in the process, else wherever the kernel put it.
    pub vaddr: *mut u8,
    pub size: usize,
    /// The physical address a DMA engine uses: the region's `phys_addr`, or one the
    /// system builder allocated (on the host, a made-up but unique address).
    pub paddr: u64,
    pub writable: bool,
}

impl MemoryRegion {
    /// The region as a queue region for `shm-queue` and similar.
    pub fn as_ptr(&self) -> *mut u8 {
        self.vaddr
    }
}
