//! `<channel>` and its two `<end>`s, after `Channel::from_xml` and `ChannelEnd::from_xml`
//! in `tool/microkit/src/sdf.rs`.

use roxmltree::Node;

use super::pd::channel_id;
use super::unknown_element;
use crate::ctx::Ctx;
use crate::error::ErrorKind;
use crate::model::{Channel, ChannelEnd};

/// `None` when the channel does not have exactly two ends (the error is recorded).
pub(super) fn read_channel(ctx: &mut Ctx, node: Node) -> Option<Channel> {
    ctx.allow_attrs(node, &[], &[]);
    let mut ends = Vec::new();
    for child in node.children().filter(Node::is_element) {
        if child.tag_name().name() == "end" {
            ends.push(read_end(ctx, child));
        } else {
            unknown_element(ctx, child, "channel");
        }
    }
    let Ok(ends) = <[ChannelEnd; 2]>::try_from(ends) else {
        let message = "a channel has exactly two <end> elements".to_string();
        ctx.error(ErrorKind::ChannelEndCount, node, message);
        return None;
    };
    // A PPC is one-way: the callee cannot call back on the same channel.
    if ends[0].pp && ends[1].pp {
        let message = "pp=\"true\" on both ends: protected calls go one way".to_string();
        ctx.error(ErrorKind::BidirectionalPp, node, message);
    }
    Some(Channel {
        ends,
        loc: ctx.loc(node),
    })
}

fn read_end(ctx: &mut Ctx, node: Node) -> ChannelEnd {
    ctx.allow_attrs(node, &["pd", "id", "pp", "notify", "setvar_id"], &[]);
    ChannelEnd {
        pd: ctx.req_str(node, "pd"),
        id: channel_id(ctx, node).unwrap_or(0),
        // Defaults from the manual, `channel`: pp false, notify true.
        pp: ctx.bool_or(node, "pp", false),
        notify: ctx.bool_or(node, "notify", true),
        setvar_id: ctx.opt_str(node, "setvar_id"),
        loc: ctx.loc(node),
    }
}
