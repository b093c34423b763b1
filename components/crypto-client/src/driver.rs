//! A client PD's driver as one value ([`Driver`]): its calls by PPC, its queue link and
//! the channel both go over, built the way [`crate::pd`]'s conventions say (or from a
//! channel and a queue region the client names), with the notification a submit or a
//! poll owes the driver when it asked. What every client PD wired up by hand before.
//! [`Stream`]: the load the restart and storm test clients keep on a Cipher driver.

use pd_idl::wire::CallError;
use pd_idl::{aead, cipher, digest, mac, rng};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, MemoryRegion};
use shm_queue::QueueError;

use crate::{Answers, Completion, Link, SubmitError, Tagged};

/// A queued driver interface of `pd-idl`: its queue items, its call stubs and their
/// error. The stubs are one type per interface with no trait of their own, so the calls
/// a [`Driver`] makes itself go through here.
pub trait Interface {
    type Request: Tagged;
    type Response: Tagged;
    /// The interface's call stubs over PPC (`open_session` and the rest).
    type Calls;
    type Error: core::fmt::Debug;
    /// Slots in each queue of the pair.
    const CAPACITY: u32;
    fn calls(transport: PpcTransport) -> Self::Calls;
    fn close_session(calls: &mut Self::Calls, session: u32) -> Result<(), CallError<Self::Error>>;
}

// One impl per interface, alike to the letter but for the module: stamped, as `tagged!`
// stamps the queue items'.
macro_rules! interface {
    ($($name:ident: $idl:ident::$error:ident),*) => {$(
        #[doc = concat!("The `", stringify!($idl), "` interface.")]
        pub struct $name;
        impl Interface for $name {
            type Request = $idl::Request;
            type Response = $idl::Response;
            type Calls = $idl::Client<PpcTransport>;
            type Error = $idl::$error;
            const CAPACITY: u32 = $idl::REQUEST_QUEUE_CAPACITY;
            fn calls(transport: PpcTransport) -> Self::Calls {
                $idl::Client::new(transport)
            }
            fn close_session(
                calls: &mut Self::Calls,
                session: u32,
            ) -> Result<(), CallError<Self::Error>> {
                calls.close_session(session)
            }
        }
    )*};
}
interface!(
    Cipher: cipher::CipherError,
    Digest: digest::DigestError,
    Mac: mac::MacError,
    Aead: aead::AeadError,
    Rng: rng::RngError
);

/// A Cipher driver.
pub type CipherDriver = Driver<Cipher>;
/// A Digest driver.
pub type DigestDriver = Driver<Digest>;
/// A Mac driver.
pub type MacDriver = Driver<Mac>;
/// An Aead driver.
pub type AeadDriver = Driver<Aead>;
/// An Rng driver.
pub type RngDriver = Driver<Rng>;

/// One driver of a client PD.
pub struct Driver<I: Interface> {
    pub calls: I::Calls,
    pub link: Link<'static, I::Request, I::Response>,
    channel: Channel,
}

impl<I: Interface> Driver<I> {
    /// The driver on channel 0 with the queue pair in `queues` ([`crate::pd`]).
    pub fn map() -> Self {
        Driver {
            calls: I::calls(PpcTransport(crate::pd::DRIVER)),
            link: crate::pd::link(I::CAPACITY),
            channel: crate::pd::DRIVER,
        }
    }

    /// The driver on `channel` whose queue pair is in `queues`: a client of several
    /// drivers names each.
    pub fn over(channel: Channel, queues: MemoryRegion) -> Self {
        Driver {
            calls: I::calls(PpcTransport(channel)),
            link: crate::pd::link_over(queues, I::CAPACITY),
            channel,
        }
    }

    /// Tells the driver that requests wait: after a batch whose submits said it asked.
    pub fn notify(&self) {
        self.channel.notify();
    }

    /// Submits `req` alone, notifying the driver if it asked.
    pub fn submit(&mut self, req: I::Request) -> Result<(), SubmitError> {
        if self.link.submit(req)? {
            self.notify();
        }
        Ok(())
    }

    /// The answers waiting (at most `N`, see [`Link::answers`]), the driver notified if
    /// it must be: what a client's `notified` starts with.
    pub fn answers<const N: usize>(&mut self) -> Result<Answers<I::Response, N>, QueueError> {
        let answers = self.link.answers::<N>()?;
        if answers.notify {
            self.notify();
        }
        Ok(answers)
    }

    pub fn close_session(&mut self, session: u32) -> Result<(), CallError<I::Error>> {
        I::close_session(&mut self.calls, session)
    }
}

/// Requests a [`Stream`] keeps in flight, one per slot.
pub const SLOTS: u32 = 16;
/// Bytes per request, and per slot at the start of the data region.
pub const BYTES: usize = 64;

/// The restart and storm test clients' load: [`SLOTS`] requests kept in flight on one
/// AES-128-ECB session, request `id` in slot `id % SLOTS` of the data region (ids in
/// order, so a slot is free again before its next id comes round). A restart ends the
/// session; the client opens a new one and goes on.
pub struct Stream {
    pub driver: CipherDriver,
    pub data: crate::pd::Data,
    /// None while the driver restarts.
    pub session: Option<u32>,
    /// The id in flight on each slot.
    busy: [Option<u32>; SLOTS as usize],
    next_id: u32,
    /// No request is submitted any more: the client waits for what is in flight.
    pub draining: bool,
}

impl Stream {
    pub fn map() -> Self {
        Stream {
            driver: Driver::map(),
            data: crate::pd::Data::map(),
            session: None,
            busy: [None; SLOTS as usize],
            next_id: 0,
            draining: false,
        }
    }

    /// Opens the session on the driver's own choice of path; `who` names the client in
    /// the line saying it waits.
    pub fn open(&mut self, who: &str, key: [u8; 16]) -> Option<u32> {
        let mut k = [0; 32];
        k[..16].copy_from_slice(&key);
        let calls = &mut self.driver.calls;
        let opened = calls.open_session(cipher::Mode::Ecb, cipher::Path::Adaptive, 16, k, [0; 16]);
        // An error is a driver restarting: it notifies us when it is back.
        if let Err(e) = &opened {
            pd_runtime::debug_println!("{who}: open_session: {e:?}; waiting for the driver");
        }
        self.session = opened.ok();
        self.session
    }

    /// Submits request after request, `plain(id)` in its slot, until no slot is free,
    /// the queue is full or the stream drains; one notification for them.
    pub fn refill(&mut self, plain: impl Fn(u32) -> [u8; BYTES]) {
        let Some(session) = self.session else { return };
        let mut ask = false;
        while !self.draining {
            let slot = self.next_id % SLOTS;
            if self.busy[slot as usize].is_some() {
                break;
            }
            let at = slot * BYTES as u32;
            self.data.write(at, &plain(self.next_id));
            let req = cipher::Request::over(
                self.next_id,
                session,
                cipher::CipherOp::Encrypt,
                &[(at, BYTES as u32)],
            );
            match self.driver.link.submit(req) {
                Ok(a) => ask |= a,
                Err(_) => break,
            }
            self.busy[slot as usize] = Some(self.next_id);
            self.next_id += 1;
        }
        if ask {
            self.driver.notify();
        }
    }

    /// What became of requests since the last look, the driver notified if it must be.
    /// Each request in flight comes back once, so twice [`SLOTS`] is room to spare.
    pub fn completions(&mut self) -> impl Iterator<Item = Completion<cipher::Response>> + use<> {
        let mut done = [None; 2 * SLOTS as usize];
        let mut n = 0;
        let notify = self
            .driver
            .link
            .poll(|c| {
                done[n] = Some(c);
                n += 1;
            })
            .expect("response queue");
        if notify {
            self.driver.notify();
        }
        done.into_iter().take(n).flatten()
    }

    /// Frees request `id`'s slot; whether `id` was the request in flight there.
    pub fn end(&mut self, id: u32) -> bool {
        let slot = &mut self.busy[(id % SLOTS) as usize];
        slot.take_if(|s| *s == id).is_some()
    }

    /// What request `id`'s slot holds: its answer, once answered.
    pub fn slot(&self, id: u32) -> [u8; BYTES] {
        let mut got = [0; BYTES];
        self.data.read((id % SLOTS) * BYTES as u32, &mut got);
        got
    }

    /// Draining, and nothing left in flight.
    pub fn drained(&self) -> bool {
        self.draining && self.driver.link.in_flight() == 0
    }

    /// After the completions: a new session if the last one died, then the next
    /// requests.
    pub fn resume(&mut self, who: &str, key: [u8; 16], plain: impl Fn(u32) -> [u8; BYTES]) {
        if self.session.is_none() && !self.draining {
            self.open(who, key);
        }
        self.refill(plain);
    }
}
