//! Small helpers for the lines test clients print (tests parse them).

use cost_ledger::{Counts, Event};

/// `name=value` pairs of the events a test looks at.
pub fn counts_line(c: &Counts) -> [(&'static str, u64); 7] {
    [
        ("requests", c.get(Event::Request)),
        ("cpu_copy", c.get(Event::CpuCopyByte)),
        ("dma_bytes", c.get(Event::DmaByte)),
        ("pio_words", c.get(Event::PioWord)),
        ("descriptors", c.get(Event::DmaDescriptor)),
        ("power_on", c.get(Event::PowerOn)),
        ("power_off", c.get(Event::PowerOff)),
    ]
}
