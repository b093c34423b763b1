#![cfg_attr(target_os = "none", no_std, no_main)]
//! A TEST BUILD of the CPU Cipher driver PD that faults once, mid-stream: its first
//! incarnation writes to address 8 (a real fault: a VM fault on seL4, SIGSEGV on the host)
//! when its client notifies it for the [`FAULT_AT`]th time. Its parent restarts it; the
//! restarted incarnation serves on. For the restart tests of whole systems; no release
//! system names this binary, and the `cpu-cipher` binary has none of this code.
use cpu_engine::CpuEngine;
use driver_pd::cipher::CipherPd;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, pd_name};

/// The client notification on which the first incarnation faults.
const FAULT_AT: u32 = 40;

struct FaultOnce {
    pd: CipherPd<CpuEngine>,
    notifications: u32,
}

impl Handler for FaultOnce {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        self.pd.protected(channel, msg)
    }

    fn notified(&mut self, channels: ChannelSet) {
        if self.pd.incarnation() == 1 && !channels.is_empty() {
            self.notifications += 1;
            if self.notifications == FAULT_AT {
                debug_println!("{}: TEST FAULT: writing to address 8 mid-stream", pd_name());
                // SAFETY: none; the point is the fault: the first page is mapped in no PD.
                unsafe { (8 as *mut u32).write_volatile(0) };
            }
        }
        self.pd.notified(channels);
    }
}

fn init() -> FaultOnce {
    FaultOnce {
        pd: driver_pd::cipher::pd(CpuEngine::default(), None),
        notifications: 0,
    }
}

pd_runtime::protection_domain!(init);
