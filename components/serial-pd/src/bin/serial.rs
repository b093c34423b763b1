#![cfg_attr(target_os = "none", no_std, no_main)]
//! The serial driver PD: the board's PL011 UART (`uart`, its register frame, mapped
//! uncached; its interrupt on channel 61), and a console queue per writing PD
//! (`writer<k>`, the page that PD maps as its `console`, on channel `k`). Every PD's
//! lines reach the UART whole through here, in every Microkit config (the kernel prints
//! only in `debug`). Give it the highest priority of the system: a writer's
//! notification then runs it at once, and a writer never waits for it (a write that
//! finds its queue full is dropped and counted by the writer). On the host there is no
//! UART: the runner keeps each PD's lines apart itself; the binary says so and exits.
use mmio::{VolatileMmio, pl011};
use pd_runtime::{Channel, ChannelSet, Handler, debug_println, memory_region};
use serial_driver::{Console, MAX_WRITERS};
use shm_queue::SharedRegion;

/// The UART's interrupt: the id after the last writer's.
const IRQ: Channel = Channel::new(MAX_WRITERS as u8);

struct Serial {
    console: Console<'static, VolatileMmio>,
}

impl Handler for Serial {
    fn notified(&mut self, channels: ChannelSet) {
        for ch in channels.iter() {
            let done = if ch == IRQ {
                let done = self.console.interrupt();
                IRQ.irq_ack();
                done
            } else {
                self.console.notified(usize::from(ch.index()))
            };
            // VolatileMmio never refuses an access; a fault is the board's, not input.
            done.unwrap_or_else(|e| panic!("serial: the UART did not answer: {e:?}"));
        }
    }
}

/// The `writer<k>` maps, each a region this PD shares with one writer.
macro_rules! writer_regions {
    ($($name:ident),*) => {
        [$(pd_runtime::maybe_memory_region!($name)),*]
    };
}

fn init() -> Serial {
    if !cfg!(target_os = "none") {
        debug_println!("serial: drives a PL011, which exists only on seL4 (make qemu); exiting");
        pd_runtime::exit(1);
    }
    let uart = memory_region!(uart);
    assert!(
        uart.size >= pl011::WINDOW,
        "serial: the uart map needs {} bytes",
        pl011::WINDOW
    );
    // SAFETY: the .system file maps `uart` uncached (device memory) for the PD's life,
    // and this PD alone drives the UART (the debug kernel writes to it only at boot and
    // to report faults).
    let bus = unsafe { VolatileMmio::new(uart.vaddr, pl011::WINDOW) };
    let regions = writer_regions!(
        writer0, writer1, writer2, writer3, writer4, writer5, writer6, writer7, writer8, writer9,
        writer10, writer11, writer12, writer13, writer14, writer15, writer16, writer17, writer18,
        writer19, writer20, writer21, writer22, writer23, writer24, writer25, writer26, writer27,
        writer28, writer29, writer30, writer31, writer32, writer33, writer34, writer35, writer36,
        writer37, writer38, writer39, writer40, writer41, writer42, writer43, writer44, writer45,
        writer46, writer47, writer48, writer49, writer50, writer51, writer52, writer53, writer54,
        writer55, writer56, writer57, writer58, writer59, writer60
    )
    .map(|r| {
        // SAFETY: each map is this PD's for its life, shared with one writer, whose
        // writes shm-queue reads volatilely and checks.
        r.map(|r| unsafe { SharedRegion::from_raw(r.vaddr, r.size) })
    });
    let console =
        Console::new(bus, regions).unwrap_or_else(|e| panic!("serial: cannot start: {e:?}"));
    let mut serial = Serial { console };
    // Lines written before this PD ran: their writers notified no one yet listening.
    serial
        .console
        .notified(MAX_WRITERS)
        .unwrap_or_else(|e| panic!("serial: the UART did not answer: {e:?}"));
    serial
}

pd_runtime::protection_domain!(init);
