//! Reset to `main` on a bare aarch64 core as QEMU's `-kernel` starts an ELF: at EL1, MMU
//! and caches off, no stack. We turn on FP/SIMD (the compiler uses NEON registers for
//! copies), set the stack, clear .bss and install vectors that report any exception
//! through semihosting instead of looping silently. With the MMU off every data access
//! is Device-nGnRnE, so an unaligned access faults: the target's +strict-align keeps the
//! compiler from making any, and the vectors would show it if something did.

use crate::semihosting;
use core::arch::global_asm;
use core::fmt::Write;

global_asm!(
    r#"
    .section .text._start, "ax"
    .global _start
_start:
    mov     x0, #(3 << 20)          // CPACR_EL1.FPEN = 0b11: no FP/SIMD traps at EL0/EL1
    msr     cpacr_el1, x0
    ldr     x0, =qemu_test_vectors
    msr     vbar_el1, x0
    isb
    ldr     x0, =__stack_top
    mov     sp, x0
    ldr     x0, =__bss_start
    ldr     x1, =__bss_end
1:  cmp     x0, x1
    b.hs    2f
    str     xzr, [x0], #8
    b       1b
2:  bl      {main}
3:  wfe
    b       3b

    .section .text.vectors, "ax"
    .balign 2048
qemu_test_vectors:
    .rept 16
    mrs     x0, esr_el1
    mrs     x1, elr_el1
    mrs     x2, far_el1
    b       {exception}
    .balign 128
    .endr
"#,
    main = sym crate::entry,
    exception = sym exception,
);

extern "C" fn exception(esr: u64, elr: u64, far: u64) -> ! {
    let mut out = semihosting::Line::new();
    let _ = write!(
        out,
        "qemu-test: exception ESR={esr:#x} ELR={elr:#x} FAR={far:#x}"
    );
    out.print();
    semihosting::exit(3)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut out = semihosting::Line::new();
    let _ = write!(out, "qemu-test: panic: {info}");
    out.print();
    semihosting::exit(2)
}
