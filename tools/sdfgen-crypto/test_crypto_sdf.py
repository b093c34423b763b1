"""Tests of crypto_sdf and meta.py: `make test` runs them in the sdfgen venv
(python -m unittest discover -s tools/sdfgen-crypto), after the workspace's binaries
are built, so system-check and host-runner are in target/debug."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET
from importlib.metadata import version

from sdfgen import SystemDescription

import meta
from crypto_sdf import MAX_CLIENTS, Crypto, CryptoSdfError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
BIN = os.path.join(REPO, "target", "debug")
PD = SystemDescription.ProtectionDomain


def num(text):
    return int(text, 0)


def describe(xml: str) -> dict:
    """What a system says, with Microkit's defaults filled in and without what does
    not change its meaning: virtual addresses (every PD finds its regions by setvar),
    the order of elements, and comments."""
    root = ET.fromstring(xml)
    out = {"regions": {}, "pds": {}, "maps": set(), "irqs": set(), "setvars": set(), "channels": set()}
    for mr in root.findall("memory_region"):
        phys = mr.get("phys_addr")
        out["regions"][mr.get("name")] = (num(mr.get("size")), num(phys) if phys else None,
                                          mr.get("prefill_path"))

    def walk(pd, parent):
        name = pd.get("name")
        out["pds"][name] = (
            parent,
            pd.get("id"),
            num(pd.get("priority", "254")),
            pd.get("passive", "false"),
            num(pd.get("stack_size", "0x2000")),
            pd.find("program_image").get("path"),
        )
        for m in pd.findall("map"):
            out["maps"].add((name, m.get("mr"), m.get("perms", "rw"), m.get("cached", "true"),
                             m.get("setvar_vaddr"), m.get("setvar_size")))
        for i in pd.findall("irq"):
            out["irqs"].add((name, i.get("irq"), i.get("id"), i.get("trigger", "level")))
        for s in pd.findall("setvar"):
            out["setvars"].add((name, s.get("symbol"), s.get("region_paddr")))
        for child in pd.findall("protection_domain"):
            walk(child, name)

    for pd in root.findall("protection_domain"):
        walk(pd, None)
    for ch in root.findall("channel"):
        ends = tuple(sorted(
            (e.get("pd"), num(e.get("id")), e.get("pp", "false"), e.get("notify", "true"), e.get("setvar_id"))
            for e in ch.findall("end")
        ))
        out["channels"].add(ends)
    return out


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def tool(name: str) -> str:
    path = os.path.join(BIN, name)
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"{path} is not built (make test builds it first)")
    return path


class ImageMatchesTheBootedReference(unittest.TestCase):
    """The generated image systems say what the hand-written ones (the last booted on
    an SDK) say, but for virtual addresses, which sdfgen allocates."""

    def compare(self, name: str) -> None:
        generated = describe(meta.SYSTEMS[name]())
        reference = describe(read(os.path.join(REPO, "system", f"{name}.system")))
        for part in reference:
            with self.subTest(system=name, part=part):
                self.assertEqual(generated[part], reference[part])

    def test_qemu_virt_aarch64(self):
        self.compare("qemu_virt_aarch64")

    def test_the_key_store_configuration_is_the_committed_one(self):
        # The hand-written image's prefill file is the one the helper writes.
        _, files = meta.generated(meta.qemu_virt_aarch64)
        self.assertEqual(sorted(files), ["qemu_virt_aarch64.keys"])
        committed = read(os.path.join(REPO, "system", "qemu_virt_aarch64.keys"))
        self.assertEqual(files["qemu_virt_aarch64.keys"], committed)

    def test_qemu_hello(self):
        self.compare("qemu_hello")

    def test_the_comparison_sees_a_difference(self):
        # A dropped setvar must show: the comparison is not vacuous.
        xml = meta.qemu_virt_aarch64().replace('<setvar symbol="dma1_paddr" region_paddr="omap_data" />', "")
        self.assertNotEqual(describe(xml)["setvars"], describe(meta.qemu_virt_aarch64())["setvars"])


class GeneratedSystemsPassTheChecker(unittest.TestCase):
    def test_system_check(self):
        check = tool("system-check")
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, generate in meta.SYSTEMS.items():
                path = os.path.join(d, f"{name}.system")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(generate())
                paths.append(path)
            run = subprocess.run([check, *paths], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.stdout.count(": ok: "), len(meta.SYSTEMS), run.stdout)


class HostSystemsBoot(unittest.TestCase):
    """The generated host systems run to the known-answer client's verdict."""

    def boot(self, name: str) -> str:
        runner = tool("host-runner")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, f"{name}.system")
            with open(path, "w", encoding="utf-8") as f:
                f.write(meta.SYSTEMS[name]())
            # The runner finds PD binaries beside itself; the file may be anywhere.
            run = subprocess.run([runner, "-q", path], capture_output=True, text=True, timeout=120)
        output = run.stdout + run.stderr
        self.assertEqual(run.returncode, 0, output)
        return output

    def test_cipher_cpu(self):
        self.assertRegex(self.boot("cipher-cpu"), r"verdict: all \d+ vectors passed")

    def test_device_omap(self):
        out = self.boot("device-omap")
        self.assertRegex(out, r"verdict: all \d+ vectors passed")

    def test_bench_cpu(self):
        # The isolation bench (make qemu-bench's client) measures every size and depth
        # and ends; the figures are the host's, not checked here.
        out = self.boot("bench-cpu")
        self.assertIn("bench: done", out)
        self.assertNotIn("FAIL", out)
        rows = re.findall(r"bench: cpu-engine aes-128-cbc (\d+) B depth (\d+): \d+ ns isolated, \d+ in the PD", out)
        self.assertEqual(len(set(rows)), 6, out)
        self.assertRegex(out, r"bench: ppc round trip \(capabilities\): \d+ ns")


def system() -> tuple:
    sdf = SystemDescription(SystemDescription.Arch.AARCH64, 0x1_0000_0000)
    return sdf, Crypto(sdf)


class DriverConventions(unittest.TestCase):
    def test_clients_get_channel_k_and_queues_k(self):
        sdf, crypto = system()
        drv = PD("drv", "drv.elf", priority=150)
        clients = [PD(f"c{k}", "c.elf", priority=100) for k in range(3)]
        d = crypto.add_driver(drv)
        for c in clients:
            d.add_client(c, queues=0x3000, data=0x4000)
        d.connect()
        for p in [drv, *clients]:
            sdf.add_pd(p)
        s = describe(crypto.render())
        for k in range(3):
            prefix = "drv" if k == 0 else f"drv{k}"
            self.assertIn(("drv", f"{prefix}_queues", "rw", "true", f"queues{k}", f"queues{k}_size"), s["maps"])
            self.assertIn(("drv", f"{prefix}_data", "rw", "true", f"data{k}", f"data{k}_size"), s["maps"])
            self.assertIn((f"c{k}", f"{prefix}_queues", "rw", "true", "queues", "queues_size"), s["maps"])
            self.assertIn(((f"c{k}", 0, "true", "true", None), ("drv", k, "false", "true", None)), s["channels"])
        self.assertEqual(s["setvars"], set(), "a driver without dma gets no physical addresses")

    def test_a_caller_alone_maps_nothing_and_finds_its_channel_by_setvar(self):
        sdf, crypto = system()
        rng = PD("rng", "rng.elf", priority=195)
        kat, aead = PD("kat", "kat.elf", priority=100), PD("aead", "aead.elf", priority=190)
        r = crypto.add_driver(rng)
        r.add_client(kat, queues=0x3000, data=0x20000)
        self.assertEqual(r.add_caller(aead, setvar="rng", client_id=11), 1)
        r.connect()
        for p in [rng, kat, aead]:
            sdf.add_pd(p)
        s = describe(crypto.render())
        self.assertIn(("rng", "rng1_queues", "rw", "true", "queues1", "queues1_size"), s["maps"])
        self.assertFalse([m for m in s["maps"] if m[0] == "aead"], "the caller maps no region")
        self.assertIn((("aead", 11, "true", "true", "rng"), ("rng", 1, "false", "true", None)), s["channels"])

    def test_a_supervisor_is_its_clients_parent_and_the_store_knows_which(self):
        sdf, crypto = system()
        store, sup = PD("store", "ks.elf", priority=192), PD("sup", "supervisor.elf", priority=120)
        user, stranger = PD("user", "c.elf", priority=100), PD("stranger", "c.elf", priority=100)
        ks = crypto.add_key_store(store, config_file="t.keys")
        ks.add_client(user, client_id=1, rights="use", quota=1)
        with self.assertRaises(CryptoSdfError):
            ks.add_supervisor(sup, [(2, stranger)])
        ks.add_supervisor(sup, [(1, user)])
        ks.connect()
        for p in (store, sup):
            sdf.add_pd(p)
        s = describe(crypto.render())
        self.assertIn("supervisor 2 1=1  # sup\n", crypto.files["t.keys"])
        self.assertEqual(s["pds"]["user"][:2], ("sup", "1"), "the supervisor's child 1")
        self.assertIn((("store", 2, "false", "true", None), ("sup", 12, "true", "true", "keys")),
                      s["channels"])

    def test_a_key_store_names_its_clients_and_each_drivers_clients(self):
        sdf, crypto = system()
        store, drv = PD("store", "ks.elf", priority=192), PD("drv", "drv.elf", priority=150)
        vectors, user, other = (PD(n, "c.elf", priority=100) for n in ("vectors", "user", "other"))
        d = crypto.add_driver(drv)
        for c in (vectors, user, other):
            d.add_client(c, queues=0x3000, data=0x1000)
        ks = crypto.add_key_store(store, config_file="t.keys", device_key="00" * 16)
        self.assertEqual(ks.add_client(user, client_id=1, rights="create use", quota=2), 1)
        ks.add_driver(d, raw=[vectors])
        ks.provision(user, "ab" * 32, floor=7)
        with self.assertRaises(CryptoSdfError):
            ks.provision(other, "ab" * 32)
        ks.connect()
        d.connect()
        for p in (store, drv, vectors, user, other):
            sdf.add_pd(p)
        s = describe(crypto.render())
        config = crypto.files["t.keys"]
        # The driver's client 0 keeps raw keys, 1 is the store's client 1, 2 neither.
        self.assertIn("client 1 create use quota=2  # user\n", config)
        self.assertIn("driver 2 0=raw 1=1  # drv\n", config)
        self.assertIn("device-key " + "00" * 16, config)
        self.assertIn(f"key 1 ed25519-verify verify,export {'ab' * 32} floor=7  # user\n", config)
        self.assertEqual(s["regions"]["store_config"], (0x1000, None, "t.keys"))
        self.assertIn(("store", "store_config", "r", "true", "config", "config_size"), s["maps"])
        self.assertIn((("drv", 12, "true", "true", "keys"), ("store", 2, "false", "true", None)), s["channels"])
        self.assertIn((("store", 1, "false", "true", None), ("user", 1, "true", "true", None)), s["channels"])
        with self.assertRaises(CryptoSdfError):
            ks.add_client(other, client_id=1, rights="create fly", quota=1)

    def test_a_device_pd_of_an_engine_without_dma_maps_no_client_data(self):
        sdf, crypto = system()
        drv, dev, kat = PD("rng", "rng.elf", priority=150), PD("dev", "dev.elf", priority=240), PD("kat", "kat.elf", priority=100)
        r = crypto.add_driver(drv, device=dev, ledger=0x1000)
        r.add_client(kat, queues=0x3000, data=0x20000)
        r.connect()
        for p in [drv, dev, kat]:
            sdf.add_pd(p)
        s = describe(crypto.render())
        self.assertEqual({m[1] for m in s["maps"] if m[0] == "dev"}, {"rng_ledger"})
        self.assertIn((("dev", 0, "false", "true", "driver"), ("rng", 20, "true", "true", "device")), s["channels"])

    def test_device_pd_maps_dma_regions_with_their_paddr(self):
        sdf, crypto = system()
        drv, pm, dev, kat = (PD(n, f"{n}.elf", priority=p) for n, p in
                             [("drv", 150), ("pm", 200), ("dev", 240), ("kat", 100)])
        d = crypto.add_driver(drv, prefix="x", parent=pm, power=pm, device=dev, dma=True,
                              scratch=0x1000, ledger=0x1000)
        d.add_client(kat, queues=0x3000, data=0x4000, ledger=True)
        d.connect()
        for p in (pm, dev, kat):
            sdf.add_pd(p)
        s = describe(crypto.render())
        self.assertEqual(s["pds"]["drv"][:2], ("pm", "1"))
        self.assertEqual(
            {v for v in s["setvars"] if v[0] == "dev"},
            {("dev", "dma0_paddr", "x_scratch"), ("dev", "dma1_paddr", "x_data")},
        )
        self.assertEqual(
            {v for v in s["setvars"] if v[0] == "drv"},
            {("drv", "data0_paddr", "x_data"), ("drv", "scratch_paddr", "x_scratch")},
        )
        self.assertIn(("kat", "x_ledger", "r", "true", "ledger", "ledger_size"), s["maps"])
        # Power: the driver calls on 10; the manager's end is the child's id.
        self.assertIn((("drv", 10, "true", "false", None), ("pm", 1, "false", "true", None)), s["channels"])
        self.assertIn((("dev", 0, "false", "true", "driver"), ("drv", 20, "true", "true", "device")), s["channels"])
        self.assertIn((("dev", 1, "false", "false", "power"), ("pm", 20, "true", "false", "device")), s["channels"])

    def test_pin_dma_places_dma_regions_below_paddr_top(self):
        sdf = SystemDescription(SystemDescription.Arch.AARCH64, 0x1_0000_0000)
        crypto = Crypto(sdf, pin_dma=True)
        drv, kat = PD("drv", "d.elf", priority=150), PD("kat", "k.elf", priority=100)
        d = crypto.add_driver(drv, dma=True, scratch=0x1000)
        d.add_client(kat, queues=0x3000, data=0x4000)
        d.connect()
        sdf.add_pd(drv)
        sdf.add_pd(kat)
        regions = describe(crypto.render())["regions"]
        self.assertIsNone(regions["drv_queues"][1], "queues are not reached by DMA")
        for name in ("drv_scratch", "drv_data"):
            size, paddr, _ = regions[name]
            self.assertIsNotNone(paddr, name)
            self.assertLessEqual(paddr + size, 1 << 32, name)

    def test_a_shared_data_region_is_mapped_once_in_its_client(self):
        sdf, crypto = system()
        a, b, c = PD("a", "a.elf", priority=150), PD("b", "b.elf", priority=150), PD("c", "c.elf", priority=100)
        data = crypto.region("shared", 0x4000)
        for drv, sym in ((a, "qa"), (b, "qb")):
            d = crypto.add_driver(drv)
            d.add_client(c, queues=0x3000, data=data, prefix=drv.name, queues_symbol=sym)
            d.connect()
        for p in (a, b, c):
            sdf.add_pd(p)
        maps = [m for m in describe(crypto.render())["maps"] if m[0] == "c" and m[1] == "shared"]
        self.assertEqual(len(maps), 1)


class RefusedSystems(unittest.TestCase):
    def test_more_clients_than_driver_pd_serves(self):
        _, crypto = system()
        d = crypto.add_driver(PD("drv", "d.elf", priority=150))
        for k in range(MAX_CLIENTS):
            d.add_client(PD(f"c{k}", "c.elf", priority=100), queues=0x3000, data=0x4000)
        with self.assertRaisesRegex(CryptoSdfError, "MAX_CLIENTS"):
            d.add_client(PD("extra", "c.elf", priority=100), queues=0x3000, data=0x4000)

    def test_render_before_connect(self):
        _, crypto = system()
        d = crypto.add_driver(PD("drv", "d.elf", priority=150))
        d.add_client(PD("c", "c.elf", priority=100), queues=0x3000, data=0x4000)
        with self.assertRaisesRegex(CryptoSdfError, "never connected"):
            crypto.render()

    def test_a_device_pd_needs_a_ledger(self):
        _, crypto = system()
        with self.assertRaisesRegex(CryptoSdfError, "ledger"):
            crypto.add_driver(PD("drv", "d.elf"), device=PD("dev", "dev.elf"))

    def test_duplicate_region_and_partial_pages(self):
        _, crypto = system()
        crypto.region("r", 0x1000)
        with self.assertRaisesRegex(CryptoSdfError, "already"):
            crypto.region("r", 0x1000)
        with self.assertRaisesRegex(CryptoSdfError, "4 KiB"):
            crypto.region("odd", 0x1800)

    def test_one_symbol_two_regions(self):
        _, crypto = system()
        p = PD("p", "p.elf")
        crypto.map(p, crypto.region("a", 0x1000), "buf")
        with self.assertRaisesRegex(CryptoSdfError, "two regions"):
            crypto.map(p, crypto.region("b", 0x1000), "buf")

    def test_a_setvar_in_a_pd_not_in_the_system(self):
        _, crypto = system()
        p = PD("lost", "p.elf")
        crypto.map(p, crypto.region("a", 0x1000), "buf", paddr_symbol="buf_paddr")
        with self.assertRaisesRegex(CryptoSdfError, "not in the system"):
            crypto.render()

    def test_a_dropped_convention_fails_the_checker(self):
        # The priorities crypto_sdf leaves to system-check: a call downwards is refused.
        check = tool("system-check")
        sdf, crypto = system()
        drv, kat = PD("drv", "d.elf", priority=100), PD("kat", "k.elf", priority=150)
        d = crypto.add_driver(drv)
        d.add_client(kat, queues=0x3000, data=0x4000)
        d.connect()
        sdf.add_pd(drv)
        sdf.add_pd(kat)
        with tempfile.NamedTemporaryFile("w", suffix=".system") as f:
            f.write(crypto.render())
            f.flush()
            run = subprocess.run([check, f.name], capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("strictly higher priority", run.stdout + run.stderr)


class Pinned(unittest.TestCase):
    def test_the_venv_has_the_pinned_sdfgen(self):
        with open(os.path.join(HERE, "requirements.txt"), encoding="utf-8") as f:
            pins = dict(line.strip().split("==") for line in f if "==" in line)
        self.assertEqual(version("sdfgen"), pins["sdfgen"])


if __name__ == "__main__":
    unittest.main()


class ReadmeSnippet(unittest.TestCase):
    """The README's sdfgen block ("Add crypto-pd to your Microkit or sDDF system") runs
    as written and gives a system that system-check accepts, so the README cannot drift
    from the helper."""

    def test_the_readme_meta_script_runs_and_checks(self):
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        section = readme.split("## Add crypto-pd to your Microkit or sDDF system")[1]
        block = section.split("```python\n")[1].split("\n```")[0]
        scope: dict = {}
        exec(compile(block, "README.md", "exec"), scope)
        xml = scope["system_xml"]
        root = ET.fromstring(xml)
        self.assertEqual({pd.get("name") for pd in root.iter("protection_domain")}, {"app", "aes"})
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "readme.system")
            with open(path, "w", encoding="utf-8") as f:
                f.write(xml)
            run = subprocess.run([tool("system-check"), path], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn(": ok: ", run.stdout)
