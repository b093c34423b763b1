//! The CPU engine (RustCrypto AES; AES-NI where present) as a Cipher driver PD. No clock
//! gate, so no power grant; bytes it enciphers are counted in the ledger if one is mapped.
use cpu_engine::CpuEngine;
use driver_pd::cipher::CipherPd;

fn init() -> CipherPd<CpuEngine> {
    CipherPd::new(CpuEngine::default(), None)
}

pd_runtime::protection_domain!(init);
