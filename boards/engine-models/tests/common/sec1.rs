//! The talitos SEC1 test driver: ahash sessions as upstream's `ahash_process_req` runs
//! them on SEC1, before the talitos chaining change (buffered block and new data copied into one buffer) and
//! after it (a descriptor over the buffered block chained ahead of one over the data).

use super::Arena;
use board::mpc885::SEC;
use cost_ledger::{Event, Ledger};
use engine_models::mdeu::HashAlg;
use engine_models::mpc885::Mpc885;
use engine_models::phys::PhysMap;
use mmio::RegisterBus;
use mmio::talitos::{
    self as t, Desc, HASH_BLOCK, MAX_DATA_LEN, MDEU_CONTEXT_SIZE, Ptr, cccr, hdr, isr, slot,
};
use zerocopy::IntoBytes;
use zerocopy::big_endian::U32;

pub const SEC_IRQ: u32 = SEC.irqs[0];

/// Unmasks channel 0's interrupts and enables done write-back, done IRQ and chaining.
pub fn init(soc: &Mpc885) {
    let mut s = soc.sec();
    s.modify32(t::IMR, isr::INIT, 0).unwrap();
    s.write32(t::CCCR_LO, cccr::CDIE | cccr::CDWE | cccr::NE)
        .unwrap();
}

/// How updates reach the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// Before the talitos chaining change: copy buffered bytes and new data into one DMA buffer.
    Copy,
    /// After the talitos chaining change: chain a descriptor over the buffered bytes ahead of the data.
    Chained,
}

/// What the channel reported.
#[derive(Debug, PartialEq, Eq)]
pub enum HashError {
    /// CCPSR error bits.
    Channel(u32),
    Stalled,
}

/// One hash session's driver state (upstream's `talitos_ahash_req_ctx`).
pub struct Session {
    pub alg: HashAlg,
    path: Path,
    buf: Vec<u8>,
    first: bool,
    /// Physical addresses: hardware context, descriptors, bounce buffer, buffered block.
    ctx: u32,
    desc: [u32; 2],
    bounce: u32,
    bufphys: u32,
}

fn alg_bits(alg: HashAlg) -> u32 {
    match alg {
        HashAlg::Md5 => hdr::MDEU_MD5,
        HashAlg::Sha1 => hdr::MDEU_SHA1,
        HashAlg::Sha256 => hdr::MDEU_SHA256,
    }
}

impl Session {
    pub fn new(arena: &mut Arena, alg: HashAlg, path: Path) -> Self {
        Self {
            alg,
            path,
            buf: Vec::new(),
            first: true,
            ctx: arena.alloc(MDEU_CONTEXT_SIZE, 8),
            desc: [arena.alloc(t::DESC_SIZE, 8), arena.alloc(t::DESC_SIZE, 8)],
            bounce: arena.alloc(MAX_DATA_LEN, 64),
            bufphys: arena.alloc(2 * HASH_BLOCK, 64),
        }
    }

    fn header(&self, init: bool, last: bool) -> u32 {
        let mut h = hdr::SEL0_MDEUA
            | alg_bits(self.alg)
            | hdr::TYPE_COMMON_NONSNOOP_NO_AFEU
            | hdr::DONE_NOTIFY;
        if init {
            h |= hdr::MDEU_INIT;
        }
        h | if last { hdr::MDEU_PAD } else { hdr::MDEU_CONT }
    }

    /// A descriptor hashing `len` bytes at `data`, context in unless `init`, out to the
    /// context (or `out_len` digest bytes when `last`).
    fn desc(&self, h: u32, data: u32, len: usize, out_len: usize) -> Desc {
        let mut d = Desc {
            hdr: U32::new(h),
            ..Desc::default()
        };
        if h & hdr::MDEU_INIT == 0 {
            d.ptr[slot::CONTEXT_IN] = Ptr::new(self.ctx, MDEU_CONTEXT_SIZE as u16);
        }
        d.ptr[slot::DATA_IN] = Ptr::new(data, len as u16);
        d.ptr[slot::OUT] = Ptr::new(self.ctx, out_len as u16);
        d
    }

    /// Hashes `len` bytes of client data at `data` (an update, or the final when `last`).
    /// Data longer than one pointer may carry is fed in pieces, as upstream's callers do.
    pub fn update(
        &mut self,
        soc: &Mpc885,
        mem: &PhysMap,
        ledger: &Ledger,
        data: u32,
        len: usize,
        last: bool,
    ) -> Result<(), HashError> {
        let piece = MAX_DATA_LEN - HASH_BLOCK;
        if len > piece {
            self.update(soc, mem, ledger, data, piece, false)?;
            return self.update(soc, mem, ledger, data + piece as u32, len - piece, last);
        }
        let nbuf = self.buf.len();
        let nbytes = nbuf + len;
        if !last && nbytes <= HASH_BLOCK {
            self.buf.extend(super::get(mem, data, len));
            ledger.add(Event::CpuCopyByte, len as u64);
            return Ok(());
        }
        ledger.add(Event::Request, 1);
        // Upstream keeps the partial block for later, or one whole block if none.
        let later = if last {
            0
        } else if !nbytes.is_multiple_of(HASH_BLOCK) {
            nbytes % HASH_BLOCK
        } else {
            HASH_BLOCK
        };
        let to_hash = nbytes - later;
        let out_len = if last {
            self.alg.digest_len()
        } else {
            MDEU_CONTEXT_SIZE
        };
        let old_buf = self.buf.clone();
        // SEC1 chaining needs whole blocks ahead of the data: top a partial buffer up to
        // one block from the new data (upstream's ctx_buf + nbuf copy). With the tail
        // kept below, at most two blocks are copied per update.
        let mut taken = 0;
        if self.path == Path::Chained && nbuf > 0 && nbuf < HASH_BLOCK && to_hash > nbuf {
            taken = if to_hash > HASH_BLOCK {
                HASH_BLOCK - nbuf
            } else {
                to_hash - nbuf
            };
            self.buf.extend(super::get(mem, data, taken));
            ledger.add(Event::CpuCopyByte, taken as u64);
        }
        let nbuf = self.buf.len();
        let client = to_hash.saturating_sub(nbuf);
        let mut h = self.header(self.first, last);
        let mut descs = Vec::new();
        mem.write(self.bufphys.into(), &self.buf).unwrap();
        if to_hash == 0 {
            // SEC1 cannot hash an empty message: pad it here and hash one block without
            // PAD (upstream's talitos_handle_buggy_hash).
            let mut block = [0u8; HASH_BLOCK];
            block[0] = 0x80;
            mem.write(self.bufphys.into(), &block).unwrap();
            h &= !hdr::MDEU_PAD;
            descs.push(self.desc(h, self.bufphys, HASH_BLOCK, out_len));
        } else if self.path == Path::Copy {
            // One buffer holding the buffered bytes then the client's: the copy that
            // the talitos chaining change removes.
            let mut all = self.buf[..nbuf.min(to_hash)].to_vec();
            all.extend(super::get(mem, data, client));
            mem.write(self.bounce.into(), &all).unwrap();
            ledger.add(Event::CpuCopyByte, all.len() as u64);
            descs.push(self.desc(h, self.bounce, to_hash, out_len));
        } else if nbuf == 0 {
            descs.push(self.desc(h, data, client, out_len));
        } else if client == 0 {
            descs.push(self.desc(h, self.bufphys, to_hash, out_len));
        } else {
            let h1 = (h & !(hdr::MDEU_PAD | hdr::DONE_NOTIFY)) | hdr::MDEU_CONT;
            let mut d1 = self.desc(h1, self.bufphys, nbuf, MDEU_CONTEXT_SIZE);
            d1.next_desc = U32::new(self.desc[1]);
            descs.push(d1);
            descs.push(self.desc(h & !hdr::MDEU_INIT, data + taken as u32, client, out_len));
        }
        for (d, &at) in descs.iter().zip(&self.desc) {
            mem.write(at.into(), d.as_bytes()).unwrap();
        }
        self.first = false;
        let mut s = soc.sec();
        s.write32(t::FF_LO, self.desc[0]).unwrap();
        if !soc.irq_pending(SEC_IRQ) {
            return Err(HashError::Stalled);
        }
        let status = s.read32(t::ISR).unwrap();
        s.write32(t::ICR, status).unwrap();
        soc.irq_ack(SEC_IRQ);
        if status & isr::CH0_ERR != 0 {
            let bits = s.read32(t::CCPSR_LO).unwrap();
            s.write32(t::CCCR_LO, cccr::RESET | cccr::CDIE | cccr::CDWE | cccr::NE)
                .unwrap();
            return Err(HashError::Channel(bits));
        }
        // Completion is read from the last descriptor's header (DONE written back).
        let last_desc = self.desc[descs.len() - 1];
        let done = u32::from_be_bytes(super::get(mem, last_desc, 4).try_into().unwrap());
        assert_eq!(done & hdr::DONE, hdr::DONE, "descriptor not done");
        // Keep the stream's last `later` bytes for the next update.
        let from_data = later.min(len);
        let mut next = old_buf[old_buf.len() - (later - from_data)..].to_vec();
        next.extend(super::get(mem, data + (len - from_data) as u32, from_data));
        ledger.add(Event::CpuCopyByte, from_data as u64);
        self.buf = next;
        Ok(())
    }

    /// The digest after the final update.
    pub fn digest(&self, mem: &PhysMap) -> Vec<u8> {
        super::get(mem, self.ctx, self.alg.digest_len())
    }
}
