//! Valid systems parse into exactly the structure they describe, defaults filled in.

use std::path::PathBuf;

use system_desc::{
    Arch, Channel, ChannelEnd, Irq, Loc, Map, MemoryRegion, Perms, ProgramImage, ProtectionDomain,
    SetVar, Symbol, SymbolValue, SystemDescription, Trigger, parse, parse_file,
};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn loc(line: u32, col: u32) -> Loc {
    Loc { line, col }
}

fn image(path: &str, line: u32, col: u32) -> ProgramImage {
    ProgramImage {
        path: path.into(),
        path_for_symbols: None,
        loc: loc(line, col),
    }
}

/// A PD with every optional attribute at Microkit's default.
fn pd(name: &str, line: u32, col: u32, program: ProgramImage) -> ProtectionDomain {
    ProtectionDomain {
        name: name.into(),
        id: None,
        priority: 0,
        budget: 1000,
        period: 1000,
        passive: false,
        stack_size: 0x2000,
        cpu: 0,
        fpu: true,
        smc: false,
        program_image: program,
        maps: vec![],
        irqs: vec![],
        setvars: vec![],
        setvar_id: None,
        children: vec![],
        loc: loc(line, col),
    }
}

fn map(mr: &str, vaddr: u64, perms: Perms, line: u32) -> Map {
    Map {
        mr: mr.into(),
        vaddr,
        perms,
        cached: true,
        setvar_vaddr: None,
        setvar_size: None,
        loc: loc(line, 9),
    }
}

fn region(name: &str, size: u64, line: u32) -> MemoryRegion {
    MemoryRegion {
        name: name.into(),
        size,
        page_size: 0x1000,
        page_size_explicit: false,
        phys_addr: None,
        prefill: None,
        loc: loc(line, 5),
    }
}

fn end(pd: &str, id: u8, line: u32) -> ChannelEnd {
    ChannelEnd {
        pd: pd.into(),
        id,
        pp: false,
        notify: true,
        setvar_id: None,
        loc: loc(line, 9),
    }
}

fn expected_full() -> SystemDescription {
    let mut driver = pd("driver", 9, 5, image("driver.elf", 11, 9));
    driver.program_image.path_for_symbols = Some("driver.sym.elf".into());
    driver.priority = 200;
    driver.budget = 500;
    driver.period = 2000;
    driver.passive = true;
    driver.stack_size = 0x4000;
    driver.fpu = false;
    let mut uart = map("uart", 0x200_0000, Perms::RW, 12);
    uart.cached = false;
    uart.setvar_vaddr = Some("uart_base".into());
    let read_only = Perms {
        read: true,
        write: false,
        execute: false,
    };
    let mut dma = map("dma", 0x400_0000, read_only, 13);
    dma.setvar_vaddr = Some("dma_base".into());
    dma.setvar_size = Some("dma_size".into());
    driver.maps = vec![uart, dma, map("shared", 0x600_0000, Perms::RW, 14)];
    driver.irqs = vec![
        Irq {
            irq: 33,
            id: 1,
            trigger: Trigger::Edge,
            setvar_id: Some("uart_irq".into()),
            loc: loc(15, 9),
        },
        Irq {
            irq: 34,
            id: 2,
            trigger: Trigger::Level,
            setvar_id: None,
            loc: loc(16, 9),
        },
    ];
    driver.setvars = vec![SetVar {
        symbol: "dma_paddr".into(),
        region_paddr: "dma".into(),
        loc: loc(17, 9),
    }];

    let mut helper = pd("helper", 25, 13, image("helper.elf", 26, 17));
    helper.id = Some(0);
    let mut worker = pd("worker", 23, 9, image("worker.elf", 24, 13));
    worker.id = Some(3);
    worker.priority = 50;
    worker.setvar_id = Some("worker_id".into());
    worker.children = vec![helper];
    let mut manager = pd("manager", 20, 5, image("manager.elf", 21, 9));
    manager.priority = 100;
    // Code: readable and executable (a writable one too is refused, W^X).
    let rx = Perms {
        read: true,
        write: false,
        execute: true,
    };
    manager.maps = vec![map("shared", 0x600_0000, rx, 22)];
    manager.children = vec![worker];

    let mut uart_mr = region("uart", 0x1000, 4);
    uart_mr.phys_addr = Some(0x900_0000);
    let mut dma_mr = region("dma", 0x20_0000, 5);
    dma_mr.page_size = 0x20_0000;
    dma_mr.page_size_explicit = true;

    let mut call = end("manager", 0, 32);
    call.pp = true;
    call.setvar_id = Some("driver_ch".into());
    let mut quiet = end("driver", 0, 33);
    quiet.notify = false;

    SystemDescription {
        file: fixture("full.system"),
        arch: Arch::Aarch64,
        protection_domains: vec![driver, manager],
        memory_regions: vec![
            uart_mr,
            dma_mr,
            region("shared", 8192, 6),
            region("spare", 0x1000, 7),
        ],
        channels: vec![
            Channel {
                ends: [call, quiet],
                loc: loc(31, 5),
            },
            Channel {
                ends: [end("worker", 61, 36), end("manager", 5, 37)],
                loc: loc(35, 5),
            },
        ],
    }
}

#[test]
fn every_feature_parses_into_the_expected_structure() {
    let sys = parse_file(fixture("full.system")).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(sys, expected_full());
}

#[test]
fn pds_flatten_parent_first_as_microkit_does() {
    let sys = parse_file(fixture("full.system")).unwrap();
    let flat: Vec<(&str, Option<&str>)> = sys
        .all_pds()
        .iter()
        .map(|e| (e.pd.name.as_str(), e.parent.map(|p| p.name.as_str())))
        .collect();
    let want = [
        ("driver", None),
        ("manager", None),
        ("worker", Some("manager")),
        ("helper", Some("worker")),
    ];
    assert_eq!(flat, want);
    assert_eq!(sys.parent_of("helper").unwrap().name, "worker");
    assert_eq!(sys.pd("helper").unwrap().id, Some(0));
}

#[test]
fn channels_are_seen_from_each_end() {
    let sys = parse_file(fixture("full.system")).unwrap();
    let from_manager: Vec<(u8, &str, u8)> = sys
        .channels_of("manager")
        .map(|c| (c.local.id, c.remote.pd.as_str(), c.remote.id))
        .collect();
    assert_eq!(from_manager, [(0, "driver", 0), (5, "worker", 61)]);
    assert_eq!(sys.channels_of("helper").count(), 0);
}

#[test]
fn symbols_gather_every_setvar_of_a_pd() {
    let sys = parse_file(fixture("full.system")).unwrap();
    let symbols = |name: &str| -> Vec<(String, SymbolValue)> {
        let pd = sys.pd(name).unwrap();
        sys.symbols(pd)
            .into_iter()
            .map(|Symbol { name, value, .. }| (name, value))
            .collect()
    };
    let driver = [
        ("uart_base", SymbolValue::Vaddr(0x200_0000)),
        ("dma_base", SymbolValue::Vaddr(0x400_0000)),
        ("dma_size", SymbolValue::Size(0x20_0000)),
        ("uart_irq", SymbolValue::Id(1)),
        ("dma_paddr", SymbolValue::RegionPaddr("dma".into())),
    ]
    .map(|(n, v)| (n.to_string(), v));
    assert_eq!(symbols("driver"), driver);
    // The child's setvar_id lands in its parent's image; the channel end's in its own.
    let manager = [
        ("worker_id", SymbolValue::Id(3)),
        ("driver_ch", SymbolValue::Id(0)),
    ]
    .map(|(n, v)| (n.to_string(), v));
    assert_eq!(symbols("manager"), manager);
}

#[test]
fn unused_regions_are_reported_but_accepted() {
    let sys = parse_file(fixture("full.system")).unwrap();
    let unused: Vec<&str> = sys
        .unused_memory_regions()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(unused, ["spare"]);
}

#[test]
fn ping_pong_fixture_is_valid() {
    let sys = parse_file(fixture("ping-pong.system")).unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(sys.all_pds().len(), 2);
    assert_eq!(sys.memory_region("ring").unwrap().page_count(), 1);
}

#[test]
fn numbers_may_be_hex_decimal_or_underscored() {
    let xml = r#"<system>
        <memory_region name="a" size="8192" phys_addr="0x1_0000_0000" />
        <memory_region name="b" size="0x2_000" />
        <protection_domain name="p" priority="0xfe" budget="1_000" period="0x7d0">
            <program_image path="p" />
            <map mr="a" vaddr="33554432" />
            <map mr="b" vaddr="0x0400_0000" />
        </protection_domain>
    </system>"#;
    let sys = parse(xml, "n.system").unwrap_or_else(|e| panic!("{e:#?}"));
    let p = sys.pd("p").unwrap();
    assert_eq!((p.priority, p.budget, p.period), (254, 1000, 2000));
    assert_eq!(sys.memory_regions[0].phys_addr, Some(0x1_0000_0000));
    assert_eq!(sys.memory_regions[1].size, 0x2000);
    assert_eq!((p.maps[0].vaddr, p.maps[1].vaddr), (0x200_0000, 0x400_0000));
}

#[test]
fn period_defaults_to_the_given_budget() {
    let xml = r#"<system>
        <protection_domain name="p" budget="250"><program_image path="p" /></protection_domain>
    </system>"#;
    let sys = parse(xml, "b.system").unwrap();
    let p = sys.pd("p").unwrap();
    assert_eq!((p.budget, p.period), (250, 250));
}

#[test]
fn limits_at_their_edges_are_accepted() {
    let xml = r#"<system>
        <protection_domain name="hi" priority="254" stack_size="0x1000000">
            <program_image path="p" />
            <irq irq="0" id="61" />
            <protection_domain name="kid" id="63" stack_size="0x1000">
                <program_image path="k" />
            </protection_domain>
        </protection_domain>
        <protection_domain name="lo" priority="253"><program_image path="p" /></protection_domain>
        <channel><end pd="lo" id="0" pp="true" /><end pd="hi" id="0" /></channel>
    </system>"#;
    let sys = parse(xml, "edge.system").unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(sys.pd("kid").unwrap().id, Some(63));
    assert_eq!(sys.pd("hi").unwrap().irqs[0].id, 61);
}

#[test]
fn comments_and_whitespace_are_ignored() {
    let xml = "<?xml version='1.0'?>\n<!-- a -->\n<system>\n  <!-- b -->\n  <protection_domain name='p'>\n    <!-- c --><program_image path='p'/>\n  </protection_domain>\n</system>\n";
    let sys = parse(xml, "c.system").unwrap();
    assert_eq!(sys.protection_domains[0].program_image.loc, loc(6, 15));
}

#[test]
fn riscv_accepts_the_same_page_sizes() {
    let xml = r#"<system>
        <memory_region name="big" size="0x400000" page_size="0x200000" />
        <protection_domain name="p"><program_image path="p" />
            <map mr="big" vaddr="0x40000000" />
        </protection_domain>
    </system>"#;
    let sys = system_desc::parse_for(xml, "r.system", Arch::Riscv64).unwrap();
    assert_eq!(sys.memory_regions[0].page_count(), 2);
}
