#![cfg_attr(target_os = "none", no_std, no_main)]
//! A driver PD with an in-process device model raising its interrupt through the host
//! backend's hook (`pd_runtime::host::raise_irq`). Checks that an interrupt is masked
//! from delivery until `irq_ack`, that raises while masked are latched (coalesced, as a
//! level-triggered line stays asserted) and delivered at the ack, and that an irq the PD
//! does not own is refused. First it checks what boot information gave it: its name,
//! its regions' addresses, sizes, perms and physical addresses, and its setvars.
//! Exits 0 when all hold. Host only: on seL4 interrupts come from real devices, so there
//! the PD is an empty shell that says so.
#[cfg(not(target_os = "none"))]
use pd_runtime::host::raise_irq;

/// On seL4 only a device raises an interrupt: the example has nothing to test there.
#[cfg(target_os = "none")]
fn raise_irq(_irq: u64) -> bool {
    panic!("ex-irq-driver tests the host backend's interrupt hook; seL4 has no such hook")
}
use pd_runtime::{Channel, ChannelSet, Handler, debug_println, memory_region, var};

const IRQ: u64 = 42;
const IRQ_CH: Channel = Channel::new(3);

struct Driver {
    deliveries: u32,
}

impl Handler for Driver {
    fn notified(&mut self, channels: ChannelSet) {
        assert_eq!(channels, ChannelSet(1 << IRQ_CH.index()));
        self.deliveries += 1;
        match self.deliveries {
            // The first raise; the two raised while masked wait for this ack.
            1 => IRQ_CH.irq_ack(),
            // Those two, as one. Nothing is latched now: a new raise is delivered at once.
            2 => {
                IRQ_CH.irq_ack();
                assert!(raise_irq(IRQ));
            }
            _ => {
                debug_println!("irq: 4 raises, 3 deliveries: masked until each ack");
                pd_runtime::exit(0);
            }
        }
    }
}

/// What the `.system` file says this PD gets.
fn check_boot_info() {
    assert_eq!(pd_runtime::pd_name(), "driver");
    assert!(!pd_runtime::is_passive());
    let dma = memory_region!(dma);
    assert_eq!(
        (dma.size, dma.paddr, dma.writable),
        (0x2000, 0x8000_0000, true)
    );
    assert_eq!(var!(dma_paddr), 0x8000_0000);
    assert_eq!(var!(dma_size), 0x2000);
    assert_eq!(
        var!(dma),
        dma.vaddr as u64,
        "a vaddr setvar is where the map really is"
    );
    let bounce = memory_region!(bounce);
    assert!(!bounce.writable);
    assert_eq!(var!(bounce_paddr), bounce.paddr);
    assert_ne!(
        bounce.paddr, 0,
        "the runner gives a region without phys_addr an address"
    );
    assert_eq!(var!(irq_channel), u64::from(IRQ_CH.index()));
    assert_eq!(pd_runtime::var("no_such_symbol"), None);
    debug_println!(
        "driver: dma at {:p} (paddr {:#x}), bounce paddr {:#x}",
        dma.vaddr,
        dma.paddr,
        bounce.paddr
    );
}

fn init() -> Driver {
    check_boot_info();
    for _ in 0..3 {
        assert!(raise_irq(IRQ), "irq {IRQ} belongs to this PD");
    }
    assert!(!raise_irq(99), "irq 99 is not this PD's");
    Driver { deliveries: 0 }
}

pd_runtime::protection_domain!(init);
