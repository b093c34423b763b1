//! The checks the image runs against the device: published vectors, random requests
//! against RustCrypto, and the errors a bad session must get.

use crate::reference::{Rng, expect};
use cipher_service::{CipherEngine, ClientData, Job, Session, run_polled, validate};
use kat_vectors::{CBC_IV, K128, PLAIN, SP800_38A as VECTORS};
use mmio::RegisterBus;
use pd_idl::cipher::{CipherError, CipherOp, Mode, Path, Request};
use pd_idl::wire::Caller;
use shm_queue::SharedRegion;
use virtio_crypto_driver::{Direction, DmaBuf, VirtioCrypto, algo_of};

pub const DATA_LEN: usize = 64 * 1024;
/// Random requests (each checked against RustCrypto).
const RANDOM_REQUESTS: u32 = 5000;
/// Longest random request.
const MAX_LEN: u32 = 4096;

#[derive(Default)]
struct Tally {
    pass: u32,
    fail: u32,
}

impl Tally {
    fn check(&mut self, ok: bool, what: core::fmt::Arguments<'_>) {
        if ok {
            self.pass += 1;
        } else {
            self.fail += 1;
            if self.fail <= 20 {
                say!("qemu-test: FAIL {what}");
            }
        }
    }
}

/// The bytes of hex string `s`, zero-padded to N.
fn hex<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [0u8; N];
    kat_vectors::hex(s, &mut out);
    out
}

fn session(mode: Mode, key: &[u8], iv: [u8; 16]) -> Session {
    let mut s = Session {
        owner: Caller(1),
        mode,
        path: Path::Adaptive,
        key_len: key.len() as u8,
        usage: cipher_service::ENCRYPT | cipher_service::DECRYPT,
        iv,
        ..Session::EMPTY
    };
    s.key[..key.len()].copy_from_slice(key);
    s
}

/// One request through the service's validation and the engine interface.
fn crypt<B: RegisterBus>(
    dev: &mut VirtioCrypto<B>,
    data: &mut [u8],
    phys: u64,
    s: &mut Session,
    op: CipherOp,
    segs: &[(u32, u32)],
) -> Result<Path, CipherError> {
    let req = Request::over(0, 0, op, segs);
    let valid = validate(&req, data.len(), s.mode)?;
    let job = Job::one(
        *s,
        op,
        valid,
        ClientData {
            region: SharedRegion::new(data),
            phys: Some(phys),
        },
    );
    // Bare metal has no interrupt handler: poll the engine's interrupt path, bounded
    // (session set-up and the request each finish a poll or a few later).
    let done = run_polled(dev, &job, POLLS)?;
    s.iv = done.next_iv();
    Ok(done.path)
}

/// Interrupt polls per request before the device counts as stuck.
const POLLS: u32 = 1_000_000;

/// Runs everything; returns the number of failed checks after printing the tally.
pub fn all<B: RegisterBus>(dev: &mut VirtioCrypto<B>, data: &mut [u8], phys: u64) -> u32 {
    let mut t = Tally::default();
    vectors(dev, data, phys, &mut t);
    say!(
        "qemu-test: SP 800-38A vectors done ({} passed, {} failed so far)",
        t.pass,
        t.fail
    );
    random(dev, data, phys, &mut t);
    say!("qemu-test: {RANDOM_REQUESTS} random requests done");
    out_of_place(dev, data, phys, &mut t);
    errors(dev, &mut t);
    say!("qemu-test: {} passed, {} failed", t.pass, t.fail);
    t.fail
}

fn vectors<B: RegisterBus>(dev: &mut VirtioCrypto<B>, data: &mut [u8], phys: u64, t: &mut Tally) {
    let pt: [u8; 64] = hex(PLAIN);
    for &(name, mode, key, iv, ct) in VECTORS {
        let ct: [u8; 64] = hex(ct);
        let key = &hex::<32>(key)[..key.len() / 2];
        let iv: [u8; 16] = hex(iv);
        // Every mode the driver offers must be there: a device without one fails the
        // run rather than passing on what it happens to offer.
        let offered = dev.supports(&session(mode, key, iv));
        t.check(
            offered.is_ok(),
            format_args!("{name}: refused by this device: {offered:?}"),
        );
        if offered.is_err() {
            continue;
        }
        // Whole; split so blocks straddle descriptors; chained one block per request.
        let layouts: [&[(u32, u32)]; 3] = [
            &[(4096, 64)],
            &[(4096, 7), (4103, 30), (4133, 27)],
            &[(4096, 16)],
        ];
        for (k, segs) in layouts.iter().enumerate() {
            for (op, input, want) in [(CipherOp::Encrypt, &pt, &ct), (CipherOp::Decrypt, &ct, &pt)]
            {
                let mut s = session(mode, key, iv);
                data[4096..4160].copy_from_slice(input);
                let ok = if k == 2 {
                    (0..4u32).all(|b| {
                        crypt(dev, data, phys, &mut s, op, &[(4096 + 16 * b, 16)]) == Ok(Path::Dma)
                    })
                } else {
                    crypt(dev, data, phys, &mut s, op, segs) == Ok(Path::Dma)
                };
                t.check(
                    ok && data[4096..4160] == want[..],
                    format_args!("{name} {op:?} layout {k}"),
                );
            }
        }
    }
}

fn random<B: RegisterBus>(dev: &mut VirtioCrypto<B>, data: &mut [u8], phys: u64, t: &mut Tally) {
    let mut rng = Rng::new(0x5eed_c0de_1234_5678);
    // More sessions than the driver caches, so device sessions are evicted and recreated.
    let mut sessions = [session(Mode::Cbc, &[0; 16], [0; 16]); 12];
    for s in sessions.iter_mut() {
        let mode = [Mode::Ecb, Mode::Cbc, Mode::Ctr][rng.below(3) as usize];
        let mode = if dev.supports(&session(mode, &[0; 16], [0; 16])).is_ok() {
            mode
        } else {
            Mode::Cbc
        };
        let mut key = [0u8; 32];
        rng.fill(&mut key);
        let mut iv = [0u8; 16];
        rng.fill(&mut iv);
        *s = session(mode, &key[..[16, 24, 32][rng.below(3) as usize]], iv);
    }
    let mut want = [0u8; MAX_LEN as usize];
    let mut got = [0u8; MAX_LEN as usize];
    for i in 0..RANDOM_REQUESTS {
        let s = &mut sessions[rng.below(12) as usize];
        let op = if rng.below(2) == 0 {
            CipherOp::Encrypt
        } else {
            CipherOp::Decrypt
        };
        let len = match s.mode {
            Mode::Ctr => 1 + rng.below(MAX_LEN),
            _ => 16 * (1 + rng.below(MAX_LEN / 16)),
        };
        // Cut into 1..=6 pieces (as many as a request carries; some may be empty),
        // placed in order with gaps.
        let n = 1 + rng.below(6) as usize;
        let mut cuts = [0u32; 7];
        cuts[n] = len;
        for c in cuts[1..n].iter_mut() {
            *c = rng.below(len + 1);
        }
        cuts[..=n].sort_unstable();
        let mut segs = [(0u32, 0u32); 6];
        let mut at = rng.below(4096);
        for k in 0..n {
            let l = cuts[k + 1] - cuts[k];
            segs[k] = (at, l);
            at += l + 1 + rng.below(256); // at least one canary byte after each piece
        }
        let segs = &segs[..n];
        for &(o, l) in segs {
            rng.fill(&mut data[o as usize..(o + l) as usize]);
            data[(o + l) as usize] = 0xa5;
        }
        gather(data, segs, &mut want[..len as usize]);
        let key = &s.key[..usize::from(s.key_len)];
        let next = expect(s.mode, op, key, s.iv, &mut want[..len as usize]);
        let res = crypt(dev, data, phys, s, op, segs);
        gather(data, segs, &mut got[..len as usize]);
        let canaries = segs.iter().all(|&(o, l)| data[(o + l) as usize] == 0xa5);
        t.check(
            res == Ok(Path::Dma)
                && got[..len as usize] == want[..len as usize]
                && s.iv == next
                && canaries,
            format_args!(
                "random #{i}: {:?} {op:?} key {} len {len} segs {segs:?} -> {res:?}",
                s.mode, s.key_len
            ),
        );
        if res.is_err() && dev.is_broken() {
            say!("qemu-test: driver broken, stopping random requests");
            return;
        }
    }
}

fn gather(data: &[u8], segs: &[(u32, u32)], out: &mut [u8]) {
    let mut at = 0;
    for &(o, l) in segs {
        out[at..at + l as usize].copy_from_slice(&data[o as usize..(o + l) as usize]);
        at += l as usize;
    }
}

/// The raw driver API with a destination apart from the source (the Cipher interface
/// works in place; a PD that copies between regions would use this).
fn out_of_place<B: RegisterBus>(
    dev: &mut VirtioCrypto<B>,
    data: &mut [u8],
    phys: u64,
    t: &mut Tally,
) {
    let (key, iv, pt): ([u8; 16], [u8; 16], [u8; 64]) = (hex(K128), hex(CBC_IV), hex(PLAIN));
    let want: [u8; 64] = hex(VECTORS
        .iter()
        .find(|v| v.0 == "F.2.1 CBC-AES128")
        .expect("published")
        .4);
    data[..64].copy_from_slice(&pt);
    data[64..128].fill(0);
    let src = [
        DmaBuf { phys, len: 40 },
        DmaBuf {
            phys: phys + 40,
            len: 24,
        },
    ];
    let dst = [
        DmaBuf {
            phys: phys + 64,
            len: 17,
        },
        DmaBuf {
            phys: phys + 81,
            len: 47,
        },
    ];
    let r = dev
        .create_session(algo_of(Mode::Cbc), Direction::Encrypt, &key)
        .and_then(|id| {
            let r = dev.cipher(
                id,
                algo_of(Mode::Cbc),
                Direction::Encrypt,
                Some(&iv),
                &src,
                &dst,
            );
            dev.destroy_session(id).and(r)
        });
    t.check(
        r.is_ok() && data[64..128] == want && data[..64] == pt,
        format_args!("CBC out of place: {r:?}"),
    );
}

/// What the device and the driver must refuse.
fn errors<B: RegisterBus>(dev: &mut VirtioCrypto<B>, t: &mut Tally) {
    // AES has no 20-byte key: the device must refuse the session (QEMU: VIRTIO_CRYPTO_ERR).
    let r = dev.create_session(algo_of(Mode::Cbc), Direction::Encrypt, &[7; 20]);
    t.check(
        r.is_err() && !dev.is_broken(),
        format_args!("20-byte key refused: {r:?}"),
    );
    let r = dev.create_session(algo_of(Mode::Cbc), Direction::Encrypt, &[7; 65]);
    t.check(
        r.is_err(),
        format_args!("65-byte key refused before the device: {r:?}"),
    );
    // PIO or CPU paths do not exist on this engine.
    let mut s = session(Mode::Cbc, &[1; 16], [0; 16]);
    s.path = Path::Pio;
    t.check(
        dev.supports(&s) == Err(CipherError::UnsupportedPath),
        format_args!("PIO refused"),
    );
    // The device still works after the refusals.
    let r = dev.create_session(algo_of(Mode::Cbc), Direction::Encrypt, &[7; 16]);
    let ok = r.is_ok_and(|id| dev.destroy_session(id).is_ok());
    t.check(ok, format_args!("session after refusals: {r:?}"));
    t.check(
        dev.forget_all().is_ok() && dev.cached_sessions() == 0,
        format_args!("all device sessions destroyed"),
    );
}
