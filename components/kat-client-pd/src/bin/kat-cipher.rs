#![cfg_attr(target_os = "none", no_std, no_main)]
//! Known-answer client for a Cipher driver: FIPS-197 appendix C and SP 800-38A F.1, F.2,
//! F.5 on every path the driver offers (CPU, PIO, DMA, adaptive), both directions, as
//! scatter-gather requests through the queue, one session per case. Then a burst: one
//! session, 32 requests in flight at once, to show one power acquire per session burst.
//! Prints a summary per path (paths taken, CPU-copied bytes on DMA from the ledger) and
//! exits 0 only when every answer matches the published one.
use crypto_client::driver::Cipher;
use kat_client_pd::cases::{self as kat, Case, MAX_INPUT, PATHS};
use kat_client_pd::{About, ByPath, Client, Meter, PathResults};
use kat_vectors::{PLAIN, SP800_38A, hex};
use pd_idl::cipher::{CipherError, CipherOp, Path, Request, Response};
use pd_idl::wire::CallError;
use pd_runtime::{ChannelSet, Handler, debug_println};

/// What the summary's columns mean.
const LEGEND: &str = "taken: the path the driver chose per request; dma requests: those the ledger saw go by DMA; cpu_copy: client bytes the CPU copied, 0 on DMA when the caller's segments go straight to the engine";
const ABOUT: About = About::new("kat-cipher", "vectors", "SP 800-38A, FIPS-197", LEGEND);

const BURST: usize = 32;

#[derive(Default, Clone, Copy)]
struct PathTally {
    passed: u32,
    taken: [u32; 5],
    dma_copied: u64,
    dma_requests: u32,
}

/// How the driver moved each path's vectors, and what the CPU copied of DMA'd requests.
impl PathResults for PathTally {
    type Path = Path;

    fn notes(&self, path: &Path, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut notes = " (";
        // Where the driver chose (adaptive), how it went.
        if *path == Path::Adaptive {
            let ways = [(Path::Pio, "pio"), (Path::Dma, "dma"), (Path::Cpu, "cpu")];
            let mut plus = "";
            for (way, name) in ways {
                let n = self.taken[way as usize];
                if n > 0 {
                    write!(f, "{notes}{plus}{n} {name}")?;
                    (notes, plus) = ("", " + ");
                }
            }
            notes = if notes.is_empty() { ", " } else { notes };
        }
        if self.dma_requests > 0 {
            write!(f, "{notes}{} B CPU-copied", self.dma_copied)?;
            notes = ", ";
        }
        if notes != " (" {
            f.write_str(")")?;
        }
        Ok(())
    }

    fn passed(&self) -> u32 {
        self.passed
    }
}

/// The case whose request is in flight.
struct Running {
    case: Case,
    session: u32,
    segs: [(u32, u32); 4],
    n: usize,
    before: cost_ledger::Counts,
}

struct Kat {
    client: Client<Cipher>,
    meter: Meter,
    path: usize,
    index: usize,
    case: Option<Running>,
    tally: [PathTally; 4],
    burst: Option<(u32, usize)>,
}

impl Kat {
    fn open(&mut self, c: &Case) -> Result<u32, CallError<CipherError>> {
        let calls = &mut self.client.driver.calls;
        calls.open_session(c.mode, c.path, c.key_len, c.key, c.iv)
    }

    /// Starts the next case; moves on to the burst after the last path.
    fn next(&mut self) {
        while self.path < PATHS.len() {
            let path = PATHS[self.path];
            let Some(c) = kat::case(path, self.index) else {
                self.report_path();
                self.path += 1;
                self.index = 0;
                continue;
            };
            match self.open(&c) {
                Ok(session) => {
                    // What `capabilities` speaks of: a 128-bit key on the Adaptive path.
                    if c.path == Path::Adaptive && c.key_len == 16 {
                        self.client.opened(c.mode as u8);
                    }
                    let (segs, n) = kat::segments(c.layout, c.len);
                    let mut from = 0;
                    for &(off, len) in &segs[..n] {
                        self.client
                            .data
                            .write(off, &c.input[from..from + len as usize]);
                        from += len as usize;
                    }
                    let id = self.client.fresh_id();
                    let before = self.meter.now();
                    self.client
                        .submit(Request::over(id, session, c.op, &segs[..n]));
                    self.case = Some(Running {
                        case: c,
                        session,
                        segs,
                        n,
                        before,
                    });
                    return;
                }
                Err(CallError::Server(CipherError::UnsupportedPath)) if self.index == 0 => {
                    self.client.skip_path(path);
                    self.path += 1;
                }
                Err(e) => {
                    self.client
                        .fail(format_args!("{} {path:?}: open_session: {e:?}", c.name));
                    self.index += 1;
                }
            }
        }
        self.start_burst();
    }

    fn report_path(&mut self) {
        let t = self.tally[self.path];
        if t.passed == 0 && t.taken == [0; 5] {
            return;
        }
        debug_println!(
            "kat-cipher: path {:?}: {} passed; taken pio={} dma={} cpu={}; dma requests {} cpu_copy {}",
            PATHS[self.path],
            t.passed,
            t.taken[Path::Pio as usize],
            t.taken[Path::Dma as usize],
            t.taken[Path::Cpu as usize],
            t.dma_requests,
            t.dma_copied
        );
    }

    fn check(&mut self, resp: Response) {
        let Some(Running {
            case: c,
            session,
            segs,
            n,
            before,
        }) = self.case.take()
        else {
            return self.check_burst(resp);
        };
        let after = self.meter.now().since(&before);
        let taken = resp.path.get().ok();
        match resp.status.check() {
            Ok(Ok(())) => {
                let mut out = [0u8; MAX_INPUT];
                let mut from = 0;
                for &(off, len) in &segs[..n] {
                    self.client
                        .data
                        .read(off, &mut out[from..from + len as usize]);
                    from += len as usize;
                }
                let t = &mut self.tally[self.path];
                if let Some(p) = taken {
                    t.taken[p as usize] += 1;
                }
                if taken == Some(Path::Dma) {
                    t.dma_requests += 1;
                    t.dma_copied += after.get(cost_ledger::Event::CpuCopyByte);
                }
                let forced_ok = match c.path {
                    Path::Pio | Path::Dma | Path::Cpu => taken == Some(c.path),
                    Path::Adaptive => taken.is_some(),
                };
                if out[..c.len] == c.expect[..c.len]
                    && resp.bytes_done as usize == c.len
                    && forced_ok
                {
                    self.tally[self.path].passed += 1;
                } else {
                    self.client.fail(format_args!(
                        "{} {:?} {:?}: wrong answer (took {taken:?}, {} bytes)",
                        c.name, c.path, c.op, resp.bytes_done
                    ));
                }
            }
            other => self.client.fail(format_args!(
                "{} {:?} {:?}: {other:?}",
                c.name, c.path, c.op
            )),
        }
        self.client.close(session);
        self.index += 1;
        self.next();
    }

    /// One session, BURST requests of F.1.1 (ECB-AES128) in flight together.
    fn start_burst(&mut self) {
        let (name, mode, k, iv, _) = SP800_38A[0];
        debug_println!("kat-cipher: burst begin: one session, {BURST} requests");
        let mut key = [0; 32];
        let key_len = hex(k, &mut key) as u8;
        let mut ivb = [0; 16];
        hex(iv, &mut ivb);
        // The driver's preferred path: whatever it offers (adaptive on hardware).
        let calls = &mut self.client.driver.calls;
        let session = match calls.open_session(mode, Path::Adaptive, key_len, key, ivb) {
            Ok(s) => s,
            Err(e) => {
                self.client
                    .fail(format_args!("{name} burst: open_session: {e:?}"));
                return self.finish();
            }
        };
        let mut plain = [0u8; 64];
        hex(PLAIN, &mut plain);
        for i in 0..BURST {
            let off = 8192 + 64 * i as u32;
            self.client.data.write(off, &plain);
            let id = 1_000_000 + i as u32;
            self.client
                .submit(Request::over(id, session, CipherOp::Encrypt, &[(off, 64)]));
        }
        self.burst = Some((session, 0));
    }

    fn check_burst(&mut self, resp: Response) {
        let Some((session, done)) = self.burst else {
            return self.client.unasked(resp.id);
        };
        let mut want = [0u8; 64];
        hex(SP800_38A[0].4, &mut want);
        let mut got = [0u8; 64];
        let i = resp.id.wrapping_sub(1_000_000);
        self.client.data.read(8192 + 64 * i, &mut got);
        if resp.status.check() != Ok(Ok(())) || got != want {
            self.client
                .fail(format_args!("burst request {i}: {:?}", resp.status));
        }
        let done = done + 1;
        self.burst = Some((session, done));
        if done == BURST {
            if let Err(e) = self.client.driver.close_session(session) {
                self.client.fail(format_args!("burst close_session: {e:?}"));
            }
            debug_println!("kat-cipher: burst end: {done} requests answered");
            self.finish();
        }
    }

    fn finish(&mut self) {
        // The caller's segments go to the engine by DMA, never through the CPU (where a
        // ledger counts it): "hand the caller's scatter-gather list straight to DMA".
        for (path, t) in PATHS.iter().zip(self.tally) {
            if t.dma_requests > 0 && t.dma_copied > 0 {
                self.client.fail(format_args!(
                    "path {path:?}: the CPU copied {} client bytes of DMA requests",
                    t.dma_copied
                ));
            }
        }
        let offered = self.client.driver.calls.capabilities();
        self.client.agree(offered);
        let by_path = ByPath(&PATHS, &self.tally);
        let burst = format_args!("; a burst of {BURST} on one session in order");
        self.client.conclude(by_path.total(), &by_path, &burst)
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for r in self.client.answers::<{ 2 * BURST }>() {
            self.check(r);
        }
    }
}

fn init() -> Kat {
    let mut kat = Kat {
        client: Client::map(&ABOUT),
        meter: Meter::map(),
        path: 0,
        index: 0,
        case: None,
        tally: [PathTally::default(); 4],
        burst: None,
    };
    kat.next();
    kat
}

pd_runtime::protection_domain!(init);
