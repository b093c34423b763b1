//! The demo's speed client: AES-128-CBC on the adaptive path through three driver PDs
//! (OMAP AES on the am335x model, STM32 CRYP on the stm32mp1 model, the CPU engine), a
//! few sizes each, one request in flight, and a small table of what each cost: modelled
//! board time (the board's ledger through its cost table) beside host time through the
//! PDs, and the path the driver chose. Exits 0 once the table is printed. Host only
//! (host time from `std`); the full tool is `speed` (tools/pd-tools).

use std::time::Instant;

use cost_ledger::{CostTable, Counts, Event, Ledger};
use crypto_client::{Completion, Link};
use pd_idl::cipher::{self, CipherOp, Mode, Path, REQUEST_QUEUE_CAPACITY};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, debug_println, exit};
use system_tests::client::{data_at, link_at};
use system_tests::shared::ledger_at;

const SIZES: [u32; 3] = [16, 256, 4096];
/// Requests per size: enough to average, few enough for a demo.
const OPS: u32 = 64;

struct Engine {
    name: &'static str,
    channel: Channel,
    queues: &'static str,
    data: &'static str,
    /// The board's ledger and cost table; `None` for the CPU (no model to charge).
    board: Option<(&'static str, &'static CostTable)>,
}

const ENGINES: [Engine; 3] = [
    Engine {
        name: "omap-aes",
        channel: Channel::new(0),
        queues: "omap_queues",
        data: "omap_data",
        board: Some(("am335x_ledger", &board::am335x::COSTS)),
    },
    Engine {
        name: "stm32-cryp",
        channel: Channel::new(1),
        queues: "stm32_queues",
        data: "stm32_data",
        board: Some(("stm32mp1_ledger", &board::stm32mp1::COSTS)),
    },
    Engine {
        name: "cpu",
        channel: Channel::new(2),
        queues: "cpu_queues",
        data: "cpu_data",
        board: None,
    },
];

struct Current {
    link: Link<'static, cipher::Request, cipher::Response>,
    session: u32,
    ledger: Option<(&'static Ledger, &'static CostTable)>,
    size: usize,
    done: u32,
    paths: [u32; 4],
    before: Counts,
    start: Instant,
    /// Windows measured again because another client used the engine meanwhile.
    retries: u32,
}

struct Speed {
    engine: usize,
    current: Option<Current>,
    rows: Vec<String>,
}

impl Speed {
    /// Opens a session on the next engine and starts its first size.
    fn next_engine(&mut self) {
        let Some(e) = ENGINES.get(self.engine) else {
            self.report()
        };
        let mut calls = cipher::Client::new(PpcTransport(e.channel));
        let session = calls
            .open_session(Mode::Cbc, Path::Adaptive, 16, [0x2b; 32], [0; 16])
            .unwrap_or_else(|err| panic!("demo-speed: {}: open_session: {err:?}", e.name));
        data_at(e.data).write(0, &[0x5a; 4096]);
        let ledger = e.board.map(|(symbol, costs)| {
            let l = ledger_at(symbol).unwrap_or_else(|| panic!("no ledger {symbol}"));
            (l, costs)
        });
        self.current = Some(Current {
            link: link_at(e.queues, REQUEST_QUEUE_CAPACITY),
            session,
            ledger,
            size: 0,
            done: 0,
            paths: [0; 4],
            before: Counts::default(),
            start: Instant::now(),
            retries: 0,
        });
        self.start_size();
    }

    fn start_size(&mut self) {
        let c = self.current.as_mut().expect("a run");
        c.done = 0;
        c.paths = [0; 4];
        c.before = c.ledger.map(|(l, _)| l.snapshot()).unwrap_or_default();
        c.start = Instant::now();
        self.submit();
    }

    fn submit(&mut self) {
        let c = self.current.as_mut().expect("a run");
        let req =
            cipher::Request::over(c.done, c.session, CipherOp::Encrypt, &[(0, SIZES[c.size])]);
        if c.link.submit(req).expect("an empty queue takes a request") {
            ENGINES[self.engine].channel.notify();
        }
    }

    fn answered(&mut self, resp: cipher::Response) {
        let c = self.current.as_mut().expect("a run");
        assert_eq!(
            resp.status.check(),
            Ok(Ok(())),
            "demo-speed: request {}",
            resp.id
        );
        if let Ok(p) = resp.path.get() {
            c.paths[p as usize - 1] += 1;
        }
        c.done += 1;
        if c.done < OPS {
            return self.submit();
        }
        let host_us = c.start.elapsed().as_secs_f64() * 1e6 / f64::from(OPS);
        let spent = c
            .ledger
            .map(|(l, costs)| (l.snapshot().since(&c.before), costs));
        // The board's ledger counts every client's work: a window in which another
        // client (the demo's known-answer client) used the engine is measured again,
        // once the engine is quiet, so the figure is ours alone.
        if let Some((counts, _)) = spent
            && counts.get(Event::Request) != u64::from(OPS)
        {
            c.retries += 1;
            assert!(c.retries < 500, "demo-speed: the engine never went quiet");
            std::thread::sleep(std::time::Duration::from_millis(5));
            return self.start_size();
        }
        let modelled = spent.map(|(counts, costs)| counts.modelled_us(costs) / f64::from(OPS));
        let path = ["adaptive", "pio", "dma", "cpu"]
            .iter()
            .zip(c.paths)
            .filter(|(_, n)| *n > 0)
            .map(|(p, n)| {
                if n == OPS {
                    p.to_string()
                } else {
                    format!("{p}x{n}")
                }
            })
            .collect::<Vec<_>>()
            .join("+");
        let size = SIZES[c.size];
        let modelled = modelled.map_or("(no model)".to_string(), |m| format!("{m:.1}"));
        self.rows.push(format!(
            "{:<11} {size:>6}   {path:<8} {modelled:>14}   {host_us:>10.1}",
            ENGINES[self.engine].name
        ));
        c.size += 1;
        if c.size < SIZES.len() {
            return self.start_size();
        }
        let session = c.session;
        let mut calls = cipher::Client::new(PpcTransport(ENGINES[self.engine].channel));
        calls.close_session(session).expect("close_session");
        self.current = None;
        self.engine += 1;
        self.next_engine();
    }

    fn report(&self) -> ! {
        debug_println!("speed: AES-128-CBC, adaptive path, {OPS} requests per size, one in flight");
        debug_println!(
            "speed: {:<11} {:>6}   {:<8} {:>14}   {:>10}",
            "engine",
            "bytes",
            "path",
            "board us/op",
            "host us/op"
        );
        for row in &self.rows {
            debug_println!("speed: {row}");
        }
        debug_println!(
            "speed: board us/op is modelled: the board's cost table applied to the events its engine model counted (the same in every run); host us/op is this machine's real time through the PDs, one run, {}",
            bench_stats::profile()
        );
        exit(0)
    }
}

impl Handler for Speed {
    fn notified(&mut self, _: ChannelSet) {
        let Some(c) = self.current.as_mut() else {
            return;
        };
        let mut answers = Vec::new();
        let notify = c
            .link
            .poll(|done| match done {
                Completion::Answered(r) => answers.push(r),
                Completion::Restarted(id) => panic!("demo-speed: driver restarted ({id})"),
            })
            .expect("response queue");
        if notify {
            ENGINES[self.engine].channel.notify();
        }
        for r in answers {
            self.answered(r);
        }
    }
}

fn init() -> Speed {
    let mut s = Speed {
        engine: 0,
        current: None,
        rows: Vec::new(),
    };
    s.next_engine();
    s
}

pd_runtime::protection_domain!(init);
