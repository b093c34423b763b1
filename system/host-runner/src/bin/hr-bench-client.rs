//! Benchmark client PD: times `PD_BENCH_ROUNDS` notification round trips and as many
//! PPC round trips to the server, after as many warm-up rounds, prints
//! `bench rounds=N notify_ns=X ppc_ns=Y` (mean per round trip) and exits 0. Without
//! `PD_BENCH_ROUNDS` it idles until stopped (the CLI tests use that). Host only: it
//! reads the environment and the clock through std.
use std::time::Instant;

use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, get_mr, set_mr};

const SERVER: Channel = Channel::new(0);

struct Bench {
    rounds: u64,
    done: u64,
    start: Instant,
}

impl Handler for Bench {
    fn notified(&mut self, _: ChannelSet) {
        self.done += 1;
        if self.done == self.rounds {
            self.start = Instant::now();
        }
        if self.done < 2 * self.rounds {
            SERVER.notify();
            return;
        }
        let notify_ns = self.start.elapsed().as_nanos() as u64 / self.rounds;
        for i in 0..self.rounds {
            ppc_once(i);
        }
        let start = Instant::now();
        for i in 0..self.rounds {
            ppc_once(i);
        }
        let ppc_ns = start.elapsed().as_nanos() as u64 / self.rounds;
        debug_println!(
            "bench rounds={} notify_ns={notify_ns} ppc_ns={ppc_ns}",
            self.rounds
        );
        pd_runtime::exit(0);
    }
}

fn ppc_once(i: u64) {
    set_mr(0, i);
    let reply = SERVER
        .pp_call(MessageInfo::new(1, 1))
        .expect("server alive");
    assert_eq!(
        (reply.count(), get_mr(0)),
        (1, i + 1),
        "echo server answers i + 1"
    );
}

fn init() -> Bench {
    let rounds = std::env::var("PD_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok());
    if let Some(rounds) = rounds {
        SERVER.notify();
        Bench {
            rounds,
            done: 0,
            start: Instant::now(),
        }
    } else {
        debug_println!("bench client: idle (PD_BENCH_ROUNDS is not set)");
        Bench {
            rounds: 0,
            done: 0,
            start: Instant::now(),
        }
    }
}

pd_runtime::protection_domain!(init);
