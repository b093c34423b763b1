//! The driver: SEC1 Digest sessions behind [`DigestEngine`].

use crate::channel::{Channel, Fault};
use crate::hw::{DmaMemory, Irq};
use crate::layout::{BOUNCE_BYTES, SCRATCH_ALIGN, SCRATCH_BYTES, Scratch};
use crate::plan::{self, Block, Split, Step};
use crate::selftest::{self, SelfTestError};
use cost_ledger::{Event, Ledger};
use digest_service::{ClientData, Digest, DigestEngine, Segments, Session, digest_len};
use mmio::RegisterBus;
use mmio::talitos::{Desc, HASH_BLOCK, MDEU_CONTEXT_SIZE, Ptr, hdr, slot};
use pd_idl::digest::{Algorithm, DigestError, HashPath};
use zerocopy::big_endian::U32;

/// What the driver keeps per session (besides its scratch slot's context and buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashState {
    /// The session's slot in scratch.
    slot: usize,
    /// Bytes in the slot's buffer (at most one block).
    nbuf: usize,
    /// No descriptor has run yet: the next starts the hash (INIT) instead of loading
    /// the context.
    fresh: bool,
}

impl HashState {
    pub(crate) fn new(slot: usize) -> Self {
        HashState {
            slot,
            nbuf: 0,
            fresh: true,
        }
    }
}

/// Why [`Sec1Hash::init`] refused to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitError {
    /// The scratch region is misaligned or does not fit 32-bit DMA addresses.
    Scratch,
    /// Bringing the channel up failed.
    Engine(Fault),
    /// A known-answer test gave the wrong digest or faulted.
    SelfTest(SelfTestError),
}

/// The talitos SEC1 hash driver for one engine (channel 0).
pub struct Sec1Hash<'a, B, I, M> {
    pub(crate) ch: Channel<B, I, M>,
    ledger: &'a Ledger,
    ready: bool,
    /// The last engine fault, for the PD's logs.
    pub last_fault: Option<Fault>,
}

fn alg_bits(a: Algorithm) -> u32 {
    match a {
        Algorithm::Md5 => hdr::MDEU_MD5,
        Algorithm::Sha1 => hdr::MDEU_SHA1,
        Algorithm::Sha256 => hdr::MDEU_SHA256,
    }
}

/// The client region's bus address, if SEC1's 32-bit pointers reach all of it.
fn client_phys(data: &ClientData<'_>) -> Option<u32> {
    let p = data.phys?;
    let end = p.checked_add(data.bytes.len() as u64)?;
    (end <= 1 << 32).then_some(p as u32)
}

impl<'a, B: RegisterBus, I: Irq, M: DmaMemory> Sec1Hash<'a, B, I, M> {
    /// A driver over channel 0 at `bus`, its interrupt, and [`SCRATCH_BYTES`] of DMA
    /// memory at physical `scratch`. It serves nothing until [`Sec1Hash::init`] passes.
    pub fn new(bus: B, irq: I, mem: M, scratch: u32, ledger: &'a Ledger) -> Self {
        Sec1Hash {
            ch: Channel::new(bus, irq, mem, Scratch { base: scratch }),
            ledger,
            ready: false,
            last_fault: None,
        }
    }

    /// Brings the engine up and runs the known-answer self-tests on every path; serves
    /// only if they pass (as Linux's testmgr gates an algorithm).
    pub fn init(&mut self) -> Result<(), InitError> {
        self.ready = false;
        let base = self.ch.scratch.base;
        if !base.is_multiple_of(SCRATCH_ALIGN) || u64::from(base) + SCRATCH_BYTES as u64 > 1 << 32 {
            return Err(InitError::Scratch);
        }
        self.ch.bring_up().map_err(InitError::Engine)?;
        selftest::run(self).map_err(InitError::SelfTest)?;
        self.ready = true;
        Ok(())
    }

    /// Whether the self-tests passed: only then are sessions opened.
    pub fn ready(&self) -> bool {
        self.ready
    }

    /// The register bus (for tests and for the PD's diagnostics).
    pub fn bus(&mut self) -> &mut B {
        &mut self.ch.bus
    }

    /// One update (or the final, `last`) of a session; the digest is left at the head of
    /// the slot's context.
    pub(crate) fn process(
        &mut self,
        alg: Algorithm,
        path: HashPath,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        last: bool,
    ) -> Result<(), Fault> {
        self.ledger.add(Event::Request, 1);
        let result = match (path, client_phys(data)) {
            (HashPath::Auto | HashPath::Chained, Some(phys)) => {
                self.chained(alg, st, segs, data, phys, last)
            }
            // The old strategy, or a region DMA cannot reach: copy everything.
            _ => self.copied(alg, st, segs, data, last),
        };
        result.and_then(|()| self.ch.flush())
    }

    /// A descriptor hashing `len` bytes at `phys` into the session's context.
    fn push(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        phys: u32,
        len: usize,
        pad: bool,
    ) -> Result<(), Fault> {
        let ctx = self.ch.scratch.context(st.slot);
        let mut h = hdr::SEL0_MDEUA | alg_bits(alg) | hdr::TYPE_COMMON_NONSNOOP_NO_AFEU;
        h |= if pad { hdr::MDEU_PAD } else { hdr::MDEU_CONT };
        let mut d = Desc::default();
        if st.fresh {
            h |= hdr::MDEU_INIT;
        } else {
            d.ptr[slot::CONTEXT_IN] = Ptr::new(ctx, MDEU_CONTEXT_SIZE as u16);
        }
        d.hdr = U32::new(h);
        // At most MAX_DATA_LEN (32768) by the plan: fits the 16-bit length.
        d.ptr[slot::DATA_IN] = Ptr::new(phys, len as u16);
        let out = if pad {
            digest_len(alg)
        } else {
            MDEU_CONTEXT_SIZE
        };
        d.ptr[slot::OUT] = Ptr::new(ctx, out as u16);
        st.fresh = false;
        self.ch.push(d)
    }

    /// CPU copy of client bytes into DMA memory, counted: the cost seed 003 removes.
    fn copy_in(
        &mut self,
        data: &ClientData<'_>,
        offset: u32,
        len: usize,
        to: u32,
    ) -> Result<(), Fault> {
        let from = offset as usize;
        self.ch.mem.write(to, &data.bytes[from..from + len])?;
        self.ledger.add(Event::CpuCopyByte, len as u64);
        Ok(())
    }

    /// SEC1 cannot pad an empty message: pad it here and hash it without PAD, which
    /// leaves the digest at the head of the context (upstream's
    /// `talitos_handle_buggy_hash`).
    fn hash_empty(&mut self, alg: Algorithm, st: &mut HashState) -> Result<(), Fault> {
        let mut block = [0u8; HASH_BLOCK];
        block[0] = 0x80;
        let at = self.ch.scratch.carry(0);
        self.ch.mem.write(at, &block)?;
        self.push(alg, st, at, HASH_BLOCK, false)
    }

    /// Seed 003: the buffered block chained ahead of the client's data, which the engine
    /// reads where it lies.
    fn chained(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        phys: u32,
        last: bool,
    ) -> Result<(), Fault> {
        let scratch = self.ch.scratch;
        let buffer = scratch.buffer(st.slot);
        let at_block = |b: Block| match b {
            Block::Buffer => buffer,
            Block::Carry(i) => scratch.carry(i),
        };
        let mut state = *st;
        let later = plan::chained(st.nbuf, segs.as_slice(), last, |step| match step {
            Step::Gather {
                offset,
                len,
                into,
                at,
            } => {
                let wraps = matches!(into, Block::Carry(i) if i > 0 && scratch.carry(i) == scratch.carry(0));
                if wraps && at == 0 {
                    // Carry blocks wrap: run what may still read the old ones.
                    self.ch.flush()?;
                }
                self.copy_in(data, offset, len, at_block(into) + at as u32)
            }
            Step::HashBlock { block, len, pad } => {
                self.push(alg, &mut state, at_block(block), len, pad)
            }
            Step::HashClient { offset, len, pad } => {
                self.push(alg, &mut state, phys + offset, len, pad)
            }
            Step::Keep { offset, len, at } => {
                // The buffer may still be read by a queued descriptor.
                self.ch.flush()?;
                self.copy_in(data, offset, len, buffer + at as u32)
            }
            Step::HashEmpty => self.hash_empty(alg, &mut state),
        })?;
        *st = HashState {
            nbuf: later,
            ..state
        };
        Ok(())
    }

    /// Before seed 003: the buffered bytes and the client's data copied into one buffer
    /// (in pieces of one pointer's worth), hashed from there.
    fn copied(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        last: bool,
    ) -> Result<(), Fault> {
        let Split { to_hash, later } = plan::split(st.nbuf, segs.total() as usize, last);
        let (bounce, buffer) = (self.ch.scratch.bounce(), self.ch.scratch.buffer(st.slot));
        if to_hash == 0 && last {
            return self.hash_empty(alg, st);
        }
        let mut fill = 0;
        if to_hash > 0 && st.nbuf > 0 {
            let mut held = [0u8; HASH_BLOCK];
            self.ch.mem.read(buffer, &mut held[..st.nbuf])?;
            self.ch.mem.write(bounce, &held[..st.nbuf])?;
            self.ledger.add(Event::CpuCopyByte, st.nbuf as u64);
            fill = st.nbuf;
        }
        let mut pos = st.nbuf;
        for s in segs.as_slice() {
            let (mut off, end) = (s.offset, s.offset + s.len);
            while off < end && pos < to_hash {
                let n = ((end - off) as usize)
                    .min(to_hash - pos)
                    .min(BOUNCE_BYTES - fill);
                self.copy_in(data, off, n, bounce + fill as u32)?;
                (off, pos, fill) = (off + n as u32, pos + n, fill + n);
                if fill == BOUNCE_BYTES && pos < to_hash {
                    self.push(alg, st, bounce, fill, false)?;
                    self.ch.flush()?;
                    fill = 0;
                }
            }
            if to_hash > 0 && pos == to_hash && fill > 0 {
                self.push(alg, st, bounce, fill, last)?;
                self.ch.flush()?;
                fill = 0;
            }
            if off < end {
                let at = pos - to_hash;
                self.copy_in(data, off, (end - off) as usize, buffer + at as u32)?;
                pos += (end - off) as usize;
            }
        }
        if fill > 0 {
            // A final of buffered bytes only.
            self.push(alg, st, bounce, fill, last)?;
        }
        st.nbuf = later;
        Ok(())
    }

    fn run(
        &mut self,
        session: &mut Session<HashState>,
        segs: &Segments,
        data: &ClientData<'_>,
        last: bool,
    ) -> Result<(), DigestError> {
        if !self.ready {
            return Err(DigestError::EngineFault);
        }
        let (alg, path) = (session.algorithm, session.path);
        self.process(alg, path, &mut session.engine, segs, data, last)
            .map_err(|f| {
                self.last_fault = Some(f);
                DigestError::EngineFault
            })
    }

    /// The digest at the head of `slot`'s context.
    pub(crate) fn read_digest(&mut self, alg: Algorithm, slot: usize) -> Result<Digest, Fault> {
        let mut out = [0u8; digest_service::MAX_DIGEST];
        let n = digest_len(alg);
        self.ch
            .mem
            .read(self.ch.scratch.context(slot), &mut out[..n])?;
        Ok(Digest::new(&out[..n]))
    }
}

impl<B: RegisterBus, I: Irq, M: DmaMemory> DigestEngine for Sec1Hash<'_, B, I, M> {
    type Context = HashState;

    /// Every algorithm and path of the interface (`Auto` is `Chained`), once the
    /// self-tests have passed.
    fn open(&mut self, slot: usize, _: Algorithm, _: HashPath) -> Result<HashState, DigestError> {
        if !self.ready {
            return Err(DigestError::EngineFault);
        }
        Ok(HashState::new(slot))
    }

    fn update(
        &mut self,
        session: &mut Session<HashState>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<(), DigestError> {
        self.run(session, segs, data, false)
    }

    fn finish(
        &mut self,
        session: &mut Session<HashState>,
        segs: &Segments,
        data: &ClientData<'_>,
    ) -> Result<Digest, DigestError> {
        self.run(session, segs, data, true)?;
        self.read_digest(session.algorithm, session.engine.slot)
            .map_err(|_| DigestError::EngineFault)
    }
}
