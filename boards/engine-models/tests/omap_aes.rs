//! OMAP AES model: known answers through PIO, direct-SG DMA and the bounce path; messages
//! split at every block boundary; the hardware's answers to bad programming.

mod common;

use board::am335x::{AES0, DDR, EDMA};
use common::omap::{self, AES_IRQ, DmaError};
use common::vectors::{FIPS197, SP800_38A, SP800_38A_PT, Sp800};
use common::{Arena, Job, Mode, get, hex, powered, ram_at, set_clock};
use cost_ledger::{Event, Ledger};
use engine_models::am335x::{Am335x, am335x};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use mmio::omap_aes::{self as r, ctrl};
use mmio::{BusFault, RegisterBus};

const RAM: usize = 64 << 10;

struct Rig {
    gates: GateBlock,
    ledger: Ledger,
}

impl Rig {
    fn new() -> Self {
        let (gates, ledger) = powered(&[AES0.gate.unwrap(), EDMA.gate.unwrap()]);
        Self { gates, ledger }
    }

    fn soc<'a>(&'a self, mem: &'a PhysMap<'a>) -> Am335x<'a> {
        am335x(mem, &self.gates, &self.ledger)
    }
}

/// Runs `input` through DMA split into SG segments at `cuts` (byte offsets).
fn dma_split(rig: &Rig, job: &Job, input: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut ram = vec![0u8; RAM];
    let mem = ram_at(DDR.phys, &mut ram);
    let soc = rig.soc(&mem);
    let mut arena = Arena::new(DDR.phys, RAM);
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < input.len()));
    bounds.push(input.len());
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for w in bounds.windows(2) {
        let piece = &input[w[0]..w[1]];
        // Separate allocations with gaps: the segments are not contiguous.
        src.push((arena.put(&mem, piece, 64), piece.len() as u32));
        dst.push((arena.alloc(piece.len(), 64), piece.len() as u32));
    }
    omap::dma(&soc, &rig.ledger, job, &src, &dst).unwrap();
    dst.iter()
        .flat_map(|&(a, l)| get(&mem, a, l as usize))
        .collect()
}

fn pio(rig: &Rig, job: &Job, input: &[u8]) -> Vec<u8> {
    let mem = PhysMap::new();
    omap::pio(&rig.soc(&mem), &rig.ledger, job, input).expect("PIO stalled")
}

#[test]
fn fips197_appendix_c_pio_and_dma() {
    let rig = Rig::new();
    for (key, pt, ct) in FIPS197 {
        let (key, pt, ct) = (hex(key), hex(pt), hex(ct));
        let enc = Job::new(&key, None, Mode::Ecb, true);
        let dec = Job::new(&key, None, Mode::Ecb, false);
        assert_eq!(pio(&rig, &enc, &pt), ct);
        assert_eq!(pio(&rig, &dec, &ct), pt);
        assert_eq!(dma_split(&rig, &enc, &pt, &[]), ct);
        assert_eq!(dma_split(&rig, &dec, &ct, &[]), pt);
    }
}

#[test]
fn sp800_38a_every_mode_and_key_size_pio_and_dma() {
    let rig = Rig::new();
    let pt = hex(SP800_38A_PT);
    for v in SP800_38A.iter().map(Sp800::decode) {
        let (enc, dec, ct) = (v.job(true), v.job(false), &v.ct);
        assert_eq!(&pio(&rig, &enc, &pt), ct, "{} PIO", v.name);
        assert_eq!(pio(&rig, &dec, ct), pt, "{} PIO dec", v.name);
        assert_eq!(&dma_split(&rig, &enc, &pt, &[]), ct, "{} DMA", v.name);
        assert_eq!(dma_split(&rig, &dec, ct, &[]), pt, "{} DMA dec", v.name);
    }
}

#[test]
fn split_at_every_block_boundary() {
    let rig = Rig::new();
    let pt = hex(SP800_38A_PT);
    for v in SP800_38A.iter().map(Sp800::decode) {
        let first = v.job(true);
        for cut in (0..=pt.len()).step_by(16) {
            // DMA: one request, two SG segments.
            let out = dma_split(&rig, &first, &pt, &[cut]);
            assert_eq!(out, v.ct, "{} DMA cut {cut}", v.name);
            // PIO: two requests, the second continuing from the IV registers.
            let mem = PhysMap::new();
            let soc = rig.soc(&mem);
            let mut out = omap::pio(&soc, &rig.ledger, &first, &pt[..cut]).unwrap();
            let next_iv = if cut == 0 {
                v.iv.clone()
            } else {
                v.iv.as_ref().map(|_| omap::read_iv(&soc).to_vec())
            };
            let second = Job {
                iv: next_iv.as_deref(),
                ..first
            };
            out.extend(omap::pio(&soc, &rig.ledger, &second, &pt[cut..]).unwrap());
            assert_eq!(out, v.ct, "{} PIO cut {cut}", v.name);
        }
    }
}

#[test]
fn every_block_its_own_segment_and_the_bounce_path_agree() {
    let rig = Rig::new();
    let v = &SP800_38A[4];
    let (key, pt, ct, iv) = (hex(v.key), hex(SP800_38A_PT), hex(v.ct), hex(v.iv.unwrap()));
    let job = Job::new(&key, Some(&iv), v.mode, true);
    assert_eq!(dma_split(&rig, &job, &pt, &[16, 32, 48]), ct);
    let mut ram = vec![0u8; RAM];
    let mem = ram_at(DDR.phys, &mut ram);
    let soc = rig.soc(&mem);
    let mut arena = Arena::new(DDR.phys, RAM);
    let src = arena.put(&mem, &pt, 64);
    let dst = arena.alloc(64, 64);
    let bounce = (arena.alloc(64, 64), arena.alloc(64, 64));
    let before = rig.ledger.get(Event::CpuCopyByte);
    omap::dma_bounce(
        &soc,
        &mem,
        &rig.ledger,
        &job,
        bounce,
        &[(src, 64)],
        &[(dst, 64)],
    )
    .unwrap();
    assert_eq!(get(&mem, dst, 64), ct);
    assert_eq!(rig.ledger.get(Event::CpuCopyByte) - before, 128);
}

#[test]
fn pio_takes_two_interrupts_per_block_and_dma_one_per_request() {
    let rig = Rig::new();
    let key = hex(common::vectors::KEY128);
    let data = vec![7u8; 256];
    let job = Job::new(&key, None, Mode::Ecb, true);
    let before = rig.ledger.snapshot();
    pio(&rig, &job, &data);
    let d = rig.ledger.snapshot().since(&before);
    assert_eq!(d.get(Event::Interrupt), 32);
    assert_eq!(d.get(Event::PioWord), 128);
    let before = rig.ledger.snapshot();
    dma_split(&rig, &job, &data, &[]);
    let d = rig.ledger.snapshot().since(&before);
    assert_eq!(d.get(Event::Interrupt), 1);
    assert_eq!(d.get(Event::DmaByte), 512);
    assert_eq!(d.get(Event::DmaStart), 2);
    assert_eq!(d.get(Event::PioWord), 0);
    assert_eq!(d.get(Event::CpuCopyByte), 0);
}

#[test]
fn reserved_key_size_leaves_the_engine_stopped() {
    let rig = Rig::new();
    let mem = PhysMap::new();
    let soc = rig.soc(&mem);
    let mut aes = soc.aes();
    aes.write32(r::CTRL, ctrl::KEY_SIZE.val(0) | ctrl::DIRECTION)
        .unwrap();
    assert_eq!(aes.read32(r::CTRL).unwrap() & ctrl::INPUT_READY, 0);
    aes.write32(
        r::IRQ_ENABLE,
        mmio::omap_aes::irq::DATA_IN | mmio::omap_aes::irq::DATA_OUT,
    )
    .unwrap();
    for i in 0..4 {
        aes.write32(r::data(i), 0x1234_5678).unwrap();
    }
    assert!(!soc.irq_pending(AES_IRQ));
    assert_eq!(aes.read32(r::CTRL).unwrap() & ctrl::OUTPUT_READY, 0);
    // The test driver sees a stall, which a real driver's timeout turns into an error.
    let bad_key = Job::new(&[0; 20], None, Mode::Ecb, true);
    assert_eq!(omap::pio(&soc, &rig.ledger, &bad_key, &[0; 16]), None);
}

/// Runs `f` on the SoC with DDR backed by RAM, and an AES-128 ECB encryption to program.
fn with_ddr_and_ecb(f: impl FnOnce(&Rig, &Am335x, &Job)) {
    let rig = Rig::new();
    let mut ram = vec![0u8; RAM];
    let mem = ram_at(DDR.phys, &mut ram);
    let key = hex(common::vectors::KEY128);
    f(&rig, &rig.soc(&mem), &Job::new(&key, None, Mode::Ecb, true));
}

#[test]
fn dma_to_an_unreachable_address_is_a_bus_error() {
    with_ddr_and_ecb(|rig, soc, ecb| {
        let src = DDR.phys as u32;
        // Outside every window: past the mapped 64 KiB of DDR.
        let bad = DDR.phys as u32 + RAM as u32 + 0x1000;
        let got = omap::dma(soc, &rig.ledger, ecb, &[(src, 64)], &[(bad, 64)]);
        assert_eq!(got, Err(DmaError::Bus(bad)));
        let bad_src = omap::dma(soc, &rig.ledger, ecb, &[(0x1000, 32)], &[(src, 32)]);
        assert_eq!(bad_src, Err(DmaError::Bus(0x1000)));
    });
}

#[test]
fn a_gated_engine_faults_the_toucher() {
    let rig = Rig::new();
    let mem = PhysMap::new();
    let soc = rig.soc(&mem);
    set_clock(&rig.gates, &rig.ledger, AES0.gate.unwrap(), false);
    assert_eq!(soc.aes().read32(r::REV), Err(BusFault::Gated));
    assert_eq!(soc.aes().write32(r::CTRL, 0), Err(BusFault::Gated));
    // The DMA controller has its own clock and still answers.
    assert!(soc.edma().read32(mmio::edma::IPR).is_ok());
    set_clock(&rig.gates, &rig.ledger, AES0.gate.unwrap(), true);
    assert!(soc.aes().read32(r::REV).is_ok());
    assert_eq!(rig.ledger.get(Event::PowerOff), 1);
}

/// A driver's link loop (the channel's set linked to a set that links to itself,
/// copying memory to memory on the engine's input request, which never clears) holds a
/// register access only for the model's settling budget, not for ever: the access
/// returns (on seL4 the device PD would otherwise spin at its priority; without the
/// budget this test does not end, checked).
#[test]
fn a_link_loop_does_not_hold_the_register_access() {
    use mmio::edma::{self as e, p};
    use mmio::omap_aes::sysconfig;
    with_ddr_and_ecb(|_, soc, ecb| {
        omap::load_context(soc, ecb).unwrap();
        let (tx, _) = AES0.dma.unwrap();
        let (src, dst) = (DDR.phys as u32, DDR.phys as u32 + 0x1000);
        let looped = 100;
        // Each completion asks for an interrupt on a transfer code past the model's 32
        // (TCC is six bits): it raises nothing, where the shift had overflowed.
        let set = |link: usize| {
            [
                p::OPT_SYNCDIM | p::OPT_TCINTEN | p::OPT_TCC.val(40),
                src,
                p::ACNT.val(4) | p::BCNT.val(4),
                dst,
                p::SRC_IDX.val(4) | p::DST_IDX.val(4),
                p::LINK.val(e::link_to(link)),
                0,
                p::CCNT_FIELD.val(1),
            ]
        };
        let mut edma = soc.edma();
        edma.write_words(e::param(tx), &set(looped)).unwrap();
        edma.write_words(e::param(looped), &set(looped)).unwrap();
        edma.write32(e::EESR, 1 << tx).unwrap();
        // The engine asks for input from here on; the access returns.
        assert!(
            soc.aes()
                .modify32(r::SYSCONFIG, 0, sysconfig::DMA_REQ_IN)
                .is_ok()
        );
        // And the next one too: the loop goes on a budget at a time.
        assert!(soc.aes().read32(r::REV).is_ok());
    });
}
