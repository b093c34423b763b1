//! The driver: SEC1 Digest sessions behind [`DigestEngine`].

use crate::channel::{Channel, Fault, Stop};
use crate::hw::DmaMemory;
use crate::layout::{BOUNCE_BYTES, Scratch};
use crate::plan::{self, Block, Split, Step};
use cost_ledger::{Event, Ledger};
use digest_service::{
    ClientData, DigestEngine, DigestStep, DigestValue, Job, Segments, digest_len,
};
use mmio::RegisterBus;
use mmio::talitos::{Desc, HASH_BLOCK, MDEU_CONTEXT_SIZE, Ptr, hdr, slot};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath};
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

/// The talitos SEC1 hash driver for one engine (channel 0).
pub struct Sec1Hash<'a, B, M> {
    pub(crate) ch: Channel<B, M>,
    /// The scratch's length, which the engine reaches by physical address only.
    pub(crate) scratch_len: usize,
    ledger: &'a Ledger,
    pub(crate) ready: bool,
    /// Chains of the request in flight that finished (see `channel` on replay).
    chains_done: u32,
    in_flight: bool,
    /// The last engine fault, for the PD's logs.
    pub last_fault: Option<Fault>,
}

/// Interrupt polls init allows one self-test request (a few chains at most).
const INIT_POLLS: u32 = 64;

/// Whether MDEU-A runs `a`. SHA-384 and SHA-512 are MDEU-B's, which only SEC2 has.
pub(crate) fn offers(a: Algorithm) -> bool {
    !matches!(a, Algorithm::Sha384 | Algorithm::Sha512)
}

/// The MDEU mode for `a` (one [`offers`]: [`Sec1Hash::begin`] lets no other through).
/// SHA-224 runs in SHA-256 mode over a context the driver initialises itself, as
/// upstream does on SEC1, which lacks `TALITOS_FTR_SHA224_HWINIT`.
fn alg_bits(a: Algorithm) -> u32 {
    match a {
        Algorithm::Md5 => hdr::MDEU_MD5,
        Algorithm::Sha1 => hdr::MDEU_SHA1,
        Algorithm::Sha224 | Algorithm::Sha256 | Algorithm::Sha384 | Algorithm::Sha512 => {
            hdr::MDEU_SHA256
        }
    }
}

/// SHA-224's initial context in the MDEU's layout (FIPS 180-4 5.3.2's words,
/// big-endian, then a zero byte count): what upstream's `ahash_init_sha224_swinit`
/// writes, since SHA-256 mode's INIT would load SHA-256's.
const SHA224_CONTEXT: [u8; MDEU_CONTEXT_SIZE] = {
    const H: [u32; 8] = [
        0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7,
        0xbefa4fa4,
    ];
    let mut ctx = [0u8; MDEU_CONTEXT_SIZE];
    let mut i = 0;
    while i < H.len() {
        let w = H[i].to_be_bytes();
        ctx[4 * i] = w[0];
        ctx[4 * i + 1] = w[1];
        ctx[4 * i + 2] = w[2];
        ctx[4 * i + 3] = w[3];
        i += 1;
    }
    ctx
};

/// The client region's bus address, if SEC1's 32-bit pointers reach all of it.
fn client_phys(data: &ClientData<'_>) -> Option<u32> {
    let p = data.phys?;
    let end = p.checked_add(data.len() as u64)?;
    (end <= 1 << 32).then_some(p as u32)
}

impl<'a, B: RegisterBus, M: DmaMemory> Sec1Hash<'a, B, M> {
    /// A driver over channel 0 at `bus` and [`SCRATCH_BYTES`](crate::SCRATCH_BYTES) of DMA memory at physical
    /// `scratch`. It serves nothing until [`Sec1Hash::init`] passes.
    /// `scratch`: the physical address of the driver's DMA scratch, `scratch_len`
    /// bytes long (at least [`SCRATCH_BYTES`](crate::SCRATCH_BYTES), checked at [`init`](Self::init)).
    pub fn new(bus: B, mem: M, scratch: u32, scratch_len: usize, ledger: &'a Ledger) -> Self {
        Sec1Hash {
            ch: Channel::new(bus, mem, Scratch { base: scratch }),
            scratch_len,
            ledger,
            ready: false,
            chains_done: 0,
            in_flight: false,
            last_fault: None,
        }
    }

    /// Whether the self-tests passed: only then are sessions opened.
    pub fn ready(&self) -> bool {
        self.ready
    }

    /// The register bus (for tests and for the PD's diagnostics).
    pub fn bus(&mut self) -> &mut B {
        &mut self.ch.bus
    }

    /// Starts a request on the session whose state is `st` (see `DigestEngine::start`,
    /// without the readiness check: the self-test runs through here before `init` ends).
    pub(crate) fn begin(&mut self, st: &mut HashState, job: &Job<'_>) -> DigestStep {
        // Open refuses these; a job never carries one, but a wrong mode must never run.
        if !offers(job.algorithm) {
            return DigestStep::Done(Err(DigestError::UnsupportedAlgorithm));
        }
        // Each client request carries the per-request software cost, joined or not.
        self.ledger.add(Event::Request, u64::from(job.requests));
        self.chains_done = 0;
        self.in_flight = true;
        self.walk(st, job)
    }

    /// The channel's done interrupt for the request in flight.
    pub(crate) fn resume(&mut self, st: &mut HashState, job: &Job<'_>) -> DigestStep {
        if !self.in_flight {
            return DigestStep::Pending;
        }
        match self.ch.complete() {
            Ok(false) => DigestStep::Pending,
            Ok(true) => {
                self.chains_done += 1;
                self.walk(st, job)
            }
            Err(f) => self.fail(f),
        }
    }

    /// Init only: a request to its end, polling (bounded) for its interrupts.
    pub(crate) fn run_polled(
        &mut self,
        st: &mut HashState,
        job: &Job<'_>,
    ) -> Result<Option<DigestValue>, Fault> {
        let mut step = self.begin(st, job);
        // BOUNDED POLL (init: the self-test; a Microkit init gets no notifications).
        for _ in 0..INIT_POLLS {
            if step != DigestStep::Pending {
                break;
            }
            step = self.resume(st, job);
        }
        match step {
            DigestStep::Done(Ok(digest)) => Ok(digest),
            DigestStep::Done(Err(_)) => Err(self.last_fault.unwrap_or(Fault::NotDone)),
            DigestStep::Pending => {
                self.in_flight = false;
                self.ch.reset();
                Err(Fault::Stalled)
            }
        }
    }

    /// Walks the request's plan from the start, skipping the chains that already ran;
    /// the session's state moves on only when the walk reaches the end.
    fn walk(&mut self, st: &mut HashState, job: &Job<'_>) -> DigestStep {
        self.ch.replay = self.chains_done;
        let mut next = *st;
        let last = job.op == DigestOp::Final;
        match self.process(
            job.algorithm,
            job.path,
            &mut next,
            &job.segs,
            &job.data,
            last,
        ) {
            Ok(()) => {
                self.in_flight = false;
                let digest = if last {
                    match self.read_digest(job.algorithm, next.slot) {
                        Ok(d) => Some(d),
                        Err(f) => return self.fail(f),
                    }
                } else {
                    None
                };
                *st = next;
                DigestStep::Done(Ok(digest))
            }
            Err(Stop::Submitted) => DigestStep::Pending,
            Err(Stop::Fault(f)) => self.fail(f),
        }
    }

    fn fail(&mut self, f: Fault) -> DigestStep {
        self.in_flight = false;
        self.last_fault = Some(f);
        self.ch.reset();
        DigestStep::Done(Err(DigestError::EngineFault))
    }

    /// One update (or the final, `last`) of a session; the digest is left at the head of
    /// the slot's context.
    fn process(
        &mut self,
        alg: Algorithm,
        path: HashPath,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        last: bool,
    ) -> Result<(), Stop> {
        match (path, client_phys(data)) {
            (HashPath::Auto | HashPath::Chained, Some(phys)) => {
                self.chained(alg, st, segs, data, phys, last)?
            }
            // The old strategy, or a region DMA cannot reach: copy everything.
            _ => self.copied(alg, st, segs, data, last)?,
        };
        self.ch.flush()
    }

    /// A descriptor hashing `len` bytes at `phys` into the session's context.
    fn push(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        phys: u32,
        len: usize,
        pad: bool,
    ) -> Result<(), Stop> {
        let ctx = self.ch.scratch.context(st.slot);
        let mut h = hdr::SEL0_MDEUA | alg_bits(alg) | hdr::TYPE_COMMON_NONSNOOP_NO_AFEU;
        h |= if pad { hdr::MDEU_PAD } else { hdr::MDEU_CONT };
        let mut d = Desc::default();
        if st.fresh && alg == Algorithm::Sha224 {
            // Written in the walk that submits this descriptor; a replay skips it.
            if self.ch.live() {
                self.ch.mem.write(ctx, &SHA224_CONTEXT)?;
            }
            d.ptr[slot::CONTEXT_IN] = Ptr::new(ctx, MDEU_CONTEXT_SIZE as u16);
        } else if st.fresh {
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
        // The digest lands in the context and is copied out (`read_digest`); the service
        // writes it at the client's output place, as for every engine. A later
        // optimisation: point the final descriptor's result pointer at that place in the
        // client's region (DMA-reachable, checked) and skip both copies.
        d.ptr[slot::OUT] = Ptr::new(ctx, out as u16);
        st.fresh = false;
        self.ch.push(d)
    }

    /// CPU copy of client bytes into DMA memory, counted: the cost the talitos change
    /// removes. Made once, in the walk that first reaches it.
    fn copy_in(
        &mut self,
        data: &ClientData<'_>,
        offset: u32,
        len: usize,
        to: u32,
    ) -> Result<(), Stop> {
        if !self.ch.live() {
            return Ok(());
        }
        let mut piece = [0u8; HASH_BLOCK];
        let (mut at, mut done) = (offset as usize, 0);
        while done < len {
            let n = (len - done).min(HASH_BLOCK);
            // Validated segments lie inside the region: the read cannot fail.
            let inside = data.region.read_bytes(at, &mut piece[..n]);
            debug_assert!(inside);
            self.ch.mem.write(to + done as u32, &piece[..n])?;
            (at, done) = (at + n, done + n);
        }
        self.ledger.add(Event::CpuCopyByte, len as u64);
        Ok(())
    }

    /// SEC1 cannot pad an empty message: pad it here and hash it without PAD, which
    /// leaves the digest at the head of the context (upstream's
    /// `talitos_handle_buggy_hash`).
    fn hash_empty(&mut self, alg: Algorithm, st: &mut HashState) -> Result<(), Stop> {
        let mut block = [0u8; HASH_BLOCK];
        block[0] = 0x80;
        let at = self.ch.scratch.carry(0);
        if self.ch.live() {
            self.ch.mem.write(at, &block)?;
        }
        self.push(alg, st, at, HASH_BLOCK, false)
    }

    /// The talitos chaining change: the buffered block chained ahead of the client's data, which the engine
    /// reads where it lies.
    fn chained(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        phys: u32,
        last: bool,
    ) -> Result<(), Stop> {
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

    /// Before the talitos chaining change: the buffered bytes and the client's data copied into one buffer
    /// (in pieces of one pointer's worth), hashed from there.
    fn copied(
        &mut self,
        alg: Algorithm,
        st: &mut HashState,
        segs: &Segments,
        data: &ClientData<'_>,
        last: bool,
    ) -> Result<(), Stop> {
        let Split { to_hash, later } = plan::split(st.nbuf, segs.total() as usize, last);
        let (bounce, buffer) = (self.ch.scratch.bounce(), self.ch.scratch.buffer(st.slot));
        if to_hash == 0 && last {
            return self.hash_empty(alg, st);
        }
        let mut fill = 0;
        if to_hash > 0 && st.nbuf > 0 {
            if self.ch.live() {
                let mut held = [0u8; HASH_BLOCK];
                self.ch.mem.read(buffer, &mut held[..st.nbuf])?;
                self.ch.mem.write(bounce, &held[..st.nbuf])?;
                self.ledger.add(Event::CpuCopyByte, st.nbuf as u64);
            }
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

    /// The digest at the head of `slot`'s context.
    pub(crate) fn read_digest(
        &mut self,
        alg: Algorithm,
        slot: usize,
    ) -> Result<DigestValue, Fault> {
        let mut out = [0u8; digest_service::MAX_DIGEST];
        let n = digest_len(alg);
        self.ch
            .mem
            .read(self.ch.scratch.context(slot), &mut out[..n])?;
        Ok(DigestValue::new(&out[..n]))
    }
}

impl<B: RegisterBus, M: DmaMemory> DigestEngine for Sec1Hash<'_, B, M> {
    type Context = HashState;

    /// MD5, SHA-1, SHA-224 and SHA-256 on every path of the interface (`Auto` is
    /// `Chained`), once the self-tests have passed; SHA-384 and SHA-512 refused.
    /// MDEU-A's algorithms (SHA-384/512 are MDEU-B's, on SEC2), on any path.
    fn supports(&self, algorithm: Algorithm, _: HashPath) -> Result<(), DigestError> {
        if offers(algorithm) {
            Ok(())
        } else {
            Err(DigestError::UnsupportedAlgorithm)
        }
    }

    fn open(
        &mut self,
        slot: usize,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<HashState, DigestError> {
        self.supports(algorithm, path)?;
        if !self.ready {
            return Err(DigestError::EngineFault);
        }
        Ok(HashState::new(slot))
    }

    /// The chaining strategy across requests too: a session's queued updates (and its
    /// final) run as one job, their segments hashed where they lie in one chain of
    /// descriptors, with one submission and one done interrupt for all. The copying
    /// path (the talitos chaining change's "before") stays one job per update.
    fn coalesces(&self, job: &Job<'_>) -> bool {
        matches!(job.path, HashPath::Auto | HashPath::Chained)
    }

    fn start(&mut self, st: &mut HashState, job: &Job<'_>) -> DigestStep {
        if !self.ready {
            return DigestStep::Done(Err(DigestError::EngineFault));
        }
        self.begin(st, job)
    }

    fn interrupt(&mut self, st: &mut HashState, job: &Job<'_>) -> DigestStep {
        self.resume(st, job)
    }

    fn cancel(&mut self, _: &Job<'_>) {
        self.fail(Fault::Stalled);
    }
}
