//! Malformed chains a hostile or buggy driver could post: the model must stop with
//! DEVICE_NEEDS_RESET (as QEMU's `virtio_error` does), touch nothing outside its DMA
//! windows, and never loop. Driven through the registers by hand, without the driver.

use cost_ledger::{Event, Ledger};
use engine_models::phys::PhysMap;
use mmio::RegisterBus;
use virtio_crypto_driver::regs::{self, status};
use virtio_crypto_driver::wire::desc_flags::{NEXT, WRITE};
use virtio_crypto_model::{DATAQ, ModelConfig, VirtioCryptoModel};

const BASE: u64 = 0x1000;
const DESC: u64 = BASE;
const AVAIL: u64 = BASE + 0x100;
const USED: u64 = BASE + 0x200;
const BUF: u64 = BASE + 0x400;

fn up(model: &mut VirtioCryptoModel<'_>) {
    let w = |m: &mut VirtioCryptoModel<'_>, off, v| m.write32(off, v).unwrap();
    w(model, regs::STATUS, status::ACKNOWLEDGE | status::DRIVER);
    w(model, regs::DRIVER_FEATURES_SEL, 1);
    w(model, regs::DRIVER_FEATURES, 1); // VERSION_1 is bit 32
    w(
        model,
        regs::STATUS,
        status::ACKNOWLEDGE | status::DRIVER | status::FEATURES_OK,
    );
    assert_ne!(model.read32(regs::STATUS).unwrap() & status::FEATURES_OK, 0);
    w(model, regs::QUEUE_SEL, DATAQ);
    w(model, regs::QUEUE_NUM, 8);
    w(model, regs::QUEUE_DESC_LOW, DESC as u32);
    w(model, regs::QUEUE_DRIVER_LOW, AVAIL as u32);
    w(model, regs::QUEUE_DEVICE_LOW, USED as u32);
    w(model, regs::QUEUE_READY, 1);
    w(
        model,
        regs::STATUS,
        status::ACKNOWLEDGE | status::DRIVER | status::FEATURES_OK | status::DRIVER_OK,
    );
}

fn desc(map: &PhysMap<'_>, i: u64, addr: u64, len: u32, flags: u16, next: u16) {
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&addr.to_le_bytes());
    d[8..12].copy_from_slice(&len.to_le_bytes());
    d[12..14].copy_from_slice(&flags.to_le_bytes());
    d[14..].copy_from_slice(&next.to_le_bytes());
    map.write(DESC + 16 * i, &d).unwrap();
}

/// Posts head 0 and notifies; returns whether the model asked for a reset.
fn post(map: &PhysMap<'_>, model: &mut VirtioCryptoModel<'_>) -> bool {
    map.write(AVAIL + 4, &0u16.to_le_bytes()).unwrap();
    map.write(AVAIL + 2, &1u16.to_le_bytes()).unwrap();
    model.write32(regs::QUEUE_NOTIFY, DATAQ).unwrap();
    model.read32(regs::STATUS).unwrap() & status::DEVICE_NEEDS_RESET != 0
}

fn with_model(f: impl FnOnce(&PhysMap<'_>, &mut VirtioCryptoModel<'_>)) {
    let mut mem = vec![0u8; 0x1000];
    let map = PhysMap::new();
    map.add(BASE, &mut mem);
    let mut model = VirtioCryptoModel::new(&map, ModelConfig::default(), None);
    up(&mut model);
    f(&map, &mut model);
}

#[test]
fn a_descriptor_loop_is_a_reset_not_a_hang() {
    with_model(|map, model| {
        desc(map, 0, BUF, 72, NEXT, 1);
        desc(map, 1, BUF, 16, NEXT, 0);
        assert!(post(map, model));
    });
}

#[test]
fn a_next_index_past_the_queue_is_a_reset() {
    with_model(|map, model| {
        desc(map, 0, BUF, 72, NEXT, 9);
        assert!(post(map, model));
    });
}

#[test]
fn a_buffer_outside_the_windows_is_a_reset() {
    with_model(|map, model| {
        desc(map, 0, 0xdead_0000, 72, NEXT, 1);
        desc(map, 1, BUF + 0x100, 1, WRITE, 0);
        assert!(post(map, model));
    });
}

#[test]
fn a_readable_buffer_after_a_writable_one_is_a_reset() {
    with_model(|map, model| {
        desc(map, 0, BUF + 0x100, 1, WRITE | NEXT, 1);
        desc(map, 1, BUF, 72, 0, 0);
        assert!(post(map, model));
    });
}

#[test]
fn an_available_index_too_far_ahead_is_a_reset() {
    with_model(|map, model| {
        map.write(AVAIL + 2, &100u16.to_le_bytes()).unwrap();
        model.write32(regs::QUEUE_NOTIFY, DATAQ).unwrap();
        assert_ne!(
            model.read32(regs::STATUS).unwrap() & status::DEVICE_NEEDS_RESET,
            0
        );
    });
}

#[test]
fn features_not_offered_are_refused() {
    let mut mem = vec![0u8; 0x100];
    let map = PhysMap::new();
    map.add(BASE, &mut mem);
    let mut model = VirtioCryptoModel::new(&map, ModelConfig::default(), None);
    model.write32(regs::DRIVER_FEATURES_SEL, 1).unwrap();
    model.write32(regs::DRIVER_FEATURES, 1 | 1 << 3).unwrap(); // VERSION_1 and bit 35
    model.write32(regs::STATUS, status::FEATURES_OK).unwrap();
    assert_eq!(model.read32(regs::STATUS).unwrap() & status::FEATURES_OK, 0);
}

#[test]
fn register_accesses_are_counted_in_the_ledger() {
    let mut mem = vec![0u8; 0x100];
    let map = PhysMap::new();
    map.add(BASE, &mut mem);
    let ledger = Ledger::default();
    let mut model = VirtioCryptoModel::new(&map, ModelConfig::default(), Some(&ledger));
    model.read32(regs::MAGIC_VALUE).unwrap();
    model.write32(regs::STATUS, status::ACKNOWLEDGE).unwrap();
    assert_eq!(
        (ledger.get(Event::RegRead), ledger.get(Event::RegWrite)),
        (1, 1)
    );
    assert!(
        model.read32(regs::WINDOW).is_err(),
        "outside the register window"
    );
}
