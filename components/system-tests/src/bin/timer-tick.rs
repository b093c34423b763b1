//! A host stand-in for a timer driver: each notification asks for one tick, which comes
//! back as a notification TICK_MS later. The power manager asks while an autosuspend
//! deadline is pending. (On seL4 this is a real timer driver PD; sleeping in a handler
//! is a host-only shortcut.)
use pd_runtime::{Channel, ChannelSet, Handler};
use std::time::Duration;

const CLIENT: Channel = Channel::new(0);
const TICK_MS: u64 = 10;

struct Tick;

impl Handler for Tick {
    fn notified(&mut self, _: ChannelSet) {
        std::thread::sleep(Duration::from_millis(TICK_MS));
        CLIENT.notify();
    }
}

fn init() -> Tick {
    Tick
}

pd_runtime::protection_domain!(init);
