//! Benchmark server PD: answers each notification with one back on the same channel
//! (one client or several), and each call with its first word plus one.
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, get_mr, set_mr};

struct Echo;

impl Handler for Echo {
    fn notified(&mut self, channels: ChannelSet) {
        for ch in channels.iter() {
            ch.notify();
        }
    }

    fn protected(&mut self, _: Channel, msg: MessageInfo) -> MessageInfo {
        set_mr(0, get_mr(0) + 1);
        MessageInfo::new(msg.label(), 1)
    }
}

fn init() -> Echo {
    Echo
}

pd_runtime::protection_domain!(init);
