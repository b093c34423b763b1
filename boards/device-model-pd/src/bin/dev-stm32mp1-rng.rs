#![cfg_attr(target_os = "none", no_std, no_main)]
//! stm32mp1's RNG1, standing in for the silicon (see the `device-model-pd` crate docs and
//! engine-models' `stm32_rng`). Its noise is a model's: a xorshift stream, seeded from
//! the host's getrandom on the host backend and fixed on seL4 (a stand-in, not entropy).
//! A system may map `noise_control` here and in a test client, which then steers the
//! noise (stuck, biased) and the clock error.
use device_model_pd::{DevicePd, keep, ledger};
use engine_models::soc::Soc;
use engine_models::stm32_rng::{Control, DEV_RNG, Stm32RngMachine};
use pd_runtime::debug_println;
use static_cell::StaticCell;

/// The control byte, read volatile: the test client writes it at any time.
fn control() -> u8 {
    pd_runtime::maybe_memory_region!(noise_control).map_or(0, |r| {
        // SAFETY: mapped for the PD's life, at least a byte; another PD writes it.
        unsafe { r.vaddr.read_volatile() }
    })
}

fn init() -> DevicePd<Stm32RngMachine> {
    static SOC: StaticCell<Soc<'static, Stm32RngMachine>> = StaticCell::new();
    static IRQS: [u32; 1] = [board::stm32mp1::RNG1_IRQ];
    let steered = pd_runtime::maybe_memory_region!(noise_control).is_some();
    // Reseeded from the host's randomness on the host only (seL4 keeps the model's seed).
    #[cfg_attr(target_os = "none", allow(unused_mut))]
    let mut machine = Stm32RngMachine::new(&IRQS, steered.then_some(Control(control)));
    #[cfg(not(target_os = "none"))]
    {
        let mut seed = [0u8; 8];
        if getrandom::getrandom(&mut seed).is_ok() {
            machine.rng.seed(u64::from_le_bytes(seed));
        }
    }
    debug_println!(
        "dev_stm32mp1_rng: RNG1 model (noise: a xorshift stream{}){}",
        if cfg!(target_os = "none") {
            ", fixed seed"
        } else {
            " seeded from getrandom"
        },
        if steered {
            "; noise_control mapped"
        } else {
            ""
        }
    );
    let soc = keep(&SOC, Soc::new(machine, ledger()));
    DevicePd::new(soc, DEV_RNG, None)
}

pd_runtime::protection_domain!(init);
