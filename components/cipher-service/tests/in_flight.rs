//! What happens to the request in flight while the engine works: the PD keeps taking
//! nothing from anyone, answers the right client when the interrupt comes, and keeps
//! its promises when the session closes, the client is cut off, the engine fails or
//! the watchdog fires. The engine here is a stand-in that finishes a request only on
//! its `n`-th interrupt, so every interleaving is reached on purpose.

use cipher_service::testkit::{DATA, hex, request, status};
use cipher_service::{CipherEngine, ClientData, Finished, Job, Service, Session, Sessions, Step};
use pd_idl::cipher::{self, CipherError, Mode, Path, Request, Response};
use pd_idl::wire::Caller;
use shm_queue::{Consumer, Producer, SharedRegion};

const A: Caller = Caller(0);
const B: Caller = Caller(1);

/// Finishes each request on its `interrupts`-th interrupt (0: at once), with the IV
/// `[n; 16]` for the n-th request; or fails it with `fail`.
#[derive(Default)]
struct Slow {
    interrupts: u32,
    seen: u32,
    started: u32,
    cancelled: u32,
    closed: u32,
    fail: Option<CipherError>,
}

impl Slow {
    fn result(&self) -> Step {
        Step::Done(match self.fail {
            Some(e) => Err(e),
            None => Ok(Finished {
                path: Path::Dma,
                next_iv: [self.started as u8; 16],
            }),
        })
    }
}

impl CipherEngine for Slow {
    fn supports(&self, _: &Session) -> Result<(), CipherError> {
        Ok(())
    }
    fn start(&mut self, _: &Job<'_>) -> Step {
        self.started += 1;
        self.seen = 0;
        if self.interrupts == 0 {
            self.result()
        } else {
            Step::Pending
        }
    }
    fn interrupt(&mut self, _: &Job<'_>) -> Step {
        self.seen += 1;
        if self.seen == self.interrupts {
            self.result()
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
    let mut k = [0; 32];
    k[..16].copy_from_slice(&key);
    let s = Session {
        owner,
        mode: Mode::Cbc,
        path: Path::Adaptive,
        key_len: 16,
        key: k,
        iv: [0; 16],
    };
    service.sessions.open(s, |_| Ok(())).unwrap()
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
    assert_eq!(svc.interrupt(), None);
    assert_eq!(svc.interrupt(), None);
    let (to, answer) = svc.interrupt().expect("the third interrupt finishes it");
    assert_eq!((to, answer.id, status(&answer)), (A, 1, Ok(())));
    assert_eq!(answer.bytes_done, 32);
    a.deliver(answer);
    assert_eq!(svc.sessions.get_mut(A, sa).unwrap().iv, [1; 16], "IV kept");
    // The engine is free: B's request is next, then A's second.
    assert_eq!(b.serve(&mut svc), 0);
    let (to, answer) = (0..3).find_map(|_| svc.interrupt()).unwrap();
    assert_eq!((to, answer.id), (B, 7));
    b.deliver(answer);
    assert_eq!(a.serve(&mut svc), 0);
    let (to, answer) = (0..3).find_map(|_| svc.interrupt()).unwrap();
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
    let (to, answer) = svc.interrupt().unwrap();
    assert_eq!((to, answer.id, status(&answer)), (A, 1, Ok(())));
    assert_eq!(answer.bytes_done, 16, "accepted work is answered");
    assert_eq!(
        svc.sessions.get_mut(A, s).err(),
        Some(CipherError::UnknownSession)
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
        svc.interrupt(),
        None,
        "nothing to answer: its queues are broken"
    );
    assert!(!svc.busy(), "the engine is free for the others");
    b.serve(&mut svc);
    assert_eq!(svc.interrupt().map(|(to, r)| (to, r.id)), Some((B, 2)));
}

#[test]
fn an_engine_error_in_flight_fails_that_request_alone() {
    let mut svc = service(1);
    let mut a = Client::new(A);
    let s = open(&mut svc, A);
    a.send(&[request(1, s, &[(0, 16)]), request(2, s, &[(16, 16)])]);
    svc.engine.fail = Some(CipherError::EngineFault);
    a.serve(&mut svc);
    let (_, answer) = svc.interrupt().unwrap();
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
    let (_, answer) = svc.interrupt().unwrap();
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
        assert_eq!(svc.interrupt(), None);
    }
    let (to, answer) = svc.expire().expect("the request in flight");
    assert_eq!((to, answer.id), (A, 1));
    assert_eq!(status(&answer), Err(CipherError::EngineFault));
    assert_eq!(svc.engine.cancelled, 1);
    assert!(!svc.busy());
    assert_eq!(svc.expire(), None, "nothing left to cancel");
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
    assert_eq!(svc.interrupt(), None);
}
