#![cfg_attr(target_os = "none", no_std, no_main)]
//! A child PD: says it is up, and crashes (panics) when its parent notifies it.
use pd_runtime::{Channel, ChannelSet, Handler};

const PARENT: Channel = Channel::new(0);

struct Worker;

impl Handler for Worker {
    fn notified(&mut self, _: ChannelSet) {
        panic!("child: crashing on my parent's request");
    }
}

fn init() -> Worker {
    PARENT.notify();
    Worker
}

pd_runtime::protection_domain!(init);
