//! A driver's boot information (regions with sizes, perms and physical addresses,
//! setvars, its name) and interrupts from an in-process device model, masked until
//! `irq_ack`: the PD checks each and exits 0 only if all hold.

mod common;

use common::{boot, exited, faults};
use host_runner::Options;

#[test]
fn driver_gets_its_boot_info_and_interrupts_masked_until_acked() {
    let system = boot("irq.system", Options::default());
    let out = exited(&system, "driver");
    assert_eq!(faults(&system.events(), "driver"), 0);
    assert!(
        out.iter().any(|l| l.contains("(paddr 0x80000000)")),
        "{out:?}"
    );
    assert!(
        system
            .output("driver")
            .contains(&"irq: 4 raises, 3 deliveries: masked until each ack".to_string())
    );
}
