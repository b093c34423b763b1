//! The minimal systems the tools boot, generated as Microkit `.system` text.
//!
//! One client PD (`client`, priority 100), or up to four (`client`, `client1`, ...), of
//! one driver PD (150), under the board's power manager (200) when the engine has a
//! clock gate, wired by the driver-pd conventions: client k of a driver talks on its
//! channel 0 and the driver's channel k (PPC towards the driver), its queue pair is
//! mapped `queues<k>` in the driver and `queues` in the client, its data `data<k>` and
//! `data`; the
//! driver calls the power manager on its channel 10 as the manager's child 1. The cost
//! ledger is shared: read-only in the client (the speed tool reads what requests cost),
//! read-write in the driver and the manager, whose models count into it.

use crate::algs::Engine;

/// Bytes of the client's data region: the most one request carries, and what a file
/// larger than it is streamed through.
pub const DATA_SIZE: usize = 0x10000;

/// Bytes of an Aead client's data region: a message is one request (init/update/final
/// is not offered yet), so the region bounds the message `pd-enc` seals or opens.
pub const AEAD_DATA_SIZE: usize = 0x10_0000;

/// Bytes of the data region of a client speaking `kind`.
pub const fn data_size(kind: Kind) -> usize {
    match kind {
        Kind::Aead => AEAD_DATA_SIZE,
        _ => DATA_SIZE,
    }
}

/// Clients one driver serves (driver-pd's client slots).
pub const MAX_CLIENTS: usize = 4;

/// Which interface the client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Cipher,
    Digest,
    Mac,
    Aead,
    Rng,
}

/// The parts of a system that depend on the engine.
struct Driver {
    image: &'static str,
    power: Option<&'static str>,
    /// Physical address of the client's data region (DMA reaches it there).
    data_paddr: Option<u64>,
    /// Scratch region (size, physical address) for drivers that DMA into their own.
    scratch: Option<(usize, u64)>,
    /// The engine's interrupts, delivered to the driver on channels 20, 21, ...
    irqs: &'static [u32],
    /// The driver draws IVs from the host's Rng driver (`driver_pd::rng`: channel 11).
    rng: bool,
}

const OMAP_IRQS: [u32; 3] = [
    board::am335x::AES0.irqs[0],
    board::am335x::EDMA_IRQ_COMPLETION,
    board::am335x::EDMA_IRQ_ERROR,
];
const STM32_IRQS: [u32; 3] = [
    board::stm32mp1::CRYP1.irqs[0],
    board::stm32mp1::DMA_IRQ_COMPLETION,
    board::stm32mp1::DMA_IRQ_ERROR,
];

fn driver(engine: Engine, kind: Kind) -> Result<Driver, String> {
    Ok(match (engine, kind) {
        (Engine::Cpu, Kind::Cipher) => Driver {
            image: "cpu-cipher",
            power: None,
            data_paddr: None,
            scratch: None,
            irqs: &[],
            rng: true,
        },
        // With the host's Rng driver: nonces the driver draws (`pd-enc --random-nonce`).
        (Engine::Cpu, Kind::Aead) => Driver {
            image: "cpu-aead",
            power: None,
            data_paddr: None,
            scratch: None,
            irqs: &[],
            rng: true,
        },
        (Engine::Cpu, Kind::Mac) => Driver {
            image: "cpu-mac",
            power: None,
            data_paddr: None,
            scratch: None,
            irqs: &[],
            rng: false,
        },
        // The host's Rng driver: the service over the getrandom-fed entropy model.
        (Engine::Cpu, Kind::Rng) => Driver {
            image: "host-rng",
            power: None,
            data_paddr: None,
            scratch: None,
            irqs: &[],
            rng: false,
        },
        (Engine::Cpu, Kind::Digest) => Driver {
            image: "cpu-digest",
            power: None,
            data_paddr: None,
            scratch: None,
            irqs: &[],
            rng: false,
        },
        // Addresses as in system/cipher-omap.system, cipher-stm32.system and
        // digest-sec1.system: inside each board's DMA-reachable DDR/SDRAM.
        (Engine::OmapAes, Kind::Cipher) => Driver {
            image: "omap-aes",
            power: Some("pm-am335x"),
            data_paddr: Some(0x8010_0000),
            scratch: Some((0x1000, 0x8020_0000)),
            irqs: &OMAP_IRQS,
            rng: false,
        },
        (Engine::Stm32Cryp, Kind::Cipher) => Driver {
            image: "stm32-cryp",
            power: Some("pm-stm32mp1"),
            data_paddr: Some(0xc010_0000),
            scratch: Some((0x1000, 0xc020_0000)),
            irqs: &STM32_IRQS,
            rng: false,
        },
        (Engine::Sec1, Kind::Digest) => Driver {
            image: "sec1-hash",
            power: Some("pm-mpc885"),
            data_paddr: Some(0x100_0000),
            scratch: Some((0x20000, 0x80_0000)),
            irqs: board::mpc885::SEC.irqs,
            rng: false,
        },
        (e, k) => return Err(format!("engine {} has no {k:?} driver", e.name())),
    })
}

/// The name of client PD `k` of a generated system.
pub fn client_name(k: usize) -> String {
    match k {
        0 => "client".into(),
        k => format!("client{k}"),
    }
}

/// Bytes of a client's queue region: its interface's queue pair (what crypto-client
/// attaches) in whole pages.
pub const fn queue_pages(kind: Kind) -> usize {
    use pd_idl::{aead, cipher, digest, mac, rng};
    let bytes = match kind {
        Kind::Cipher => crypto_client::pair::bytes::<cipher::Request, cipher::Response>(
            cipher::REQUEST_QUEUE_CAPACITY,
        ),
        Kind::Digest => crypto_client::pair::bytes::<digest::Request, digest::Response>(
            digest::REQUEST_QUEUE_CAPACITY,
        ),
        Kind::Mac => {
            crypto_client::pair::bytes::<mac::Request, mac::Response>(mac::REQUEST_QUEUE_CAPACITY)
        }
        Kind::Aead => crypto_client::pair::bytes::<aead::Request, aead::Response>(
            aead::REQUEST_QUEUE_CAPACITY,
        ),
        Kind::Rng => {
            crypto_client::pair::bytes::<rng::Request, rng::Response>(rng::REQUEST_QUEUE_CAPACITY)
        }
    };
    bytes.next_multiple_of(0x1000)
}

/// The `.system` text: `client` (a binary of this package) as the driver's client 0.
pub fn system(engine: Engine, kind: Kind, client: &str) -> Result<String, String> {
    system_with(engine, kind, client, 1)
}

/// The `.system` text with `clients` instances of `client` (at most the four a driver
/// serves), as the driver's clients 0, 1, ...
pub fn system_with(
    engine: Engine,
    kind: Kind,
    client: &str,
    clients: usize,
) -> Result<String, String> {
    if !(1..=MAX_CLIENTS).contains(&clients) {
        return Err(format!(
            "a driver serves 1 to {MAX_CLIENTS} clients, not {clients}"
        ));
    }
    let d = driver(engine, kind)?;
    let queues = queue_pages(kind);
    let data_size = data_size(kind);
    // A driver maps its clients' regions side by side.
    let stride = data_size.max(0x10000);
    // A cipher works in place; a digest driver writes each final's digest.
    let data_perms = "rw";
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    x += &format!(
        "<!-- generated by pd-tools for {} ({kind:?}), client {client} -->\n<system>\n",
        engine.name()
    );
    for k in 0..clients {
        x += &format!("    <memory_region name=\"queues{k}\" size=\"{queues:#x}\" />\n");
        x += &format!("    <memory_region name=\"data{k}\" size=\"{data_size:#x}\"");
        // Side by side in the DMA-reachable window, below the scratch region.
        if let Some(p) = d.data_paddr {
            x += &format!(" phys_addr=\"{:#x}\"", p + (k * data_size) as u64);
        }
        x += " />\n";
    }
    x += "    <memory_region name=\"ledger\" size=\"0x1000\" />\n";
    if let Some((size, paddr)) = d.scratch {
        x += &format!(
            "    <memory_region name=\"scratch\" size=\"{size:#x}\" phys_addr=\"{paddr:#x}\" />\n"
        );
    }
    if d.power.is_some() {
        x += "    <memory_region name=\"gates\" size=\"0x1000\" />\n";
    }
    for k in 0..clients {
        let name = client_name(k);
        x += &format!(
            r#"
    <protection_domain name="{name}" priority="100" cpu="0">
        <program_image path="{client}.elf" />
        <map mr="queues{k}" vaddr="0x40000000" perms="rw" setvar_vaddr="queues" />
        <map mr="data{k}" vaddr="0x41000000" perms="rw" setvar_vaddr="data" />
        <map mr="ledger" vaddr="0x42000000" perms="r" setvar_vaddr="ledger" />
    </protection_domain>
"#
        );
    }
    let mut drv = format!(
        r#"<protection_domain name="driver" id="1" priority="150" cpu="1">
            <program_image path="{}.elf" />
            <map mr="ledger" vaddr="0x42000000" perms="rw" setvar_vaddr="ledger" />
"#,
        d.image
    );
    for k in 0..clients {
        let at = stride * k;
        drv += &format!(
            "            <map mr=\"queues{k}\" vaddr=\"{:#x}\" perms=\"rw\" setvar_vaddr=\"queues{k}\" />\n",
            0x4000_0000 + at
        );
        drv += &format!(
            "            <map mr=\"data{k}\" vaddr=\"{:#x}\" perms=\"{data_perms}\" setvar_vaddr=\"data{k}\" />\n",
            0x4100_0000 + at
        );
    }
    for (i, irq) in d.irqs.iter().enumerate() {
        drv += &format!("            <irq irq=\"{irq}\" id=\"{}\" />\n", 20 + i);
    }
    if d.power.is_some() {
        drv += "            <map mr=\"gates\" vaddr=\"0x43000000\" perms=\"r\" setvar_vaddr=\"gates\" />\n";
    }
    if d.scratch.is_some() {
        drv += "            <map mr=\"scratch\" vaddr=\"0x44000000\" perms=\"rw\" setvar_vaddr=\"scratch\" />\n";
    }
    drv += "        </protection_domain>\n";
    match d.power {
        Some(pm) => {
            x += &format!(
                r#"
    <protection_domain name="power" priority="200">
        <program_image path="{pm}.elf" />
        <map mr="gates" vaddr="0x43000000" perms="rw" setvar_vaddr="gates" />
        <map mr="ledger" vaddr="0x42000000" perms="rw" setvar_vaddr="ledger" />
        {drv}    </protection_domain>
"#
            );
        }
        // A top-level PD has no id (ids name children).
        None => x += &format!("\n    {}", drv.replacen(" id=\"1\"", "", 1)),
    }
    for k in 0..clients {
        x += &format!(
            r#"
    <channel>
        <end pd="{}" id="0" pp="true" />
        <end pd="driver" id="{k}" />
    </channel>
"#,
            client_name(k)
        );
    }
    if d.power.is_some() {
        x += r#"    <channel>
        <end pd="driver" id="10" pp="true" notify="false" />
        <end pd="power" id="1" />
    </channel>
"#;
    }
    if d.rng {
        // The host's Rng driver, above the driver, which is its client 0 by draw calls
        // alone (the regions of that client only the Rng driver maps).
        x += &format!(
            r#"    <memory_region name="rng_queues" size="{:#x}" />
    <memory_region name="rng_data" size="0x1000" />
    <protection_domain name="rng" priority="200">
        <program_image path="host-rng.elf" />
        <map mr="rng_queues" vaddr="0x40000000" perms="rw" setvar_vaddr="queues0" />
        <map mr="rng_data" vaddr="0x41000000" perms="rw" setvar_vaddr="data0" />
    </protection_domain>
    <channel>
        <end pd="driver" id="11" pp="true" setvar_id="rng" />
        <end pd="rng" id="0" />
    </channel>
"#,
            queue_pages(Kind::Rng)
        );
    }
    x += "</system>\n";
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every system a tool can generate passes the Microkit rules `system-check` applies.
    #[test]
    fn every_generated_system_is_valid() {
        let mut n = 0;
        for engine in [
            Engine::Cpu,
            Engine::OmapAes,
            Engine::Stm32Cryp,
            Engine::Sec1,
        ] {
            for kind in [Kind::Cipher, Kind::Digest, Kind::Mac, Kind::Aead] {
                for clients in 1..=MAX_CLIENTS {
                    let Ok(text) = system_with(engine, kind, "pdt-speed-client", clients) else {
                        continue;
                    };
                    let desc = system_desc::parse(&text, "generated.system")
                        .unwrap_or_else(|e| panic!("{engine:?} {kind:?}: {e:?}\n{text}"));
                    let pds = desc.all_pds().len();
                    // The driver, and its power manager or (the CPU's Cipher driver) the
                    // Rng driver it draws IVs from.
                    let others =
                        if engine == Engine::Cpu && matches!(kind, Kind::Digest | Kind::Mac) {
                            1
                        } else {
                            2
                        };
                    assert_eq!(pds, clients + others, "{text}");
                    n += 1;
                }
            }
        }
        // The CPU engine's four interfaces, OMAP's and STM32's Cipher, SEC1's Digest.
        assert_eq!(n, 7 * MAX_CLIENTS);
        assert!(system_with(Engine::Cpu, Kind::Cipher, "c", MAX_CLIENTS + 1).is_err());
    }
}
