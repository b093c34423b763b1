//! What the device does with a chain: control requests (create and destroy sessions,
//! virtio 1.2 §5.9.7.2) and data requests (cipher operations, §5.9.7.3, §5.9.7.6), with QEMU's
//! checks and answers.

use crate::queue::{Broken, Chain, Stream};
use crate::{VirtioCryptoModel, crypto};
use cost_ledger::Event;
use virtio_crypto_driver::wire::{self, CtrlReq, DataReq, status};
use zerocopy::{FromBytes, IntoBytes};

impl VirtioCryptoModel<'_> {
    /// A control request (§5.9.7.2); returns the bytes written.
    pub(crate) fn control(&mut self, chain: &Chain) -> Result<u32, Broken> {
        let mut out = Stream::new(&chain.outs[..chain.nout]);
        let mut inp = Stream::new(&chain.ins[..chain.nin]);
        let mut raw = [0u8; 72];
        out.read(self.mem, &mut raw)?;
        let req = CtrlReq::read_from_bytes(&raw).map_err(|_| Broken)?;
        match req.header.opcode.get() {
            wire::ctrl_op::CIPHER_CREATE_SESSION => {
                let body =
                    wire::SymCreateSession::read_from_bytes(&req.body).map_err(|_| Broken)?;
                let keylen = body.para.keylen.get() as usize;
                let mut key = [0u8; 64];
                let result = if body.op_type.get() != wire::SYM_OP_CIPHER {
                    Err(status::NOTSUPP)
                } else if keylen > key.len() {
                    Err(status::ERR)
                } else {
                    out.read(self.mem, &mut key[..keylen])?;
                    self.sessions
                        .create(body.para.algo.get(), body.para.op.get(), &key[..keylen])
                };
                if result.is_ok() {
                    self.count(Event::KeyLoaded, 1);
                }
                let input = wire::SessionInput {
                    session_id: result.unwrap_or(0).into(),
                    status: result.err().unwrap_or(status::OK).into(),
                    padding: 0.into(),
                };
                inp.write(self.mem, input.as_bytes())?;
                Ok(16)
            }
            wire::ctrl_op::CIPHER_DESTROY_SESSION => {
                let body = wire::DestroySession::read_from_bytes(&req.body).map_err(|_| Broken)?;
                let destroyed = self.sessions.destroy(body.session_id.get());
                if destroyed.is_ok() {
                    // The session's key left the device with it.
                    self.count(Event::KeyCleared, 1);
                }
                let st = destroyed.err().unwrap_or(status::OK);
                inp.write(self.mem, &[st as u8])?;
                Ok(1)
            }
            _ => {
                let input = wire::SessionInput {
                    status: status::NOTSUPP.into(),
                    ..Default::default()
                };
                inp.write(self.mem, input.as_bytes())?;
                Ok(16)
            }
        }
    }

    /// A data request (§5.9.7.3); `None` if a fault says to keep the chain.
    pub(crate) fn data(&mut self, chain: &Chain) -> Result<Option<u32>, Broken> {
        let faults = core::mem::take(&mut self.faults);
        if faults.hang {
            return Ok(None);
        }
        if faults.needs_reset {
            return Err(Broken);
        }
        let ins = &chain.ins[..chain.nin];
        // The status byte is the last byte of the last writable buffer (QEMU).
        let last = ins.last().filter(|s| s.len >= 1).ok_or(Broken)?;
        let status_addr = last
            .addr
            .checked_add(u64::from(last.len) - 1)
            .ok_or(Broken)?;
        let total_in: u64 = ins.iter().map(|s| u64::from(s.len)).sum();
        let st = match faults.status {
            Some(s) => u32::from(s),
            None => self.cipher(chain)?,
        };
        self.mem
            .write(status_addr, &[st as u8])
            .map_err(|_| Broken)?;
        Ok(Some(total_in as u32))
    }

    fn cipher(&mut self, chain: &Chain) -> Result<u32, Broken> {
        let mut out = Stream::new(&chain.outs[..chain.nout]);
        let ins = &chain.ins[..chain.nin];
        let mut raw = [0u8; 72];
        out.read(self.mem, &mut raw)?;
        let req = DataReq::read_from_bytes(&raw).map_err(|_| Broken)?;
        match req.header.opcode.get() {
            wire::data_op::CIPHER_ENCRYPT | wire::data_op::CIPHER_DECRYPT => {}
            _ => return Ok(status::NOTSUPP),
        }
        if req.op_type.get() != wire::SYM_OP_CIPHER {
            return Ok(status::NOTSUPP);
        }
        let (iv_len, src_len) = (req.para.iv_len.get() as usize, req.para.src_data_len.get());
        if src_len != req.para.dst_data_len.get() || iv_len > 16 {
            return Err(Broken); // QEMU: virtio_error
        }
        let mut iv = [0u8; 16];
        out.read(self.mem, &mut iv[..iv_len])?;
        // Source and destination must be there before anything is done (QEMU copies them
        // in and checks the lengths first); the status byte is not part of dst.
        if out.remaining() < u64::from(src_len) {
            return Err(Broken);
        }
        let Ok(session) = self.sessions.get(req.header.session_id.get()) else {
            return Ok(status::INVSESS);
        };
        let Ok(mut run) = crypto::Run::start(session, &iv[..iv_len]) else {
            return Ok(status::ERR);
        };
        if src_len % 16 != 0 {
            return Ok(status::ERR);
        }
        let mut dst = Stream::new(ins);
        if dst.remaining() < u64::from(src_len) + 1 {
            return Err(Broken);
        }
        let mut block = [0u8; 16];
        for _ in 0..src_len / 16 {
            out.read(self.mem, &mut block)?;
            run.block(&mut block);
            dst.write(self.mem, &block)?;
        }
        self.count(Event::DmaByte, 2 * u64::from(src_len));
        self.count(Event::EngineCycle, u64::from(src_len / 16));
        Ok(status::OK)
    }
}
