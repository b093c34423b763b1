//! STM32 CRYP model: known answers through IT (CPU) and DMA mode, upstream's DMA
//! eligibility with a CPU tail, splits at every block boundary, bad programming.

mod common;

use board::stm32mp1::{CRYP1, DDR, DMA};
use common::stm32::{self, CRYP_IRQ, dma_eligible};
use common::vectors::{FIPS197, SP800_38A, SP800_38A_PT, Sp800};
use common::{Arena, Job, Mode, get, hex, powered, ram_at, set_clock};
use cost_ledger::{Event, Ledger};
use engine_models::phys::PhysMap;
use engine_models::power::GateBlock;
use engine_models::stm32mp1::stm32mp1;
use mmio::stm32_cryp::{self as r, cr};
use mmio::{BusFault, RegisterBus};

const RAM: usize = 64 << 10;

fn rig() -> (GateBlock, Ledger) {
    powered(&[CRYP1.gate.unwrap(), DMA.gate.unwrap()])
}

fn it(gates: &GateBlock, ledger: &Ledger, job: &Job, input: &[u8]) -> Vec<u8> {
    let mem = PhysMap::new();
    let soc = stm32mp1(&mem, gates, ledger);
    stm32::it_mode(&soc, ledger, job, input).expect("IT stalled")
}

/// DMA for the block-aligned part of `input` (cut into SG segments at `cuts`), CPU for a
/// partial last block, as upstream.
fn dma(gates: &GateBlock, ledger: &Ledger, job: &Job, input: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut ram = vec![0u8; RAM];
    let mem = ram_at(DDR.phys, &mut ram);
    let soc = stm32mp1(&mem, gates, ledger);
    let mut arena = Arena::new(DDR.phys, RAM);
    let aligned = input.len() / 16 * 16;
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < aligned));
    bounds.push(aligned);
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for w in bounds.windows(2).filter(|w| w[1] > w[0]) {
        let piece = &input[w[0]..w[1]];
        src.push((arena.put(&mem, piece, 16), piece.len() as u32));
        dst.push((arena.alloc(piece.len(), 16), piece.len() as u32));
    }
    let tail =
        stm32::dma_mode(&soc, ledger, job, &src, &dst, &input[aligned..]).expect("DMA stalled");
    let mut out: Vec<u8> = dst
        .iter()
        .flat_map(|&(a, l)| get(&mem, a, l as usize))
        .collect();
    out.extend(tail);
    out
}

#[test]
fn fips197_and_sp800_38a_through_it_and_dma() {
    let (g, l) = rig();
    for (key, pt, ct) in FIPS197 {
        let (key, pt, ct) = (hex(key), hex(pt), hex(ct));
        assert_eq!(it(&g, &l, &Job::new(&key, None, Mode::Ecb, true), &pt), ct);
        assert_eq!(it(&g, &l, &Job::new(&key, None, Mode::Ecb, false), &ct), pt);
    }
    let pt = hex(SP800_38A_PT);
    for v in SP800_38A.iter().map(Sp800::decode) {
        let (enc, dec, ct) = (v.job(true), v.job(false), &v.ct);
        assert_eq!(&it(&g, &l, &enc, &pt), ct, "{} IT", v.name);
        assert_eq!(it(&g, &l, &dec, ct), pt, "{} IT dec", v.name);
        assert_eq!(&dma(&g, &l, &enc, &pt, &[]), ct, "{} DMA", v.name);
        assert_eq!(dma(&g, &l, &dec, ct, &[]), pt, "{} DMA dec", v.name);
    }
}

#[test]
fn split_at_every_block_boundary_and_a_cpu_tail() {
    let (g, l) = rig();
    let pt = hex(SP800_38A_PT);
    for v in SP800_38A.iter().map(Sp800::decode) {
        let enc = v.job(true);
        for cut in (16..pt.len()).step_by(16) {
            assert_eq!(dma(&g, &l, &enc, &pt, &[cut]), v.ct, "{} cut {cut}", v.name);
        }
    }
    // CTR with a last segment that is not block-aligned: DMA for 48 bytes, CPU for 12.
    let v = &SP800_38A[6];
    let (key, ct, iv) = (hex(v.key), hex(v.ct), hex(v.iv.unwrap()));
    let before = l.snapshot();
    let ctr = Job::new(&key, Some(&iv), Mode::Ctr, true);
    let out = dma(&g, &l, &ctr, &pt[..60], &[16]);
    assert_eq!(out, ct[..60]);
    let d = l.snapshot().since(&before);
    assert_eq!(d.get(Event::DmaByte), 2 * 48);
    assert_eq!(d.get(Event::PioWord), 8);
}

#[test]
fn upstream_eligibility_rules() {
    assert!(!dma_eligible(&[(0, 16)]), "16 bytes is not > 16");
    assert!(dma_eligible(&[(0, 32)]));
    assert!(
        dma_eligible(&[(0, 16), (64, 20)]),
        "a ragged last segment is fine"
    );
    assert!(!dma_eligible(&[(2, 32)]), "offsets must be 4-byte aligned");
    assert!(
        !dma_eligible(&[(0, 20), (64, 16)]),
        "non-last segments whole blocks"
    );
}

#[test]
fn it_mode_counts_one_interrupt_per_block_plus_one() {
    let (g, l) = rig();
    let key = hex(common::vectors::KEY256);
    let before = l.snapshot();
    it(
        &g,
        &l,
        &Job::new(&key, Some(&[0; 16]), Mode::Cbc, true),
        &[1; 64],
    );
    let d = l.snapshot().since(&before);
    assert_eq!(d.get(Event::Interrupt), 5);
    assert_eq!(d.get(Event::PioWord), 32);
}

#[test]
fn reserved_key_size_refuses_to_enable() {
    let (g, l) = rig();
    let mem = PhysMap::new();
    let soc = stm32mp1(&mem, &g, &l);
    let mut c = soc.cryp();
    c.write32(
        r::CR,
        cr::KEYSIZE.val(3) | cr::ALGOMODE.val(cr::MODE_AES_ECB) | cr::CRYPEN,
    )
    .unwrap();
    assert_eq!(c.read32(r::CR).unwrap() & cr::CRYPEN, 0);
    let bad_key = Job::new(&[0; 20], None, Mode::Ecb, true);
    assert_eq!(stm32::it_mode(&soc, &l, &bad_key, &[0; 16]), None);
    assert!(!soc.irq_pending(CRYP_IRQ));
}

#[test]
fn decryption_without_key_preparation_is_wrong() {
    let (g, l) = rig();
    let mem = PhysMap::new();
    let soc = stm32mp1(&mem, &g, &l);
    let (key, pt, ct) = (hex(FIPS197[0].0), hex(FIPS197[0].1), hex(FIPS197[0].2));
    let mut c = soc.cryp();
    for (j, w) in key.chunks(4).enumerate() {
        c.write32(r::key_word(4, j), u32::from_be_bytes(w.try_into().unwrap()))
            .unwrap();
    }
    let cfg = cr::ALGOMODE.val(cr::MODE_AES_ECB) | cr::DATATYPE.val(cr::DATATYPE_8) | cr::ALGODIR;
    c.write32(r::CR, cfg | cr::CRYPEN).unwrap();
    for w in ct.chunks(4) {
        c.write32(r::DIN, u32::from_le_bytes(w.try_into().unwrap()))
            .unwrap();
    }
    let out: Vec<u8> = (0..4)
        .flat_map(|_| c.read32(r::DOUT).unwrap().to_le_bytes())
        .collect();
    assert_ne!(out, pt);
}

#[test]
fn dma_to_an_unreachable_address_is_a_bus_error() {
    let (g, l) = rig();
    let mut ram = vec![0u8; RAM];
    let mem = ram_at(DDR.phys, &mut ram);
    let soc = stm32mp1(&mem, &g, &l);
    let bad = 0x1000;
    let ecb = Job::new(&[0; 16], None, Mode::Ecb, true);
    let got = stm32::dma_mode(&soc, &l, &ecb, &[(DDR.phys as u32, 32)], &[(bad, 32)], &[]);
    assert_eq!(got, None, "no completion");
    assert!(soc.irq_pending(board::stm32mp1::DMA_IRQ_ERROR));
    assert_eq!(soc.dma().read32(mmio::edma::ERRADDR), Ok(bad));
}

#[test]
fn a_gated_engine_faults_the_toucher() {
    let (g, l) = rig();
    let mem = PhysMap::new();
    let soc = stm32mp1(&mem, &g, &l);
    set_clock(&g, &l, CRYP1.gate.unwrap(), false);
    assert_eq!(soc.cryp().read32(r::SR), Err(BusFault::Gated));
    assert_eq!(soc.cryp().write32(r::DIN, 0), Err(BusFault::Gated));
}
