//! The driver against a small model of a virtio-rng device on a modern virtio-mmio
//! transport (virtio 1.2 §4.2, §5.4), memory reached by physical address through the
//! test's own buffer: it initialises the transport as §3.1 says (the model checks the
//! order), its bytes reach the Rng service through the health tests and come out of a
//! fill, and a device that returns more than it was given or names a chain not posted
//! fails the service closed. QEMU's own device is `make qemu-test`'s.
use std::cell::RefCell;
use std::rc::Rc;

use mmio::{BusFault, RegisterBus};
use pd_idl::rng::{OpenSessionArgs, Request, RngAlgorithm, RngError, RngOp};
use queued_service::testkit::{CLIENT, Region, Rig};
use rng_service::{Entropy, EntropySource, Rng};
use virtio_mmio::{DmaArea, regs};
use virtio_rng_driver::{BUF_LEN, VirtioRng, layout};

/// What the model does wrong, on purpose.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fault {
    None,
    /// Says it wrote more than the buffer holds.
    Overlong,
    /// Returns a chain whose head was never posted.
    WrongHead,
}

/// The device's half: registers, the queue's addresses, and a byte stream to give.
struct Model {
    mem: *mut u8,
    base: u64,
    status: u32,
    features_sel: u32,
    queue_num: u32,
    ready: u32,
    desc: u64,
    avail: u64,
    used: u64,
    last_avail: u16,
    used_idx: u16,
    interrupt: u32,
    next: u8,
    fault: Fault,
    /// Bytes given per buffer (the device may fill less than asked, §5.4.6).
    per_buffer: usize,
}

impl Model {
    fn at(&self, phys: u64) -> *mut u8 {
        assert!(
            phys >= self.base && phys < self.base + layout::LEN as u64,
            "DMA {phys:#x}"
        );
        self.mem.wrapping_add((phys - self.base) as usize)
    }
    fn rd16(&self, phys: u64) -> u16 {
        unsafe { u16::from_le_bytes([*self.at(phys), *self.at(phys + 1)]) }
    }
    fn wr(&self, phys: u64, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            unsafe { *self.at(phys + i as u64) = *b };
        }
    }
    fn rd(&self, phys: u64, n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| unsafe { *self.at(phys + i as u64) })
            .collect()
    }

    /// QueueNotify: take each newly available chain, fill its one buffer, return it.
    fn notified(&mut self) {
        let avail_idx = self.rd16(self.avail + 2);
        while self.last_avail != avail_idx {
            let slot = u64::from(self.last_avail % self.queue_num as u16);
            let head = self.rd16(self.avail + 4 + 2 * slot);
            self.last_avail = self.last_avail.wrapping_add(1);
            let d = self.rd(self.desc + 16 * u64::from(head), 16);
            let addr = u64::from_le_bytes(d[0..8].try_into().unwrap());
            let len = u32::from_le_bytes(d[8..12].try_into().unwrap()) as usize;
            let flags = u16::from_le_bytes(d[12..14].try_into().unwrap());
            assert_eq!(flags & 2, 2, "a device-writable buffer");
            let n = len.min(self.per_buffer);
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    // A stream the health tests pass: no value twice in a row, every
                    // value equally often.
                    self.next = self.next.wrapping_mul(5).wrapping_add(0x3b);
                    self.next
                })
                .collect();
            self.wr(addr, &bytes);
            let (id, told) = match self.fault {
                Fault::None => (u32::from(head), n as u32),
                Fault::Overlong => (u32::from(head), len as u32 + 1),
                Fault::WrongHead => (u32::from(head) + 1, n as u32),
            };
            let slot = u64::from(self.used_idx % self.queue_num as u16);
            let mut elem = id.to_le_bytes().to_vec();
            elem.extend(told.to_le_bytes());
            self.wr(self.used + 4 + 8 * slot, &elem);
            self.used_idx = self.used_idx.wrapping_add(1);
            self.wr(self.used + 2, &self.used_idx.to_le_bytes());
            self.interrupt |= regs::interrupt::USED_BUFFER;
        }
    }
}

#[derive(Clone)]
struct Bus(Rc<RefCell<Model>>);

impl RegisterBus for Bus {
    fn read32(&mut self, offset: usize) -> Result<u32, BusFault> {
        let m = self.0.borrow();
        Ok(match offset {
            regs::MAGIC_VALUE => regs::MAGIC,
            regs::VERSION => regs::VERSION_MODERN,
            regs::DEVICE_ID => regs::device_id::ENTROPY,
            // VERSION_1 (bit 32) alone.
            regs::DEVICE_FEATURES => u32::from(m.features_sel == 1),
            regs::QUEUE_NUM_MAX => 64,
            regs::QUEUE_READY => m.ready,
            regs::INTERRUPT_STATUS => m.interrupt,
            regs::STATUS => m.status,
            _ => 0,
        })
    }

    fn write32(&mut self, offset: usize, value: u32) -> Result<(), BusFault> {
        let mut m = self.0.borrow_mut();
        let set = |low: &mut u64, hi: bool| {
            *low = if hi {
                (*low & 0xffff_ffff) | u64::from(value) << 32
            } else {
                (*low & !0xffff_ffff) | u64::from(value)
            }
        };
        match offset {
            regs::STATUS => {
                if value != 0 {
                    // §3.1: each step keeps the bits before it.
                    assert_eq!(
                        value & m.status,
                        m.status,
                        "status {value:#x} after {:#x}",
                        m.status
                    );
                }
                m.status = value;
            }
            regs::DEVICE_FEATURES_SEL => m.features_sel = value,
            regs::QUEUE_NUM => m.queue_num = value,
            regs::QUEUE_READY => m.ready = value,
            regs::QUEUE_DESC_LOW => set(&mut m.desc, false),
            regs::QUEUE_DESC_HIGH => set(&mut m.desc, true),
            regs::QUEUE_DRIVER_LOW => set(&mut m.avail, false),
            regs::QUEUE_DRIVER_HIGH => set(&mut m.avail, true),
            regs::QUEUE_DEVICE_LOW => set(&mut m.used, false),
            regs::QUEUE_DEVICE_HIGH => set(&mut m.used, true),
            regs::QUEUE_NOTIFY => {
                assert!(
                    m.status & regs::status::DRIVER_OK != 0,
                    "notified before DRIVER_OK"
                );
                m.notified()
            }
            regs::INTERRUPT_ACK => m.interrupt &= !value,
            _ => {}
        }
        Ok(())
    }
}

#[repr(C, align(64))]
struct Area([u8; layout::LEN]);

fn device(fault: Fault, per_buffer: usize) -> (VirtioRng<Bus>, Rc<RefCell<Model>>) {
    let area: &'static mut Area = Box::leak(Box::new(Area([0; layout::LEN])));
    let mem = area.0.as_mut_ptr();
    let base = 0x8000_0000u64;
    let model = Rc::new(RefCell::new(Model {
        mem,
        base,
        status: 0,
        features_sel: 0,
        queue_num: 0,
        ready: 0,
        desc: 0,
        avail: 0,
        used: 0,
        last_avail: 0,
        used_idx: 0,
        interrupt: 0,
        next: 1,
        fault,
        per_buffer,
    }));
    // SAFETY: leaked, so mapped for the test's life; reached only by the driver and the
    // model, through raw pointers.
    let dma = unsafe { DmaArea::new(mem, base, layout::LEN) };
    let dev = VirtioRng::new(Bus(model.clone()), dma).expect("device up");
    (dev, model)
}

#[test]
fn init_follows_section_3_1_and_bytes_come_by_interrupt() {
    let (mut dev, model) = device(Fault::None, BUF_LEN);
    assert_eq!(
        model.borrow().status & regs::status::DRIVER_OK,
        regs::status::DRIVER_OK
    );
    let mut out = [0u8; 64];
    assert_eq!(dev.take(&mut out), Ok(0), "nothing before a request");
    dev.request();
    dev.interrupted();
    assert_eq!(model.borrow().interrupt, 0, "acknowledged");
    let mut got = 0;
    while got < BUF_LEN {
        let n = dev.take(&mut out).unwrap();
        assert!(n > 0);
        got += n;
    }
    assert_eq!(dev.take(&mut out), Ok(0), "each byte once");
    assert_eq!((dev.returned, dev.bytes), (1, BUF_LEN as u64));
}

/// The service over `dev`, with one session of the client's.
fn rig(dev: VirtioRng<Bus>) -> (Rig<Rng<VirtioRng<Bus>>>, u32) {
    let mut rig = Rig::new(Entropy::new(dev), Region::new(4096), None);
    let args = OpenSessionArgs {
        algorithm: RngAlgorithm::CtrDrbgAes256,
        prediction_resistance: 0,
        reseed_interval: 0,
    };
    let id = rig.open_as(CLIENT, args).unwrap();
    (rig, id)
}

#[test]
fn the_rng_service_fills_from_the_device_through_its_health_tests() {
    // The device fills 100 of every 256 bytes asked: the service gathers over several.
    let (dev, _) = device(Fault::None, 100);
    let (mut rig, id) = rig(dev);
    let r = rig.exchange(CLIENT, &[Request::over(1, id, RngOp::Fill, &[(0, 100)])]);
    assert_eq!((r[0].status.check(), r[0].bytes_done), (Ok(Ok(())), 100));
    let e = &rig.service.engine;
    // The start-up test's 1024 samples and a seed and nonce's 96 came from the device.
    assert!(e.health().tested() >= 1024 + 96, "{}", e.health().tested());
    assert!(e.source.returned >= 11, "{} buffers", e.source.returned);
    assert!(
        rig.data.bytes()[..100]
            .iter()
            .any(|&b| b != rig.data.bytes()[0])
    );
}

#[test]
fn a_device_breaking_the_ring_rules_fails_the_service_closed() {
    for fault in [Fault::Overlong, Fault::WrongHead] {
        let (dev, _) = device(fault, BUF_LEN);
        let (mut rig, id) = rig(dev);
        let r = rig.exchange(CLIENT, &[Request::over(2, id, RngOp::Fill, &[(0, 16)])]);
        assert_eq!(
            r[0].status.check(),
            Ok(Err(RngError::EntropyFailure)),
            "{fault:?}"
        );
        assert!(rig.service.engine.source.broken().is_some(), "{fault:?}");
        assert_eq!(
            rig.data.bytes()[..16],
            [0; 16],
            "{fault:?}: nothing written"
        );
    }
}
