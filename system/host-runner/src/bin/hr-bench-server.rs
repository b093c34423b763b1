//! Benchmark server PD: answers each notification with one back, and each call with
//! its first word plus one.
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, get_mr, set_mr};

const CLIENT: Channel = Channel::new(0);

struct Echo;

impl Handler for Echo {
    fn notified(&mut self, _: ChannelSet) {
        CLIENT.notify();
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
