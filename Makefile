# crypto-pd: every entry point. Each target installs what it needs first (idempotently).
#   make run    boot the default demo on the host backend
#   make test   every test
#   make tools  release builds of the tools and every PD they boot, in target/release
#   make bench  benchmarks (reports under target/bench/)
#   make pds    every no_std crate, and every PD binary, for aarch64-unknown-none
#   make sizes  each PD's text/data/bss for aarch64
#   make image  a Microkit loader image (MICROKIT_SDK=... MICROKIT_BOARD=... MICROKIT_CONFIG=...)
#   make systems  the generated .system files (tools/sdfgen-crypto/meta.py, sdfgen) in target/system
#   make qemu   boot that image under QEMU (with a virtio-crypto device)
#   make qemu-bench  the isolation bench on seL4 under QEMU -icount: instructions a request, isolated and in-PD
#   make lint   rustfmt --check and clippy -D warnings
#   make qemu-test  the virtio-crypto and virtio-rng drivers against QEMU's real devices (bare metal, no seL4)
#   make fuzz   each fuzz target under libFuzzer for FUZZ_SECONDS (needs a nightly toolchain)
#   make help   this list (also what `make` alone prints)

CARGO      ?= cargo
NOSTD      := aarch64-unknown-none
# Package lists, from each package's [package.metadata.crypto-pd] `lists` (read by
# tools/packages.py from cargo metadata), so that a new crate is in them by its own
# manifest and none is missed by a hand-kept list here.
packages = $(shell $(CARGO) metadata --no-deps --format-version 1 | python3 tools/packages.py $(1))
# Crates that must stay no_std: they run inside seL4 protection domains.
NOSTD_PKGS = $(call packages,no-std)
BENCH_DIR  := target/bench
# The PDs the tools boot, and the tools (they find the PDs beside themselves).
HOST_PD_PKGS = $(call packages,host-pds)

.PHONY: c-pds c-pd-toolchain fuzz help setup run test tools bench pds sizes image qemu qemu-bench lint check-systems qemu-setup qemu-test \
	sdfgen-setup systems sdfgen-test
.DEFAULT_GOAL := help

# The targets, from the comment at the top of this file.
help:
	@sed -n 's/^#   make /make /p' $(firstword $(MAKEFILE_LIST))

setup:
	@command -v $(CARGO) >/dev/null || { echo "cargo is missing: install Rust with rustup (https://rustup.rs)"; exit 1; }
	@rustup target list --installed | grep -qx $(NOSTD) || rustup target add $(NOSTD)
	@rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
	@rustup component list --installed | grep -q '^clippy' || rustup component add clippy

# The default demo: every engine behind its driver PD, the verified-boot client and
# known-answer clients (system/demo.system). The runner finds PD binaries next to itself,
# so they are built first; it stops once every client has finished (its default), and
# prints only what the clients report: each client's verdict line as it finishes, then
# the speed table (`make run V=1`: every line each client printed; drop the --show
# options to see every PD's log).
DEMO_CLIENTS := vboot kat_cpu kat_mac kat_aead kat_rng kat_keys kat_omap kat_stm32 kat_sec1 speed
run: setup
	$(CARGO) build --locked -q --workspace --bins
	target/debug/host-runner -q --grouped $(if $(V),,--verdicts) $(foreach c,$(DEMO_CLIENTS),--show $(c)) system/demo.system

# PD binaries of every package first: whole-system tests boot .system files whose PDs
# come from several packages, and the runner finds them in target/debug.
test: setup
	$(CARGO) build --locked --workspace --bins
	$(CARGO) build --locked -p host-libmicrokit
	$(CARGO) test --locked --workspace
	$(MAKE) --no-print-directory check-systems
	$(MAKE) --no-print-directory sdfgen-test

# Every Microkit system description in system/ must pass the checker.
check-systems:
	@files=$$(ls system/*.system system/*/systems/*.system system/*/tests/c/*.system 2>/dev/null); \
	if [ -n "$$files" ]; then $(CARGO) run --locked -q -p system-desc --bin system-check -- $$files; \
	else echo "check-systems: no system/*.system files yet"; fi

# sdfgen (au-ts/microkit_sdf_gen, from PyPI) in a venv of its own, pinned by
# tools/sdfgen-crypto/requirements.txt: the meta script that writes the image's .system
# files with the project's crypto class (tools/sdfgen-crypto/crypto_sdf.py). Debian's
# python3 makes no venv without python3-venv (no ensurepip): installed as qemu-setup
# installs QEMU. A failed `python3 -m venv` leaves a venv without pip, hence the marker.
SDFGEN_DIR  := tools/sdfgen-crypto
SDFGEN_VENV := target/sdfgen-venv
SDFGEN_PY   := PYTHONDONTWRITEBYTECODE=1 $(SDFGEN_VENV)/bin/python
GEN_DIR     := target/system

sdfgen-setup:
	@command -v python3 >/dev/null || { echo "sdfgen: python3 is missing (Debian: apt-get install python3 python3-venv)"; exit 1; }
	@[ -x $(SDFGEN_VENV)/bin/pip ] || python3 -m venv $(SDFGEN_VENV) >/dev/null 2>&1 || { \
	  echo "sdfgen: python3 cannot make a venv; installing Debian's python3-venv"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q python3-venv >/dev/null \
	  || { echo "sdfgen: FAILED to install python3-venv with apt-get; install it by hand and re-run"; exit 1; }; \
	  rm -rf $(SDFGEN_VENV) && python3 -m venv $(SDFGEN_VENV); }
	@$(SDFGEN_VENV)/bin/pip freeze 2>/dev/null | grep -qxF -f $(SDFGEN_DIR)/requirements.txt \
	  || $(SDFGEN_VENV)/bin/pip install -q --disable-pip-version-check -r $(SDFGEN_DIR)/requirements.txt

systems: sdfgen-setup
	$(SDFGEN_PY) $(SDFGEN_DIR)/meta.py --all $(GEN_DIR)

# The helper's tests: the generated image systems against the hand-written ones last
# booted on an SDK, system-check on every generated system, the host ones booted (so
# after `cargo build --workspace --bins`, as `make test` runs it).
sdfgen-test: sdfgen-setup
	$(SDFGEN_PY) -m unittest discover -s $(SDFGEN_DIR)

bench: setup
	@mkdir -p $(BENCH_DIR)
	$(CARGO) bench --locked -p queue-demo --bench queue | tee $(BENCH_DIR)/queue.txt
	$(CARGO) bench --locked -p host-runner --bench roundtrip | tee $(BENCH_DIR)/roundtrip.txt
	$(CARGO) bench --locked -p cpu-engine --bench serve | tee $(BENCH_DIR)/serve.txt
	$(CARGO) build --locked --release -q $(HOST_PD_PKGS)
	target/release/speed --standard --csv $(BENCH_DIR)/speed.csv --svg $(BENCH_DIR)/speed.svg > $(BENCH_DIR)/speed.txt
	for s in omap-idle-start omap-dma-pio stm32-dma talitos-chain; do target/release/speed --reproduce $$s >> $(BENCH_DIR)/speed.txt && echo >> $(BENCH_DIR)/speed.txt || exit 1; done
	target/release/speed --host-limit --rounds 3 --alg aes-128-cbc --svg $(BENCH_DIR)/host-limit-aes.svg >> $(BENCH_DIR)/speed.txt
	target/release/speed --host-limit --rounds 3 --alg sha256 --svg $(BENCH_DIR)/host-limit-sha256.svg >> $(BENCH_DIR)/speed.txt
	target/release/speed --host-limit --rounds 3 --alg aes-128-gcm --sizes 16,1024,16384 --svg $(BENCH_DIR)/host-limit-gcm.svg >> $(BENCH_DIR)/speed.txt
	target/release/speed --host-limit --rounds 3 --alg hmac-sha256 --sizes 16,1024,16384 --svg $(BENCH_DIR)/host-limit-hmac.svg >> $(BENCH_DIR)/speed.txt
	target/release/speed --engine cpu --clients 2 --sizes 16,1024,16384 --seconds 1 >> $(BENCH_DIR)/speed.txt
	target/release/speed --engine omap-aes --path adaptive --clients 2 --sizes 16,256,4096 --seconds 1 >> $(BENCH_DIR)/speed.txt
	target/release/speed --engine cpu --flood 16384 --sizes 16,1024 --seconds 0.5 >> $(BENCH_DIR)/speed.txt
	target/release/speed --engine omap-aes --path pio --flood 16384 --sizes 16,256,1024 --seconds 0.5 >> $(BENCH_DIR)/speed.txt
	target/release/speed --files 1024 >> $(BENCH_DIR)/speed.txt
	@cat $(BENCH_DIR)/speed.txt
	@echo "bench: report $(BENCH_DIR)/speed.txt, CSV $(BENCH_DIR)/speed.csv, plots $(BENCH_DIR)/speed.svg and host-limit-*.svg"

# Fuzzing (cargo-fuzz, libFuzzer): each target of tools/fuzz-targets for FUZZ_SECONDS,
# reporting executions and crashes per target (a crash's input lands in
# tools/fuzz-targets/fuzz/artifacts/). Needs a nightly toolchain, which CI's machines
# cannot fetch: CI runs the same targets as a smoke test on stable (`cargo test -p
# fuzz-targets`, part of make test).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := idl_dispatch queue_consumer driver_serve system_parser boot_info vboot_manifest engine_differential
fuzz:
	@cargo +nightly --version >/dev/null 2>&1 || { echo "fuzz: needs a nightly toolchain (rustup toolchain install nightly)"; exit 1; }
	@command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
	cd tools/fuzz-targets/fuzz && cargo +nightly fuzz build
	@mkdir -p target; failed=0; for t in $(FUZZ_TARGETS); do \
	  (cd tools/fuzz-targets/fuzz && cargo +nightly fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1) > target/fuzz-$$t.log 2>&1; rc=$$?; \
	  runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' target/fuzz-$$t.log); \
	  if [ $$rc -eq 0 ]; then echo "fuzz: $$t: $$runs executions, 0 crashes"; \
	  else echo "fuzz: $$t: CRASH after $${runs:-?} executions (target/fuzz-$$t.log)"; failed=1; fi; done; exit $$failed

# PD binaries: every bin of these packages is a protection domain. A PD binary starts
# with #![cfg_attr(target_os = "none", no_std, no_main)] and ends with
# pd_runtime::protection_domain!(init); pd-runtime links it with its microkit.ld.
# Each is copied to NAME.elf beside it, the name .system files use (on the host too),
# and listed in $(PD_LIST) for `make sizes`. MICROKIT_CONFIG reaches pd-runtime at build
# time: debug output (seL4_DebugPutChar) exists only in the debug kernel, and a release
# build carries none of its formatting. Built with the `pd` profile (Cargo.toml: size
# first, LTO).
PD_PKGS         ?= $(call packages,sel4-test-client)
PD_DIR          := target/$(NOSTD)/pd
PD_LIST         := target/pds.list
MICROKIT_BOARD  ?= qemu_virt_aarch64
MICROKIT_CONFIG ?= debug
SYSTEM          ?= $(GEN_DIR)/qemu_virt_aarch64.system
LOADER_IMG      := target/loader.img

# The tools for use (pd-dgst, pd-enc, pd-rand, speed, host-runner, system-check, vboot-sign):
# release builds, over twenty times faster on large files than the debug ones `make
# test` leaves (pd-dgst on 256 MiB: 27x in wall time, measured side by side). A tool
# boots the PDs beside itself, so every PD binary is built in release too.
tools: setup
	$(CARGO) build --locked --release --workspace --bins
	@echo "tools in target/release: pd-dgst pd-enc pd-rand speed host-runner system-check vboot-sign"

pds: setup
	$(CARGO) build --locked --target $(NOSTD) $(NOSTD_PKGS)
	@mkdir -p target
	$(if $(strip $(PD_PKGS)),MICROKIT_CONFIG=$(MICROKIT_CONFIG) $(CARGO) build --locked --profile pd \
	  --target $(NOSTD) $(PD_PKGS) --bins --message-format=json-render-diagnostics > target/pds.json,: > target/pds.json)
	@sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' target/pds.json | sort > $(PD_LIST)
	@while read -r exe; do cp "$$exe" "$$exe.elf"; done < $(PD_LIST)
	@echo "pds: $$(wc -l < $(PD_LIST)) PD images in $(PD_DIR) (NAME.elf, MICROKIT_CONFIG=$(MICROKIT_CONFIG))"

# Each engine driver's flash budget (text + data) in the release config, as a Hubris
# task's max-sizes: `make sizes MICROKIT_CONFIG=release` fails for a driver over it (CI
# runs it). The debug config prints, so carries formatting, and has no budget. 40 KiB,
# issue 26's bound for a hardware engine's driver PD as its interfaces grow (32 KiB
# until engine-time fairness, ~700 B in every driver, took omap-aes past it).
DRIVER_FLASH    := 40960
FLASH_BUDGETS   := $(foreach pd,omap-aes stm32-cryp sec1-hash virtio-crypto,--budget $(pd)=$(DRIVER_FLASH))

sizes: pds
	@$(CARGO) run --locked -q -p pd-sizes -- $(if $(filter release smp-release,$(MICROKIT_CONFIG)),$(FLASH_BUDGETS)) \
	  $$(sed 's/$$/.elf/' $(PD_LIST))
	@echo "(Hubris's hash server: 16 KiB flash, 4 KiB RAM)"

lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

# The virtio drivers against QEMU's own virtio-crypto and virtio-rng devices: tools/qemu-test is a
# bare-metal aarch64 image (no seL4) that checks SP 800-38A vectors and random requests
# against RustCrypto and exits through semihosting with 0 only if every check passed.
# force-legacy=false: QEMU's virtio-mmio is legacy (version 1) unless told otherwise,
# and the driver speaks the modern transport only.
QEMU       ?= qemu-system-aarch64
QEMU_IMG   := target/$(NOSTD)/release/qemu-test
QEMU_TEST_CMD = $(QEMU) -machine virt -cpu cortex-a53 -m 256M -nographic -semihosting \
	-global virtio-mmio.force-legacy=false \
	-device virtio-crypto-device,cryptodev=c0 -object cryptodev-backend-builtin,id=c0 \
	-device virtio-rng-device \
	-kernel $(QEMU_IMG)

qemu-setup:
	@command -v $(QEMU) >/dev/null 2>&1 || { \
	  echo "qemu-test: $(QEMU) is missing; installing Debian's qemu-system-arm"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q qemu-system-arm >/dev/null \
	  || { echo "qemu-test: FAILED to install qemu-system-arm with apt-get (no route to the Debian mirrors?); install it by hand and re-run"; exit 1; }; }
	@command -v $(QEMU) >/dev/null 2>&1 || { echo "qemu-test: qemu-system-arm is installed but $(QEMU) is not on PATH"; exit 1; }

qemu-test: setup qemu-setup
	$(CARGO) build --locked --release --target $(NOSTD) -p qemu-test
	timeout 300 $(QEMU_TEST_CMD) </dev/null

# A Microkit loader image of $(SYSTEM) (default: the full qemu_virt_aarch64 system, as
# `make systems` generates it; SYSTEM=target/system/qemu_hello.system boots the runtime
# examples; a hand-written file works too, e.g. system/qemu_virt_aarch64.system, the
# reference the generated one is tested against), then QEMU. The SDK is
# not part of this repository: see `make image` without one for how to get it.
MICROKIT_SDK_HELP = "Get a Microkit 2.3.0 SDK: download microkit-sdk-2.3.0-linux-x86-64.tar.gz from \
https://github.com/seL4/microkit/releases and untar it, or build one from source with \
build_sdk.py (microkit DEVELOPER.md: --sel4=<seL4 16.0.0> --boards $(MICROKIT_BOARD) \
--configs $(MICROKIT_CONFIG)); then: make image MICROKIT_SDK=/path/to/microkit-sdk-2.3.0"

image: systems
	@test -n "$(MICROKIT_SDK)" || { echo "image: MICROKIT_SDK is not set (the Microkit SDK directory)."; \
	  echo $(MICROKIT_SDK_HELP); exit 1; }
	@test -x "$(MICROKIT_SDK)/bin/microkit" || { echo "image: $(MICROKIT_SDK)/bin/microkit is missing: MICROKIT_SDK is not a Microkit SDK."; \
	  echo $(MICROKIT_SDK_HELP); exit 1; }
	@test -d "$(MICROKIT_SDK)/board/$(MICROKIT_BOARD)/$(MICROKIT_CONFIG)" || { \
	  echo "image: this SDK has no board $(MICROKIT_BOARD) in config $(MICROKIT_CONFIG); it has:"; \
	  ls "$(MICROKIT_SDK)/board"; echo $(MICROKIT_SDK_HELP); exit 1; }
	$(MAKE) --no-print-directory pds MICROKIT_CONFIG=$(MICROKIT_CONFIG)
	$(MAKE) --no-print-directory c-pds MICROKIT_CONFIG=$(MICROKIT_CONFIG)
	@missing=""; for img in $$(sed -n 's/.*program_image path="\([^"]*\)".*/\1/p' $(SYSTEM)); do \
	  [ -f "$(PD_DIR)/$$img" ] || missing="$$missing $$img"; done; \
	  [ -z "$$missing" ] || { echo "image: $(SYSTEM) needs PD images that no package in PD_PKGS builds:$$missing"; \
	  echo "image: add their packages to PD_PKGS, or try SYSTEM=$(GEN_DIR)/qemu_hello.system"; exit 1; }
	@# Prefilled regions' files (a key store's configuration) are beside the .system.
	$(MICROKIT_SDK)/bin/microkit $(SYSTEM) --search-path $(PD_DIR) --search-path $(dir $(SYSTEM)) \
	  --board $(MICROKIT_BOARD) --config $(MICROKIT_CONFIG) -o $(LOADER_IMG) -r target/report.txt

# The image's C PDs (crypto-client-c's pd/*.c), built as a libmicrokit PD is: the SDK's
# headers and libmicrokit for MICROKIT_CONFIG, freestanding, nothing of libc (the link
# fails on a memcpy the compiler made up). gnu11: the SDK's seL4 headers use `asm`.
C_PD_CC        ?= aarch64-linux-gnu-gcc
C_PD_LD        ?= aarch64-linux-gnu-ld
C_CLIENT_DIR   := components/crypto-client-c
C_PD_OBJ       := target/c-pds/$(MICROKIT_CONFIG)
C_PD_BOARD     = $(MICROKIT_SDK)/board/$(MICROKIT_BOARD)/$(MICROKIT_CONFIG)
C_PD_CFLAGS    = -std=gnu11 -nostdlib -ffreestanding -O2 -Wall -Wextra -Werror -mstrict-align \
  -mcpu=cortex-a53 -I$(C_PD_BOARD)/include -I$(C_CLIENT_DIR)/include -Iidl/include

c-pds: c-pd-toolchain
	@test -n "$(MICROKIT_SDK)" || { echo "c-pds: MICROKIT_SDK is not set"; exit 1; }
	@mkdir -p $(C_PD_OBJ) $(PD_DIR)
	for f in $(C_CLIENT_DIR)/pd/kat_c.c $(C_CLIENT_DIR)/src/queue.c $(C_CLIENT_DIR)/src/call.c $(C_CLIENT_DIR)/src/link.c $(C_CLIENT_DIR)/src/console.c; do \
	  $(C_PD_CC) $(C_PD_CFLAGS) -c $$f -o $(C_PD_OBJ)/$$(basename $$f .c).o || exit 1; done
	$(C_PD_LD) -L$(C_PD_BOARD)/lib $(C_PD_OBJ)/kat_c.o $(C_PD_OBJ)/queue.o $(C_PD_OBJ)/call.o $(C_PD_OBJ)/link.o $(C_PD_OBJ)/console.o \
	  -lmicrokit -Tmicrokit.ld -o $(PD_DIR)/kat-c.elf

c-pd-toolchain:
	@command -v $(C_PD_CC) >/dev/null 2>&1 || { \
	  echo "c-pds: $(C_PD_CC) is missing; installing Debian's gcc-aarch64-linux-gnu"; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q gcc-aarch64-linux-gnu >/dev/null \
	  || { echo "c-pds: FAILED to install gcc-aarch64-linux-gnu with apt-get; install it by hand and re-run"; exit 1; }; }

# The loader goes at 0x70000000, where the SDK's loader for qemu_virt_aarch64 is linked
# (LINK_ADDRESS in its build); virtualization=on because the kernel runs at EL2
# (KernelArmHypervisorSupport). The virtio options are qemu-test's.
# A system whose test client prints a verdict line (QEMU_VERDICT, an extended regex:
# the default system's `test_client: PASS|FAIL`) runs unattended: QEMU is stopped as
# soon as that line appears, or after QEMU_TIMEOUT seconds (default 120), the log is
# kept in target/qemu.log, and make fails unless the line says PASS. Any other system
# (QEMU_VERDICT empty) is interactive: Ctrl-a x quits QEMU; QEMU_TIMEOUT=seconds stops
# it after that long.
QEMU_VERDICT ?= $(if $(filter %/qemu_virt_aarch64.system,$(SYSTEM)),test_client: (PASS|FAIL))
QEMU_TIMEOUT ?= $(if $(QEMU_VERDICT),120)
QEMU_LOG     := target/qemu.log
QEMU_IMAGE_CMD = $(QEMU) -machine virt,virtualization=on -cpu cortex-a53 -m size=2G -nographic \
	-device loader,file=$(LOADER_IMG),addr=0x70000000,cpu-num=0 \
	-global virtio-mmio.force-legacy=false \
	-device virtio-crypto-device,cryptodev=c0 -object cryptodev-backend-builtin,id=c0 \
	-device virtio-rng-device

# The isolation bench on seL4 (issue 30; bench-client-pd): the bench system's image in
# QEMU_BENCH_CONFIG (Microkit's benchmark config by default: a release kernel; debug
# works too), booted twice under QEMU with -icount shift=0 (virtual time is
# instructions, so the figures repeat on a noisy machine); tools/qemu_bench.py prints
# both runs, the table and how far the runs differ, and fails past 1%. The bench client
# writes through the serial driver PD, which prints in every config. One image a
# system of QEMU_BENCH_SYSTEMS (the bench client drives one board's device PD of its
# own): the CPU engine and virtio-crypto, then each board stand-in. A second
# virtio-crypto device, added last, is the one the bench client drives itself (meta.py's
# bench() gives the transports).
QEMU_BENCH_CONFIG ?= benchmark
QEMU_BENCH_SYSTEMS ?= qemu_bench qemu_bench_am335x qemu_bench_stm32mp1 qemu_bench_mpc885
qemu-bench: qemu-setup
	@for s in $(QEMU_BENCH_SYSTEMS); do \
	  $(MAKE) --no-print-directory image SYSTEM=$(GEN_DIR)/$$s.system MICROKIT_CONFIG=$(QEMU_BENCH_CONFIG) || exit 1; \
	  BENCH_NAME=$$s BENCH_CONFIG=$(QEMU_BENCH_CONFIG) python3 tools/qemu_bench.py \
	    $(subst -nographic,-nographic -icount shift=0,$(QEMU_IMAGE_CMD)) \
	    -device virtio-crypto-device,cryptodev=c1 -object cryptodev-backend-builtin,id=c1 || exit 1; \
	done

qemu: image qemu-setup
ifeq ($(QEMU_VERDICT),)
	$(if $(QEMU_TIMEOUT),timeout $(QEMU_TIMEOUT) )$(QEMU_IMAGE_CMD)
else
	@echo "qemu: booting $(LOADER_IMG); stops at the line matching '$(QEMU_VERDICT)' or after $(QEMU_TIMEOUT) s (log: $(QEMU_LOG))"
	@: > $(QEMU_LOG); \
	$(QEMU_IMAGE_CMD) </dev/null >$(QEMU_LOG) 2>&1 & qemu=$$!; \
	tail -n +1 -f --pid=$$qemu $(QEMU_LOG) & tailer=$$!; \
	end=$$(( $$(date +%s) + $(QEMU_TIMEOUT) )); \
	while kill -0 $$qemu 2>/dev/null && [ $$(date +%s) -lt $$end ] \
	  && ! grep -qaE '$(QEMU_VERDICT)' $(QEMU_LOG); do sleep 1; done; \
	kill $$qemu 2>/dev/null; wait $$qemu 2>/dev/null; wait $$tailer 2>/dev/null; \
	verdict=$$(grep -aE '$(QEMU_VERDICT)' $(QEMU_LOG) | tail -n 1); \
	case "$$(printf '%s\n' "$$verdict" | grep -oE '$(QEMU_VERDICT)')" in \
	  *PASS*) echo "qemu: $$verdict";; \
	  "") echo "qemu: FAILED: no line matching '$(QEMU_VERDICT)' within $(QEMU_TIMEOUT) s (see $(QEMU_LOG))"; exit 1;; \
	  *) echo "qemu: FAILED: $$verdict"; exit 1;; \
	esac
endif
