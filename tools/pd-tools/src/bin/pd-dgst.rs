//! `pd-dgst`: md5sum/sha1sum/sha224sum/sha256sum/sha384sum/sha512sum through an
//! isolated Digest driver PD, and with `--hmac KEY` `openssl dgst -hmac KEY` through the
//! CPU engine's Mac driver PD.
//!
//! Boots a minimal system on the host backend (the engine's power manager if it has a
//! clock gate, its driver PD, and the `pdt-dgst-client` PD), hashes every FILE through
//! it (`-` or none: stdin) and prints `HEXDIGEST  FILE` lines (or `--tag`'s BSD lines)
//! exactly as coreutils does, so it drops into scripts. An unreadable FILE is reported
//! on stderr as coreutils does and the exit status is 1; the others are still hashed.
//! Files larger than the client's data region are streamed through it in updates.
//! `-c` reads checksum files as `sha256sum -c` does: GNU and BSD lines, comments,
//! improperly formatted lines warned about, `--strict`, `--quiet`, `--status`,
//! `--warn` and `--ignore-missing`; every listed file of every checksum file is hashed
//! in one boot of the system.
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use pd_idl::digest::Algorithm;
use pd_tools::algs::{DIGESTS, DataPath, Engine, digest_alg, digest_len};
use pd_tools::cli::{Out, Tool, io_text, quote};
use pd_tools::run::run;
use pd_tools::systems::Kind;

const TOOL: Tool = Tool("pd-dgst");

#[derive(Parser)]
#[command(
    name = "pd-dgst",
    version,
    about = "Hash files through an isolated crypto-engine driver PD (host backend)"
)]
struct Args {
    /// The engine whose driver hashes: the SEC1 model (mpc885: no sha384 or sha512) or
    /// the CPU.
    #[arg(long, value_parser = ["sec1", "cpu"], default_value = "cpu")]
    engine: String,
    /// The hash.
    #[arg(short = 'a', long, value_parser = DIGESTS)]
    alg: String,
    /// How the driver feeds buffered bytes: auto (the driver's choice), chained
    /// (SEC1: descriptors over the buffered block and the caller's data) or copy
    /// (SEC1: both copied into one buffer). The CPU offers auto only.
    #[arg(long, default_value = "auto", value_parser = DataPath::parser(false))]
    path: DataPath,
    /// Read checksums from the FILEs (what pd-dgst or md5sum/sha256sum printed, GNU or
    /// BSD lines) and check each file they name: `NAME: OK` or `NAME: FAILED`.
    #[arg(short = 'c', long)]
    check: bool,
    /// Print BSD-style lines: `SHA256 (NAME) = HEX`.
    #[arg(long, conflicts_with = "check")]
    tag: bool,
    /// With -c: a missing file is no failure and no message.
    #[arg(long, requires = "check")]
    ignore_missing: bool,
    /// With -c: print no OK line for a file that matches.
    #[arg(long, requires = "check", overrides_with_all = ["status", "warn"])]
    quiet: bool,
    /// With -c: print nothing; the exit status says whether every file matched.
    #[arg(long, requires = "check", overrides_with_all = ["quiet", "warn"])]
    status: bool,
    /// With -c: an improperly formatted checksum line fails the run.
    #[arg(long, requires = "check")]
    strict: bool,
    /// With -c: warn about each improperly formatted checksum line.
    #[arg(short = 'w', long, requires = "check", overrides_with_all = ["quiet", "status"])]
    warn: bool,
    /// HMAC (RFC 2104) keyed with KEY's bytes instead of the hash alone, through the
    /// CPU engine's Mac driver, printed as `openssl dgst -hmac KEY` prints it:
    /// `HMAC-SHA2-256(NAME)= HEX`.
    #[arg(long, value_name = "KEY", conflicts_with_all = ["check", "tag"])]
    hmac: Option<String>,
    /// Files to hash (with -c: checksum files); `-` or none: standard input.
    files: Vec<String>,
}

/// A name as coreutils prints it: `\\` and `\n` (and `\r`) escaped, and whether
/// anything was (then the line starts with a backslash).
fn escape(name: &str) -> (bool, String) {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    (out.len() != name.len(), out)
}

/// The reverse of [`escape`], for a checksum line that starts with a backslash.
fn unescape(name: &str) -> Option<String> {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            _ => return None,
        }
    }
    Some(out)
}

/// What one line of a checksum file is.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// Empty, or a `#` comment: not counted.
    Skipped,
    /// (expected hex in lower case, the file's name).
    Entry(String, String),
    Improper,
}

/// Reads checksum lines as coreutils' `digest_check` does: for an algorithm whose
/// digest is `hex_len` hex digits and whose BSD tag is `tag`, GNU lines `HEX  NAME`
/// (`HEX *NAME` binary, the same here), `HEX NAME` with one space (BSD `md5 -r`, not to
/// be mixed with the two-space kind in one file), BSD lines `TAG (NAME) = HEX`, a
/// leading backslash for escaped names, leading blanks and a trailing CR ignored.
struct LineReader {
    tag: &'static str,
    hex_len: usize,
    /// Whether the run's single-space lines are BSD reversed ones (`None`: not yet
    /// known, as coreutils' `bsd_reversed == -1`; as there, once for every file).
    reversed: Option<bool>,
}

impl LineReader {
    fn new(alg: Algorithm) -> Self {
        LineReader {
            tag: bsd_tag(alg),
            hex_len: 2 * digest_len(alg),
            reversed: None,
        }
    }

    fn read(&mut self, line: &str) -> Line {
        if line.is_empty() {
            return Line::Skipped;
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = line.trim_start_matches([' ', '\t']);
        if line.starts_with('#') {
            return Line::Skipped;
        }
        let (escaped, line) = match line.strip_prefix('\\') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let parsed = match line.strip_prefix(self.tag) {
            Some(rest) if rest.trim_start_matches(' ').starts_with('(') => {
                Self::bsd(&rest.trim_start_matches(' ')[1..])
            }
            _ => self.gnu(line),
        };
        let Some((hex, name)) = parsed else {
            return Line::Improper;
        };
        if hex.len() != self.hex_len || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Line::Improper;
        }
        let name = if escaped {
            match unescape(name) {
                Some(n) => n,
                None => return Line::Improper,
            }
        } else {
            name.to_string()
        };
        if name.is_empty() {
            return Line::Improper;
        }
        Line::Entry(hex.to_ascii_lowercase(), name)
    }

    /// `NAME) = HEX`: BSD tools do not escape names, so the name ends at the last `) = `.
    fn bsd(rest: &str) -> Option<(&str, &str)> {
        let (name, hex) = rest.rsplit_once(") = ")?;
        Some((hex, name))
    }

    fn gnu<'l>(&mut self, line: &'l str) -> Option<(&'l str, &'l str)> {
        let hex = line.get(..self.hex_len)?;
        let rest = &line[self.hex_len..];
        let rest = rest.strip_prefix([' ', '\t'])?;
        // One blank then the name (`md5 -r`), unless the name is one character or the
        // next is a second blank or the binary mark: that is the GNU kind.
        let gnu = rest.len() > 1 && (rest.starts_with(' ') || rest.starts_with('*'));
        match (gnu, self.reversed) {
            (true, Some(true)) => Some((hex, rest)),
            (true, _) => {
                self.reversed = Some(false);
                Some((hex, &rest[1..]))
            }
            (false, Some(false)) => None,
            (false, _) => {
                self.reversed = Some(true);
                Some((hex, rest))
            }
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let engine = if args.engine == "sec1" {
        Engine::Sec1
    } else {
        Engine::Cpu
    };
    engine
        .check_path(args.path, false)
        .unwrap_or_else(|e| TOOL.die(e));
    let alg = digest_alg(&args.alg).expect("a known hash");
    if args.hmac.is_some() && engine != Engine::Cpu {
        TOOL.die(format_args!(
            "--hmac: the {} driver offers no HMAC (the CPU engine's Mac driver does)",
            engine.name()
        ));
    }
    if args
        .hmac
        .as_ref()
        .is_some_and(|k| k.is_empty() || k.len() > 1024)
    {
        TOOL.die("--hmac: a key of 1 to 1024 bytes");
    }
    if !engine.digests_with(alg) {
        // The driver would refuse it at open; say so before anything boots.
        TOOL.die(format_args!(
            "-a {}: the {} driver does not offer it",
            args.alg,
            engine.name()
        ));
    }
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let mut out = TOOL.stdout();
    let status = if args.check {
        check(engine, &args, &files, &mut out)
    } else {
        hash(engine, &args, &files, &mut out)
    };
    out.finish();
    status
}

/// Hashes `files` and prints a line for each, as `sha256sum [--tag]` does.
fn hash(engine: Engine, args: &Args, files: &[String], out: &mut Out) -> ExitCode {
    let (names, inputs, mut status) = open_inputs(files, false);
    if inputs.is_empty() {
        return status;
    }
    let alg = digest_alg(&args.alg).expect("a known hash");
    for (name, hex) in names.iter().zip(hash_all(engine, args, inputs)) {
        let Some(hex) = hex else {
            status = ExitCode::FAILURE;
            continue;
        };
        if args.hmac.is_some() {
            // As openssl prints it: the name unescaped.
            out.line(format_args!("HMAC-{}({name})= {hex}", openssl_name(alg)));
            continue;
        }
        let (escaped, shown) = escape(name);
        let mark = if escaped { "\\" } else { "" };
        if args.tag {
            out.line(format_args!("{mark}{} ({shown}) = {hex}", bsd_tag(alg)));
        } else {
            out.line(format_args!("{mark}{hex}  {shown}"));
        }
    }
    status
}

/// How `openssl dgst` (3.x) names an algorithm in its HMAC lines.
fn openssl_name(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::Md5 => "MD5",
        Algorithm::Sha1 => "SHA1",
        Algorithm::Sha224 => "SHA2-224",
        Algorithm::Sha256 => "SHA2-256",
        Algorithm::Sha384 => "SHA2-384",
        Algorithm::Sha512 => "SHA2-512",
    }
}

/// The BSD tag of an algorithm (`SHA256 (NAME) = HEX`), also how coreutils names it in
/// its warnings.
fn bsd_tag(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::Md5 => "MD5",
        Algorithm::Sha1 => "SHA1",
        Algorithm::Sha224 => "SHA224",
        Algorithm::Sha256 => "SHA256",
        Algorithm::Sha384 => "SHA384",
        Algorithm::Sha512 => "SHA512",
    }
}

/// The readable inputs among `files`: their names as printed and their descriptors,
/// opened here (the client PD is sandboxed and opens no file itself), each unreadable
/// one reported as coreutils does (a missing one silently if `quiet_missing`); and the
/// status so far.
fn open_inputs(files: &[String], quiet_missing: bool) -> (Vec<String>, Vec<OwnedFd>, ExitCode) {
    let mut status = ExitCode::SUCCESS;
    let (mut names, mut fds) = (Vec::new(), Vec::new());
    let mut stdin_read = false;
    for name in files {
        let opened = if name == "-" && !stdin_read {
            stdin_read = true;
            std::io::stdin().as_fd().try_clone_to_owned()
        } else if name == "-" {
            // coreutils reads stdin once; a second `-` sees it at its end.
            File::open("/dev/null").map(OwnedFd::from)
        } else {
            File::open(name).and_then(|f| {
                if f.metadata()?.is_dir() {
                    Err(std::io::Error::other("Is a directory"))
                } else {
                    Ok(OwnedFd::from(f))
                }
            })
        };
        match opened {
            Ok(fd) => {
                names.push(name.clone());
                fds.push(fd);
            }
            Err(e) if quiet_missing && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                TOOL.warn(format_args!("{}: {}", quote(name), io_text(&e)));
                status = ExitCode::FAILURE;
            }
        }
    }
    (names, fds, status)
}

/// Hashes every input through the driver PD, in order (`None`: not hashed). Shows a
/// progress line on a terminal's stderr when the inputs take more than a moment.
fn hash_all(engine: Engine, args: &Args, inputs: Vec<OwnedFd>) -> Vec<Option<String>> {
    let count = inputs.len();
    let mut env = vec![
        ("PDT_ALG".into(), args.alg.clone()),
        ("PDT_PATH".into(), args.path.name().to_string()),
        ("PDT_INPUTS".into(), count.to_string()),
    ];
    let kind = match &args.hmac {
        Some(key) => {
            env.push((
                "PDT_HMAC_KEY".into(),
                pd_tools::hexfmt::encode(key.as_bytes()),
            ));
            Kind::Mac
        }
        None => Kind::Digest,
    };
    let files = inputs
        .into_iter()
        .enumerate()
        .map(|(i, fd)| (format!("input-{i}"), fd))
        .collect();
    let progress = Progress::new(count);
    // Long enough for a large file through a modelled engine; a stuck system still ends.
    let report = run(
        engine,
        kind,
        "pdt-dgst-client",
        env,
        files,
        Duration::from_secs(3600),
        &mut |lines| progress.update(lines),
    )
    .unwrap_or_else(|e| TOOL.die(e));
    progress.finish();
    let mut out = vec![None; count];
    for line in report.tagged("digest") {
        let (i, hex) = line.split_once(' ').expect("digest I HEX");
        let i: usize = i.parse().expect("an input index");
        out[i] = Some(hex.to_string());
    }
    if out.iter().any(Option::is_none) {
        let done = out.iter().flatten().count();
        TOOL.die(format_args!("{done} of {count} inputs hashed"));
    }
    out
}

/// One checksum file as read: its name as errors show it and its entries, or `None`
/// when it could not be read (already reported).
struct List {
    shown: String,
    entries: Vec<(String, String)>,
    improper: usize,
}

/// Reads checksum file `name` (`-`: standard input) with `reader`, warning (with
/// `--warn`) about each improperly formatted line.
fn read_list(name: &str, reader: &mut LineReader, warn: bool) -> Option<List> {
    let shown = if name == "-" {
        quote("standard input")
    } else {
        quote(name)
    };
    let text = if name == "-" {
        let mut t = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut t).map(|_| t)
    } else {
        std::fs::read(name)
    };
    let text = match text {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
            TOOL.warn(format_args!("{shown}: read error"));
            return None;
        }
        Err(e) => {
            TOOL.warn(format_args!("{shown}: {}", io_text(&e)));
            return None;
        }
    };
    let (mut entries, mut improper) = (Vec::new(), 0);
    for (n, line) in text.split('\n').enumerate() {
        match reader.read(line) {
            Line::Skipped => {}
            Line::Entry(hex, file) => entries.push((hex, file)),
            Line::Improper => {
                improper += 1;
                if warn {
                    TOOL.warn(format_args!(
                        "{shown}: {}: improperly formatted {} checksum line",
                        n + 1,
                        reader.tag
                    ));
                }
            }
        }
    }
    Some(List {
        shown,
        entries,
        improper,
    })
}

/// `-c`: every file listed in every checksum file hashed again (in one boot) and
/// compared, reported per checksum file as `sha256sum -c` does.
fn check(engine: Engine, args: &Args, files: &[String], out: &mut Out) -> ExitCode {
    let alg = digest_alg(&args.alg).expect("a known hash");
    // One reader for every file: coreutils decides once per run whether single-blank
    // lines are BSD reversed ones, and sha256sum's users see the same verdicts here.
    let mut reader = LineReader::new(alg);
    let lists: Vec<Option<List>> = files
        .iter()
        .map(|f| read_list(f, &mut reader, args.warn))
        .collect();
    let listed: Vec<String> = lists
        .iter()
        .flatten()
        .flat_map(|l| l.entries.iter().map(|(_, n)| n.clone()))
        .collect();
    // Opened in the order listed, so the messages of unreadable files come in that
    // order; the hashes are found by name.
    let (names, inputs, _) = open_inputs(&listed, args.ignore_missing);
    let hashed = if inputs.is_empty() {
        Vec::new()
    } else {
        hash_all(engine, args, inputs)
    };
    let mut next = 0;
    let mut ok = true;
    for list in &lists {
        let Some(list) = list else {
            ok = false;
            continue;
        };
        ok &= report(args, list, &names, &hashed, &mut next, out);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Prints one checksum file's results and warnings; whether it passed. `next` walks
/// the opened inputs, which are this file's entries in order less the unreadable.
fn report(
    args: &Args,
    list: &List,
    names: &[String],
    hashed: &[Option<String>],
    next: &mut usize,
    out: &mut Out,
) -> bool {
    if list.entries.is_empty() {
        TOOL.warn(format_args!(
            "{}: no properly formatted checksum lines found",
            list.shown
        ));
        return false;
    }
    let (mut failed, mut unreadable, mut matched) = (0, 0, 0);
    for (want, name) in &list.entries {
        // As coreutils' check lines: escaped (with a leading backslash) only when the
        // name holds a line break.
        let shown = if name.contains(['\n', '\r']) {
            format!("\\{}", escape(name).1)
        } else {
            name.clone()
        };
        let opened = names.get(*next) == Some(name);
        let got = if opened {
            *next += 1;
            hashed.get(*next - 1).cloned().flatten()
        } else {
            None
        };
        match got {
            None if !opened && args.ignore_missing && !Path::new(name).exists() => {}
            None => {
                unreadable += 1;
                if !args.status {
                    out.line(format_args!("{shown}: FAILED open or read"));
                }
            }
            Some(hex) if hex == *want => {
                matched += 1;
                if !args.status && !args.quiet {
                    out.line(format_args!("{shown}: OK"));
                }
            }
            Some(_) => {
                failed += 1;
                if !args.status {
                    out.line(format_args!("{shown}: FAILED"));
                }
            }
        }
    }
    if !args.status {
        for (n, one, many) in [
            (
                list.improper,
                "line is improperly formatted",
                "lines are improperly formatted",
            ),
            (
                unreadable,
                "listed file could not be read",
                "listed files could not be read",
            ),
            (
                failed,
                "computed checksum did NOT match",
                "computed checksums did NOT match",
            ),
        ] {
            if n > 0 {
                TOOL.warn(format_args!(
                    "WARNING: {n} {}",
                    if n == 1 { one } else { many }
                ));
            }
        }
        if args.ignore_missing && matched + failed == 0 {
            TOOL.warn(format_args!("{}: no file was verified", list.shown));
        }
    }
    matched > 0 && failed == 0 && unreadable == 0 && !(args.strict && list.improper > 0)
}

/// A spinner on stderr, only on a terminal and only once the work has taken a moment.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(inputs: usize) -> Self {
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            return Progress { bar: None };
        }
        let bar = indicatif::ProgressBar::new(inputs as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] hashing through the driver PD: {pos}/{len} inputs",
            )
            .expect("a valid template"),
        );
        // Hidden until it has run a while: a quick hash prints nothing extra.
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        Progress { bar: Some(bar) }
    }

    fn update(&self, done: usize) {
        let Some(bar) = &self.bar else { return };
        bar.set_position(done as u64);
        if bar.elapsed() > Duration::from_secs(2) && bar.is_hidden() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.enable_steady_tick(Duration::from_millis(200));
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
