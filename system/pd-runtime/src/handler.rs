//! What a PD implements: Microkit's `notified`, `protected` and `fault` entry points.

use pd_idl::wire::{PROTOCOL_BASE, ProtocolError};

use crate::{Channel, ChannelSet, Child, MessageInfo, debug_println, pd_name};

/// A PD's event handlers. The runtime calls them one at a time, never re-entrantly.
pub trait Handler {
    /// Whether this PD's state holds secrets (key material, in its sessions or a key
    /// store). On seL4 a restarted PD starts over the stack its previous incarnation
    /// left (Microkit reloads nothing): for such a PD the runtime's `_start` zeroes, at
    /// every restart and before any of its code runs, the stack from the top down
    /// through the handler and [`ipc::SCRUB_BYTES`](crate::ipc::SCRUB_BYTES) (and a
    /// little) below it, as deep as the first incarnation measured it. On the host a
    /// restart is a new process. False by default.
    const SECRETS: bool = false;

    /// Channels that were notified since the last call (several may be coalesced, as
    /// seL4 notifications coalesce).
    fn notified(&mut self, channels: ChannelSet) {
        debug_println!("{}: unexpected notification {:#x}", pd_name(), channels.0);
    }

    /// A protected procedure call arrived on `channel`; the arguments are in the message
    /// words. The returned info (and the words set before returning) is the reply.
    /// Default: refuse with the `pd-idl` protocol error `UnknownOp`, which a generated
    /// client stub reports as `CallError::Protocol(UnknownOp)`.
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        debug_println!(
            "{}: unexpected call on channel {} (label {})",
            pd_name(),
            channel.index(),
            msg.label()
        );
        MessageInfo::new(PROTOCOL_BASE + ProtocolError::UnknownOp as u64, 0)
    }

    /// Child PD `child` faulted; `msg.label()` is a [`FaultKind`](crate::FaultKind) and
    /// message word 0 its detail. Return `None` to leave it stopped or after calling
    /// [`Child::restart`]. Returning `Some` would resume the faulting thread on seL4; on
    /// the host the child process is gone, so it is left stopped.
    fn fault(&mut self, child: Child, msg: MessageInfo) -> Option<MessageInfo> {
        debug_println!(
            "{}: child {} faulted (kind {}), left stopped",
            pd_name(),
            child.index(),
            msg.label()
        );
        None
    }
}
