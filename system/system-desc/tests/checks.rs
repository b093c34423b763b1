//! One malformed system per rule: each must give exactly one error, of the rule's kind,
//! on the line that is wrong.

use system_desc::{Arch, Error, ErrorKind, parse, parse_for};

/// 1-based line of the first line of `xml` containing `needle`.
fn line_of(xml: &str, needle: &str) -> u32 {
    let index = xml.lines().position(|l| l.contains(needle));
    let index = index.unwrap_or_else(|| panic!("{needle:?} is not in the test input"));
    index as u32 + 1
}

/// Expect exactly one error, of `kind`, on the line containing `needle`.
#[track_caller]
fn rejects(xml: &str, kind: ErrorKind, needle: &str) -> Error {
    rejects_for(xml, kind, needle, Arch::Aarch64)
}

#[track_caller]
fn rejects_for(xml: &str, kind: ErrorKind, needle: &str, arch: Arch) -> Error {
    let errors = parse_for(xml, "t.system", arch).expect_err("the system should be rejected");
    let got: Vec<(ErrorKind, u32)> = errors.iter().map(|e| (e.kind, e.loc.line)).collect();
    assert_eq!(got, [(kind, line_of(xml, needle))], "{errors:#?}");
    errors.into_iter().next().unwrap()
}

/// Two well-formed PDs to hang channels on.
const TWO_PDS: &str = r#"
    <protection_domain name="a" priority="1"><program_image path="a" /></protection_domain>
    <protection_domain name="b" priority="2"><program_image path="b" /></protection_domain>"#;

// --- XML shape ---

#[test]
fn malformed_xml() {
    // The element left open is located where it opened, not at the close tag the
    // parser stopped at.
    let xml = "<system>\n<protection_domain name='a'>\n</system>";
    let e = rejects(xml, ErrorKind::Xml, "<protection_domain");
    // No element to name: the message is the XML parser's.
    let shown = e.to_string();
    assert!(
        shown.starts_with("t.system:2:1:") && !shown.contains("<>"),
        "{shown}"
    );
    // A close tag of the wrong name: the open tag it fails to close, and where it is.
    let xml = "<system>\n  <a></b>\n</system>";
    let e = rejects(xml, ErrorKind::Xml, "<a>");
    assert_eq!(e.loc.col, 3, "{e}");
    assert!(e.message.contains("found </b> at 2:6"), "{e}");
}

#[test]
fn root_must_be_system() {
    rejects("<sys>\n</sys>", ErrorKind::NotASystem, "<sys>");
}

#[test]
fn unknown_element_in_system() {
    let xml = format!("<system>{TWO_PDS}\n    <memory name='m' />\n</system>");
    let e = rejects(&xml, ErrorKind::UnknownElement, "<memory ");
    assert_eq!(e.element, "memory");
}

#[test]
fn unknown_element_in_pd() {
    let xml = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<mapping mr='x' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::UnknownElement, "<mapping");
}

#[test]
fn unknown_element_in_channel() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0' />\n<side pd='b' id='0' />\n<end pd='b' id='0' />\n</channel>\n</system>"
    );
    rejects(&xml, ErrorKind::UnknownElement, "<side");
}

#[test]
fn unknown_attribute() {
    let xml = "<system>\n<memory_region name='m' size='0x1000' colour='red' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    let e = rejects(xml, ErrorKind::UnknownAttribute, "colour");
    assert_eq!(e.element, "memory_region");
    // Located at the attribute itself, not the element.
    assert_eq!(e.loc.col, 39);
}

#[test]
fn id_on_a_top_level_pd_is_unknown() {
    let xml = "<system>\n<protection_domain name='a' id='1'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::UnknownAttribute, "id='1'");
}

#[test]
fn valid_microkit_we_do_not_model_is_unsupported() {
    let vm = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<virtual_machine name='vm' />\n</protection_domain>\n</system>";
    rejects(vm, ErrorKind::Unsupported, "virtual_machine");
    let bootinfo = "<system>\n<memory_region name='m' prefill_bootinfo='fdt' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    rejects(bootinfo, ErrorKind::Unsupported, "prefill_bootinfo");
    // A file prefills a region of the size given: the checker reads no files, so it
    // cannot size one from its file as Microkit's tool does.
    let unsized_fill = "<system>\n<memory_region name='m' prefill_path='blob' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    rejects(unsized_fill, ErrorKind::MissingAttribute, "<memory_region");
    let filled = "<system>\n<memory_region name='m' size='0x1000' prefill_path='blob' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' perms='r' />\n</protection_domain>\n</system>";
    let sys = system_desc::parse(filled, "t.system").unwrap();
    assert_eq!(sys.memory_regions[0].prefill.as_deref(), Some("blob"));
    let domain = "<system>\n<protection_domain name='a' domain='d'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(domain, ErrorKind::Unsupported, "domain='d'");
}

#[test]
fn missing_required_attributes() {
    let xml = "<system>\n<memory_region name='m' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    let e = rejects(xml, ErrorKind::MissingAttribute, "<memory_region");
    assert!(e.message.contains("'size'"), "{e}");
    let no_vaddr = "<system>\n<memory_region name='m' size='0x1000' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' />\n</protection_domain>\n</system>";
    rejects(no_vaddr, ErrorKind::MissingAttribute, "<map");
    let no_path = "<system>\n<protection_domain name='a'>\n<program_image />\n</protection_domain>\n</system>";
    rejects(no_path, ErrorKind::MissingAttribute, "<program_image");
}

#[test]
fn text_between_elements() {
    let xml = "<system>\nasdf\n<protection_domain name='a'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    let e = rejects(xml, ErrorKind::UnexpectedText, "asdf");
    assert_eq!(e.element, "system");
}

// --- values ---

#[test]
fn bad_number() {
    let xml = "<system>\n<memory_region name='m' size='4k' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::BadNumber, "4k");
}

#[test]
fn channel_ids_are_decimal_only() {
    // Microkit reads ids with str::parse: hex there is a panic, here an error.
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0x1' />\n<end pd='b' id='0' />\n</channel>\n</system>"
    );
    rejects(&xml, ErrorKind::BadNumber, "0x1");
}

#[test]
fn bad_bool() {
    let xml = "<system>\n<protection_domain name='a' passive='yes'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::BadBool, "passive");
}

#[test]
fn bad_perms_and_write_only() {
    let map = |perms: &str| {
        format!(
            "<system>\n<memory_region name='m' size='0x1000' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' perms='{perms}' />\n</protection_domain>\n</system>"
        )
    };
    rejects(&map("rq"), ErrorKind::BadPerms, "perms=");
    rejects(&map("w"), ErrorKind::WriteOnlyMap, "perms=");
    // Stricter than Microkit: no map without 'r', none writable and executable.
    for perms in ["", "x"] {
        rejects(&map(perms), ErrorKind::NoReadMap, "perms=");
    }
    for perms in ["wx", "rwx"] {
        rejects(&map(perms), ErrorKind::WritableExecutableMap, "perms=");
    }
    for perms in ["r", "rw", "rx"] {
        assert!(parse(&map(perms), "t.system").is_ok(), "{perms}");
    }
}

/// A region of size 0, a map at the null page and one above the user top (into the
/// kernel's half) are refused, each where it is written.
#[test]
fn zero_regions_null_and_kernel_half_maps() {
    let system = |size: &str, vaddr: &str| {
        format!(
            "<system>\n<memory_region name='m' size='{size}' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='{vaddr}' perms='rw' />\n</protection_domain>\n</system>"
        )
    };
    rejects(
        &system("0", "0x1000000"),
        ErrorKind::ZeroSizedRegion,
        "size=",
    );
    rejects(&system("0x1000", "0"), ErrorKind::NullVaddr, "vaddr=");
    let e = rejects(
        &system("0x1000", "0xffff800000000000"),
        ErrorKind::VaddrAboveUserTop,
        "vaddr=",
    );
    assert!(e.message.contains("kernel"), "{e:?}");
    // The last page below the default stack is the highest a PD maps.
    let last = format!("{:#x}", 0x8000_0000_0000u64 - 0x2000 - 0x1000);
    assert!(parse(&system("0x1000", &last), "t.system").is_ok());
    let over = format!("{:#x}", 0x8000_0000_0000u64 - 0x2000);
    rejects(
        &system("0x1000", &over),
        ErrorKind::VaddrAboveUserTop,
        "vaddr=",
    );
}

#[test]
fn bad_trigger() {
    let xml = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<irq irq='5' id='0' trigger='rising' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::BadTrigger, "rising");
}

#[test]
fn program_image_exactly_once() {
    let none = "<system>\n<protection_domain name='a'>\n</protection_domain>\n</system>";
    rejects(none, ErrorKind::MissingProgramImage, "name='a'");
    let two = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<program_image path='b' />\n</protection_domain>\n</system>";
    rejects(two, ErrorKind::DuplicateProgramImage, "path='b'");
}

// --- protection domains ---

#[test]
fn no_protection_domains() {
    rejects(
        "<system>\n</system>",
        ErrorKind::NoProtectionDomains,
        "<system>",
    );
}

#[test]
fn too_many_pds_counting_children() {
    // 62 top-level PDs plus a parent with one child: 64 in all.
    let mut xml = String::from("<system>\n");
    for i in 0..62 {
        xml += &format!(
            "<protection_domain name='pd{i}'><program_image path='p' /></protection_domain>\n"
        );
    }
    xml += "<protection_domain name='parent'><program_image path='p' />\n";
    xml +=
        "<protection_domain name='child' id='0'><program_image path='c' /></protection_domain>\n";
    xml += "</protection_domain>\n</system>";
    rejects(&xml, ErrorKind::TooManyPds, "name='child'");
    let at_limit = xml.replace(
        "<protection_domain name='pd0'><program_image path='p' /></protection_domain>\n",
        "",
    );
    assert!(parse(&at_limit, "t.system").is_ok());
}

/// Nesting far deeper than any system is one error, not a stack overflow (roxmltree's
/// parser recursed per level); nesting at the limit parses, and is refused for its PDs.
#[test]
fn nesting_deeper_than_the_pd_limit_is_refused_without_recursing() {
    let nested = |depth: usize| {
        let mut xml = String::from("<system>\n<!-- <a><b><c> -->");
        for i in 0..depth {
            xml += &format!("<protection_domain name='p{i}' id='1' priority=\"1\">");
        }
        xml += &"</protection_domain>".repeat(depth);
        xml += "\n</system>";
        xml
    };
    let errors = parse(&nested(100_000), "t.system").expect_err("refused");
    assert_eq!(errors.len(), 1, "{:?}", &errors[..3]);
    assert_eq!(errors[0].kind, ErrorKind::Xml);
    assert!(
        errors[0].message.contains("nested deeper than 256"),
        "{errors:?}"
    );
    let errors = parse(&nested(255), "t.system").expect_err("refused");
    assert!(errors.iter().any(|e| e.kind == ErrorKind::TooManyPds));
    assert!(
        errors.iter().all(|e| e.kind != ErrorKind::Xml),
        "{:?}",
        &errors[..3]
    );
}

/// An empty name is no name: refused where it is written, and never taken for a
/// reference already reported (an end with `pd=""` passed, and the host runner then
/// panicked looking for it).
#[test]
fn empty_names_are_refused() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel><end pd=\"a\" id=\"0\" /><end pd=\"\" id=\"0\" /></channel>\n</system>"
    );
    rejects(&xml, ErrorKind::MissingAttribute, "pd=\"\"");
    let xml = "<system>\n<memory_region name=\"\" size=\"0x1000\" />\n<protection_domain name=\"a\"><program_image path=\"a\" /></protection_domain>\n</system>";
    rejects(xml, ErrorKind::MissingAttribute, "memory_region");
}

#[test]
fn monitor_is_reserved() {
    let xml = "<system>\n<protection_domain name='monitor'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::ReservedPdName, "monitor");
}

#[test]
fn duplicate_pd_names_across_the_tree() {
    let xml = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<protection_domain name='a' id='0'>\n<program_image path='c' />\n</protection_domain>\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::DuplicatePdName, "id='0'");
}

#[test]
fn duplicate_memory_region_names() {
    let xml = "<system>\n<memory_region name='m' size='0x1000' />\n<memory_region name='m' size='0x2000' />\n<protection_domain name='a'>\n<program_image path='a' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::DuplicateMemoryRegionName, "0x2000");
}

#[test]
fn priority_above_254() {
    let xml = "<system>\n<protection_domain name='a' priority='255'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::PriorityOutOfRange, "255");
}

#[test]
fn budget_above_period() {
    let xml = "<system>\n<protection_domain name='a' budget='2000' period='1000'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::BudgetExceedsPeriod, "budget");
    // The period defaults to the budget, so a lone large budget is fine.
    let alone = "<system>\n<protection_domain name='a' budget='5000'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    assert!(parse(alone, "t.system").is_ok());
}

#[test]
fn stack_size_range_and_alignment() {
    let pd = |size: &str| {
        format!(
            "<system>\n<protection_domain name='a' stack_size='{size}'>\n<program_image path='a' />\n</protection_domain>\n</system>"
        )
    };
    rejects(&pd("0x800"), ErrorKind::StackSizeOutOfRange, "stack_size");
    rejects(
        &pd("0x2000000"),
        ErrorKind::StackSizeOutOfRange,
        "stack_size",
    );
    rejects(&pd("0x1800"), ErrorKind::StackSizeUnaligned, "stack_size");
}

#[test]
fn cpu_beyond_a_byte() {
    let xml = "<system>\n<protection_domain name='a' cpu='256'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::CpuOutOfRange, "cpu");
}

#[test]
fn smc_only_on_aarch64() {
    let xml = "<system>\n<protection_domain name='a' smc='true'>\n<program_image path='a' />\n</protection_domain>\n</system>";
    assert!(parse(xml, "t.system").is_ok());
    rejects_for(xml, ErrorKind::Unsupported, "smc", Arch::Riscv64);
}

#[test]
fn child_id_range_and_duplicates() {
    let big = "<system>\n<protection_domain name='p'>\n<program_image path='p' />\n<protection_domain name='c' id='64'>\n<program_image path='c' />\n</protection_domain>\n</protection_domain>\n</system>";
    rejects(big, ErrorKind::ChildIdOutOfRange, "id='64'");
    let dup = "<system>\n<protection_domain name='p'>\n<program_image path='p' />\n<protection_domain name='c1' id='1'>\n<program_image path='c' />\n</protection_domain>\n<protection_domain name='c2' id='1'>\n<program_image path='c' />\n</protection_domain>\n</protection_domain>\n</system>";
    rejects(dup, ErrorKind::DuplicateChildId, "name='c2'");
    let missing = "<system>\n<protection_domain name='p'>\n<program_image path='p' />\n<protection_domain name='c'>\n<program_image path='c' />\n</protection_domain>\n</protection_domain>\n</system>";
    rejects(missing, ErrorKind::MissingAttribute, "name='c'");
}

// --- channels and irqs ---

#[test]
fn channel_id_above_61() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='62' />\n<end pd='b' id='0' />\n</channel>\n</system>"
    );
    rejects(&xml, ErrorKind::ChannelIdOutOfRange, "id='62'");
}

#[test]
fn negative_irq_id() {
    let xml = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<irq irq='5' id='-1' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::ChannelIdOutOfRange, "id='-1'");
}

#[test]
fn duplicate_channel_id_between_channels() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='3' />\n<end pd='b' id='0' />\n</channel>\n<channel>\n<end pd='a' id='3' />\n<end pd='b' id='1' />\n</channel>\n</system>"
    );
    let errors = parse(&xml, "t.system").unwrap_err();
    let got: Vec<(ErrorKind, u32)> = errors.iter().map(|e| (e.kind, e.loc.line)).collect();
    assert_eq!(got, [(ErrorKind::DuplicateChannelId, 9)], "{errors:#?}");
}

#[test]
fn irqs_and_channels_share_the_id_space() {
    let xml = "<system>\n<protection_domain name='a' priority='1'>\n<program_image path='a' />\n<irq irq='5' id='7' />\n</protection_domain>\n<protection_domain name='b'><program_image path='b' /></protection_domain>\n<channel>\n<end pd='a' id='7' />\n<end pd='b' id='0' />\n</channel>\n</system>";
    rejects(xml, ErrorKind::DuplicateChannelId, "<end pd='a' id='7'");
}

#[test]
fn duplicate_irq_number_across_pds() {
    let xml = "<system>\n<protection_domain name='a'>\n<program_image path='a' />\n<irq irq='40' id='0' />\n</protection_domain>\n<protection_domain name='b'>\n<program_image path='b' />\n<irq irq='40' id='0' trigger='edge' />\n</protection_domain>\n</system>";
    rejects(xml, ErrorKind::DuplicateIrq, "trigger='edge'");
}

#[test]
fn channel_needs_exactly_two_ends() {
    let one = format!("<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0' />\n</channel>\n</system>");
    rejects(&one, ErrorKind::ChannelEndCount, "<channel>");
    let three = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0' />\n<end pd='b' id='0' />\n<end pd='b' id='1' />\n</channel>\n</system>"
    );
    rejects(&three, ErrorKind::ChannelEndCount, "<channel>");
}

#[test]
fn pp_both_ways() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0' pp='true' />\n<end pd='b' id='0' pp='true' />\n</channel>\n</system>"
    );
    // Also a's pp toward b is fine but b's toward a (lower) is not.
    let errors = parse(&xml, "t.system").unwrap_err();
    let kinds: Vec<ErrorKind> = errors.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [ErrorKind::BidirectionalPp, ErrorKind::PpPriority],
        "{errors:#?}"
    );
    assert_eq!(errors[0].loc.line, line_of(&xml, "<channel>"));
}

#[test]
fn pp_needs_strictly_higher_priority() {
    let channel = |pp_end: &str| {
        format!("<system>{TWO_PDS}\n<channel>\n<end pd='{pp_end}' id='0' pp='true' />\n<end pd='x' id='0' />\n</channel>\n</system>")
            .replace("pd='x'", if pp_end == "a" { "pd='b'" } else { "pd='a'" })
    };
    assert!(parse(&channel("a"), "t.system").is_ok(), "1 -> 2 is upward");
    rejects(&channel("b"), ErrorKind::PpPriority, "pp='true'");
    let equal = channel("a").replace("priority=\"2\"", "priority=\"1\"");
    rejects(&equal, ErrorKind::PpPriority, "pp='true'");
}

#[test]
fn end_names_an_unknown_pd() {
    let xml = format!(
        "<system>{TWO_PDS}\n<channel>\n<end pd='a' id='0' />\n<end pd='c' id='0' />\n</channel>\n</system>"
    );
    rejects(&xml, ErrorKind::UnknownPd, "pd='c'");
}

// --- memory ---

const PD_OPEN: &str = "<protection_domain name='a'>\n<program_image path='a' />";

#[test]
fn map_names_an_unknown_region() {
    let xml = format!(
        "<system>\n{PD_OPEN}\n<map mr='nope' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::UnknownMemoryRegion, "nope");
}

#[test]
fn setvar_names_an_unknown_region() {
    let xml = format!(
        "<system>\n{PD_OPEN}\n<setvar symbol='s' region_paddr='nope' />\n</protection_domain>\n</system>"
    );
    let e = rejects(&xml, ErrorKind::UnknownMemoryRegion, "nope");
    assert_eq!(e.element, "setvar");
}

#[test]
fn page_size_must_exist_on_the_arch() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x10000' page_size='0x10000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::UnsupportedPageSize, "page_size");
    rejects_for(
        &xml,
        ErrorKind::UnsupportedPageSize,
        "page_size",
        Arch::Riscv64,
    );
}

#[test]
fn size_is_a_multiple_of_the_page_size() {
    let small = format!(
        "<system>\n<memory_region name='m' size='0x1800' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&small, ErrorKind::SizeNotPageMultiple, "0x1800");
    let large = format!(
        "<system>\n<memory_region name='m' size='0x1000' page_size='0x200000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&large, ErrorKind::SizeNotPageMultiple, "page_size");
}

#[test]
fn phys_addr_is_page_aligned() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x200000' page_size='0x200000' phys_addr='0x1000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::PhysAddrUnaligned, "phys_addr");
}

#[test]
fn phys_ranges_do_not_overlap() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x2000' phys_addr='0x10000' />\n<memory_region name='n' size='0x1000' phys_addr='0x11000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n<map mr='n' vaddr='0x2000000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::PhysAddrOverlap, "name='n'");
}

#[test]
fn vaddr_is_aligned_to_the_region_page_size() {
    let small = format!(
        "<system>\n<memory_region name='m' size='0x1000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x20001' />\n</protection_domain>\n</system>"
    );
    rejects(&small, ErrorKind::VaddrUnaligned, "0x20001");
    let large = format!(
        "<system>\n<memory_region name='m' size='0x200000' page_size='0x200000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000' />\n</protection_domain>\n</system>"
    );
    rejects(&large, ErrorKind::VaddrUnaligned, "<map");
}

#[test]
fn maps_in_one_pd_do_not_overlap() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x2000' />\n<memory_region name='n' size='0x1000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n<map mr='n' vaddr='0x1001000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::MapOverlap, "mr='n'");
    // Separate PDs are separate address spaces.
    let apart = format!(
        "<system>\n<memory_region name='m' size='0x2000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n<protection_domain name='b'>\n<program_image path='b' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    assert!(parse(&apart, "t.system").is_ok());
}

#[test]
fn map_past_the_end_of_the_address_space() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x2000' />\n{PD_OPEN}\n<map mr='m' vaddr='0xffff_ffff_ffff_f000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::AddressOverflow, "<map");
}

#[test]
fn a_symbol_is_set_once_per_pd() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='0x1000' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' setvar_vaddr='buf' />\n<setvar symbol='buf' region_paddr='m' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::DuplicateSymbol, "<setvar");
}

// --- reporting ---

#[test]
fn every_error_is_reported_in_file_order() {
    let xml = "<system>\n<memory_region name='m' size='0x1800' />\n<protection_domain name='a' priority='300'>\n<program_image path='a' />\n<map mr='gone' vaddr='0x1000000' />\n</protection_domain>\n<channel>\n<end pd='a' id='99' />\n<end pd='zz' id='0' />\n</channel>\n</system>";
    let errors = parse(xml, "many.system").unwrap_err();
    let got: Vec<(ErrorKind, u32)> = errors.iter().map(|e| (e.kind, e.loc.line)).collect();
    let want = [
        (ErrorKind::SizeNotPageMultiple, 2),
        (ErrorKind::PriorityOutOfRange, 3),
        (ErrorKind::UnknownMemoryRegion, 5),
        (ErrorKind::ChannelIdOutOfRange, 8),
        (ErrorKind::UnknownPd, 9),
    ];
    assert_eq!(got, want, "{errors:#?}");
    let shown = errors[0].to_string();
    assert!(shown.starts_with("many.system:2:"), "{shown}");
    assert!(shown.contains("<memory_region>"), "{shown}");
}

#[test]
fn a_broken_region_is_reported_once_not_at_every_use() {
    let xml = format!(
        "<system>\n<memory_region name='m' size='oops' />\n{PD_OPEN}\n<map mr='m' vaddr='0x1000000' />\n<map mr='m' vaddr='0x1000000' />\n</protection_domain>\n</system>"
    );
    rejects(&xml, ErrorKind::BadNumber, "oops");
}
