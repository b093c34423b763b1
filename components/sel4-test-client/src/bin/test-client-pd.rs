#![cfg_attr(target_os = "none", no_std, no_main)]
//! The test client of `qemu_virt_aarch64.system`: runs the SP 800-38A CBC and CTR
//! examples with 128- and 256-bit keys (`kat-vectors`) through both Cipher drivers,
//! virtio-crypto (channel 0: QEMU's device, by DMA) and the CPU engine (channel 1), and
//! collects the verdicts of the verified-boot client (channel 2, region `vboot_report`)
//! and of the known-answer clients of the engines that run on device PDs: OMAP AES
//! (channel 3, `omap_report`), STM32 CRYP (4, `stm32_report`) and talitos SEC1 (5,
//! `sec1_report`), each of which ran the published vectors through every path its driver
//! offers and checked its ledger facts, and of the restart test (6, `stream_report`): a
//! client streaming through a test build of the CPU driver that faults once mid-stream,
//! restarted by its parent, every request back exactly once (and asks both Cipher
//! drivers' capabilities: CBC and CTR must be offered); and of the CPU engine's
//! HMAC and AEAD known-answer clients (7, `mac_report`; 8, `aead_report`: RFC 2202/4231,
//! SP 800-38D and RFC 3610 through the Mac and Aead drivers), and of kat-rng (9,
//! `rng_report`: fills, reseeds and typed refusals from the virtio-rng driver's Rng
//! service, QEMU's entropy device through the health tests) and of the stm32mp1 RNG's
//! (10, `srng_report`: the same through its device PD, then a stuck, a biased and a
//! clock-erroring source, each failing closed and recovering), and of the key clients
//! (11, `keys_cpu_report`; 12, `keys_omap_report`: encryption by handle with keys the
//! key store holds, on the CPU engine and on OMAP AES; 13, `hostile_keys_report`: every
//! way to get or misuse a key refused), of the supervisor (14, `supervisor_report`: its
//! child's end) and of a C client built against the SDK's libmicrokit (15, `c_report`:
//! crypto-client-c's `pd/kat_c.c`, SP 800-38A and FIPS 180-4 through the CPU engine's
//! Cipher and Digest drivers). From the traces of the three
//! board drivers and
//! their power managers (mapped read-only) it checks what no client sees: each
//! calibrated crossover lies in the published range, every grant was given back, the
//! engine was powered per session burst and never per request. Then it prints one line
//! that says PASS or FAIL, computed from every check below.
//!
//! Per driver and vector: an encrypt session and a decrypt session are opened by PPC
//! (`pd-idl` Cipher stubs over `PpcTransport`); the plaintext is written into this PD's
//! region `data` (contiguous for even vectors, three scattered segments for odd ones, so
//! the drivers' scatter-gather paths are exercised); the encrypt request goes over the
//! driver's queue pair (`crypto_client::Link`, which tracks every request in flight); the
//! ciphertext is checked against the published one, then decrypted in place through the
//! other session and checked against the plaintext. At the end the two drivers'
//! ciphertexts are compared with each other, every session is closed by PPC, and the
//! links must have no request in flight and no stray answer.
//!
//! Assumes the drivers map `data` at the offsets used here (each driver gets its own
//! half) and answer on the same channel they are called on.
use crypto_client::Completion;
use crypto_client::driver::CipherDriver;
use crypto_client::verdict::report;
use kat_vectors::{PLAIN, SP800_38A, hex, hex_array};
use pd_idl::cipher::{
    CipherError, CipherErrorRaw, CipherOp, Client, Mode, Path, Request, Response, Segment,
};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, MemoryRegion, console_println, memory_region};
use pd_trace::{Kind, Snapshot};
use vboot_client_pd::Hex;

/// The clients whose verdicts this one collects: name, the channel they notify, and
/// (by index, see [`report_region`]) the region they write.
const REPORTS: [(&str, Channel); 14] = [
    ("verified boot", Channel::new(2)),
    ("omap-aes", Channel::new(3)),
    ("stm32-cryp", Channel::new(4)),
    ("sec1", Channel::new(5)),
    ("restart", Channel::new(6)),
    ("hmac", Channel::new(7)),
    ("aead", Channel::new(8)),
    ("rng", Channel::new(9)),
    ("stm32-rng", Channel::new(10)),
    ("keys on the CPU engine", Channel::new(11)),
    ("keys on OMAP AES", Channel::new(12)),
    ("hostile keys", Channel::new(13)),
    ("a client's end", Channel::new(14)),
    ("a C client", Channel::new(15)),
];

/// The board stand-ins' traces: engine, the driver's and the power manager's trace
/// regions, and the published PIO/DMA crossover range of AES-128-CBC (boards/SOURCES.md:
/// am335x "about 130-155 B (8-10 blocks)", stm32mp1 "~22 B (tcrypt) to ~77-86 B"; SEC1
/// has no PIO path).
struct Board {
    name: &'static str,
    crossover: Option<core::ops::RangeInclusive<u32>>,
}

const BOARDS: [Board; 3] = [
    Board {
        name: "omap-aes",
        crossover: Some(128..=160),
    },
    Board {
        name: "stm32-cryp",
        crossover: Some(22..=86),
    },
    Board {
        name: "sec1",
        crossover: None,
    },
];

/// Board `i`'s (driver, power manager) traces.
fn traces(i: usize) -> (Option<Snapshot>, Option<Snapshot>) {
    let read = |r: MemoryRegion| {
        let mut bytes = [0u8; pd_trace::Layout::BYTES];
        // SAFETY: the region is mapped read-only here for the PD's life and at least
        // Layout::BYTES long (checked); another PD writes it, so volatile.
        (r.size >= bytes.len()).then(|| {
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = unsafe { r.vaddr.add(k).read_volatile() };
            }
            Snapshot::parse(&bytes)
        })?
    };
    let (d, p) = match i {
        0 => (memory_region!(omap_trace), memory_region!(omap_pm_trace)),
        1 => (memory_region!(stm32_trace), memory_region!(stm32_pm_trace)),
        _ => (memory_region!(sec1_trace), memory_region!(sec1_pm_trace)),
    };
    (read(d), read(p))
}

/// What the traces of board `i` say against its claims; the number of failures.
fn check_traces(i: usize) -> u32 {
    let b = &BOARDS[i];
    let (Some(driver), Some(power)) = traces(i) else {
        console_println!("test_client: {}: FAILED: no trace to read", b.name);
        return 1;
    };
    let mut failures = 0;
    let mut check = |ok: bool, what: core::fmt::Arguments<'_>| {
        if !ok {
            console_println!("test_client: {}: FAILED: {what}", b.name);
            failures += 1;
        }
    };
    if let Some(range) = &b.crossover {
        let bytes = driver.last(Kind::Calibrated);
        check(
            driver.count(Kind::Calibrated) == 1,
            format_args!("calibrated {} times", driver.count(Kind::Calibrated)),
        );
        if let Some(bytes) = bytes {
            check(
                range.contains(&bytes),
                format_args!("crossover {bytes} B outside the published {range:?}"),
            );
        }
    }
    let grants = driver.count(Kind::PowerAcquire);
    let sessions = driver.count(Kind::SessionOpened);
    let requests =
        driver.count(Kind::DonePio) + driver.count(Kind::DoneDma) + driver.count(Kind::Hashed);
    let powered = power.count(Kind::PowerOn);
    check(
        grants == driver.count(Kind::PowerRelease) && grants == power.count(Kind::Granted),
        format_args!("grants not all given back: {driver:?} / {power:?}"),
    );
    // A grant per session burst (and one for the self-test), never per request; the
    // engine ungated no more often than granted.
    check(
        grants <= sessions + 1 && grants < requests && (1..=grants).contains(&powered),
        format_args!(
            "{grants} grants, {powered} power-ons for {sessions} sessions and {requests} requests"
        ),
    );
    console_println!(
        "test_client: {}: {requests} requests in {sessions} sessions held {grants} grants and {powered} power-on(s){}",
        b.name,
        match b.crossover {
            Some(_) => "; crossover in the published range",
            None => "",
        }
    );
    failures
}

fn report_region(i: usize) -> MemoryRegion {
    match i {
        0 => memory_region!(vboot_report),
        1 => memory_region!(omap_report),
        2 => memory_region!(stm32_report),
        3 => memory_region!(sec1_report),
        4 => memory_region!(stream_report),
        5 => memory_region!(mac_report),
        6 => memory_region!(aead_report),
        7 => memory_region!(rng_report),
        8 => memory_region!(srng_report),
        9 => memory_region!(keys_cpu_report),
        10 => memory_region!(keys_omap_report),
        11 => memory_region!(hostile_keys_report),
        12 => memory_region!(supervisor_report),
        _ => memory_region!(c_report),
    }
}
/// The drivers under test: name, channel (calls and queue notifications).
const DRIVERS: [(&str, Channel); 2] = [("virtio", Channel::new(0)), ("cpu", Channel::new(1))];
/// Vectors run per driver: CBC and CTR, 128- and 256-bit keys.
const MAX_VECTORS: usize = 4;
/// Bytes of data region each driver's vectors use (one half each).
const DRIVER_SPAN: u32 = 0x8000;
/// Bytes between two vectors' buffers.
const VECTOR_SPAN: u32 = 0x400;
const LEN: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    Encrypting,
    Decrypting,
    Passed,
    Failed,
}

struct Case {
    /// Index into SP800_38A.
    vector: usize,
    enc: u32,
    dec: u32,
    stage: Stage,
    ciphertext: [u8; LEN],
    path: Option<Path>,
}

struct TestClient {
    data: MemoryRegion,
    drivers: [CipherDriver; 2],
    cases: [[Option<Case>; MAX_VECTORS]; 2],
    /// Each collected client's verdict, once it notified.
    reports: [Option<bool>; REPORTS.len()],
    finished: bool,
}

/// Request ids: driver, vector, operation.
fn request_id(driver: usize, vector: usize, op: CipherOp) -> u32 {
    ((driver as u32) << 8) | ((vector as u32) << 1) | u32::from(op == CipherOp::Decrypt)
}

/// Where vector slot `v` of driver `d` lies: one segment (even) or three (odd).
fn segments(d: usize, v: usize) -> ([Segment; 3], usize) {
    let base = d as u32 * DRIVER_SPAN + v as u32 * VECTOR_SPAN;
    if v.is_multiple_of(2) {
        let one = Segment {
            offset: base,
            len: LEN as u32,
        };
        ([one, one, one], 1)
    } else {
        // 16 + 40 + 8 bytes, apart from each other: a CBC block and a CTR block straddle
        // segment boundaries.
        (
            [
                Segment {
                    offset: base,
                    len: 16,
                },
                Segment {
                    offset: base + 0x80,
                    len: 40,
                },
                Segment {
                    offset: base + 0x180,
                    len: 8,
                },
            ],
            3,
        )
    }
}

impl TestClient {
    fn write(&self, d: usize, v: usize, bytes: &[u8; LEN]) {
        let (segs, n) = segments(d, v);
        let mut at = 0;
        for s in &segs[..n] {
            for i in 0..s.len as usize {
                let off = s.offset as usize + i;
                assert!(off < self.data.size, "test data fits the region");
                // SAFETY: inside `data`, mapped rw here; volatile because drivers (and a
                // device, by DMA) read and write it.
                unsafe { self.data.vaddr.add(off).write_volatile(bytes[at]) };
                at += 1;
            }
        }
    }

    fn read(&self, d: usize, v: usize) -> [u8; LEN] {
        let (segs, n) = segments(d, v);
        let mut out = [0; LEN];
        let mut at = 0;
        for s in &segs[..n] {
            for i in 0..s.len as usize {
                // SAFETY: as in `write`.
                out[at] = unsafe { self.data.vaddr.add(s.offset as usize + i).read_volatile() };
                at += 1;
            }
        }
        out
    }

    fn submit(&mut self, d: usize, v: usize, op: CipherOp, session: u32) -> bool {
        let (segs, n) = segments(d, v);
        let list = segs.map(|s| (s.offset, s.len));
        let r = Request::over(request_id(d, v, op), session, op, &list[..n]);
        match self.drivers[d].link.submit(r) {
            Ok(notify) => notify,
            Err(e) => {
                self.fail(d, v, format_args!("submit: {e:?}"));
                false
            }
        }
    }

    fn fail(&mut self, d: usize, v: usize, why: core::fmt::Arguments<'_>) {
        if let Some(c) = self.cases[d][v].as_mut() {
            console_println!(
                "test_client: {} {}: FAILED: {why}",
                DRIVERS[d].0,
                SP800_38A[c.vector].0
            );
            c.stage = Stage::Failed;
        }
    }

    /// One answer of driver `d`; returns whether the driver must be notified.
    fn answered(&mut self, d: usize, resp: Response) -> bool {
        let v = ((resp.id >> 1) & 0x7f) as usize;
        let decrypt = resp.id & 1 == 1;
        let Some(case) = self
            .cases
            .get(d)
            .and_then(|c| c.get(v))
            .and_then(Option::as_ref)
        else {
            console_println!(
                "test_client: {}: answer to unknown request {:#x}",
                DRIVERS[d].0,
                resp.id
            );
            return false;
        };
        let (vector, dec) = (case.vector, case.dec);
        let expected = match case.stage {
            Stage::Encrypting if !decrypt => Stage::Encrypting,
            Stage::Decrypting if decrypt => Stage::Decrypting,
            stage => {
                self.fail(
                    d,
                    v,
                    format_args!("answer {:#x} in stage {stage:?}", resp.id),
                );
                return false;
            }
        };
        if resp.status != CipherErrorRaw::OK {
            let status = resp.status.check();
            self.fail(
                d,
                v,
                format_args!("{expected:?}: driver answered {status:?}"),
            );
            return false;
        }
        if resp.bytes_done != LEN as u32 {
            self.fail(
                d,
                v,
                format_args!("{} bytes done, not {LEN}", resp.bytes_done),
            );
            return false;
        }
        let got = self.read(d, v);
        let name = SP800_38A[vector].0;
        match expected {
            Stage::Encrypting => {
                let want: [u8; LEN] = hex_array(SP800_38A[vector].4);
                if got != want {
                    self.fail(
                        d,
                        v,
                        format_args!("ciphertext {} is not {}", Hex(&got), Hex(&want)),
                    );
                    return false;
                }
                let case = self.cases[d][v].as_mut().expect("checked above");
                case.ciphertext = got;
                case.path = resp.path.get().ok();
                case.stage = Stage::Decrypting;
                self.submit(d, v, CipherOp::Decrypt, dec)
            }
            _ => {
                let want: [u8; LEN] = hex_array(PLAIN);
                if got != want {
                    self.fail(
                        d,
                        v,
                        format_args!("decryption {} is not the plaintext", Hex(&got)),
                    );
                    return false;
                }
                let case = self.cases[d][v].as_mut().expect("checked above");
                case.stage = Stage::Passed;
                let (_, nsegs) = segments(d, v);
                console_println!(
                    "test_client: {:<6} {name}: encrypt matches SP 800-38A, decrypt restores the plaintext ({nsegs} segment(s), path {:?})",
                    DRIVERS[d].0,
                    case.path
                );
                false
            }
        }
    }

    fn poll(&mut self, d: usize) {
        let mut answers = [None; 2 * MAX_VECTORS];
        let mut n = 0;
        let mut restarted = 0;
        let result = self.drivers[d].link.poll(|c| match c {
            Completion::Answered(r) => {
                if n < answers.len() {
                    answers[n] = Some(r);
                    n += 1;
                }
            }
            Completion::Restarted(_) => restarted += 1,
        });
        let mut notify = match result {
            Ok(room_made) => room_made,
            Err(e) => {
                console_println!("test_client: {}: response queue broken: {e}", DRIVERS[d].0);
                (0..MAX_VECTORS).for_each(|v| self.fail(d, v, format_args!("queue broken")));
                false
            }
        };
        if restarted > 0 {
            console_println!(
                "test_client: {}: driver restarted, {restarted} request(s) lost",
                DRIVERS[d].0
            );
            (0..MAX_VECTORS).for_each(|v| self.fail(d, v, format_args!("driver restarted")));
        }
        for r in answers.into_iter().flatten() {
            notify |= self.answered(d, r);
        }
        if notify {
            self.drivers[d].notify();
        }
    }

    fn settled(&self) -> bool {
        let cases_done = self
            .cases
            .iter()
            .flatten()
            .flatten()
            .all(|c| matches!(c.stage, Stage::Passed | Stage::Failed));
        cases_done && self.reports.iter().all(Option::is_some)
    }

    /// Closes everything and prints the verdict.
    fn finish(&mut self) {
        self.finished = true;
        let mut failures = 0u32;
        let mut passed = 0u32;
        for (d, cases) in self.cases.iter().enumerate() {
            for c in cases.iter().flatten() {
                if c.stage == Stage::Passed {
                    passed += 1;
                } else {
                    failures += 1;
                }
                for s in [c.enc, c.dec] {
                    if let Err(e) = self.drivers[d].close_session(s) {
                        console_println!(
                            "test_client: {}: close_session({s}): {e:?}",
                            DRIVERS[d].0
                        );
                        failures += 1;
                    }
                }
            }
        }
        // The two engines must agree with each other, not only with the table.
        let [virtio, cpu] = &self.cases;
        for (a, b) in virtio.iter().flatten().zip(cpu.iter().flatten()) {
            if a.stage == Stage::Passed && b.stage == Stage::Passed && a.ciphertext != b.ciphertext
            {
                console_println!(
                    "test_client: {}: virtio and cpu ciphertexts differ",
                    SP800_38A[a.vector].0
                );
                failures += 1;
            }
        }
        // Each driver says what it offers (capabilities, a PPC): the modes run here
        // must be among them.
        let used = 1 << Mode::Cbc as u8 | 1 << Mode::Ctr as u8;
        for (d, driver) in self.drivers.iter_mut().enumerate() {
            match driver.calls.capabilities() {
                Ok(modes) if modes & used == used => {
                    console_println!("test_client: {} offers modes {modes:#x}", DRIVERS[d].0);
                }
                other => {
                    console_println!(
                        "test_client: {}: capabilities {other:?}, wanted CBC and CTR",
                        DRIVERS[d].0
                    );
                    failures += 1;
                }
            }
        }
        for (d, link) in self.drivers.iter().map(|d| &d.link).enumerate() {
            let s = link.stats();
            console_println!(
                "test_client: {} link: {} submitted, {} answered, {} stray, {} in flight",
                DRIVERS[d].0,
                s.submitted,
                s.answered,
                s.stray,
                link.in_flight()
            );
            if s.stray != 0 || link.in_flight() != 0 || s.answered != s.submitted {
                failures += 1;
            }
        }
        for i in 0..BOARDS.len() {
            failures += check_traces(i);
        }
        let reported = self.reports.iter().filter(|r| **r == Some(true)).count();
        failures += (REPORTS.len() - reported) as u32;
        let verdict = if failures == 0 && passed > 0 {
            "PASS"
        } else {
            "FAIL"
        };
        console_println!(
            "test_client: {verdict}: {passed} cipher case(s) passed across virtio-crypto and cpu-engine; {reported} of {} clients passed (verified boot under the key store's provisioned key; omap-aes, stm32-cryp, sec1 through their device PDs; a driver fault mid-stream, restarted, nothing lost; HMAC and AEAD on the CPU engine; random bytes from virtio-rng and from the stm32mp1 RNG's device PD through the Rng service, its faults caught; encryption by key handle on the CPU engine and OMAP AES, every misuse of a key refused, a client's end reported by its supervisor and its keys wiped; a C client built against libmicrokit), the drivers' traces checked; {failures} failure(s)",
            REPORTS.len()
        );
    }
}

impl Handler for TestClient {
    fn notified(&mut self, channels: ChannelSet) {
        if self.finished {
            return;
        }
        for (d, (_, ch)) in DRIVERS.iter().enumerate() {
            if channels.contains(*ch) {
                self.poll(d);
            }
        }
        for (i, (name, ch)) in REPORTS.iter().enumerate() {
            if !channels.contains(*ch) || self.reports[i].is_some() {
                continue;
            }
            let mut buf = [0; report::TEXT_MAX];
            match report::read(report_region(i), &mut buf) {
                Some((ok, text)) => {
                    let said = if ok { "passed" } else { "FAILED" };
                    console_println!("test_client: {name} {said}: {text}");
                    self.reports[i] = Some(ok);
                }
                None => console_println!("test_client: {name} notified but wrote no verdict"),
            }
        }
        if self.settled() {
            self.finish();
        }
    }
}

fn open(
    calls: &mut Client<PpcTransport>,
    driver: &str,
    mode: Mode,
    key: &[u8],
    iv: [u8; 16],
) -> Result<u32, pd_idl::wire::CallError<CipherError>> {
    let mut k = [0; 32];
    k[..key.len()].copy_from_slice(key);
    calls
        .open_session(mode, Path::Adaptive, key.len() as u8, k, iv)
        .inspect_err(|e| {
            console_println!(
                "test_client: {driver}: open_session({mode:?}, {}-bit): {e:?}",
                key.len() * 8
            )
        })
}

fn init() -> TestClient {
    let mut client = TestClient {
        data: memory_region!(data),
        drivers: [
            CipherDriver::over(DRIVERS[0].1, memory_region!(virtio_queues)),
            CipherDriver::over(DRIVERS[1].1, memory_region!(cpu_queues)),
        ],
        cases: [const { [const { None }; MAX_VECTORS] }; 2],
        reports: [None; REPORTS.len()],
        finished: false,
    };
    let chosen = SP800_38A
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v.1, Mode::Cbc | Mode::Ctr) && matches!(v.2.len(), 32 | 64));
    let plain: [u8; LEN] = hex_array(PLAIN);
    let mut notify = [false; 2];
    for (slot, (vector, (name, mode, key_hex, iv_hex, _))) in chosen.take(MAX_VECTORS).enumerate() {
        let mut key = [0; 32];
        let key_len = hex(key_hex, &mut key);
        let iv: [u8; 16] = hex_array(iv_hex);
        for (d, (driver, _)) in DRIVERS.iter().enumerate() {
            let sessions = (
                open(
                    &mut client.drivers[d].calls,
                    driver,
                    *mode,
                    &key[..key_len],
                    iv,
                ),
                open(
                    &mut client.drivers[d].calls,
                    driver,
                    *mode,
                    &key[..key_len],
                    iv,
                ),
            );
            let (Ok(enc), Ok(dec)) = sessions else {
                console_println!("test_client: {driver} {name}: FAILED: no sessions");
                client.cases[d][slot] = Some(Case {
                    vector,
                    enc: sessions.0.unwrap_or(0),
                    dec: sessions.1.unwrap_or(0),
                    stage: Stage::Failed,
                    ciphertext: [0; LEN],
                    path: None,
                });
                continue;
            };
            client.cases[d][slot] = Some(Case {
                vector,
                enc,
                dec,
                stage: Stage::Encrypting,
                ciphertext: [0; LEN],
                path: None,
            });
            client.write(d, slot, &plain);
            notify[d] |= client.submit(d, slot, CipherOp::Encrypt, enc);
        }
    }
    console_println!(
        "test_client: sessions open on both drivers (PPC); encrypt requests queued (virtio {}, cpu {} in flight)",
        client.drivers[0].link.in_flight(),
        client.drivers[1].link.in_flight()
    );
    for (driver, notify) in client.drivers.iter().zip(notify) {
        if notify {
            driver.notify();
        }
    }
    client
}

pd_runtime::protection_domain!(init);
