#![cfg_attr(target_os = "none", no_std, no_main)]
//! A parent PD with one child: each time the child comes up it says so. Twice the
//! parent tells it to crash, takes its fault in `fault` and restarts it
//! (microkit_pd_restart); the third time it restarts the child while it runs; the
//! fourth time it stops it (microkit_pd_stop) and exits 0.
use pd_runtime::{
    Channel, ChannelSet, Child, FaultKind, Handler, MessageInfo, debug_println, get_mr,
};

const CHILD_CH: Channel = Channel::new(0);
const WORKER: Child = Child::new(1);

struct Parent {
    starts: u32,
    faults: u32,
}

impl Handler for Parent {
    fn notified(&mut self, _: ChannelSet) {
        self.starts += 1;
        debug_println!("parent: child up (start {})", self.starts);
        match self.starts {
            1 | 2 => CHILD_CH.notify(),
            3 => WORKER.restart(),
            _ => {
                WORKER.stop();
                debug_println!(
                    "parent: child restarted after {} faults and once running; stopped; done",
                    self.faults
                );
                pd_runtime::exit(0);
            }
        }
    }

    fn fault(&mut self, child: Child, msg: MessageInfo) -> Option<MessageInfo> {
        self.faults += 1;
        let kind = FaultKind::from_label(msg.label());
        debug_println!(
            "parent: child {} faulted: {kind:?} ({}); restarting it",
            child.index(),
            get_mr(0)
        );
        child.restart();
        None
    }
}

fn init() -> Parent {
    Parent {
        starts: 0,
        faults: 0,
    }
}

pd_runtime::protection_domain!(init);
