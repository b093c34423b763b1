#![cfg_attr(target_os = "none", no_std, no_main)]
//! Demo client: puts the three FIPS 180-2 SHA-256 example messages into its data
//! region, opens three sessions on the hasher by PPC, queues the requests (the
//! million-'a' message as five scatter-gather segments), checks each digest against the
//! published value, closes the sessions and exits 0.
use pd_idl::digest::{Algorithm, Client, DigestOp, HashPath, Request, Response};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, debug_println, memory_region};
use runtime_examples::queues;
use shm_queue::{Consumer, Producer, QueueError};

const HASHER: Channel = Channel::new(0);
/// The id of the scatter-gather update request (finals use their vector's index).
const UPDATE_ID: u32 = 100;

/// FIPS 180-2 appendix B: (name, offset in the data region, message, digest).
struct Vector {
    name: &'static str,
    offset: u32,
    len: u32,
    digest: [u8; 32],
}

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        _ => c - b'a' + 10,
    }
}

const fn hex(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = nibble(b[2 * i]) << 4 | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

const ABC: &[u8] = b"abc";
const TWO_BLOCKS: &[u8] = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
const MILLION: u32 = 1_000_000;
/// Where the final of vector `i` has its digest written: its own 32 bytes, past the
/// messages.
const fn out_at(i: usize) -> u32 {
    0x10_0000 + 32 * i as u32
}

const VECTORS: [Vector; 3] = [
    Vector {
        name: "\"abc\"",
        offset: 0,
        len: ABC.len() as u32,
        digest: hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    },
    Vector {
        name: "\"abcdbcde...nopq\" (448 bits)",
        offset: 64,
        len: TWO_BLOCKS.len() as u32,
        digest: hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    },
    Vector {
        name: "1,000,000 x 'a' in 5 segments",
        offset: 4096,
        len: MILLION,
        digest: hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    },
];

struct DemoClient {
    data: pd_runtime::MemoryRegion,
    hasher: Client<PpcTransport>,
    tx: Producer<'static, Request>,
    rx: Consumer<'static, Response>,
    sessions: [u32; 3],
    matched: usize,
}

fn write(region: pd_runtime::MemoryRegion, offset: u32, bytes: impl Iterator<Item = u8>) {
    for (i, b) in bytes.enumerate() {
        let at = offset as usize + i;
        assert!(at < region.size, "demo data fits its region");
        // SAFETY: inside the region, which this PD maps rw; volatile because the hasher
        // reads it.
        unsafe { region.vaddr.add(at).write_volatile(b) };
    }
}

impl DemoClient {
    fn send(&mut self, req: Request) {
        self.tx.enqueue(req).expect("a few requests fit the queue");
    }

    fn check(&mut self, resp: Response) {
        if resp.id == UPDATE_ID {
            assert_eq!(resp.status.check(), Ok(Ok(())), "update: {:?}", resp.status);
            assert_eq!(resp.bytes_done, MILLION);
            debug_println!(
                "client: update of 5 segments: {} bytes hashed",
                resp.bytes_done
            );
            return;
        }
        let v = VECTORS
            .get(resp.id as usize)
            .expect("an id the client sent");
        assert_eq!(
            resp.status.check(),
            Ok(Ok(())),
            "{}: {:?}",
            v.name,
            resp.status
        );
        assert_eq!(resp.digest_len, 32);
        let digest: [u8; 32] = core::array::from_fn(|i| {
            let at = out_at(resp.id as usize) as usize + i;
            assert!(at < self.data.size);
            // SAFETY: inside the region, mapped rw here; the hasher wrote it before it
            // answered.
            unsafe { self.data.vaddr.add(at).read_volatile() }
        });
        assert_eq!(digest, v.digest, "sha256({}) is wrong", v.name);
        let mut shown = [0u8; 16];
        for (i, b) in digest[..8].iter().enumerate() {
            let d = b"0123456789abcdef";
            shown[2 * i] = d[usize::from(b >> 4)];
            shown[2 * i + 1] = d[usize::from(b & 15)];
        }
        let shown = core::str::from_utf8(&shown).unwrap_or("?");
        debug_println!("client: sha256({}) = {shown}... matches FIPS 180-2", v.name);
        self.matched += 1;
    }
}

impl Handler for DemoClient {
    fn notified(&mut self, _: ChannelSet) {
        loop {
            match self.rx.dequeue() {
                Ok(resp) => self.check(resp),
                Err(QueueError::Empty) => {
                    if self.rx.arm_signal().expect("response queue") {
                        break;
                    }
                }
                Err(e) => panic!("client: response queue: {e}"),
            }
        }
        if self.matched == VECTORS.len() {
            for s in self.sessions {
                self.hasher.close_session(s).expect("close_session");
            }
            let bytes: u32 = VECTORS.iter().map(|v| v.len).sum();
            debug_println!("client: done: 3 digests of {bytes} bytes via queues, all match");
            pd_runtime::exit(0);
        }
    }
}

fn init() -> DemoClient {
    let data = memory_region!(data);
    write(data, VECTORS[0].offset, ABC.iter().copied());
    write(data, VECTORS[1].offset, TWO_BLOCKS.iter().copied());
    write(
        data,
        VECTORS[2].offset,
        core::iter::repeat_n(b'a', MILLION as usize),
    );
    let (tx, rx) = queues::side_a(queues::shared(memory_region!(queues)));
    let mut hasher = Client::new(PpcTransport(HASHER));
    let mut sessions = [0; 3];
    for s in &mut sessions {
        *s = hasher
            .open_session(Algorithm::Sha256, HashPath::Auto)
            .expect("open_session");
    }
    debug_println!("client: opened SHA-256 sessions {sessions:?} on the hasher (PPC)");
    let mut client = DemoClient {
        data,
        hasher,
        tx,
        rx,
        sessions,
        matched: 0,
    };
    for (id, v) in VECTORS.iter().enumerate().take(2) {
        let segs = [(v.offset, v.len), (out_at(id), 32)];
        client.send(Request::over(
            id as u32,
            sessions[id],
            DigestOp::Final,
            &segs,
        ));
    }
    // The long message as a scatter-gather list, then a final with no data.
    let part = MILLION / 5;
    let segs: [(u32, u32); 5] =
        core::array::from_fn(|i| (VECTORS[2].offset + i as u32 * part, part));
    client.send(Request::over(
        UPDATE_ID,
        sessions[2],
        DigestOp::Update,
        &segs,
    ));
    client.send(Request::over(
        2,
        sessions[2],
        DigestOp::Final,
        &[(out_at(2), 32)],
    ));
    if client.tx.take_signal_request() {
        HASHER.notify();
    }
    client
}

pd_runtime::protection_domain!(init);
