//! Running the speed client PD against one engine, algorithm and path.

use std::time::Duration;

use cost_ledger::{Counts, Event};
use pd_idl::digest::Algorithm;
use pd_idl::mac::MacAlgorithm;

use super::monotonic_ns;
use crate::algs::{
    AeadAlg, CipherAlg, DataPath, Engine, digest_alg, digest_name, mac_alg, mac_name,
};
use crate::run::{Clients, Report, run_clients};
use crate::systems::Kind;

/// An algorithm of any of the interfaces the speed client drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    Cipher(CipherAlg),
    Digest(Algorithm),
    /// A whole message sealed per op (GCM or CCM, 12-byte nonce, 16-byte tag, no AAD).
    Aead(AeadAlg),
    /// A whole message's tag per op (one final on a reused session).
    Mac(MacAlgorithm),
}

impl Alg {
    pub fn parse(s: &str) -> Result<Alg, String> {
        digest_alg(s)
            .map(Alg::Digest)
            .or_else(|_| CipherAlg::parse(s).map(Alg::Cipher))
            .or_else(|_| AeadAlg::parse(s).map(Alg::Aead))
            .or_else(|_| mac_alg(s).map(Alg::Mac))
            .map_err(|_| format!("unknown algorithm {s:?}"))
    }

    pub fn name(&self) -> String {
        match self {
            Alg::Cipher(c) => c.name(),
            Alg::Digest(d) => digest_name(*d).to_string(),
            Alg::Aead(a) => a.name(),
            Alg::Mac(m) => mac_name(*m),
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Alg::Cipher(_) => Kind::Cipher,
            Alg::Digest(_) => Kind::Digest,
            Alg::Aead(_) => Kind::Aead,
            Alg::Mac(_) => Kind::Mac,
        }
    }

    /// The speed client's `PDT_KIND` for one op per request of this algorithm.
    pub fn client_kind(&self) -> &'static str {
        match self {
            Alg::Cipher(_) => "cipher",
            Alg::Digest(_) => "digest",
            Alg::Aead(_) => "aead",
            Alg::Mac(_) => "mac",
        }
    }

    /// What the CPU engine's ledger counts per byte of it, where the tool counts.
    fn cpu_byte(&self) -> Event {
        match self {
            Alg::Cipher(_) | Alg::Aead(_) => Event::CpuCipherByte,
            Alg::Digest(_) | Alg::Mac(_) => Event::CpuDigestByte,
        }
    }
}

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub engine: Engine,
    pub alg: Alg,
    pub path: DataPath,
}

impl Job {
    /// `aes-128-cbc through omap-aes pio @am335x`: the job in words, for progress lines.
    pub fn through(&self) -> String {
        format!(
            "{} through {} {} @{}",
            self.alg.name(),
            self.engine.name(),
            self.path.name(),
            self.engine.board().name
        )
    }

    pub fn label(&self) -> String {
        format!(
            "{} {} {}",
            self.engine.name(),
            self.path.name(),
            self.alg.name()
        )
    }
}

/// How long to measure each size.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub seconds: f64,
    pub min_ops: u64,
    pub max_ops: u64,
    /// Requests the client keeps in flight (1: one at a time; a stream keeps one).
    pub depth: u32,
}

/// One size's measurement.
#[derive(Clone, Debug)]
pub struct Sample {
    pub size: usize,
    pub ops: u64,
    /// Windowed runs (`speed --clients`): ns past its window's start the client began.
    pub late_ns: u64,
    /// One request in flight: the median and 99th percentile of a request's
    /// idle-to-reply time, ns.
    pub latency: Option<(u64, u64)>,
    pub host_ns: f64,
    /// ns per op in each timed slice of the run (see the speed client): the host
    /// figure is their median.
    pub host_slices: Vec<f64>,
    /// Requests the driver answered as taken by PIO, DMA, the CPU.
    pub pio: u64,
    pub dma: u64,
    pub cpu: u64,
    pub counts: Counts,
    /// Stream runs: the events of the first half of the updates, and of all updates
    /// (without the final).
    pub half: Option<Counts>,
    pub updates: Option<Counts>,
    /// Stream runs: the events of the first update.
    pub first: Option<Counts>,
}

impl Sample {
    /// `ops` requests of `size` in a second on the CPU path, nothing else counted: what
    /// the report tests build tables from.
    #[cfg(test)]
    pub(crate) fn of(size: usize, ops: u64) -> Sample {
        Sample {
            size,
            ops,
            late_ns: 0,
            latency: None,
            host_ns: 1e9,
            host_slices: Vec::new(),
            pio: 0,
            dma: 0,
            cpu: ops,
            counts: Default::default(),
            half: None,
            updates: None,
            first: None,
        }
    }
}

impl Sample {
    /// The host figure: the median of the slices' ns per op, with their spread (the
    /// whole run's mean when the client reported no slices: a stream run).
    pub fn host_stats(&self) -> bench_stats::Stats {
        if self.host_slices.is_empty() {
            bench_stats::Stats::of(&[self.host_ns / self.ops as f64])
        } else {
            bench_stats::Stats::of(&self.host_slices)
        }
    }

    pub fn host_ns_per_op(&self) -> f64 {
        self.host_stats().median
    }

    pub fn modelled_ns_per_op(&self, board: &board::Board) -> f64 {
        self.counts.modelled_ps(&board.costs) as f64 / 1000.0 / self.ops as f64
    }

    /// Whether the driver took requests of this size on the path (a forced path may
    /// refuse a size: STM32 DMA below two blocks).
    pub fn measured(&self) -> bool {
        self.ops > 0
    }

    /// The path(s) the driver took, e.g. `pio`, `dma`, `pio+dma`.
    pub fn taken(&self) -> String {
        let mut v = Vec::new();
        for (n, name) in [(self.pio, "pio"), (self.dma, "dma"), (self.cpu, "cpu")] {
            if n > 0 {
                v.push(name);
            }
        }
        if v.is_empty() {
            "-".into()
        } else {
            v.join("+")
        }
    }
}

/// A job's measurements, with the board that prices them.
#[derive(Clone, Debug)]
pub struct Measured {
    pub job: Job,
    pub board: &'static board::Board,
    pub samples: Vec<Sample>,
    /// Requests the client kept in flight (a stream keeps one).
    pub depth: u32,
    /// The CPU driver PDs count no ledger events; the tool then counts what the host
    /// board's table prices (a request, and each byte enciphered or hashed) itself.
    pub counted_by_tool: bool,
}

fn field<'a>(line: &'a str, key: &str) -> Result<&'a str, String> {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
        .ok_or_else(|| format!("no {key} in {line:?}"))
}

fn num(line: &str, key: &str) -> Result<u64, String> {
    field(line, key)?
        .parse()
        .map_err(|_| format!("{key} in {line:?}"))
}

fn counts(s: &str) -> Result<Counts, String> {
    let v: Vec<u64> = s
        .split(',')
        .map(|x| x.parse().map_err(|_| format!("count {x:?}")))
        .collect::<Result<_, _>>()?;
    let arr: [u64; Event::COUNT] = v
        .try_into()
        .map_err(|_| "wrong number of counts".to_string())?;
    Ok(Counts(arr))
}

/// The `slices=k:t/..` field: ns per op of each slice (none if absent or empty).
fn slices(line: &str) -> Result<Vec<f64>, String> {
    let Ok(list) = field(line, "slices") else {
        return Ok(Vec::new());
    };
    list.split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (k, t) = s.split_once(':').ok_or(format!("slice {s:?}"))?;
            let k: u64 = k.parse().map_err(|_| format!("slice {s:?}"))?;
            let t: f64 = t.parse().map_err(|_| format!("slice {s:?}"))?;
            if k == 0 {
                return Err(format!("slice {s:?} has no op"));
            }
            Ok(t / k as f64)
        })
        .collect()
}

/// Parses the client's `result` and `half` lines.
pub fn samples(report: &Report) -> Result<Vec<Sample>, String> {
    let mut out = Vec::new();
    let (mut half, mut updates, mut first) = (None, None, None);
    for line in &report.lines {
        if let Some(rest) = line.strip_prefix("unsupported ") {
            // The driver refused this size on the forced path: a sample with no ops.
            out.push(Sample {
                size: num(rest, "size")? as usize,
                ops: 0,
                late_ns: 0,
                latency: None,
                host_ns: 0.0,
                host_slices: Vec::new(),
                pio: 0,
                dma: 0,
                cpu: 0,
                counts: Counts::default(),
                half: None,
                updates: None,
                first: None,
            });
        } else if let Some(rest) = line.strip_prefix("first ") {
            first = Some(counts(field(rest, "counts")?)?);
        } else if let Some(rest) = line.strip_prefix("half ") {
            half = Some(counts(field(rest, "counts")?)?);
        } else if let Some(rest) = line.strip_prefix("updates ") {
            updates = Some(counts(field(rest, "counts")?)?);
        } else if let Some(rest) = line.strip_prefix("result ") {
            out.push(Sample {
                size: num(rest, "size")? as usize,
                ops: num(rest, "ops")?,
                late_ns: num(rest, "late_ns").unwrap_or(0),
                latency: num(rest, "lat_p50")
                    .and_then(|p50| Ok((p50, num(rest, "lat_p99")?)))
                    .ok(),
                host_ns: num(rest, "host_ns")? as f64,
                host_slices: slices(rest)?,
                pio: num(rest, "pio")?,
                dma: num(rest, "dma")?,
                cpu: num(rest, "cpu")?,
                counts: counts(field(rest, "counts")?)?,
                half: half.take(),
                updates: updates.take(),
                first: first.take(),
            });
        }
    }
    Ok(out)
}

/// The speed client's parameters.
fn client_env(
    job: Job,
    kind: &str,
    sizes: &[usize],
    budget: Budget,
    stream: Option<u64>,
) -> Vec<(String, String)> {
    let list: Vec<String> = sizes.iter().map(usize::to_string).collect();
    vec![
        ("PDT_KIND".into(), kind.into()),
        ("PDT_ALG".into(), job.alg.name()),
        ("PDT_PATH".into(), job.path.name().into()),
        ("PDT_SIZES".into(), list.join(",")),
        ("PDT_SECONDS".into(), budget.seconds.to_string()),
        ("PDT_MIN_OPS".into(), budget.min_ops.to_string()),
        ("PDT_MAX_OPS".into(), budget.max_ops.to_string()),
        ("PDT_TOTAL".into(), stream.unwrap_or(0).to_string()),
        ("PDT_DEPTH".into(), budget.depth.to_string()),
    ]
}

/// A client's samples, one per size, or why not.
fn samples_of(job: Job, sizes: &[usize], report: &Report) -> Result<Vec<Sample>, String> {
    let samples = samples(report)?;
    if samples.len() != sizes.len() {
        return Err(format!(
            "{}: {} of {} sizes measured",
            job.label(),
            samples.len(),
            sizes.len()
        ));
    }
    Ok(samples)
}

/// Measures `job` with `clients` speed clients on one driver, every client in the same
/// window of time per size (`PDT_WINDOWS`): each client's samples, in client order.
/// The windows start `lead` after the boot begins; a client that began a window late
/// (the system took longer to boot) fails the run, and the caller may retry with a
/// longer lead.
pub fn measure_shared(
    job: Job,
    sizes: &[usize],
    budget: Budget,
    clients: usize,
    lead: Duration,
) -> Result<Vec<Vec<Sample>>, String> {
    measure_shared_with(job, sizes, budget, clients, lead, Vec::new())
}

/// [`measure_shared`] with `own` added to the clients' environment: parameters one
/// client has for itself (`PDT_<NAME>_<client>`, as `speed --flood` gives its flooder).
pub fn measure_shared_with(
    job: Job,
    sizes: &[usize],
    budget: Budget,
    clients: usize,
    lead: Duration,
    own: Vec<(String, String)>,
) -> Result<Vec<Vec<Sample>>, String> {
    let kind = job.alg.client_kind();
    let mut env = client_env(job, kind, sizes, budget, None);
    env.extend(own);
    // A gap between windows for the clients to close one session and open the next.
    let period = Duration::from_secs_f64(budget.seconds) + Duration::from_millis(200);
    let epoch = monotonic_ns() + lead.as_nanos() as u64;
    env.push((
        "PDT_WINDOWS".into(),
        format!("{epoch},{}", period.as_nanos()),
    ));
    let timeout = lead + period * sizes.len() as u32 + Duration::from_secs(60);
    let run = Clients {
        engine: job.engine,
        kind: job.alg.kind(),
        client: "pdt-speed-client",
        count: clients,
    };
    let reports = run_clients(run, env, Vec::new(), timeout, &mut |_| {})
        .map_err(|e| format!("{}: {e}", job.label()))?;
    let all = reports
        .iter()
        .map(|r| samples_of(job, sizes, r))
        .collect::<Result<Vec<_>, _>>()?;
    // Late by more than 1% of a window: the clients did not share it.
    let slack = (budget.seconds * 1e7) as u64;
    if let Some(late) = all.iter().flatten().find(|s| s.late_ns > slack) {
        return Err(format!(
            "a client began its {} B window {:.1} ms late",
            late.size,
            late.late_ns as f64 / 1e6
        ));
    }
    Ok(all)
}

/// What openssl speed says on stderr as it starts a size (`Doing aes-128-cbc for 3s on
/// 16 size blocks`): what is measured, through which engine and path, for how long,
/// on which size.
pub fn doing(job: Job, size: usize, budget: Budget, stream: Option<u64>) -> String {
    let through = job.through();
    match stream {
        Some(total) => format!("Doing {through}: {total} bytes hashed in {size}-byte updates"),
        None => format!(
            "Doing {through} for {}s (at least {} op{}, {} in flight) on {size} size blocks",
            budget.seconds,
            budget.min_ops,
            if budget.min_ops == 1 { "" } else { "s" },
            budget.depth
        ),
    }
}

/// A `progress` for [`measure`] giving `say` the [`doing`] line of each size as it
/// starts (a size starts when the one before it has reported), once each.
pub fn announce<'a>(
    job: Job,
    sizes: &'a [usize],
    budget: Budget,
    stream: Option<u64>,
    say: &'a mut dyn FnMut(&str),
) -> impl FnMut(usize) + 'a {
    // The lines the client prints per size: its result, and a stream's three counts.
    let per_size = if stream.is_some() { 4 } else { 1 };
    let mut said = 0;
    move |lines| {
        let started = (lines / per_size + 1).min(sizes.len());
        while said < started {
            say(&doing(job, sizes[said], budget, stream));
            said += 1;
        }
    }
}

/// Measures `job` at each of `sizes`. `stream`: hash `total` bytes in one session in
/// updates of each size instead. `progress` gets the number of sizes done.
pub fn measure(
    job: Job,
    sizes: &[usize],
    budget: Budget,
    stream: Option<u64>,
    progress: &mut dyn FnMut(usize),
) -> Result<Measured, String> {
    let kind = match (job.alg, stream) {
        (alg, None) => alg.client_kind(),
        (Alg::Digest(_), Some(_)) => "stream",
        (_, Some(_)) => return Err("stream runs hash".into()),
    };
    let env = client_env(job, kind, sizes, budget, stream);
    // Generous: a slow model at a large size may take many times the budget.
    let timeout = Duration::from_secs_f64(60.0 + 20.0 * budget.seconds * sizes.len() as f64);
    let clients = Clients {
        engine: job.engine,
        kind: job.alg.kind(),
        client: "pdt-speed-client",
        count: 1,
    };
    let report = run_clients(clients, env, Vec::new(), timeout, progress)
        .map_err(|e| format!("{}: {e}", job.label()))?
        .remove(0);
    let mut samples = samples_of(job, sizes, &report)?;
    let counted_by_tool =
        samples.iter().all(|s| s.counts == Counts::default()) && samples.iter().any(|s| s.ops > 0);
    if counted_by_tool {
        let per_byte = job.alg.cpu_byte();
        for s in &mut samples {
            let bytes = match stream {
                Some(total) => total,
                None => s.ops * s.size as u64,
            };
            s.counts.0[Event::Request as usize] = s.ops;
            s.counts.0[per_byte as usize] = bytes;
        }
    }
    Ok(Measured {
        job,
        board: job.engine.board(),
        samples,
        depth: if stream.is_some() { 1 } else { budget.depth },
        counted_by_tool,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_parse_into_samples() {
        let report = Report {
            lines: vec![
                "half counts=1,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0".into(),
                "result size=64 ops=10 host_ns=5000 pio=10 dma=0 cpu=0 counts=2,0,0,0,0,0,0,0,0,0,0,0,0,0,4,0,0,0"
                    .into(),
            ],
        };
        let s = samples(&report).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].size, s[0].ops, s[0].pio), (64, 10, 10));
        assert_eq!(s[0].host_ns_per_op(), 500.0, "no slices: the run's mean");
        let sliced = samples(&Report {
            lines: vec![
                "result size=16 ops=9 host_ns=9000 pio=0 dma=0 cpu=9 counts=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 slices=2:800/3:3600/4:1600"
                    .into(),
            ],
        })
        .unwrap();
        assert_eq!(sliced[0].host_slices, [400.0, 1200.0, 400.0]);
        assert_eq!(sliced[0].latency, None);
        let timed = samples(&Report {
            lines: vec![
                "result size=16 ops=9 host_ns=9000 pio=0 dma=0 cpu=9 counts=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 slices=9:9000 lat_p50=800 lat_p99=4100"
                    .into(),
            ],
        })
        .unwrap();
        assert_eq!(timed[0].latency, Some((800, 4100)));
        assert_eq!(sliced[0].host_ns_per_op(), 400.0, "the median slice");
        assert!(sliced[0].host_stats().wide(), "a slice 3x the others");
        assert_eq!(s[0].counts.get(Event::Request), 4);
        assert_eq!(s[0].half.unwrap().get(Event::Request), 2);
        assert_eq!(s[0].taken(), "pio");
        assert!(
            samples(&Report {
                lines: vec!["result size=1".into()]
            })
            .is_err()
        );
    }
}
