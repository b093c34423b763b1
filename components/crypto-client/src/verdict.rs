//! A test client's verdict, handed to another PD (the seL4 image's test client, which
//! prints the one PASS/FAIL line): a small region the client writes once it knows
//! (`report`), then a notification. The verified-boot and known-answer clients write
//! one; [`Text`] builds its line without a heap.
use core::fmt;

/// The region layout: words at fixed offsets, then a text line.
pub mod report {
    use pd_runtime::MemoryRegion;

    /// Word 0 once a verdict is written ("VBOT", from the verified-boot client that
    /// had it first).
    pub const MAGIC: u32 = 0x5642_4f54;
    /// Word 1: 1 = every check of the client held.
    pub const PASSED: u32 = 1;
    const TEXT_AT: usize = 16;
    /// Longest verdict text.
    pub const TEXT_MAX: usize = 200;

    fn word(region: MemoryRegion, i: usize) -> *mut u32 {
        assert!(
            region.size >= TEXT_AT + TEXT_MAX,
            "verdict report region too small"
        );
        region.vaddr.cast::<u32>().wrapping_add(i)
    }

    /// Writes the verdict; the magic goes last (release order), so a reader that sees it
    /// sees the rest.
    pub fn write(region: MemoryRegion, passed: bool, text: &str) {
        let n = text.len().min(TEXT_MAX);
        for (i, b) in text.as_bytes()[..n].iter().enumerate() {
            // SAFETY: inside the region (size asserted in `word`), mapped rw here; volatile
            // because another PD reads it.
            unsafe { region.vaddr.add(TEXT_AT + i).write_volatile(*b) };
        }
        // SAFETY: as above; u32 offsets 1, 2 and 0 are aligned (regions are page-aligned).
        unsafe {
            word(region, 2).write_volatile(n as u32);
            word(region, 1).write_volatile(u32::from(passed));
            core::sync::atomic::fence(core::sync::atomic::Ordering::Release);
            word(region, 0).write_volatile(MAGIC);
        }
    }

    /// The verdict, if one was written: (passed, text) with the text copied into `buf`.
    pub fn read(region: MemoryRegion, buf: &mut [u8; TEXT_MAX]) -> Option<(bool, &str)> {
        // SAFETY: inside the region, mapped (read-only) here; volatile: another PD writes it.
        let (magic, passed, len) = unsafe {
            let magic = word(region, 0).read_volatile();
            core::sync::atomic::fence(core::sync::atomic::Ordering::Acquire);
            (
                magic,
                word(region, 1).read_volatile(),
                word(region, 2).read_volatile() as usize,
            )
        };
        if magic != MAGIC {
            return None;
        }
        let len = len.min(TEXT_MAX);
        for (i, b) in buf[..len].iter_mut().enumerate() {
            // SAFETY: as above.
            *b = unsafe { region.vaddr.add(TEXT_AT + i).read_volatile() };
        }
        let text = core::str::from_utf8(&buf[..len]).unwrap_or("<verdict text not UTF-8>");
        Some((passed == PASSED, text))
    }
}

/// Hands a verdict to whoever collects them, if the system says who: writes it to the
/// region `report` and notifies the channel `verdict` (the known-answer clients', the
/// supervisor's). Nothing where the system maps no `report`. A macro: the setvar
/// symbols it reads are defined where it is used, so a PD that never reports (every
/// driver links this crate) carries none of them.
#[macro_export]
macro_rules! hand_in {
    ($passed:expr, $($line:tt)*) => {
        $crate::verdict::write_report(
            pd_runtime::maybe_memory_region!(report),
            pd_runtime::maybe_var!(verdict),
            $passed,
            format_args!($($line)*),
        )
    };
}

/// [`hand_in!`](crate::hand_in)'s work, given the region and the channel the system set
/// (if any).
pub fn write_report(
    region: Option<pd_runtime::MemoryRegion>,
    verdict: Option<u64>,
    passed: bool,
    line: fmt::Arguments<'_>,
) {
    use fmt::Write;
    let Some(r) = region else {
        return;
    };
    let mut text = Text::default();
    let _ = text.write_fmt(line);
    report::write(r, passed, text.as_str());
    if let Some(ch) = verdict.and_then(|v| u8::try_from(v).ok()) {
        pd_runtime::Channel::new(ch).notify();
    }
}

/// A fixed buffer for a verdict's text.
pub struct Text {
    buf: [u8; report::TEXT_MAX],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            buf: [0; report::TEXT_MAX],
            len: 0,
        }
    }
}

impl Text {
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("?")
    }
}

impl fmt::Write for Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Cut at the buffer's end, on a char boundary (the text is ASCII anyway).
        for c in s.chars() {
            let mut b = [0; 4];
            let b = c.encode_utf8(&mut b).as_bytes();
            if self.len + b.len() > self.buf.len() {
                break;
            }
            self.buf[self.len..self.len + b.len()].copy_from_slice(b);
            self.len += b.len();
        }
        Ok(())
    }
}
