//! TEST BUILDS only: a driver PD that faults once, for the restart tests of whole
//! systems. Its first incarnation writes to address 8 (a real fault: a VM fault on seL4,
//! SIGSEGV on the host) when its clients notify it for the `at`th time; its parent
//! restarts it and the next incarnation serves on. No release system names a binary
//! built on this, and a driver that does not wrap itself in it has none of its code.

use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, pd_name};

use queued_service::Interface;

use crate::pd::DriverPd;

/// A driver PD `P` (a [`DriverPd`]) that faults once.
pub struct FaultOnce<P> {
    pd: P,
    at: u32,
    notifications: u32,
}

impl<I: Interface> FaultOnce<DriverPd<I>> {
    /// `pd`, faulting in its first incarnation on its clients' `at`th notification.
    pub fn new(pd: DriverPd<I>, at: u32) -> Self {
        FaultOnce {
            pd,
            at,
            notifications: 0,
        }
    }
}

impl<I: Interface> Handler for FaultOnce<DriverPd<I>> {
    const SECRETS: bool = <DriverPd<I> as Handler>::SECRETS;

    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.pd.protected(channel, msg)
    }

    fn notified(&mut self, channels: ChannelSet) {
        if self.pd.incarnation() == 1 && !channels.is_empty() {
            self.notifications += 1;
            if self.notifications == self.at {
                debug_println!("{}: TEST FAULT: writing to address 8 mid-stream", pd_name());
                // SAFETY: none; the point is the fault: the first page is mapped in no PD.
                unsafe { (8 as *mut u32).write_volatile(0) };
            }
        }
        self.pd.notified(channels);
    }
}
