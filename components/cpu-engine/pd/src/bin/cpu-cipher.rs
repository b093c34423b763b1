#![cfg_attr(target_os = "none", no_std, no_main)]
//! The CPU engine (RustCrypto AES; AES-NI or the ARMv8 crypto extensions where present)
//! as a Cipher driver PD.
use cpu_engine::CpuEngine;
use driver_pd::cipher::CipherPd;

fn init() -> CipherPd<CpuEngine> {
    driver_pd::cipher::pd(CpuEngine::default(), None)
}

pd_runtime::protection_domain!(init);
