//! What a user of `speed` meets at the prompt: every option explained with its
//! default, and, as openssl speed does, a line on stderr as each size starts saying what
//! is measured, for how long, on which size; stdout holds only the results.

use assert_cmd::Command;

fn speed() -> Command {
    Command::cargo_bin("speed").unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each option of `speed --help` with its help text: the text from its `--name` line to
/// the next option's.
/// A finished run's stdout and stderr.
fn streams(out: &assert_cmd::assert::Assert) -> (String, String) {
    let out = out.get_output();
    (text(&out.stdout), text(&out.stderr))
}

fn options(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        if t.starts_with("--") || t.starts_with("-h,") || t.starts_with("-V,") {
            let name = t.split([' ', '[']).next().unwrap().trim_end_matches(',');
            out.push((name.to_string(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            *text += t;
            *text += " ";
        }
    }
    out
}

#[test]
fn every_option_has_help_and_states_its_default() {
    let out = speed().arg("--help").assert().success();
    let help = text(&out.get_output().stdout);
    let opts = options(&help);
    assert!(opts.len() >= 16, "{help}");
    for (name, text) in &opts {
        if matches!(name.as_str(), "-h" | "-V") {
            continue;
        }
        // Possible values are listed by clap; the help proper is before them.
        let own = text.split("Possible values").next().unwrap();
        assert!(own.trim().len() > 20, "{name} has no help line:\n{help}");
        assert!(
            text.to_lowercase().contains("default"),
            "{name} does not say its default:\n{help}"
        );
    }
    let of = |n: &str| &opts.iter().find(|(name, _)| name == n).unwrap().1;
    assert!(of("--engine").contains("omap-aes with neither"), "{help}");
    assert!(of("--min-ops").contains("[default: 20]"), "{help}");
}

#[test]
fn progress_goes_to_stderr_one_line_per_size_as_openssl_speed_does() {
    let out = speed()
        .args(["--board", "mpc885", "--alg", "md5", "--path", "chained"])
        .args(["--sizes", "16,64", "--seconds", "0.01", "--min-ops", "1"])
        .assert()
        .success();
    let (stdout, stderr) = streams(&out);
    let doing = |size: usize| {
        format!(
            "Doing md5 through sec1 chained @mpc885 for 0.01s (at least 1 op, 32 in flight) \
             on {size} size blocks"
        )
    };
    assert_eq!(stderr, format!("{}\n{}\n", doing(16), doing(64)));
    assert!(!stdout.contains("Doing"), "{stdout}");
    assert!(stdout.contains("md5 sec1/chained @mpc885"), "{stdout}");
}

#[test]
fn csv_on_stdout_stays_clean_while_progress_goes_to_stderr() {
    let out = speed()
        .args(["--engine", "cpu", "--sizes", "16,32,48", "--csv"])
        .args(["--seconds", "0", "--min-ops", "3", "--depth", "1"])
        .assert()
        .success();
    let (stdout, stderr) = streams(&out);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some(pd_tools::speed::report::CSV_HEADER));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(
        rows.iter()
            .all(|r| r.starts_with("cpu,host,cpu,aes-128-cbc,")),
        "{stdout}"
    );
    let doing: Vec<&str> = stderr.lines().collect();
    assert_eq!(doing.len(), 3, "{stderr}");
    for (line, size) in doing.iter().zip([16, 32, 48]) {
        assert_eq!(
            *line,
            format!(
                "Doing aes-128-cbc through cpu cpu @host for 0s (at least 3 ops, 1 in flight) \
                 on {size} size blocks"
            )
        );
    }
}
