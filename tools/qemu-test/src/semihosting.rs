//! Arm semihosting (the "Semihosting for AArch32 and AArch64" spec): `HLT #0xF000` with
//! the operation in x0 and its parameter in x1; QEMU serves it with `-semihosting`.

use core::arch::asm;
use core::fmt;

/// SYS_WRITE0: write a NUL-terminated string to the debug console.
const SYS_WRITE0: u64 = 0x04;
/// SYS_EXIT: on AArch64 x1 points at a (reason, subcode) block.
const SYS_EXIT: u64 = 0x18;
/// ADP_Stopped_ApplicationExit: a normal exit whose subcode is the exit status.
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;

fn call(op: u64, arg: u64) -> u64 {
    let ret;
    // SAFETY: the semihosting trap reads only the memory `arg` points to, which every
    // caller keeps alive across the call.
    unsafe { asm!("hlt #0xf000", inout("x0") op => ret, in("x1") arg, options(nostack)) };
    ret
}

/// Ends the run; QEMU exits with `status`.
pub fn exit(status: u32) -> ! {
    let block = [ADP_STOPPED_APPLICATION_EXIT, u64::from(status)];
    call(SYS_EXIT, block.as_ptr() as u64);
    loop {
        core::hint::spin_loop();
    }
}

/// One line of output, built with `write!` and printed with a newline.
pub struct Line {
    buf: [u8; 240],
    len: usize,
}

impl Line {
    pub fn new() -> Self {
        Self {
            buf: [0; 240],
            len: 0,
        }
    }

    pub fn print(mut self) {
        let n = self.len.min(self.buf.len() - 2);
        self.buf[n] = b'\n';
        self.buf[n + 1] = 0;
        call(SYS_WRITE0, self.buf.as_ptr() as u64);
    }
}

impl fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            // Keep room for the newline and the NUL; drop the rest of an overlong line.
            if self.len < self.buf.len() - 2 && b != 0 {
                self.buf[self.len] = b;
                self.len += 1;
            }
        }
        Ok(())
    }
}

/// `println!` through semihosting.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        let mut line = $crate::semihosting::Line::new();
        let _ = core::fmt::Write::write_fmt(&mut line, format_args!($($arg)*));
        line.print();
    }};
}
