"""crypto-pd's class for sdfgen: adds an engine's driver PD to a Microkit system and
connects clients to it, as sDDF's `Sddf.Blk` or `Sddf.Serial` do for their device
classes (https://github.com/au-ts/microkit_sdf_gen).

    sdf = SystemDescription(SystemDescription.Arch.AARCH64, 0x1_0000_0000)
    crypto = Crypto(sdf)
    omap = crypto.add_driver(omap_aes, prefix="omap", parent=pm, power=pm, device=dev,
                             dma=True, scratch=0x1000, ledger=0x1000)
    omap.add_client(kat, queues=0x4000, data=0x4000, client_id=0, ledger=True)
    omap.connect()
    xml = crypto.render()

What it writes follows driver-pd's conventions (components/driver-pd): client k of a
driver talks on channel k (the client end makes the protected calls) and has its queue
pair mapped in the driver as `queues<k>` and its data as `data<k>`, each with a
`_size` setvar (pd-runtime's seL4 `memory_region!` needs it); the power manager is
on channel 10 (calls only); a device PD, where a model stands in for silicon
(boards/device-model-pd), is reached on the channel ends with `setvar_id="device"`,
and maps the DMA-reachable regions as `dma0..dma7` with their physical addresses.

What it assumes: sdfgen 0.35 (pinned in requirements.txt). That version has no way
to write `<setvar symbol=".." region_paddr=".."/>` (Microkit's way of giving a PD a
region's physical address): `Crypto.render` adds those to sdfgen's XML itself. The
caller adds its own PDs to the system (`sdf.add_pd`), as with sdfgen's classes; a
driver with a `parent` is added by the parent, so the caller must not add it too.
Virtual addresses are sdfgen's choice (`get_map_vaddr`): every PD here finds its
regions by setvar, never by a fixed address.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Union

from sdfgen import SystemDescription

ProtectionDomain = SystemDescription.ProtectionDomain
MemoryRegion = SystemDescription.MemoryRegion
Map = SystemDescription.Map
Channel = SystemDescription.Channel
Irq = SystemDescription.IrqConventional

# driver-pd's conventions (components/driver-pd/src/lib.rs and clients.rs).
MAX_CLIENTS = 4
POWER_CHANNEL = 10
DEVICE_CHANNEL = 20
# A driver's channel to the key store (driver-pd's keys module: setvar_id="keys").
KEYS_CHANNEL = 12
# The key store's channel to its Rng driver (driver_pd::rng: setvar_id="rng").
RNG_CHANNEL = 11
# The console (pd-runtime's console module, components/serial-pd): every writer reaches
# the serial driver on channel 61 (the last id Microkit allows) and maps its queue as
# `console`; the driver has writer k on channel k (`writer<k>`) and the UART's
# interrupt on 61.
CONSOLE_CHANNEL = 61
MAX_CONSOLE_WRITERS = 61
# QEMU virt's PL011 (hw/arm/virt.c: VIRT_UART at 0x09000000, SPI 1, so GIC irq 33).
QEMU_VIRT_UART = 0x0900_0000
QEMU_VIRT_UART_IRQ = 33
# device-model-pd maps dma0..dma7; dma0 is the driver's scratch.
MAX_DMA_REGIONS = 8
# Every crypto-pd PD keeps its state on its stack (pd-runtime's init returns the
# handler by value) and overflows Microkit's default 8 KiB; 32 KiB is what the image
# has always booted with (see the image's meta script).
STACK_SIZE = 0x8000

Size = Union[int, MemoryRegion]


class CryptoSdfError(Exception):
    """A system the helper refuses to write: a Microkit rule or a driver-pd
    convention it would break."""


@dataclass
class _Client:
    pd: ProtectionDomain
    queues: Size
    data: Size
    client_id: Optional[int]
    prefix: str
    queues_symbol: str
    data_symbol: str
    ledger: bool
    # A client of calls alone (a driver drawing nonces from an Rng driver): its regions
    # are mapped in the driver only, and its end of the channel names this setvar.
    caller_setvar: Optional[str] = None


@dataclass
class _SetVar:
    pd: str
    symbol: str
    region: str


class Crypto:
    """What a system's crypto drivers share: the system and the `region_paddr`
    setvars sdfgen cannot write."""

    def __init__(self, sdf: SystemDescription, *, pin_dma: bool = False) -> None:
        """`pin_dma`: give every region a driver or device PD reaches by DMA a
        physical address (sdfgen's, below the system's paddr_top). The host backend
        needs it: its runner places other regions above 4 GiB, out of reach of the
        engines' 32-bit DMA. On seL4, Microkit's tool places them in RAM itself."""
        self.sdf = sdf
        self.pin_dma = pin_dma
        self._setvars: List[_SetVar] = []
        self._regions: Dict[str, MemoryRegion] = {}
        self._sizes: Dict[str, int] = {}
        # (PD, symbol) -> (region, perms, cached): what each PD already maps.
        self._maps: Dict[tuple, tuple] = {}
        self._drivers: List[Crypto.Driver] = []
        # Region name -> the file (beside the .system) it is prefilled from.
        self._prefills: Dict[str, str] = {}
        # Files a system needs beside its .system (a key store's configuration): name
        # -> text. The meta script writes them where it writes the .system.
        self.files: Dict[str, str] = {}
        self._key_stores: List[Crypto.KeyStore] = []

    def region(
        self, name: str, size: int, *, paddr: Optional[int] = None, physical: bool = False
    ) -> MemoryRegion:
        """A memory region added to the system, named `name` (names are unique:
        Microkit refuses a second region of the same name, so the helper does too)."""
        if name in self._regions:
            raise CryptoSdfError(f"memory region '{name}' is already in the system")
        if size <= 0 or size % 0x1000:
            raise CryptoSdfError(f"memory region '{name}': size {size:#x} is not a whole number of 4 KiB pages")
        mr = MemoryRegion(self.sdf, name, size, paddr=paddr, physical=physical or None)
        self.sdf.add_mr(mr)
        self._regions[name] = mr
        self._sizes[name] = size
        return mr

    def region_name(self, mr: MemoryRegion) -> str:
        for name, known in self._regions.items():
            if known is mr:
                return name
        raise CryptoSdfError("a memory region not made by Crypto.region: its name is unknown to the helper")

    def map(
        self,
        pd: ProtectionDomain,
        mr: MemoryRegion,
        symbol: str,
        perms: str = "rw",
        *,
        cached: bool = True,
        paddr_symbol: Optional[str] = None,
    ) -> None:
        """Map `mr` into `pd` at sdfgen's next free address, as pd-runtime's
        `memory_region!(symbol)` reads it (`symbol` and `symbol_size`); with
        `paddr_symbol`, also the region's physical address (for DMA)."""
        name = self.region_name(mr)
        key = (pd.name, symbol)
        if key in self._maps:
            if self._maps[key] == (name, perms, cached):
                # A client of two drivers that share its data region maps it once.
                return
            raise CryptoSdfError(f"PD '{pd.name}' maps two regions as '{symbol}'")
        self._maps[key] = (name, perms, cached)
        vaddr = pd.get_map_vaddr(mr)
        pd.add_map(
            Map(mr, vaddr, perms, cached=cached, setvar_vaddr=symbol, setvar_size=f"{symbol}_size")
        )
        if paddr_symbol is not None:
            self.setvar_paddr(pd, paddr_symbol, mr)

    def setvar_paddr(self, pd: ProtectionDomain, symbol: str, mr: MemoryRegion) -> None:
        """`<setvar symbol=symbol region_paddr=mr>` in `pd`: written by `render`."""
        name = self.region_name(mr)
        if any(s.pd == pd.name and s.symbol == symbol for s in self._setvars):
            raise CryptoSdfError(f"PD '{pd.name}' already has a setvar '{symbol}'")
        self._setvars.append(_SetVar(pd.name, symbol, name))

    def wire_device(
        self,
        user: ProtectionDomain,
        device: ProtectionDomain,
        *,
        power: Optional[ProtectionDomain],
        ledger: MemoryRegion,
        dma_regions: List[MemoryRegion],
    ) -> None:
        """`user` drives the engine `device` (a device PD running the engine's model)
        stands in for: registers by calls on `user`'s channel DEVICE_CHANNEL (setvar
        "device"), the engine's interrupts by notification on it; `power`, if any,
        reaches the clock window by calls on its own DEVICE_CHANNEL. The device PD
        counts into `ledger` and reaches `dma_regions` by DMA (`dma<i>`, with their
        physical addresses). A driver's `connect` calls this, and so does the
        isolation bench for the device it drives itself."""
        if len(dma_regions) > MAX_DMA_REGIONS:
            raise CryptoSdfError(f"device PD '{device.name}' maps at most {MAX_DMA_REGIONS} DMA regions")
        self.map(device, ledger, "ledger")
        for i, mr in enumerate(dma_regions):
            self.map(device, mr, f"dma{i}", paddr_symbol=f"dma{i}_paddr")
        # Registers by call, the engine's interrupts by notification.
        self.sdf.add_channel(
            Channel(user, device, a_id=DEVICE_CHANNEL, b_id=0, pp_a=True,
                    pd_a_setvar_id="device", pd_b_setvar_id="driver")
        )
        if power is not None:
            # The clock window: calls only.
            self.sdf.add_channel(
                Channel(power, device, a_id=DEVICE_CHANNEL, b_id=1, pp_a=True,
                        notify_a=False, notify_b=False,
                        pd_a_setvar_id="device", pd_b_setvar_id="power")
            )

    def prefill(self, mr: MemoryRegion, file: str, text: str) -> None:
        """`mr` starts with `text` (Microkit's `prefill_path`): `render` writes the
        attribute, and `file` is one of the system's `files`."""
        if len(text.encode()) > self.sdf_region_size(mr):
            raise CryptoSdfError(f"prefill '{file}' is longer than its region")
        self._prefills[self.region_name(mr)] = file
        self.files[file] = text

    def sdf_region_size(self, mr: MemoryRegion) -> int:
        return self._sizes[self.region_name(mr)]

    def add_key_store(self, store: ProtectionDomain, **options) -> Crypto.KeyStore:
        """The key-store PD; see `Crypto.KeyStore`."""
        k = Crypto.KeyStore(self, store, **options)
        self._key_stores.append(k)
        return k

    def add_driver(self, driver: ProtectionDomain, **options) -> Crypto.Driver:
        """A crypto engine's driver PD; see `Crypto.Driver` for the options."""
        d = Crypto.Driver(self, driver, **options)
        self._drivers.append(d)
        return d

    def add_console(
        self,
        serial: ProtectionDomain,
        writers: List[ProtectionDomain],
        *,
        uart_paddr: int = QEMU_VIRT_UART,
        irq: int = QEMU_VIRT_UART_IRQ,
    ) -> None:
        """The serial driver PD (components/serial-pd) and a console queue for each of
        `writers`: region `console_<writer>` (one page), mapped as `console` in the
        writer and as `writer<k>` in `serial`, and a channel on which the writer
        notifies (its id 61, the driver's k; the driver never notifies a writer: a
        writer never waits for it). `serial` maps the UART's page uncached as `uart`
        and takes its level-triggered interrupt on channel 61. A writer finds its queue by
        the `console` setvars (pd-runtime's console, or crypto-client-c's console.h in a
        C PD). The caller adds `serial` to the system."""
        if len(writers) > MAX_CONSOLE_WRITERS:
            raise CryptoSdfError(f"{len(writers)} console writers: the serial driver has channels for {MAX_CONSOLE_WRITERS}")
        names = [w.name for w in writers]
        if len(set(names)) != len(names) or serial.name in names:
            raise CryptoSdfError("a console writer is named twice, or is the serial driver itself")
        uart = self.region("uart", 0x1000, paddr=uart_paddr)
        self.map(serial, uart, "uart", cached=False)
        serial.add_irq(Irq(irq, trigger=Irq.Trigger.LEVEL, id=CONSOLE_CHANNEL))
        for k, writer in enumerate(writers):
            queue = self.region(f"console_{writer.name}", 0x1000)
            self.map(writer, queue, "console")
            self.map(serial, queue, f"writer{k}")
            self.sdf.add_channel(Channel(writer, serial, a_id=CONSOLE_CHANNEL, b_id=k, notify_b=False))

    def render(self, header: Optional[str] = None) -> str:
        """sdfgen's XML with the `region_paddr` setvars added and `header` as a
        comment before `<system>`. Refuses a driver not yet connected."""
        for d in self._drivers:
            if not d.connected:
                raise CryptoSdfError(f"driver '{d.pd.name}' was never connected (Driver.connect)")
        for k in self._key_stores:
            if not k.connected:
                raise CryptoSdfError(f"key store '{k.pd.name}' was never connected (KeyStore.connect)")
        root = ET.fromstring(self.sdf.render())
        for mr in root.iter("memory_region"):
            file = self._prefills.get(mr.get("name"))
            if file is not None:
                mr.set("prefill_path", file)
        by_name = {pd.get("name"): pd for pd in root.iter("protection_domain")}
        for s in self._setvars:
            pd = by_name.get(s.pd)
            if pd is None:
                raise CryptoSdfError(f"PD '{s.pd}' has a setvar but is not in the system (sdf.add_pd?)")
            ET.SubElement(pd, "setvar", {"symbol": s.symbol, "region_paddr": s.region})
        ET.indent(root, space="    ")
        text = ET.tostring(root, encoding="unicode")
        comment = ""
        if header:
            if "--" in header:
                raise CryptoSdfError("an XML comment may not contain '--'")
            comment = f"<!-- {header.strip()} -->\n"
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{comment}{text}\n'

    class Driver:
        """One engine's driver PD and what it needs around it.

        - `prefix`: the start of the regions' names (`<prefix>_queues`, ...); the
          driver's name by default.
        - `parent`: the PD whose child the driver is (its faults go there, and it may
          restart it); `child_id` its id there (1 by default).
        - `power`: the power manager, called on channel 10 (`POWER_CHANNEL`); a driver
          of an engine with no clock gate (the CPU) has none. The manager's end is
          channel `child_id` when the manager is also the parent (power-manager-pd's
          convention: a child's fault names the holder), else its next free id.
        - `device`: the device PD running the engine's model, where there is no
          silicon; it must outrank the driver and the power manager (Microkit calls
          go to a strictly higher priority only).
        - `dma`: the driver itself needs its regions' physical addresses
          (`data<k>_paddr`, `scratch_paddr`): an engine that DMAs.
        - `scratch`, `ledger`, `trace`, `power_trace`: sizes of the driver's DMA
          scratch, the board's cost ledger (counted by the device PD), the driver's
          pd-trace and the power manager's, or None for none.
        """

        def __init__(
            self,
            crypto: Crypto,
            pd: ProtectionDomain,
            *,
            prefix: Optional[str] = None,
            parent: Optional[ProtectionDomain] = None,
            child_id: int = 1,
            power: Optional[ProtectionDomain] = None,
            device: Optional[ProtectionDomain] = None,
            dma: bool = False,
            scratch: Optional[int] = None,
            ledger: Optional[int] = None,
            trace: Optional[int] = None,
            power_trace: Optional[int] = None,
        ) -> None:
            self.crypto = crypto
            self.pd = pd
            self.prefix = prefix or pd.name
            self.parent = parent
            self.child_id = child_id
            self.power = power
            self.device = device
            self.dma = dma
            self.sizes = {"scratch": scratch, "ledger": ledger, "trace": trace, "pm_trace": power_trace}
            self.clients: List[_Client] = []
            # The regions connect made, by role: scratch, ledger, trace, pm_trace.
            self.regions: Dict[str, MemoryRegion] = {}
            self.connected = False
            self._ledger_readers: List[tuple] = []
            if power_trace is not None and power is None:
                raise CryptoSdfError(f"driver '{pd.name}': a power_trace without a power manager")
            if device is not None and ledger is None:
                raise CryptoSdfError(f"driver '{pd.name}': a device PD counts a ledger: give its size")
            if not 0 <= child_id <= 63:
                raise CryptoSdfError(f"driver '{pd.name}': child id {child_id} is outside 0..=63")

        def add_client(
            self,
            client: ProtectionDomain,
            *,
            queues: Size,
            data: Size,
            client_id: Optional[int] = None,
            prefix: Optional[str] = None,
            queues_symbol: str = "queues",
            data_symbol: str = "data",
            ledger: bool = False,
        ) -> int:
            """Connect `client`: its queue pair and data region (a size, for a new
            region, or a region it shares with another driver), the channel (at
            `client_id` in the client, its next free id by default), and, with
            `ledger`, the board's ledger mapped read-only. Returns the client's
            index k at the driver (channel k, `queues<k>`, `data<k>`)."""
            if self.connected:
                raise CryptoSdfError(f"driver '{self.pd.name}' is already connected")
            if len(self.clients) == MAX_CLIENTS:
                raise CryptoSdfError(f"driver '{self.pd.name}' has {MAX_CLIENTS} clients already (driver-pd's MAX_CLIENTS)")
            if any(c.pd is client for c in self.clients):
                raise CryptoSdfError(f"'{client.name}' is a client of '{self.pd.name}' already")
            if ledger and self.sizes["ledger"] is None:
                raise CryptoSdfError(f"driver '{self.pd.name}' has no ledger for '{client.name}' to read")
            k = len(self.clients)
            default = self.prefix if k == 0 else f"{self.prefix}{k}"
            self.clients.append(
                _Client(client, queues, data, client_id, prefix or default, queues_symbol, data_symbol, ledger)
            )
            return k

        def add_caller(
            self,
            client: ProtectionDomain,
            *,
            setvar: str,
            client_id: int,
            queues: Size = 0x3000,
            data: Size = 0x1000,
        ) -> int:
            """Connect `client` as a client of calls alone (the Rng driver's `draw` from
            another driver): the driver still serves it as client k (its `queues<k>`
            and `data<k>`, which only the driver maps: the caller never touches them),
            and the caller finds the channel, its `client_id`, by the setvar `setvar`.
            Returns k."""
            k = self.add_client(client, queues=queues, data=data, client_id=client_id)
            self.clients[k].caller_setvar = setvar
            return k

        def map_ledger(self, pd: ProtectionDomain, symbol: str = "ledger") -> None:
            """Another reader of the board's ledger (read-only), e.g. a power
            manager or a test client; mapped by connect."""
            if self.sizes["ledger"] is None:
                raise CryptoSdfError(f"driver '{self.pd.name}' has no ledger")
            self._ledger_readers.append((pd, symbol))

        def connect(self) -> None:
            """Make the regions, maps, channels and setvars. Call once, after every
            client is added, before `Crypto.render`."""
            if self.connected:
                raise CryptoSdfError(f"driver '{self.pd.name}' is already connected")
            if not self.clients:
                raise CryptoSdfError(f"driver '{self.pd.name}' has no client")
            c = self.crypto
            drv = self.pd
            reached_by_dma = self.dma or self.device is not None
            pin = c.pin_dma and reached_by_dma
            for role, size in self.sizes.items():
                if size is not None:
                    physical = pin and role == "scratch"
                    self.regions[role] = c.region(f"{self.prefix}_{role}", size, physical=physical)

            if self.parent is not None:
                # sdfgen reads child_id=0 as "allocate one": keep what it gave.
                self.child_id = self.parent.add_child_pd(drv, child_id=self.child_id)

            dma_regions: List[MemoryRegion] = []
            if "scratch" in self.regions:
                dma_regions.append(self.regions["scratch"])
            for k, client in enumerate(self.clients):
                queues = client.queues
                if isinstance(queues, int):
                    queues = c.region(f"{client.prefix}_queues", queues)
                data = client.data
                if isinstance(data, int):
                    data = c.region(f"{client.prefix}_data", data, physical=pin)
                if client.caller_setvar is None:
                    c.map(client.pd, queues, client.queues_symbol)
                    c.map(client.pd, data, client.data_symbol)
                c.map(drv, queues, f"queues{k}")
                c.map(drv, data, f"data{k}", paddr_symbol=f"data{k}_paddr" if self.dma else None)
                if client.ledger:
                    c.map(client.pd, self.regions["ledger"], "ledger", "r")
                if client.caller_setvar is None:
                    c.sdf.add_channel(Channel(client.pd, drv, a_id=client.client_id, b_id=k, pp_a=True))
                else:
                    c.sdf.add_channel(Channel(client.pd, drv, a_id=client.client_id, b_id=k, pp_a=True,
                                              pd_a_setvar_id=client.caller_setvar))
                dma_regions.append(data)

            if "ledger" in self.regions:
                c.map(drv, self.regions["ledger"], "ledger")
                for pd, symbol in self._ledger_readers:
                    c.map(pd, self.regions["ledger"], symbol, "r")
            if "scratch" in self.regions:
                c.map(drv, self.regions["scratch"], "scratch", paddr_symbol="scratch_paddr" if self.dma else None)
            if "trace" in self.regions:
                c.map(drv, self.regions["trace"], "trace")
            if "pm_trace" in self.regions:
                c.map(self.power, self.regions["pm_trace"], "trace")

            if self.power is not None:
                pm_id = self.child_id if self.power is self.parent else None
                c.sdf.add_channel(
                    Channel(drv, self.power, a_id=POWER_CHANNEL, b_id=pm_id, pp_a=True, notify_a=False)
                )

            if self.device is not None:
                # Only an engine that masters DMA reaches memory: a device PD standing in
                # for one that does not (an RNG) maps none of its clients' data.
                c.wire_device(drv, self.device, power=self.power, ledger=self.regions["ledger"],
                              dma_regions=dma_regions if self.dma else [])
            self.connected = True

    class KeyStore:
        """The key-store PD (components/key-store-pd) and who talks to it: clients
        (each on a channel of its own: the store's end is the client's identity, the
        owner of its keys), drivers that fetch keys for their clients (the driver's end
        has `setvar_id="keys"`), and the Rng driver it draws keys from. `connect`
        writes the store's configuration (key_store::Config's text) as a file of the
        system, prefilled into a read-only region the store maps as `config`.

        - `config_file`: the file's name, beside the .system.
        - `device_key`: the key-encryption key for wrapped imports (32 hex digits), a
          stand-in for a fused key; None for none.
        """

        def __init__(self, crypto: Crypto, pd: ProtectionDomain, *, config_file: str,
                     device_key: Optional[str] = None) -> None:
            self.crypto = crypto
            self.pd = pd
            self.config_file = config_file
            self.device_key = device_key
            # (client PD, store channel, client channel, rights line, client's setvar)
            self.clients: List[tuple] = []
            # (client PD, public key hex, floor): verify keys the store provisions
            self.provisioned: List[tuple] = []
            # (driver, store channel, {driver client k: "raw"})
            self.drivers: List[tuple] = []
            # (supervisor PD, store channel, [(child id, child PD)])
            self.supervisors: List[tuple] = []
            self._next_id = 1
            self.connected = False

        def _id(self) -> int:
            i = self._next_id
            if i == RNG_CHANNEL:
                i += 1
            self._next_id = i + 1
            if i > 61:
                raise CryptoSdfError(f"key store '{self.pd.name}' has no channel left")
            return i

        def add_client(self, client: ProtectionDomain, *, client_id: int, rights: str,
                       quota: int, setvar: Optional[str] = None) -> int:
            """`client` calls the store on its channel `client_id` (found by the setvar
            `setvar` where given); `rights` are key_store's words (create, import, use,
            raw). Returns the store's end."""
            for word in rights.split():
                if word not in ("create", "import", "use", "raw"):
                    raise CryptoSdfError(f"key store client '{client.name}': unknown right '{word}'")
            if not 0 <= quota <= 255:
                raise CryptoSdfError(f"key store client '{client.name}': quota {quota} is not 0..=255")
            ch = self._id()
            line = " ".join(w for w in (rights, f"quota={quota}") if w)
            self.clients.append((client, ch, client_id, line, setvar))
            return ch

        def provision(self, client: ProtectionDomain, public_key: str, *, floor: int = 0) -> None:
            """A public Ed25519 verify key (64 hex digits) the store holds for `client`
            from its start, verify-only (and exportable, for `client` to verify with),
            with the rollback floor it comes with: verified boot's trust, kept out of
            the image it checks."""
            if len(public_key) != 64 or any(c not in "0123456789abcdefABCDEF" for c in public_key):
                raise CryptoSdfError(f"provisioned key for '{client.name}': 64 hex digits")
            if not any(c[0] is client for c in self.clients):
                raise CryptoSdfError(f"'{client.name}' is no client of the key store")
            self.provisioned.append((client, public_key.lower(), floor))

        def add_driver(self, driver: Crypto.Driver, *, raw: Optional[List[ProtectionDomain]] = None) -> None:
            """`driver` fetches keys for those of its clients that are the store's;
            `raw`: its clients that are none of the store's and keep raw keys (any
            other client of the driver may not open raw-key sessions)."""
            self.drivers.append((driver, self._id(), list(raw or [])))

        def add_supervisor(self, supervisor: ProtectionDomain, children: List[tuple]) -> None:
            """`supervisor` (components/supervisor-pd) is the parent of the store's
            clients `children`, (child id, PD) pairs it adds as its children: when one
            faults it tells the store (`ended`), which wipes that client's keys and has
            its drivers cut it off. Its channel to the store has `setvar_id="keys"`."""
            for child_id, child in children:
                if not any(c[0] is child for c in self.clients):
                    raise CryptoSdfError(f"'{child.name}' is no client of the key store")
                supervisor.add_child_pd(child, child_id=child_id)
            self.supervisors.append((supervisor, self._id(), list(children)))

        def connect(self, rng: Optional[Crypto.Driver] = None) -> None:
            """Channels, the configuration and its region; with `rng`, the store is a
            caller of that Rng driver (its keys' randomness). After every driver's
            clients are added."""
            if self.connected:
                raise CryptoSdfError(f"key store '{self.pd.name}' is already connected")
            c = self.crypto
            lines = [f"# {self.pd.name}'s configuration (key_store::Config), written by crypto_sdf.",
                     "# Channels are the store's own ends."]
            for client, ch, client_id, rights, setvar in self.clients:
                lines.append(f"client {ch} {rights}  # {client.name}")
                c.sdf.add_channel(Channel(client, self.pd, a_id=client_id, b_id=ch, pp_a=True,
                                          pd_a_setvar_id=setvar))
            store_of = {id(client): ch for client, ch, _, _, _ in self.clients}
            for client, key, floor in self.provisioned:
                lines.append(f"key {store_of[id(client)]} ed25519-verify verify,export {key} floor={floor}"
                             f"  # {client.name}")
            for driver, ch, raw in self.drivers:
                words = []
                for k, dc in enumerate(driver.clients):
                    if id(dc.pd) in store_of:
                        words.append(f"{k}={store_of[id(dc.pd)]}")
                    elif any(dc.pd is r for r in raw):
                        words.append(f"{k}=raw")
                lines.append(f"driver {ch} {' '.join(words)}  # {driver.pd.name}")
                c.sdf.add_channel(Channel(driver.pd, self.pd, a_id=KEYS_CHANNEL, b_id=ch, pp_a=True,
                                          pd_a_setvar_id="keys"))
            for supervisor, ch, children in self.supervisors:
                words = " ".join(f"{k}={store_of[id(child)]}" for k, child in children)
                lines.append(f"supervisor {ch} {words}  # {supervisor.name}")
                c.sdf.add_channel(Channel(supervisor, self.pd, a_id=KEYS_CHANNEL, b_id=ch, pp_a=True,
                                          pd_a_setvar_id="keys"))
            if self.device_key is not None:
                lines.append(f"device-key {self.device_key}")
            if rng is not None:
                rng.add_caller(self.pd, setvar="rng", client_id=RNG_CHANNEL)
            config = c.region(f"{self.pd.name}_config", 0x1000)
            c.prefill(config, self.config_file, "\n".join(lines) + "\n")
            c.map(self.pd, config, "config", "r")
            self.connected = True
