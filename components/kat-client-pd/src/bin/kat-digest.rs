#![cfg_attr(target_os = "none", no_std, no_main)]
//! Known-answer client for a Digest driver: the FIPS 180-4 examples (SHA-1, SHA-224,
//! SHA-256, SHA-384, SHA-512, including a million 'a') and RFC 1321's MD5 suite on every
//! path the driver offers (auto, chained, copy), each as updates and a final through the
//! queue. Updates are one segment each and run one at a time, so the ledger says what
//! each cost: the summary per path reports the most bytes the driver copied with the CPU
//! in one update. An algorithm the driver refuses at open (`UnsupportedAlgorithm`: SEC1
//! has no SHA-384/512) is named in the verdict, not run. Exits 0 only when every digest
//! it ran matches the published one.
use cost_ledger::{Counts, Event};
use crypto_client::driver::Digest;
use kat_client_pd::{About, ByPath, Client, Meter, PathResults};
use kat_vectors::{FIPS180_4, MILLION, RFC1321, block_len, digest_len, fips_message, hex};
use pd_idl::digest::{Algorithm, DigestError, DigestOp, HashPath, Request, Response};
use pd_idl::wire::CallError;
use pd_runtime::{ChannelSet, Handler, debug_println};

/// What the summary's columns mean.
const LEGEND: &str = "updates: update requests; max_update_copy: most client bytes the CPU copied for one update, at most two blocks when chained; cpu_copy: all bytes it copied; whole_copy: those copied by updates of whole blocks";
const ABOUT: About = About::new("kat-digest", "digests", "FIPS 180-4, RFC 1321", LEGEND);

const PATHS: [HashPath; 3] = [HashPath::Auto, HashPath::Chained, HashPath::Copy];
const CASES: usize = FIPS180_4.len() + RFC1321.len();
/// Short messages sit at an odd offset; the million 'a' after them.
const SHORT_AT: u32 = 3;
const MILLION_AT: u32 = 0x1000;
/// Where each final's digest is written, this client's own place past the short
/// messages: cleared before each final, so a digest left by the same case on another
/// path cannot pass for one not written.
const OUT_AT: u32 = 0xf00;
const OUT_LEN: u32 = 64;
/// Update sizes for the million: SHA-1's and SHA-384's are not a whole number of blocks,
/// so every update leaves a partial block for the next (the chained path copies at most
/// two blocks); the others' are whole blocks (64 or 128 bytes) at block boundaries of
/// the stream (nothing to copy at all). 1,000,000 = 244 x 4096 + 9 x 64.
const fn chunk(alg: Algorithm) -> u32 {
    match alg {
        Algorithm::Sha1 | Algorithm::Sha384 => 4000,
        _ => 4096,
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    passed: u32,
    updates: u32,
    max_update_copy: u64,
    copied: u64,
    /// Updates of whole blocks starting at a block boundary of the session's stream,
    /// and what they copied.
    whole_updates: u32,
    whole_copy: u64,
}

/// The most client bytes the CPU copied for one update on each path (the talitos
/// chaining change: at most two blocks when chained).
impl PathResults for Tally {
    type Path = HashPath;

    fn notes(&self, _: &HashPath, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, " (<= {} B copied per update)", self.max_update_copy)
    }

    fn passed(&self) -> u32 {
        self.passed
    }
}

struct Current {
    alg: Algorithm,
    name: &'static str,
    session: u32,
    len: u32,
    step: u32,
    want: [u8; 64],
    before: Counts,
    op: DigestOp,
    /// The current request is whole blocks at a block boundary of the stream.
    whole: bool,
}

struct Kat {
    client: Client<Digest>,
    meter: Meter,
    path: usize,
    index: usize,
    current: Option<Current>,
    tally: [Tally; 3],
}

impl Kat {
    /// (algorithm, name, message at its offset (None: the million), digest hex).
    fn case(i: usize) -> (Algorithm, &'static str, Option<&'static [u8]>, &'static str) {
        if i < FIPS180_4.len() {
            let (alg, name, d) = FIPS180_4[i];
            (alg, name, fips_message(name), d)
        } else {
            let (msg, d) = RFC1321[i - FIPS180_4.len()];
            (Algorithm::Md5, "rfc1321", Some(msg), d)
        }
    }

    fn next(&mut self) {
        while self.path < PATHS.len() {
            let path = PATHS[self.path];
            if self.index >= CASES {
                self.report();
                self.path += 1;
                self.index = 0;
                continue;
            }
            let (alg, name, msg, d) = Self::case(self.index);
            match self.client.driver.calls.open_session(alg, path) {
                Ok(session) => {
                    if path == HashPath::Auto {
                        self.client.opened(alg as u8);
                    }
                    let len = match msg {
                        Some(m) => {
                            self.client.data.write(SHORT_AT, m);
                            m.len() as u32
                        }
                        None => MILLION as u32,
                    };
                    let mut want = [0; 64];
                    hex(d, &mut want);
                    self.current = Some(Current {
                        alg,
                        name,
                        session,
                        len,
                        step: 0,
                        want,
                        before: Counts::default(),
                        op: DigestOp::Update,
                        whole: false,
                    });
                    self.step();
                    return;
                }
                Err(CallError::Server(DigestError::UnsupportedAlgorithm)) => {
                    self.client.refuse(alg as u8);
                    self.index += 1;
                }
                Err(CallError::Server(DigestError::UnsupportedPath)) if self.index == 0 => {
                    self.client.skip_path(path);
                    self.path += 1;
                }
                Err(e) => {
                    self.client
                        .fail(format_args!("{name} {alg:?} {path:?}: open_session: {e:?}"));
                    self.index += 1;
                }
            }
        }
        let by_path = ByPath(&PATHS, &self.tally);
        let offered = self.client.driver.calls.capabilities();
        self.client.agree(offered);
        let refused = self.client.refused_at_open(&Algorithm::ALL, |a| a as u8);
        self.client.conclude(by_path.total(), &by_path, &refused)
    }

    /// Sends the current case's next request: short messages as an update of the first
    /// third then a final of the rest in two segments; the million as one-segment
    /// updates of [`chunk`] bytes, then an empty final.
    fn step(&mut self) {
        let Some(c) = self.current.as_mut() else {
            return;
        };
        let out = (OUT_AT, OUT_LEN);
        let (op, segs, n): (DigestOp, [(u32, u32); 3], usize) = if c.len as usize == MILLION {
            let at = c.step * chunk(c.alg);
            if at < c.len {
                let len = chunk(c.alg).min(c.len - at);
                (
                    DigestOp::Update,
                    [(MILLION_AT + at, len), (0, 0), (0, 0)],
                    1,
                )
            } else {
                (DigestOp::Final, [out, (0, 0), (0, 0)], 1)
            }
        } else if c.step == 0 {
            (DigestOp::Update, [(SHORT_AT, c.len / 3), (0, 0), (0, 0)], 1)
        } else {
            let rest = c.len - c.len / 3;
            let half = rest / 2;
            let at = SHORT_AT + c.len / 3;
            (
                DigestOp::Final,
                [(at, half), (at + half, rest - half), out],
                3,
            )
        };
        if op == DigestOp::Final {
            self.client.data.write(OUT_AT, &[0; OUT_LEN as usize]);
        }
        c.op = op;
        c.whole = c.len as usize == MILLION
            && op == DigestOp::Update
            && segs[..n].iter().all(|s| {
                let b = block_len(c.alg) as u32;
                (s.0 - MILLION_AT).is_multiple_of(b) && s.1.is_multiple_of(b)
            });
        c.before = self.meter.now();
        let request = Request::over(self.client.fresh_id(), c.session, op, &segs[..n]);
        self.client.submit(request);
    }

    fn check(&mut self, resp: Response) {
        let Some(mut c) = self.current.take() else {
            return self.client.unasked(resp.id);
        };
        let copied = self.meter.now().since(&c.before).get(Event::CpuCopyByte);
        let t = &mut self.tally[self.path];
        t.copied += copied;
        if resp.status.check() != Ok(Ok(())) {
            self.client.fail(format_args!(
                "{} {:?} {:?}: {:?}",
                c.name, c.alg, PATHS[self.path], resp.status
            ));
            return self.close(c.session);
        }
        // The talitos chaining change's promise, where a ledger counts what the CPU
        // copied: the chained path copies at most two of the algorithm's blocks per update.
        let most = 2 * block_len(c.alg) as u64;
        if c.op == DigestOp::Update && PATHS[self.path] == HashPath::Chained && copied > most {
            self.client.fail(format_args!(
                "{} {:?} chained: {copied} client bytes copied for one update (at most {most})",
                c.name, c.alg
            ));
        }
        let t = &mut self.tally[self.path];
        if c.op == DigestOp::Update {
            t.updates += 1;
            t.max_update_copy = t.max_update_copy.max(copied);
            if c.whole {
                t.whole_updates += 1;
                t.whole_copy += copied;
            }
            c.step += 1;
            self.current = Some(c);
            return self.step();
        }
        let n = digest_len(c.alg);
        let mut got = [0; OUT_LEN as usize];
        self.client.data.read(OUT_AT, &mut got);
        if usize::from(resp.digest_len) == n && got[..n] == c.want[..n] {
            self.tally[self.path].passed += 1;
        } else {
            self.client.fail(format_args!(
                "{} {:?} {:?}: wrong digest",
                c.name, c.alg, PATHS[self.path]
            ));
        }
        self.close(c.session);
    }

    fn close(&mut self, session: u32) {
        self.client.close(session);
        self.index += 1;
        self.next();
    }

    fn report(&self) {
        let t = self.tally[self.path];
        debug_println!(
            "kat-digest: path {:?}: {} passed; updates {} max_update_copy {} cpu_copy {}; \
             whole-block updates {} whole_copy {}",
            PATHS[self.path],
            t.passed,
            t.updates,
            t.max_update_copy,
            t.copied,
            t.whole_updates,
            t.whole_copy
        );
    }
}

impl Handler for Kat {
    fn notified(&mut self, _: ChannelSet) {
        for r in self.client.answers::<4>() {
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
        current: None,
        tally: [Tally::default(); 3],
    };
    // The million 'a' once, in chunks (no heap).
    let chunk = [b'a'; 4096];
    let mut at = 0;
    while at < MILLION {
        let n = chunk.len().min(MILLION - at);
        kat.client.data.write(MILLION_AT + at as u32, &chunk[..n]);
        at += n;
    }
    kat.next();
    kat
}

pd_runtime::protection_domain!(init);
