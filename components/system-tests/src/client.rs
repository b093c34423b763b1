//! What the host-only test client PDs share: `crypto_client::pd` (driver on channel 0,
//! regions `queues` and `data`), and for a client of several drivers its links and data
//! regions by name (host-only: the demo's speed client).

pub use crypto_client::pd::{DRIVER, Data, link};
pub use soc_access::shared::Meter;

use crypto_client::{Link, Tagged};

/// A link over the queue region mapped with `setvar_vaddr=symbol`.
pub fn link_at<Req: Tagged, Resp: Tagged>(symbol: &str, capacity: u32) -> Link<'static, Req, Resp> {
    let q = pd_runtime::memory_region(symbol)
        .unwrap_or_else(|| panic!("no memory region with setvar_vaddr=\"{symbol}\""));
    crypto_client::pd::link_over(q, capacity)
}

/// The data region mapped with `setvar_vaddr=symbol`.
pub fn data_at(symbol: &str) -> Data {
    Data(
        pd_runtime::memory_region(symbol)
            .unwrap_or_else(|| panic!("no memory region with setvar_vaddr=\"{symbol}\"")),
    )
}
