//! Bringing the device up (virtio 1.2 §3.1, §4.2.3.1) and the three things the driver
//! asks of it: create a session, destroy one, run one cipher request.

use crate::dma::{DATA_SLOTS, DmaArea, MAX_KEY, SLOT_DESCRIPTORS, layout};
use crate::transport::{DeviceInfo, init, probe};
use crate::virtq::{Buf, Chain, Virtq};
use crate::wire::{self, CtrlReq, DataReq, SessionInput, status};
use crate::{Error, TransportError};
use mmio::RegisterBus;
use zerocopy::{FromBytes, FromZeros, IntoBytes};

/// The direction of a request or a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// A piece of memory the device reads from or writes to, by physical address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmaBuf {
    pub phys: u64,
    pub len: u32,
}

/// One cipher request, as [`VirtioCrypto::cipher`] describes it.
#[derive(Clone, Copy, Debug)]
pub struct CipherReq<'a> {
    /// The session ([`VirtioCrypto::create_session`]) to run it on.
    pub session: u64,
    /// AES mode ([`wire::cipher_algo`]).
    pub algo: u32,
    pub dir: Direction,
    /// Read by the device first (CBC, CTR), absent for ECB.
    pub iv: Option<&'a [u8; 16]>,
    pub src: &'a [DmaBuf],
    /// As many bytes as `src`; may be the same buffers (in place).
    pub dst: &'a [DmaBuf],
}

/// What the control queue holds (one request at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CtrlPosted {
    Nothing,
    Create,
    Destroy,
}

/// A control request the device returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CtrlDone {
    /// A session was created (its id) or refused.
    Created(Result<u64, Error>),
    Destroyed(Result<(), Error>),
}

/// One of the data queue's places (told apart with `matches!`: a derived comparison
/// compared the status too, some 250 bytes of the flash-budgeted PD).
#[derive(Clone, Copy, Debug)]
enum DataSlot {
    Free,
    Posted,
    /// The device returned it with this status; the driver has not taken it yet.
    Returned(Result<(), Error>),
}

/// A virtio-crypto device on a virtio-mmio transport: both queues finished by the
/// transport's used-buffer interrupt, the control queue holding one request, the data
/// queue [`DATA_SLOTS`].
#[derive(Debug)]
pub struct VirtioCrypto<B: RegisterBus> {
    pub(crate) bus: B,
    pub(crate) dma: DmaArea,
    ctrlq: Virtq,
    dataq: Virtq,
    pub(crate) info: DeviceInfo,
    /// Set when the device or the queues can no longer be trusted (a timeout with a chain
    /// still posted, a corrupt used ring, DEVICE_NEEDS_RESET): every later call fails.
    broken: bool,
    spin_limit: u32,
    ctrl: CtrlPosted,
    data: [DataSlot; DATA_SLOTS],
    /// The Cipher engine's own state: device sessions, and what each place waits for.
    pub(crate) engine: crate::state::EngineState,
    /// AES modes usable on this device, by algorithm number (proven by a trial session).
    pub(crate) usable_algos: u64,
}

impl<B: RegisterBus> VirtioCrypto<B> {
    /// Resets and initialises the device behind `bus`, using `dma` for the queues and
    /// headers. On failure the device is left with FAILED set (§3.1).
    pub fn new(mut bus: B, mut dma: DmaArea) -> Result<Self, Error> {
        probe(&mut bus)?;
        if !dma.usable(crate::dma::layout::LEN) {
            return Err(Error::Transport(TransportError::DmaArea));
        }
        let mut q = (Virtq::new(0, 0, 0, 0, 0), Virtq::new(0, 0, 0, 0, 0));
        match init(&mut bus, &mut dma, &mut q) {
            Ok(info) => {
                let mut dev = Self {
                    bus,
                    dma,
                    ctrlq: q.0,
                    dataq: q.1,
                    info,
                    broken: false,
                    spin_limit: 100_000_000,
                    ctrl: CtrlPosted::Nothing,
                    data: [DataSlot::Free; DATA_SLOTS],
                    engine: Default::default(),
                    usable_algos: 0,
                };
                // Both queues interrupt when they return a chain (a wait at init or on
                // bare metal polls the used ring all the same).
                dev.ctrlq.want_interrupts(&mut dev.dma, true);
                dev.dataq.want_interrupts(&mut dev.dma, true);
                // The probe's answers raised the interrupt: acknowledged here, so the
                // PD's first interrupt is a new one.
                match dev
                    .find_usable_algos()
                    .and_then(|a| dev.ack_interrupt().map(|_| a))
                {
                    Ok(algos) => dev.usable_algos = algos,
                    Err(e) => {
                        virtio_mmio::give_up(&mut dev.bus);
                        return Err(e);
                    }
                }
                Ok(dev)
            }
            Err(e) => {
                virtio_mmio::give_up(&mut bus);
                Err(e)
            }
        }
    }

    /// The register bus (the PD acknowledges interrupts through it; tests reach the model).
    pub fn bus_mut(&mut self) -> &mut B {
        &mut self.bus
    }

    /// Whether an earlier failure left the driver unusable.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    pub fn info(&self) -> DeviceInfo {
        self.info
    }

    /// How many times a wait polls the used ring before giving up with `Timeout`.
    pub fn set_spin_limit(&mut self, spins: u32) {
        self.spin_limit = spins.max(1);
    }

    /// Whether AES `algo` ([`wire::cipher_algo`]) can be used, as proven at start-up by
    /// creating and destroying a session with it. The advertisement alone would not do:
    /// QEMU's built-in backend advertises only CBC but implements ECB and CTR as well.
    pub fn supports_algo(&self, algo: u32) -> bool {
        algo < 64 && self.usable_algos & (1 << algo) != 0
    }

    fn find_usable_algos(&mut self) -> Result<u64, Error> {
        let mut usable = 0;
        for algo in [
            wire::cipher_algo::AES_ECB,
            wire::cipher_algo::AES_CBC,
            wire::cipher_algo::AES_CTR,
        ] {
            match self.create_session(algo, Direction::Encrypt, &[0; 16]) {
                Ok(id) => {
                    self.destroy_session(id)?;
                    usable |= 1 << algo;
                }
                Err(Error::Device { .. } | Error::Unsupported) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(usable)
    }

    /// Creates a cipher session (§5.9.7.2.1, §5.9.7.2.1.3) for AES `algo` with `key` and
    /// waits for its id: at init or on bare metal only (see [`wait_ctrl`](Self::wait_ctrl));
    /// a PD posts with [`post_create`](Self::post_create).
    pub fn create_session(&mut self, algo: u32, dir: Direction, key: &[u8]) -> Result<u64, Error> {
        self.post_create(algo, dir, key)?;
        match self.wait_ctrl()? {
            CtrlDone::Created(id) => id,
            CtrlDone::Destroyed(_) => Err(Error::Transport(TransportError::BadUsedRing)),
        }
    }

    /// Destroys session `id` (§5.9.7.2.1, destroy session) and waits: as
    /// [`create_session`](Self::create_session).
    pub fn destroy_session(&mut self, id: u64) -> Result<(), Error> {
        self.post_destroy(id)?;
        match self.wait_ctrl()? {
            CtrlDone::Destroyed(r) => r,
            CtrlDone::Created(_) => Err(Error::Transport(TransportError::BadUsedRing)),
        }
    }

    /// Whether a control request is posted and not yet taken back.
    pub fn ctrl_busy(&self) -> bool {
        self.ctrl != CtrlPosted::Nothing
    }

    /// Posts a create-session request on the control queue (it must be free); the
    /// used-buffer interrupt then calls for [`ctrl_poll`](Self::ctrl_poll).
    pub fn post_create(&mut self, algo: u32, dir: Direction, key: &[u8]) -> Result<(), Error> {
        self.check()?;
        if self.ctrl_busy() {
            return Err(Error::Transport(TransportError::BadChain));
        }
        if key.is_empty()
            || key.len() > MAX_KEY
            || key.len() as u64 > u64::from(self.info.max_cipher_key_len)
        {
            return Err(Error::BadKeySize);
        }
        let mut req = CtrlReq::new_zeroed();
        req.header.opcode = wire::ctrl_op::CIPHER_CREATE_SESSION.into();
        req.header.algo = algo.into();
        let body = wire::SymCreateSession {
            para: wire::CipherSessionPara {
                algo: algo.into(),
                keylen: (key.len() as u32).into(),
                op: match dir {
                    Direction::Encrypt => wire::session_op::ENCRYPT,
                    Direction::Decrypt => wire::session_op::DECRYPT,
                }
                .into(),
                padding: 0.into(),
            },
            union_padding: [0; 32],
            op_type: wire::SYM_OP_CIPHER.into(),
            padding: 0.into(),
        };
        req.body.copy_from_slice(body.as_bytes());
        self.dma.write_bytes(layout::CTRL_REQ, req.as_bytes());
        self.dma.write_bytes(layout::CTRL_KEY, key);
        // A device that answers without writing leaves a non-OK status behind.
        let unwritten = SessionInput {
            status: status::ERR.into(),
            ..Default::default()
        };
        self.dma
            .write_bytes(layout::CTRL_INPUT, unwritten.as_bytes());
        let mut chain = Chain::default();
        chain.push(self.out(layout::CTRL_REQ, size_of::<CtrlReq>()))?;
        chain.push(self.out(layout::CTRL_KEY, key.len()))?;
        chain.push(self.inb(layout::CTRL_INPUT, size_of::<SessionInput>()))?;
        self.post_ctrl(&chain, CtrlPosted::Create)
    }

    /// Posts a destroy-session request for `id`, as [`post_create`](Self::post_create).
    pub fn post_destroy(&mut self, id: u64) -> Result<(), Error> {
        self.check()?;
        if self.ctrl_busy() {
            return Err(Error::Transport(TransportError::BadChain));
        }
        let mut req = CtrlReq::new_zeroed();
        req.header.opcode = wire::ctrl_op::CIPHER_DESTROY_SESSION.into();
        let body = wire::DestroySession {
            session_id: id.into(),
            padding: [0; 48],
        };
        req.body.copy_from_slice(body.as_bytes());
        self.dma.write_bytes(layout::CTRL_REQ, req.as_bytes());
        self.dma
            .write_bytes(layout::CTRL_STATUS, &[status::ERR as u8]);
        let mut chain = Chain::default();
        chain.push(self.out(layout::CTRL_REQ, size_of::<CtrlReq>()))?;
        chain.push(self.inb(layout::CTRL_STATUS, wire::INHDR_LEN))?;
        self.post_ctrl(&chain, CtrlPosted::Destroy)
    }

    fn post_ctrl(&mut self, chain: &Chain, what: CtrlPosted) -> Result<(), Error> {
        let result = self
            .ctrlq
            .submit(&mut self.bus, &mut self.dma, chain, 0)
            .map_err(Error::from);
        self.give_up_on(&result);
        result?;
        self.ctrl = what;
        Ok(())
    }

    /// The control request, if the device has returned it: what it answered. Reads the
    /// used ring once; never waits.
    pub fn ctrl_poll(&mut self) -> Result<Option<CtrlDone>, Error> {
        if !self.ctrl_busy() {
            return Ok(None);
        }
        let polled = self.ctrlq.poll(&self.dma, 1).map_err(Error::from);
        self.give_up_on(&polled);
        let Some(elem) = polled? else {
            return Ok(None);
        };
        if elem.id.get() != 0 {
            self.broken = true;
            return Err(Error::Transport(TransportError::BadUsedRing));
        }
        let what = core::mem::replace(&mut self.ctrl, CtrlPosted::Nothing);
        Ok(Some(match what {
            CtrlPosted::Create => {
                let mut raw = [0u8; 16];
                self.dma.read_bytes(layout::CTRL_INPUT, &mut raw);
                self.dma.fill(layout::CTRL_KEY, MAX_KEY, 0);
                let input = SessionInput::read_from_bytes(&raw)
                    .map_err(|_| Error::Transport(TransportError::BadChain))?;
                CtrlDone::Created(check_status(input.status.get()).map(|()| input.session_id.get()))
            }
            _ => {
                let mut st = [0u8];
                self.dma.read_bytes(layout::CTRL_STATUS, &mut st);
                CtrlDone::Destroyed(check_status(u32::from(st[0])))
            }
        }))
    }

    /// Waits for the control request posted: BOUNDED POLL (init's algorithm probe, bare
    /// metal: tools/qemu-test); a PD takes control answers on the interrupt.
    fn wait_ctrl(&mut self) -> Result<CtrlDone, Error> {
        for spin in 0..self.spin_limit {
            if let Some(done) = self.ctrl_poll()? {
                return Ok(done);
            }
            if spin % 1024 == 1023 {
                self.check_needs_reset()?;
            }
            core::hint::spin_loop();
        }
        self.broken = true;
        Err(Error::Timeout)
    }

    /// Runs one cipher request (§5.9.7.3, §5.9.7.6) on session `session` of AES `algo`: the device
    /// reads `iv` (if any) and `src`, and writes the result to `dst`, each buffer by DMA
    /// where it lies. `src` and `dst` must hold the same number of bytes; they may be the
    /// same buffers (in place). A total that is not whole blocks is padded with zeros to
    /// the next block (the device takes only whole blocks; for CTR the pad's output is
    /// discarded, which is what a partial last block means).
    ///
    /// Waits for the device, polling, in data slot 0: for bare-metal use
    /// (`tools/qemu-test`); a PD uses [`cipher_submit`](Self::cipher_submit) and finishes
    /// on the interrupt.
    pub fn cipher(
        &mut self,
        session: u64,
        algo: u32,
        dir: Direction,
        iv: Option<&[u8; 16]>,
        src: &[DmaBuf],
        dst: &[DmaBuf],
    ) -> Result<(), Error> {
        let req = CipherReq {
            session,
            algo,
            dir,
            iv,
            src,
            dst,
        };
        if !self.cipher_submit(0, req)? {
            return Ok(());
        }
        // BOUNDED POLL (bare metal only: tools/qemu-test); a PD finishes data requests on
        // the interrupt.
        for spin in 0..self.spin_limit {
            self.data_poll()?;
            if let Some(result) = self.data_take(0) {
                return result;
            }
            // A device that hit an error it cannot report in-band says so in STATUS
            // (§2.1.2); look now and then rather than on every spin (an MMIO read is a
            // trap to the hypervisor).
            if spin % 1024 == 1023 {
                self.check_needs_reset()?;
            }
            core::hint::spin_loop();
        }
        self.broken = true;
        Err(Error::Timeout)
    }

    /// Posts a cipher request (see [`cipher`](Self::cipher)) in data slot `slot` (free)
    /// without waiting; `Ok(false)` if there was nothing to do (no bytes). The
    /// used-buffer interrupt then calls for [`data_poll`](Self::data_poll).
    pub fn cipher_submit(&mut self, slot: usize, op: CipherReq<'_>) -> Result<bool, Error> {
        self.check()?;
        if !matches!(self.data.get(slot), Some(DataSlot::Free)) {
            return Err(Error::Transport(TransportError::BadChain));
        }
        let total = total_len(op.src)?;
        if total != total_len(op.dst)? {
            return Err(Error::BadLength);
        }
        if total == 0 {
            return Ok(false);
        }
        let pad = (16 - total % 16) % 16;
        let len = total + pad;
        if u64::from(len) > self.info.max_size {
            return Err(Error::BadLength);
        }
        let mut req = DataReq::new_zeroed();
        req.header.opcode = match op.dir {
            Direction::Encrypt => wire::data_op::CIPHER_ENCRYPT,
            Direction::Decrypt => wire::data_op::CIPHER_DECRYPT,
        }
        .into();
        req.header.algo = op.algo.into();
        req.header.session_id = op.session.into();
        req.para.iv_len = (if op.iv.is_some() { 16u32 } else { 0 }).into();
        req.para.src_data_len = len.into();
        req.para.dst_data_len = len.into();
        req.op_type = wire::SYM_OP_CIPHER.into();
        let at = |part| layout::slot(slot, part);
        self.dma.write_bytes(at(layout::SLOT_REQ), req.as_bytes());
        self.dma
            .write_bytes(at(layout::SLOT_STATUS), &[status::ERR as u8]);

        let mut chain = Chain::default();
        chain.push(self.out(at(layout::SLOT_REQ), size_of::<DataReq>()))?;
        if let Some(iv) = op.iv {
            self.dma.write_bytes(at(layout::SLOT_IV), iv);
            chain.push(self.out(at(layout::SLOT_IV), 16))?;
        }
        push_bufs(&mut chain, op.src, false)?;
        if pad > 0 {
            self.dma.fill(layout::PAD_SRC, 16, 0);
            chain.push(self.out(layout::PAD_SRC, pad as usize))?;
        }
        push_bufs(&mut chain, op.dst, true)?;
        if pad > 0 {
            chain.push(self.inb(at(layout::SLOT_PAD_DST), pad as usize))?;
        }
        chain.push(self.inb(at(layout::SLOT_STATUS), wire::INHDR_LEN))?;
        if chain.as_slice().len() > usize::from(SLOT_DESCRIPTORS) {
            return Err(Error::Transport(TransportError::BadChain));
        }
        let head = SLOT_DESCRIPTORS * slot as u16;
        let result = self
            .dataq
            .submit(&mut self.bus, &mut self.dma, &chain, head)
            .map_err(Error::from);
        self.give_up_on(&result);
        result?;
        self.data[slot] = DataSlot::Posted;
        Ok(true)
    }

    /// Takes every request the device has returned on the data queue (memory only, once
    /// per interrupt; never waits); [`data_take`](Self::data_take) then gives each
    /// slot's status. Returns how many were returned.
    pub fn data_poll(&mut self) -> Result<usize, Error> {
        let mut returned = 0;
        // Each element returns a posted slot, so this ends within DATA_SLOTS turns.
        loop {
            let posted = self
                .data
                .iter()
                .filter(|d| matches!(d, DataSlot::Posted))
                .count();
            if posted == 0 {
                return Ok(returned);
            }
            let polled = self
                .dataq
                .poll(&self.dma, posted as u16)
                .map_err(Error::from);
            self.give_up_on(&polled);
            let Some(elem) = polled? else {
                return Ok(returned);
            };
            let head = elem.id.get();
            let slot = (head / u32::from(SLOT_DESCRIPTORS)) as usize;
            if head % u32::from(SLOT_DESCRIPTORS) != 0
                || !matches!(self.data.get(slot), Some(DataSlot::Posted))
            {
                // A head the driver did not post, or returned twice.
                self.broken = true;
                return Err(Error::Transport(TransportError::BadUsedRing));
            }
            let mut st = [0u8];
            self.dma
                .read_bytes(layout::slot(slot, layout::SLOT_STATUS), &mut st);
            self.data[slot] = DataSlot::Returned(check_status(u32::from(st[0])));
            returned += 1;
        }
    }

    /// Slot `slot`'s status once the device has returned it (the slot is free again).
    pub fn data_take(&mut self, slot: usize) -> Option<Result<(), Error>> {
        match self.data.get(slot)? {
            DataSlot::Returned(result) => {
                let result = *result;
                self.data[slot] = DataSlot::Free;
                Some(result)
            }
            _ => None,
        }
    }

    /// Acknowledges the transport's interrupt (§4.2.2: INTERRUPT_STATUS read, the same
    /// bits written to INTERRUPT_ACK), so the line drops. A configuration change is how
    /// a device says it needs a reset (§2.1.2): checked then.
    pub fn ack_interrupt(&mut self) -> Result<u32, Error> {
        let acked = virtio_mmio::ack_interrupt(&mut self.bus);
        if acked == Err(TransportError::NeedsReset) {
            self.broken = true;
        }
        Ok(acked?)
    }

    /// The driver gives up on slot `slot`'s request, which it will never see finish: the
    /// device may still own its buffers, so the driver is broken (see the crate docs).
    pub fn abandon(&mut self, slot: usize) {
        if matches!(self.data.get(slot), Some(DataSlot::Posted)) {
            self.broken = true;
        }
    }

    fn out(&self, off: usize, len: usize) -> Buf {
        Buf {
            phys: self.dma.phys(off),
            len: len as u32,
            device_writes: false,
        }
    }

    fn inb(&self, off: usize, len: usize) -> Buf {
        Buf {
            phys: self.dma.phys(off),
            len: len as u32,
            device_writes: true,
        }
    }

    fn check(&self) -> Result<(), Error> {
        if self.broken {
            Err(Error::Broken)
        } else {
            Ok(())
        }
    }

    /// Anything but a clean return leaves the driver broken: the device may still own the
    /// chain's buffers, so they must not be reused.
    fn give_up_on<T>(&mut self, result: &Result<T, Error>) {
        if matches!(
            result,
            Err(Error::Timeout
                | Error::Transport(TransportError::NeedsReset)
                | Error::Transport(TransportError::BadUsedRing)
                | Error::Transport(TransportError::Bus(_)))
        ) {
            self.broken = true;
        }
    }

    fn check_needs_reset(&mut self) -> Result<(), Error> {
        let checked = virtio_mmio::needs_reset(&mut self.bus);
        if checked.is_err() {
            self.broken = true;
        }
        Ok(checked?)
    }
}

fn push_bufs(chain: &mut Chain, bufs: &[DmaBuf], device_writes: bool) -> Result<(), Error> {
    for b in bufs.iter().filter(|b| b.len > 0) {
        chain.push(Buf {
            phys: b.phys,
            len: b.len,
            device_writes,
        })?;
    }
    Ok(())
}

fn total_len(bufs: &[DmaBuf]) -> Result<u32, Error> {
    bufs.iter()
        .try_fold(0u32, |t, b| t.checked_add(b.len))
        .ok_or(Error::BadLength)
}

fn check_status(st: u32) -> Result<(), Error> {
    match st {
        status::OK => Ok(()),
        status::NOTSUPP => Err(Error::Unsupported),
        status => Err(Error::Device { status }),
    }
}
