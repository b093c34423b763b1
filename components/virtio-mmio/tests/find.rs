//! `find` over a window of transports in ordinary memory: the `nth` device of a type,
//! in transport order, is the one returned.

use virtio_mmio::{Error, TRANSPORT_STRIDE, TRANSPORTS, find, regs};

/// 32 transports, each empty but those given as (transport, device type), which hold
/// a modern device of that type.
fn window(devices: &[(usize, u32)]) -> Vec<u32> {
    let mut words = vec![0u32; TRANSPORTS * TRANSPORT_STRIDE / 4];
    for t in 0..TRANSPORTS {
        words[t * TRANSPORT_STRIDE / 4 + regs::MAGIC_VALUE / 4] = regs::MAGIC;
        words[t * TRANSPORT_STRIDE / 4 + regs::VERSION / 4] = regs::VERSION_MODERN;
    }
    for &(t, id) in devices {
        words[t * TRANSPORT_STRIDE / 4 + regs::DEVICE_ID / 4] = id;
    }
    words
}

fn nth(words: &mut [u32], device: u32, n: usize) -> Result<usize, Error> {
    let mut others = 0;
    // SAFETY: `words` is the whole window (32 transports) and outlives the bus, which
    // is dropped at once.
    let found = unsafe {
        find(
            words.as_mut_ptr().cast(),
            words.len() * 4,
            device,
            n,
            |_, _| others += 1,
        )
    };
    assert_eq!(others, 0, "no transport is of an unknown kind");
    found.map(|(t, _)| t)
}

#[test]
fn the_nth_device_of_a_type_is_found_in_transport_order() {
    let crypto = regs::device_id::CRYPTO;
    let mut w = window(&[(29, crypto), (30, regs::device_id::ENTROPY), (31, crypto)]);
    assert_eq!(nth(&mut w, crypto, 0), Ok(29));
    assert_eq!(nth(&mut w, crypto, 1), Ok(31));
    assert_eq!(nth(&mut w, crypto, 2), Err(Error::NoDevice));
    assert_eq!(nth(&mut w, regs::device_id::ENTROPY, 0), Ok(30));
    assert_eq!(
        nth(&mut w, regs::device_id::ENTROPY, 1),
        Err(Error::NoDevice)
    );
}
