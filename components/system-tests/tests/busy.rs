//! A driver PD goes on serving while its engine works: a call and another client's
//! notification are handled while a long PIO request is in flight (counted in the
//! driver's trace, not read from log text), the other client's request waits behind the
//! engine and is answered, and the long request is right.

mod common;

use common::{WAIT, boot, serial};
use pd_trace::Kind;

#[test]
fn a_driver_answers_a_call_and_another_client_while_its_engine_is_busy() {
    let _turn = serial();
    let system = boot("busy.system");
    let done = system.wait_exit("loader", WAIT) && system.wait_exit("prober", WAIT);
    let out = system.wait_until(WAIT, |_, o| Some(o.to_vec())).unwrap();
    assert!(done, "{out:?}");
    let trace = system.trace("trace").expect("the driver keeps a trace");
    // Handled while busy: the prober's open_session call and its queue notification.
    assert!(trace.count(Kind::CallWhileBusy) >= 1, "{trace:?}");
    assert!(trace.count(Kind::NotifiedWhileBusy) >= 1, "{trace:?}");
    // Three requests on the PIO path (the loader's encrypt and decrypt, the prober's
    // 32 bytes), none refused; two interrupts a block at least for the long ones.
    assert_eq!(trace.count(Kind::DonePio), 3, "{trace:?}");
    assert_eq!(trace.count(Kind::Refused), 0);
    assert!(trace.count(Kind::Interrupt) >= 2 * 2 * 1024);
    assert_eq!(trace.count(Kind::SessionOpened), 3);
    assert_eq!(trace.count(Kind::Started), 1);
    assert!(!trace.busy, "nothing left in flight");
    // The ring ends with the last events in order.
    let ring: Vec<_> = trace.ring.iter().flatten().collect();
    assert!(ring.windows(2).all(|w| w[1].seq == w[0].seq + 1));
    assert_eq!(ring.last().map(|e| e.seq + 1), Some(trace.written));
}
