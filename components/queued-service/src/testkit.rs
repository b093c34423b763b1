//! Test support shared by every interface's engine tests (feature `testkit`, host only):
//! an in-process stand-in for a client and a driver sharing a queue pair and a data
//! region. Each interface's testkit adds its calls and requests; each engine's tests add
//! only the board their engine sits on and the paths they exercise.

use std::boxed::Box;
use std::vec;
use std::vec::Vec;

use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion, region_size};

use crate::{ClientData, Interface, Service, Sessions};

/// The client the rig plays by default.
pub const CLIENT: Caller = Caller(4);
/// Interrupt polls per request before the rig's watchdog cancels it.
const POLLS: u32 = 1 << 16;

/// Makes an interface's own test rig (a struct with a field `rig` holding this
/// crate's [`Rig`]) deref to that rig, so its tests reach the shared calls directly:
/// `rig_wraps!(Rig<E: CipherEngine> => Cipher<E>);`.
#[macro_export]
macro_rules! rig_wraps {
    ($wrapper:ident<$e:ident: $bound:path> => $iface:ty) => {
        impl<$e: $bound> ::core::ops::Deref for $wrapper<$e> {
            type Target = $crate::testkit::Rig<$iface>;
            fn deref(&self) -> &Self::Target {
                &self.rig
            }
        }
        impl<$e: $bound> ::core::ops::DerefMut for $wrapper<$e> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.rig
            }
        }
    };
}

/// Memory that a device model may reach by address while the rig also uses it (as a
/// client's data region is reached by the client, the driver and DMA): owned through a
/// raw pointer, never a Rust reference held across a model's access, and leaked, so a
/// model that kept the address finds it mapped for the rest of the test.
pub struct Region {
    ptr: *mut u8,
    len: usize,
}

impl Region {
    pub fn new(len: usize) -> Self {
        let mem: Box<[u8]> = vec![0u8; len].into_boxed_slice();
        Region {
            ptr: Box::leak(mem).as_mut_ptr(),
            len,
        }
    }

    /// For `PhysMap::add_raw`: valid for `len()` bytes for the rest of the process.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes `bytes` at `offset` (between requests, as a client fills its region).
    pub fn write(&mut self, offset: usize, bytes: &[u8]) {
        self.bytes_mut()[offset..offset + bytes.len()].copy_from_slice(bytes);
    }

    /// The region's bytes, as the client reads them between requests.
    pub fn bytes(&self) -> &[u8] {
        #[allow(unsafe_code)]
        // SAFETY: a leaked allocation of `len` bytes; writers need `&mut self`.
        unsafe {
            core::slice::from_raw_parts(self.ptr, self.len)
        }
    }

    /// The region's bytes, as the client writes them between requests.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        #[allow(unsafe_code)]
        // SAFETY: a leaked allocation of `len` bytes; `&mut self` makes this the only
        // reference, and models reach the memory only inside the driver's calls.
        unsafe {
            core::slice::from_raw_parts_mut(self.ptr, self.len)
        }
    }

    /// The region as the driver sees it.
    fn shared(&self) -> SharedRegion<'static> {
        #[allow(unsafe_code)]
        // SAFETY: leaked, so valid for the rest of the process; the rig holds no
        // reference into it while the driver works.
        unsafe {
            SharedRegion::from_raw(self.ptr, self.len)
        }
    }
}

/// Queue memory (cache-line aligned, as the shared regions are).
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

fn lines(bytes: usize) -> Vec<Line> {
    vec![Line([0; 64]); bytes.div_ceil(64)]
}

fn queue(lines: &mut [Line]) -> SharedRegion<'_> {
    #[allow(unsafe_code)]
    // SAFETY: `lines` is plain bytes the rig owns for the region's lifetime, reached
    // only through the queue handles made here.
    unsafe {
        SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64)
    }
}

/// A client, its queue pair and data region, and a driver serving them with the
/// interface's engine.
pub struct Rig<I: Interface> {
    reqs: Vec<Line>,
    resps: Vec<Line>,
    pub data: Region,
    /// The data region's physical address, as the driver is told it (`None`: no DMA).
    pub phys: Option<u64>,
    /// The service the rig plays the driver with.
    pub service: Service<'static, I>,
}

impl<I: Interface> Rig<I> {
    pub fn new(engine: I::Engine, data: Region, phys: Option<u64>) -> Self {
        Rig {
            reqs: lines(region_size::<I::Request>(I::CAPACITY)),
            resps: lines(region_size::<I::Response>(I::CAPACITY)),
            data,
            phys,
            service: Service::new(engine, Sessions::default()),
        }
    }

    /// The data region as the driver sees it (for a call that takes an argument from
    /// it, as `Calls::data` gives it to a PD's calls).
    pub fn client_data(&self) -> ClientData<'static> {
        ClientData {
            region: self.data.shared(),
            phys: self.phys,
        }
    }

    /// Opens a session as `caller`, as its `open_session` call would.
    pub fn open_as(&mut self, caller: Caller, args: I::Open) -> Result<u32, I::Error> {
        self.service.open(caller, args)
    }

    /// Sends raw requests as `caller` and serves them until the engine is idle (the
    /// rig's watchdog cancels a job whose interrupt never comes); the answers.
    pub fn exchange(&mut self, caller: Caller, requests: &[I::Request]) -> Vec<I::Response> {
        self.run(caller, requests, true)
    }

    /// Sends raw requests as `caller` and makes one serving pass, taking no interrupt
    /// (a job it starts stays in flight); the answers given at once.
    pub fn serve_once(&mut self, caller: Caller, requests: &[I::Request]) -> Vec<I::Response> {
        self.run(caller, requests, false)
    }

    /// Sends raw requests as `caller` and serves them as a driver does while other
    /// clients are served too: each pass with `budget` of engine work (a deficit round
    /// robin grant, so a request larger than it is parked and served in pieces), the
    /// engine's interrupts taken between passes, until every request is answered; the
    /// answers and the passes it took. Between passes `between` runs (another client's
    /// turn, say), with the rig.
    pub fn exchange_within(
        &mut self,
        caller: Caller,
        requests: &[I::Request],
        budget: i64,
        mut between: impl FnMut(&mut Self),
    ) -> (Vec<I::Response>, u32) {
        let mut tx = Producer::<I::Request>::attach(queue(&mut self.reqs), I::CAPACITY).unwrap();
        assert_eq!(tx.enqueue_many(requests).unwrap(), requests.len());
        let mut passes = 0u32;
        let mut answers = Vec::new();
        let untraced = pd_trace::Trace::new(None);
        while answers.len() < requests.len() {
            passes += 1;
            assert!(
                passes < POLLS,
                "{} of {} answered",
                answers.len(),
                requests.len()
            );
            let data = self.client_data();
            let mut rx =
                Consumer::<I::Request>::attach(queue(&mut self.reqs), I::CAPACITY).unwrap();
            let mut out = Producer::attach(queue(&mut self.resps), I::CAPACITY).unwrap();
            let mut grant = budget;
            self.service
                .serve_within(
                    caller,
                    &mut rx,
                    &mut out,
                    data,
                    usize::MAX,
                    &mut grant,
                    &untraced,
                )
                .unwrap();
            let mut polls = 0;
            while self.service.busy() {
                land(&mut self.service, caller, &mut out, &mut polls);
            }
            let mut back =
                Consumer::<I::Response>::attach(queue(&mut self.resps), I::CAPACITY).unwrap();
            while let Ok(r) = back.dequeue() {
                answers.push(r);
            }
            between(self);
        }
        (answers, passes)
    }

    /// Takes the engine's interrupt once: how many jobs finished, and the answers given
    /// (queued for the client, and returned with the client they went to).
    pub fn interrupt(&mut self) -> (usize, Vec<(Caller, I::Response)>) {
        let landed = self.service.interrupt();
        let given: Vec<_> = landed.answers().collect();
        let mut out = self.responses();
        for (_, r) in &given {
            out.enqueue(*r).expect("room was checked");
        }
        (landed.count(), given)
    }

    fn responses(&mut self) -> Producer<'_, I::Response> {
        Producer::attach(queue(&mut self.resps), I::CAPACITY).expect("layout")
    }

    fn run(
        &mut self,
        caller: Caller,
        requests: &[I::Request],
        interrupts: bool,
    ) -> Vec<I::Response> {
        let mut tx = Producer::<I::Request>::attach(queue(&mut self.reqs), I::CAPACITY).unwrap();
        assert_eq!(tx.enqueue_many(requests).unwrap(), requests.len());
        let mut rx = Consumer::<I::Request>::attach(queue(&mut self.reqs), I::CAPACITY).unwrap();
        let mut out = Producer::attach(queue(&mut self.resps), I::CAPACITY).unwrap();
        let data = ClientData {
            region: self.data.shared(),
            phys: self.phys,
        };
        // Interrupts are polled, bounded, as init code does: the models finish work on
        // the register access that starts it and raise the line at once.
        let mut polls = 0u32;
        loop {
            self.service.serve(caller, &mut rx, &mut out, data).unwrap();
            if !interrupts || !self.service.busy() {
                break;
            }
            land(&mut self.service, caller, &mut out, &mut polls);
        }
        let mut back =
            Consumer::<I::Response>::attach(queue(&mut self.resps), I::CAPACITY).unwrap();
        let mut got =
            vec![<I::Response as zerocopy::FromZeros>::new_zeroed(); I::CAPACITY as usize];
        let n = back.dequeue_many(&mut got).unwrap();
        got.truncate(n);
        got
    }
}

/// Takes `service`'s interrupt (the watchdog's expiry instead, as a PD's would fire,
/// after [`POLLS`] of them) and queues the answers, which go to `caller`.
fn land<I: Interface>(
    service: &mut Service<'static, I>,
    caller: Caller,
    out: &mut Producer<'_, I::Response>,
    polls: &mut u32,
) {
    *polls += 1;
    let landed = if *polls < POLLS {
        service.interrupt()
    } else {
        *polls = 0;
        service.expire()
    };
    for (to, r) in landed.answers() {
        assert_eq!(to, caller, "answers go to the requester");
        out.enqueue(r).expect("room was checked");
    }
}

/// A region's fill no engine's output matches by chance: `(i * 7 + 1)` over `len` bytes.
pub fn fill(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 1) as u8).collect()
}

/// Writes `msg` across `segs`, in order, into `bytes` (a region's bytes, or what they
/// are expected to be).
pub fn lay(bytes: &mut [u8], segs: &[(u32, u32)], msg: &[u8]) {
    let mut from = 0;
    for &(at, len) in segs {
        let (at, len) = (at as usize, len as usize);
        bytes[at..at + len].copy_from_slice(&msg[from..from + len]);
        from += len;
    }
    assert_eq!(from, msg.len(), "the segments cover the message");
}

impl Region {
    /// Puts `msg` in the region as segments of the `split` lengths, the first at
    /// `first` and each `gap` bytes past the one before (odd offsets and gaps make
    /// segments neither aligned nor contiguous); the segments, and where a next one
    /// would start.
    pub fn scatter(
        &mut self,
        first: usize,
        gap: usize,
        msg: &[u8],
        split: &[usize],
    ) -> (Vec<(u32, u32)>, usize) {
        let mut at = first;
        let segs: Vec<(u32, u32)> = split
            .iter()
            .map(|&len| {
                let seg = (at as u32, len as u32);
                at += len + gap;
                seg
            })
            .collect();
        lay(self.bytes_mut(), &segs, msg);
        (segs, at)
    }
}

/// The place a rig's requests name for an answer's bytes (a digest, a tag): `len` bytes
/// at an odd offset near the region's end, away from data laid from its start, with
/// [`OutputPlace::CANARY`] bytes on both sides that must survive every request.
#[derive(Clone, Copy, Debug)]
pub struct OutputPlace {
    pub at: u32,
    pub len: u32,
}

impl OutputPlace {
    pub const CANARY: u8 = 0xc5;
    const AROUND: usize = 7;

    pub fn near_end(region: &Region, len: u32) -> Self {
        let at = region.len() - len as usize - Self::AROUND;
        OutputPlace { at: at as u32, len }
    }

    /// As a request's segment.
    pub fn seg(&self) -> (u32, u32) {
        (self.at, self.len)
    }

    /// Sets the place and the bytes around it to the canary, before a request.
    pub fn guard(&self, region: &mut Region) {
        let at = self.at as usize;
        region.bytes_mut()[at - Self::AROUND..at + self.len as usize + Self::AROUND]
            .fill(Self::CANARY);
    }

    /// The `n` bytes an answer says it wrote at the place, checking that nothing before
    /// the place or past those bytes changed since [`guard`](Self::guard).
    pub fn take(&self, region: &Region, n: usize) -> Vec<u8> {
        let (at, len) = (self.at as usize, self.len as usize);
        let bytes = region.bytes();
        let canary = |r: core::ops::Range<usize>| bytes[r].iter().all(|&b| b == Self::CANARY);
        assert!(
            canary(at - Self::AROUND..at),
            "nothing written before the output place"
        );
        assert!(
            n <= len && canary(at + n..at + len + Self::AROUND),
            "exactly {n} bytes written at the output place, nothing past them"
        );
        bytes[at..at + n].to_vec()
    }
}

/// Sends `msg` as one request per entry of `requests` (each a list of segment lengths)
/// through `send(last, part, split)`; the last request's result. Stops at the first
/// refusal.
pub fn feed<T, E>(
    msg: &[u8],
    requests: &[&[usize]],
    mut send: impl FnMut(bool, &[u8], &[usize]) -> Result<T, E>,
) -> Result<Option<T>, E> {
    let mut from = 0;
    let mut out = None;
    for (i, split) in requests.iter().enumerate() {
        let len: usize = split.iter().sum();
        out = Some(send(
            i + 1 == requests.len(),
            &msg[from..from + len],
            split,
        )?);
        from += len;
    }
    assert_eq!(from, msg.len(), "requests cover the message");
    Ok(out)
}
