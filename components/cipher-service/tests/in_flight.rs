//! What happens to requests in flight while the engine works: the PD takes nothing more
//! than the engine holds, answers the right client when the interrupt comes, and keeps
//! its promises when the session closes, the client is cut off, the engine fails or
//! the watchdog fires. The engine here is a stand-in that finishes a request only on
//! its `n`-th interrupt, holding one request or several, so every interleaving is
//! reached on purpose.

use cipher_service::testkit::{DATA, hex, open_args, request, status};
use cipher_service::{
    CipherEngine, ClientData, Finished, Job, MAX_IN_FLIGHT, Service, Session, Sessions, Step,
};
use pd_idl::cipher::{self, CipherError, Mode, Path, Request, Response};
use pd_idl::wire::Caller;
use queued_service::Refusal;
use shm_queue::{Consumer, Producer, SharedRegion};

const A: Caller = Caller(0);
const B: Caller = Caller(1);

/// Finishes each request on its `interrupts`-th interrupt (0: at once), with the IV
/// `[n; 16]` for the n-th request; or fails it with `fail`.
#[derive(Default)]
struct Slow {
    interrupts: u32,
    /// Requests it holds at once (0 taken as 1).
    depth: usize,
    seen: [u32; MAX_IN_FLIGHT],
    /// The IV each place's request leaves: its start's number.
    ivs: [u8; MAX_IN_FLIGHT],
    started: u32,
    cancelled: u32,
    closed: u32,
    fail: Option<CipherError>,
}

impl Slow {
    fn result(&self, slot: usize) -> Step {
        Step::Done(match self.fail {
            Some(e) => Err(e),
            None => Ok(Finished::new(Path::Dma, [self.ivs[slot]; 16])),
        })
    }
}

impl CipherEngine for Slow {
    fn supports(&self, _: &Session) -> Result<(), CipherError> {
        Ok(())
    }
    fn depth(&self) -> usize {
        self.depth.max(1)
    }
    fn start(&mut self, job: &Job<'_>) -> Step {
        self.started += 1;
        self.seen[job.slot] = 0;
        self.ivs[job.slot] = self.started as u8;
        if self.interrupts == 0 {
            self.result(job.slot)
        } else {
            Step::Pending
        }
    }
    fn interrupt(&mut self, job: &Job<'_>) -> Step {
        self.seen[job.slot] += 1;
        if self.seen[job.slot] == self.interrupts {
            self.result(job.slot)
        } else {
            Step::Pending
        }
    }
    fn cancel(&mut self, _: &Job<'_>) {
        self.cancelled += 1;
    }
    fn closed(&mut self, _: &Session) {
        self.closed += 1;
    }
}

#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Line([u8; 64]);

/// One client's queue pair and data region, leaked for the test's life.
struct Client {
    caller: Caller,
    reqs: &'static mut [Line],
    resps: &'static mut [Line],
    data: ClientData<'static>,
}

fn lines(bytes: usize) -> &'static mut [Line] {
    Box::leak(vec![Line([0; 64]); bytes.div_ceil(64)].into_boxed_slice())
}

fn region(lines: &mut [Line]) -> SharedRegion<'_> {
    // SAFETY: leaked plain bytes, reached only through the queue handles made here.
    unsafe { SharedRegion::from_raw(lines.as_mut_ptr().cast(), lines.len() * 64) }
}

impl Client {
    fn new(caller: Caller) -> Self {
        let data = lines(DATA);
        // SAFETY: leaked, reached only by the service's volatile copies.
        let shared = unsafe { SharedRegion::from_raw(data.as_mut_ptr().cast(), DATA) };
        Client {
            caller,
            reqs: lines(cipher::REQUEST_QUEUE_BYTES),
            resps: lines(cipher::RESPONSE_QUEUE_BYTES),
            data: ClientData {
                region: shared,
                phys: None,
            },
        }
    }

    fn send(&mut self, requests: &[Request]) {
        let mut tx = Producer::<Request>::attach(region(self.reqs), 64).unwrap();
        assert_eq!(tx.enqueue_many(requests).unwrap(), requests.len());
    }

    /// One serving pass over this client's queue; how many were answered at once.
    fn serve(&mut self, service: &mut Service<'static, Slow>) -> usize {
        let mut rx = Consumer::<Request>::attach(region(self.reqs), 64).unwrap();
        let mut tx = Producer::<Response>::attach(region(self.resps), 64).unwrap();
        service
            .serve(self.caller, &mut rx, &mut tx, self.data)
            .unwrap()
            .0
    }

    /// Delivers an answer that finished in flight (as the PD does).
    fn deliver(&mut self, response: Response) {
        let mut tx = Producer::<Response>::attach(region(self.resps), 64).unwrap();
        tx.enqueue(response).unwrap();
    }

    fn answers(&mut self) -> Vec<Response> {
        let mut rx = Consumer::<Response>::attach(region(self.resps), 64).unwrap();
        let mut got = vec![zerocopy::FromZeros::new_zeroed(); 64];
        let n = rx.dequeue_many(&mut got).unwrap();
        got.truncate(n);
        got
    }

    /// Requests still waiting in its queue.
    fn waiting(&mut self) -> u32 {
        let rx = Consumer::<Request>::attach(region(self.reqs), 64).unwrap();
        rx.len().unwrap()
    }
}

/// One interrupt: the answers it finished (the engines here finish one at most).
fn int(svc: &mut Service<'static, Slow>) -> Option<(Caller, Response)> {
    let all: Vec<_> = svc.interrupt().answers().collect();
    assert!(
        all.len() <= 1,
        "one request in flight at most: {}",
        all.len()
    );
    all.into_iter().next()
}

fn expire(svc: &mut Service<'static, Slow>) -> Option<(Caller, Response)> {
    svc.expire().answers().next()
}

fn service(interrupts: u32) -> Service<'static, Slow> {
    Service::new(
        Slow {
            interrupts,
            ..Slow::default()
        },
        Sessions::default(),
    )
}

fn open(service: &mut Service<'static, Slow>, owner: Caller) -> u32 {
    let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
    let args = open_args(Mode::Cbc, Path::Adaptive, &key, &[0; 16]);
    service.open(owner, args.into()).unwrap()
}

#[test]
fn requests_wait_behind_the_engine_and_each_answer_goes_to_its_client() {
    let mut svc = service(3);
    let (mut a, mut b) = (Client::new(A), Client::new(B));
    let (sa, sb) = (open(&mut svc, A), open(&mut svc, B));
    a.send(&[request(1, sa, &[(0, 32)]), request(2, sa, &[(64, 16)])]);
    b.send(&[request(7, sb, &[(0, 16)])]);
    assert_eq!(a.serve(&mut svc), 0, "the first request went in flight");
    assert!(svc.busy());
    assert_eq!(a.waiting(), 1, "A's second request waits in its queue");
    assert_eq!(b.serve(&mut svc), 0, "nothing is taken from B while busy");
    assert_eq!(b.waiting(), 1);
    // Interrupts that do not finish the request answer nothing.
    assert_eq!(int(&mut svc), None);
    assert_eq!(int(&mut svc), None);
    let (to, answer) = int(&mut svc).expect("the third interrupt finishes it");
    assert_eq!((to, answer.id, status(&answer)), (A, 1, Ok(())));
    assert_eq!(answer.bytes_done, 32);
    a.deliver(answer);
    assert_eq!(svc.sessions.get_mut(A, sa).unwrap().iv, [1; 16], "IV kept");
    // The engine is free: B's request is next, then A's second.
    assert_eq!(b.serve(&mut svc), 0);
    let (to, answer) = (0..3).find_map(|_| int(&mut svc)).unwrap();
    assert_eq!((to, answer.id), (B, 7));
    b.deliver(answer);
    assert_eq!(a.serve(&mut svc), 0);
    let (to, answer) = (0..3).find_map(|_| int(&mut svc)).unwrap();
    assert_eq!((to, answer.id), (A, 2));
    a.deliver(answer);
    assert_eq!(a.answers().len(), 2);
    assert_eq!(b.answers().len(), 1);
    assert!(!svc.busy());
}

#[test]
fn a_request_whose_session_closes_in_flight_is_answered_and_its_iv_dropped() {
    let mut svc = service(1);
    let mut a = Client::new(A);
    let s = open(&mut svc, A);
    a.send(&[request(1, s, &[(0, 16)])]);
    a.serve(&mut svc);
    assert!(svc.busy());
    svc.close(A, s).unwrap();
    assert_eq!(svc.engine.closed, 1, "the engine forgets the session's key");
    let (to, answer) = int(&mut svc).unwrap();
    assert_eq!((to, answer.id, status(&answer)), (A, 1, Ok(())));
    assert_eq!(answer.bytes_done, 16, "accepted work is answered");
    assert_eq!(
        svc.sessions.get_mut(A, s).err(),
        Some(Refusal::UnknownSession)
    );
}

#[test]
fn a_request_of_a_client_cut_off_in_flight_finishes_unanswered() {
    let mut svc = service(1);
    let (mut a, mut b) = (Client::new(A), Client::new(B));
    let (sa, sb) = (open(&mut svc, A), open(&mut svc, B));
    a.send(&[request(1, sa, &[(0, 16)])]);
    b.send(&[request(2, sb, &[(0, 16)])]);
    a.serve(&mut svc);
    assert_eq!(svc.cut_off(A), 1, "its session closed");
    assert_eq!(
        int(&mut svc),
        None,
        "nothing to answer: its queues are broken"
    );
    assert!(!svc.busy(), "the engine is free for the others");
    b.serve(&mut svc);
    assert_eq!(int(&mut svc).map(|(to, r)| (to, r.id)), Some((B, 2)));
}

#[test]
fn an_engine_error_in_flight_fails_that_request_alone() {
    let mut svc = service(1);
    let mut a = Client::new(A);
    let s = open(&mut svc, A);
    a.send(&[request(1, s, &[(0, 16)]), request(2, s, &[(16, 16)])]);
    svc.engine.fail = Some(CipherError::EngineFault);
    a.serve(&mut svc);
    let (_, answer) = int(&mut svc).unwrap();
    assert_eq!(status(&answer), Err(CipherError::EngineFault));
    assert_eq!(answer.bytes_done, 0);
    assert_eq!(
        svc.sessions.get_mut(A, s).unwrap().iv,
        [0; 16],
        "IV untouched"
    );
    svc.engine.fail = None;
    a.deliver(answer);
    a.serve(&mut svc);
    let (_, answer) = int(&mut svc).unwrap();
    assert_eq!((answer.id, status(&answer)), (2, Ok(())));
}

#[test]
fn the_watchdog_cancels_a_request_whose_interrupt_never_comes() {
    let mut svc = service(u32::MAX);
    let mut a = Client::new(A);
    let s = open(&mut svc, A);
    a.send(&[request(1, s, &[(0, 16)])]);
    a.serve(&mut svc);
    for _ in 0..100 {
        assert_eq!(int(&mut svc), None);
    }
    let (to, answer) = expire(&mut svc).expect("the request in flight");
    assert_eq!((to, answer.id), (A, 1));
    assert_eq!(status(&answer), Err(CipherError::EngineFault));
    assert_eq!(svc.engine.cancelled, 1);
    assert!(!svc.busy());
    assert_eq!(expire(&mut svc), None, "nothing left to cancel");
}

#[test]
fn a_request_finished_at_start_takes_no_interrupt() {
    let mut svc = service(0);
    let mut a = Client::new(A);
    let s = open(&mut svc, A);
    let requests: Vec<_> = (0..10).map(|i| request(i, s, &[(0, 16)])).collect();
    a.send(&requests);
    assert_eq!(
        a.serve(&mut svc),
        10,
        "an engine that finishes at once is never busy"
    );
    assert!(!svc.busy());
    assert_eq!(int(&mut svc), None);
}

#[test]
fn a_deep_engine_holds_several_sessions_requests_and_runs_each_sessions_in_order() {
    let mut svc = Service::new(
        Slow {
            interrupts: 1,
            depth: 2,
            ..Slow::default()
        },
        Sessions::default(),
    );
    let (mut a, mut b) = (Client::new(A), Client::new(B));
    let (s1, s2, sb) = (open(&mut svc, A), open(&mut svc, A), open(&mut svc, B));
    a.send(&[
        request(1, s1, &[(0, 16)]),
        request(2, s1, &[(16, 16)]),
        request(3, s2, &[(32, 16)]),
    ]);
    b.send(&[request(7, sb, &[(0, 16)])]);
    assert_eq!(a.serve(&mut svc), 0);
    assert_eq!(svc.in_flight(), 1);
    assert_eq!(
        a.waiting(),
        2,
        "request 2 waits for request 1 of its session"
    );
    assert!(!svc.full());
    assert_eq!(b.serve(&mut svc), 0);
    assert_eq!(
        (svc.in_flight(), svc.full()),
        (2, true),
        "B's request beside A's"
    );
    let done: Vec<_> = svc.interrupt().answers().collect();
    let ids: Vec<_> = done.iter().map(|(to, r)| (*to, r.id)).collect();
    assert_eq!(ids, [(A, 1), (B, 7)], "one interrupt finished both");
    for (to, r) in done {
        if to == A { a.deliver(r) } else { b.deliver(r) }
    }
    assert_eq!(
        svc.sessions.get_mut(A, s1).unwrap().iv,
        [1; 16],
        "request 1's IV kept"
    );
    // Request 2 starts from request 1's IV; request 3 (another session) beside it.
    assert_eq!(a.serve(&mut svc), 0);
    assert_eq!((svc.in_flight(), a.waiting()), (2, 0));
    let done: Vec<_> = svc.interrupt().answers().collect();
    let ids: Vec<_> = done.iter().map(|(to, r)| (*to, r.id)).collect();
    assert_eq!(ids, [(A, 2), (A, 3)]);
    assert!(!svc.busy());
    assert_eq!(svc.engine.started, 4, "each request started once");
}

#[test]
fn a_deep_engine_takes_no_request_whose_answer_would_have_no_room() {
    let mut svc = Service::new(
        Slow {
            interrupts: 1,
            depth: 4,
            ..Slow::default()
        },
        Sessions::default(),
    );
    let mut a = Client::new(A);
    let (s1, s2) = (open(&mut svc, A), open(&mut svc, A));
    // Leave room for one answer only.
    let mut tx = Producer::<Response>::attach(region(a.resps), 64).unwrap();
    let filler = zerocopy::FromZeros::new_zeroed();
    while tx.free().unwrap() > 1 {
        tx.enqueue(filler).unwrap();
    }
    a.send(&[request(1, s1, &[(0, 16)]), request(2, s2, &[(16, 16)])]);
    assert_eq!(a.serve(&mut svc), 0);
    assert_eq!(
        svc.in_flight(),
        1,
        "the second would owe an answer with no room"
    );
    assert_eq!(a.waiting(), 1);
}

/// A session id of an earlier incarnation of the driver is refused `ServerRestarted`
/// (its session died with that incarnation; the client reports a restart), one of this
/// incarnation that names no live session `UnknownSession`, on requests and on close.
#[test]
fn an_id_of_an_earlier_incarnation_is_server_restarted() {
    let mut old = service(1);
    old.sessions = Sessions::for_incarnation(1);
    let stale = open(&mut old, A);
    let mut svc = service(1);
    svc.sessions = Sessions::for_incarnation(2);
    let live = open(&mut svc, A);
    assert_eq!(
        svc.sessions.get_mut(A, stale).err(),
        Some(Refusal::ServerRestarted)
    );
    assert_eq!(
        svc.sessions.close(A, stale).err(),
        Some(Refusal::ServerRestarted)
    );
    svc.sessions.close(A, live).unwrap();
    assert_eq!(
        svc.sessions.get_mut(A, live).err(),
        Some(Refusal::UnknownSession)
    );
}
