#![cfg_attr(target_os = "none", no_std, no_main)]
//! A supervisor: the parent of key-store clients. Microkit sends a PD's faults to its
//! parent, the one PD that knows a child has ended for good; without a parent a faulted
//! PD is stopped by the monitor and nobody hears of it, so its keys would stay in the
//! store and its sessions (with their keys) in its drivers until the system stops.
//!
//! On a child's fault this PD leaves the child stopped and calls the key store's
//! `ended(child)` (the store's channel is the one with `setvar_id="keys"`): the store
//! wipes the keys the client made and notifies the drivers serving it, which close its
//! sessions. Which store client each child is, and that this PD may say so, is the
//! store's configuration (`supervisor S K=C`), not this PD's word. It restarts nothing:
//! a client that should come back has a parent that restarts it, and its `hello` then
//! wipes its predecessor's keys.
//!
//! Where the system gives it a region `report` (and a channel `verdict`), it reports
//! each end there: passed when the store answered and had keys of the child's to wipe.
use pd_idl::keys;
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, Child, Handler, MessageInfo, debug_println, pd_name};

struct Supervisor {
    store: Option<keys::Client<PpcTransport>>,
}

fn init() -> Supervisor {
    let store = pd_runtime::maybe_var!(keys)
        .and_then(|v| u8::try_from(v).ok())
        .map(|ch| keys::Client::new(PpcTransport(Channel::new(ch))));
    if store.is_none() {
        debug_println!("{}: no key store: children's ends go unreported", pd_name());
    }
    Supervisor { store }
}

impl Handler for Supervisor {
    fn fault(&mut self, child: Child, msg: MessageInfo) -> Option<MessageInfo> {
        let id = child.index();
        // Stopped, not left waiting on its fault's reply (seL4 would cancel that reply
        // at this PD's next receive, and say so).
        child.stop();
        let wiped = self.store.as_mut().map(|s| s.ended(id));
        debug_println!(
            "{}: child {id} faulted (kind {}): left stopped; key store: {wiped:?} key(s) wiped",
            pd_name(),
            msg.label()
        );
        crypto_client::hand_in!(
            matches!(wiped, Some(Ok(n)) if n > 0),
            "child {id} ended: the key store wiped {wiped:?} key(s) of its"
        );
        None
    }
}

pd_runtime::protection_domain!(init);
