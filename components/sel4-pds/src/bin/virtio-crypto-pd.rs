#![cfg_attr(target_os = "none", no_std, no_main)]
//! The virtio-crypto driver PD of `qemu_virt_aarch64.system`: `virtio-crypto-driver`
//! over QEMU's `virtio-crypto-device`, serving `pd-idl` Cipher to the test client.
//!
//! * Device: all 32 virtio-mmio transports (`mmio`, mapped uncached) are probed, as
//!   `tools/qemu-test` does, and the first crypto device is used.
//! * DMA: the driver's virtqueues and headers live in `dma`, whose physical address the
//!   tool patches into `dma_paddr`; request data moves by DMA straight from the client's
//!   region `data` at `data_paddr`. Both regions are ordinary cached RAM: virtio under
//!   QEMU is cache-coherent (a non-coherent SoC would need cache maintenance).
//! * Completion is polled, as the driver library does (one request in flight, the
//!   available ring's NO_INTERRUPT flag set), so requests are answered inside the
//!   notification that brought them. The transport's interrupt (channel 2) is still
//!   wired: should the device raise one (a configuration change), it is acknowledged at
//!   the device and at seL4 and logged.
//! * Calls (channel 0, PPC): `cipher::dispatch` for open/close; requests: the pair in
//!   `queues` (`crypto_client::pair` layout), served by `cipher_service::serve` with the
//!   driver as the engine.
//! * Power: the engine is acquired from the power manager (channel 1) when the first
//!   session opens and released when the last one closes (a grant per session burst).
//!
//! On the host there is no device frame: the binary says so and exits.
use cipher_service::{CipherEngine, ClientData, Session, Sessions};
use mmio::{RegisterBus, VolatileMmio};
use pd_idl::cipher::{self, CipherError, Mode, Path, Request, Response};
use pd_idl::power::{self, Engine, Grant};
use pd_idl::wire::Caller;
use pd_runtime::ipc::{self, PpcTransport};
use pd_runtime::{
    Channel, ChannelSet, Handler, MemoryRegion, MessageInfo, debug_println, memory_region,
};
use sel4_pds::DriverPair;
use virtio_crypto_driver::{DmaArea, Error, VirtioCrypto, dma, probe, regs};

const CLIENT: Channel = Channel::new(0);
const POWER: Channel = Channel::new(1);
const IRQ: Channel = Channel::new(2);
/// How `ipc::serve` names the client (its channel id here).
const CLIENT_CALLER: Caller = Caller(0);

/// QEMU virt: 32 transports, 0x200 bytes apart (hw/arm/virt.c, VIRT_MMIO).
const TRANSPORTS: usize = 32;
const TRANSPORT_STRIDE: usize = 0x200;

struct VirtioPd {
    dev: VirtioCrypto<VolatileMmio>,
    sessions: Sessions,
    client: DriverPair<Request, Response>,
    data: MemoryRegion,
    power: power::Client<PpcTransport>,
    grant: Option<Grant>,
}

impl VirtioPd {
    /// Keeps the power grant exactly while a session is open.
    fn follow_power(&mut self) {
        if self.sessions.open_count() != 0 {
            return;
        }
        let Some(grant) = self.grant.take() else {
            return;
        };
        if let Err(e) = self.power.release(grant) {
            debug_println!("virtio_crypto: power release: {e:?}");
        }
    }
}

impl cipher::Server for VirtioPd {
    fn open_session(
        &mut self,
        caller: Caller,
        mode: Mode,
        path: Path,
        key_len: u8,
        key: [u8; 32],
        iv: [u8; 16],
    ) -> Result<u32, CipherError> {
        if caller != CLIENT_CALLER || self.client.cut_off.is_some() {
            return Err(CipherError::BadRequest);
        }
        let session = Session {
            owner: caller,
            mode,
            path,
            key_len,
            key,
            iv,
        };
        // Refuse what is known to fail before touching power.
        if !matches!(key_len, 16 | 24 | 32) {
            return Err(CipherError::BadKeySize);
        }
        self.dev.supports(&session)?;
        if self.grant.is_none() {
            let grant = self.power.acquire(Engine::VirtioCrypto).map_err(|e| {
                debug_println!("virtio_crypto: power acquire: {e:?}");
                CipherError::NoPower
            })?;
            self.grant = Some(grant);
        }
        let dev = &self.dev;
        let result = self.sessions.open(session, |s| dev.supports(s));
        self.follow_power();
        result
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), CipherError> {
        let s = *self.sessions.get_mut(caller, session)?;
        self.sessions.close(caller, session)?;
        // No key outlives its session in the device either (the driver caches device
        // sessions by key and mode; another session with the same key recreates them).
        if let Err(e) = self.dev.forget(&s) {
            debug_println!("virtio_crypto: destroying device sessions: {e:?}");
        }
        self.follow_power();
        Ok(())
    }
}

impl Handler for VirtioPd {
    fn protected(&mut self, channel: Channel, msg: MessageInfo) -> MessageInfo {
        ipc::serve(channel, msg, |caller, m| cipher::dispatch(self, caller, m))
    }

    fn notified(&mut self, channels: ChannelSet) {
        if channels.contains(IRQ) {
            let bus = self.dev.bus_mut();
            let status = bus.read32(regs::INTERRUPT_STATUS).unwrap_or(0);
            let _ = bus.write32(regs::INTERRUPT_ACK, status);
            IRQ.irq_ack();
            debug_println!("virtio_crypto: device interrupt, status {status:#x} (acknowledged)");
        }
        if channels.contains(CLIENT) {
            let (dev, sessions, data) = (&mut self.dev, &mut self.sessions, self.data);
            let cut = self.client.pump(|rx, tx| {
                // SAFETY: `data` is mapped read-write for the PD's life and nothing else
                // in this PD references it. The client may write it while the device
                // works; it then gets garbage for its own request, as with any DMA.
                let bytes = unsafe { core::slice::from_raw_parts_mut(data.vaddr, data.size) };
                let mut data = ClientData {
                    bytes,
                    phys: Some(data.paddr),
                };
                cipher_service::serve(dev, sessions, CLIENT_CALLER, rx, tx, &mut data)
            });
            if cut {
                let closed = self.sessions.close_all(CLIENT_CALLER);
                debug_println!("virtio_crypto: closed {closed} session(s) of the cut-off client");
                self.follow_power();
            }
        }
    }
}

/// Probes every transport; the first crypto device found.
fn find_device(mmio: MemoryRegion) -> Result<VolatileMmio, Error> {
    for n in 0..TRANSPORTS.min(mmio.size / TRANSPORT_STRIDE) {
        // SAFETY: transport n's window lies inside the `mmio` region, which the .system
        // file maps uncached (device memory) for the PD's life; each window is used by
        // one bus at a time (a failed probe drops its bus before the next).
        let mut bus =
            unsafe { VolatileMmio::new(mmio.vaddr.add(n * TRANSPORT_STRIDE), regs::WINDOW) };
        match probe(&mut bus) {
            Ok(()) => {
                debug_println!("virtio_crypto: device in transport {n}");
                return Ok(bus);
            }
            Err(Error::NoDevice | Error::WrongDevice { .. }) => {}
            Err(e) => debug_println!("virtio_crypto: transport {n}: {e:?}"),
        }
    }
    Err(Error::NoDevice)
}

fn init() -> VirtioPd {
    if !sel4_pds::ON_SEL4 {
        debug_println!(
            "virtio-crypto-pd: needs QEMU's virtio-mmio device frame, which exists only on seL4 (make qemu); exiting"
        );
        pd_runtime::exit(1);
    }
    let mmio = memory_region!(mmio);
    let dma_region = memory_region!(dma);
    let data = memory_region!(data);
    assert!(
        dma_region.paddr != 0 && data.paddr != 0,
        "virtio_crypto: the .system file must give dma_paddr and data_paddr (region_paddr setvars)"
    );
    assert!(
        dma_region.size >= dma::layout::LEN,
        "virtio_crypto: dma region too small"
    );
    let bus = find_device(mmio).unwrap_or_else(|e| panic!("virtio_crypto: no device: {e:?}"));
    // SAFETY: `dma` is mapped read-write for the PD's life, used by nothing but this
    // driver and its device, and the tool placed it at `dma_paddr` (region_paddr).
    let area = unsafe { DmaArea::new(dma_region.vaddr, dma_region.paddr, dma_region.size) };
    let dev = VirtioCrypto::new(bus, area)
        .unwrap_or_else(|e| panic!("virtio_crypto: device init: {e:?}"));
    let info = dev.info();
    debug_println!(
        "virtio_crypto: up: dma at paddr {:#x}, data at paddr {:#x}, max key {}, {} data queue(s)",
        dma_region.paddr,
        data.paddr,
        info.max_cipher_key_len,
        info.data_queues
    );
    let client = DriverPair::attach(memory_region!(queues), CLIENT);
    VirtioPd {
        dev,
        sessions: Sessions::default(),
        client,
        data,
        power: power::Client::new(PpcTransport(POWER)),
        grant: None,
    }
}

pd_runtime::protection_domain!(init);
