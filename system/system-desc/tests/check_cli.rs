//! What a user of `system-check` meets at the prompt: its name in --version, counts in
//! the number they are, and an element left open reported where it opened.

use std::path::PathBuf;

use assert_cmd::Command;

fn system_check() -> Command {
    Command::cargo_bin("system-check").unwrap()
}

/// `xml` in a file of its own, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, xml: &str) -> Temp {
        let p = std::env::temp_dir().join(format!("check-cli-{}-{name}", std::process::id()));
        std::fs::write(&p, xml).unwrap();
        Temp(p)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

#[test]
fn version_names_the_program() {
    let out = system_check().arg("--version").assert().success();
    assert_eq!(
        stdout(&out),
        format!("system-check {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn one_of_each_is_singular_and_others_plural() {
    let one = Temp::new(
        "one.system",
        r#"<system>
    <memory_region name="buf" size="0x1000" />
    <protection_domain name="uart" priority="100">
        <program_image path="uart" />
        <map mr="buf" vaddr="0x2000000" perms="rw" />
        <irq irq="33" id="1" />
    </protection_domain>
</system>
"#,
    );
    let out = system_check().arg(&one.0).assert().success();
    assert_eq!(
        stdout(&out),
        format!(
            "{}: ok: 1 protection domain (0 children), 1 memory region, 0 channels, 1 irq\n",
            one.0.display()
        )
    );
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let out = system_check()
        .arg(fixtures.join("full.system"))
        .assert()
        .success();
    let full = stdout(&out);
    assert!(
        full.contains(": ok: 4 protection domains (2 children), "),
        "{full}"
    );
    assert!(full.contains(" irqs\n"), "{full}");

    let bad = Temp::new("bad-one.system", "<system>\n</system>\n");
    let out = system_check().arg(&bad.0).assert().code(1);
    let err = stderr(&out);
    assert!(
        err.ends_with(&format!("{}: 1 error\n", bad.0.display())),
        "{err}"
    );
}

#[test]
fn an_unclosed_tag_is_reported_where_it_opened() {
    // Line 8 opens a memory region without closing it: the parser only notices at
    // </system>, on line 17.
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<!-- A driver and its client. -->
<system>
    <protection_domain name="driver" priority="200">
        <program_image path="driver" />
    </protection_domain>

    <memory_region name="data" size="0x10000">

    <protection_domain name="client" priority="100">
        <program_image path="client" />
    </protection_domain>
    <channel>
        <end pd="driver" id="0" />
        <end pd="client" id="0" />
    </channel>
</system>
"#;
    assert_eq!(
        xml.lines().nth(7).unwrap().trim_start().get(..14),
        Some("<memory_region")
    );
    let file = Temp::new("unclosed.system", xml);
    let out = system_check().arg(&file.0).assert().code(1);
    let err = stderr(&out);
    let shown = file.0.display();
    assert_eq!(
        err,
        format!(
            "{shown}:8:5: error: <memory_region> opened here is not closed (found </system> at 17:1)\n\
             {shown}: 1 error\n"
        )
    );
}

#[test]
fn a_missing_file_says_why_in_strerror_words() {
    let out = system_check().arg("/nonexistent/x.system").assert().code(1);
    assert_eq!(
        stderr(&out),
        "/nonexistent/x.system: error: cannot read: No such file or directory\n\
         /nonexistent/x.system: 1 error\n"
    );
}
