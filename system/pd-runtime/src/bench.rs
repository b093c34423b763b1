//! What the seL4 benchmark kernel lets a PD measure (Microkit's `benchmark` config:
//! `KernelArmExportPMUUser`, `KernelBenchmarks=track_utilisation`), for the isolation
//! bench: the PMU's cycle and instructions-retired counters read at EL0, and the
//! kernel's per-thread utilisation (cycles scheduled, of them in the kernel), as sDDF's
//! benchmark PD reads it. Everywhere else (the `debug` and `release` kernels, the host)
//! each function answers `None`: neither the PMU nor the syscalls are there, and
//! touching them would fault.
//!
//! The counters count at EL0, EL1 and EL2 (the kernel runs at EL2 on
//! qemu_virt_aarch64): an isolated request's cost is mostly the kernel's. They are
//! never reset here, since the kernel's own utilisation timestamps are the cycle
//! counter: measure differences.

/// The PMU's counts: cycles (PMCCNTR_EL0) and instructions retired (event counter 0,
/// event 0x08 INST_RETIRED).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub cycles: u64,
    pub instructions: u64,
}

impl Counts {
    /// The counts from `earlier` to `self`.
    pub fn since(self, earlier: Counts) -> Counts {
        Counts {
            cycles: self.cycles.wrapping_sub(earlier.cycles),
            // Event counters are 32 bits wide on this PMU (PMUv3 without the 64-bit
            // event counter extension).
            instructions: self.instructions.wrapping_sub(earlier.instructions) & 0xffff_ffff,
        }
    }
}

/// One thread's utilisation over a period ([`start_period`] to [`end_period`]), in cycles
/// (`benchmark_track_util_ipc_index` in the SDK's `sel4/benchmark_utilisation_types.h`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utilisation {
    /// Cycles the thread was scheduled, the kernel's work on its behalf included.
    pub thread: u64,
    /// Of them, in the kernel.
    pub thread_kernel: u64,
    /// Times it was scheduled.
    pub schedules: u64,
    /// Cycles the core ran in the period, and those the idle thread had.
    pub total: u64,
    pub idle: u64,
}

/// Whose utilisation: this PD's own thread, or child PD `id`'s (Microkit gives a
/// parent its children's TCBs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thread {
    Own,
    Child(u8),
}

/// Starts the PMU's cycle counter and an instructions-retired counter, counting at every
/// exception level; `false` where the PMU is not this PD's to use.
pub fn pmu_start() -> bool {
    backend::pmu_start()
}

/// The counters now (after every instruction before it: an `isb` first).
pub fn pmu_read() -> Option<Counts> {
    backend::pmu_read()
}

/// Starts a utilisation period for `threads` (their counts, the idle thread's and the
/// core's zeroed), as sDDF's benchmark PD does: `seL4_BenchmarkResetLog`, then
/// `seL4_BenchmarkResetThreadUtilisation` of each.
pub fn start_period(threads: &[Thread]) -> bool {
    backend::start_period(threads)
}

/// Ends the period (`seL4_BenchmarkFinalizeLog`): [`utilisation`] reads it from now.
pub fn end_period() -> bool {
    backend::end_period()
}

/// `thread`'s utilisation in the last period.
pub fn utilisation(thread: Thread) -> Option<Utilisation> {
    backend::utilisation(thread)
}

#[cfg(not(target_os = "none"))]
mod backend {
    use super::{Counts, Thread, Utilisation};
    pub fn pmu_start() -> bool {
        false
    }
    pub fn pmu_read() -> Option<Counts> {
        None
    }
    pub fn start_period(_: &[Thread]) -> bool {
        false
    }
    pub fn end_period() -> bool {
        false
    }
    pub fn utilisation(_: Thread) -> Option<Utilisation> {
        None
    }
}

#[cfg(target_os = "none")]
mod backend {
    use super::{Counts, Thread, Utilisation};
    use crate::microkit::{BENCHMARK_KERNEL, cap, sel4};
    use core::arch::asm;

    /// PMCR_EL0.E: every counter enabled (each still by PMCNTENSET_EL0).
    const PMCR_E: u64 = 1;
    /// PMCNTENSET_EL0: the cycle counter (bit 31) and event counter 0.
    const COUNTERS: u64 = 1 << 31 | 1;
    /// PMEVTYPER/PMCCFILTR: NSH (bit 27) counts at EL2 too, where this board's kernel
    /// runs; the P and U bits clear count at EL1 and EL0.
    const AT_EVERY_EL: u64 = 1 << 27;
    /// The architectural event "instruction architecturally executed".
    const INST_RETIRED: u64 = 0x08;

    pub fn pmu_start() -> bool {
        if !BENCHMARK_KERNEL {
            return false;
        }
        // SAFETY: the benchmark kernel sets PMUSERENR_EL0.EN, which gives EL0 these
        // registers; none touches memory. PMCR's reset bits stay clear: the kernel's
        // utilisation timestamps are the cycle counter.
        unsafe {
            asm!("msr pmccfiltr_el0, {}", in(reg) AT_EVERY_EL, options(nomem, nostack));
            asm!("msr pmevtyper0_el0, {}", in(reg) AT_EVERY_EL | INST_RETIRED, options(nomem, nostack));
            asm!("msr pmcntenset_el0, {}", in(reg) COUNTERS, options(nomem, nostack));
            let pmcr: u64;
            asm!("mrs {}, pmcr_el0", out(reg) pmcr, options(nomem, nostack));
            asm!("msr pmcr_el0, {}", "isb", in(reg) pmcr | PMCR_E, options(nomem, nostack));
        }
        true
    }

    pub fn pmu_read() -> Option<Counts> {
        if !BENCHMARK_KERNEL {
            return None;
        }
        let (cycles, instructions): (u64, u64);
        // SAFETY: as in `pmu_start`.
        unsafe {
            asm!(
                "isb",
                "mrs {}, pmccntr_el0",
                "mrs {}, pmevcntr0_el0",
                out(reg) cycles,
                out(reg) instructions,
                options(nomem, nostack)
            );
        }
        Some(Counts {
            cycles,
            instructions,
        })
    }

    fn tcb(thread: Thread) -> u64 {
        match thread {
            Thread::Own => cap::TCB,
            Thread::Child(id) => cap::BASE_TCB + u64::from(id),
        }
    }

    pub fn start_period(threads: &[Thread]) -> bool {
        if BENCHMARK_KERNEL {
            sel4::benchmark_reset_log();
            for &t in threads {
                sel4::benchmark_reset_utilisation(tcb(t));
            }
        }
        BENCHMARK_KERNEL
    }

    pub fn end_period() -> bool {
        if BENCHMARK_KERNEL {
            sel4::benchmark_finalize_log();
        }
        BENCHMARK_KERNEL
    }

    pub fn utilisation(thread: Thread) -> Option<Utilisation> {
        if !BENCHMARK_KERNEL {
            return None;
        }
        sel4::benchmark_get_utilisation(tcb(thread));
        // benchmark_track_util_ipc_index: the thread's four words, the idle thread's
        // five, then the core's totals.
        let w = sel4::get_mr;
        Some(Utilisation {
            thread: w(0),
            schedules: w(1),
            thread_kernel: w(2),
            idle: w(4),
            total: w(9),
        })
    }
}
