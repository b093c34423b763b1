# crypto-pd: every entry point. Each target installs what it needs first (idempotently).
#   make run    boot the default demo on the host backend
#   make test   every test
#   make bench  benchmarks (reports under target/bench/)
#   make pds    every no_std crate for aarch64-unknown-none
#   make lint   rustfmt --check and clippy -D warnings
#   make qemu-test  the virtio-crypto driver against QEMU's real device (bare metal, no seL4)

CARGO      ?= cargo
NOSTD      := aarch64-unknown-none
# Crates that must stay no_std: they run inside seL4 protection domains.
NOSTD_PKGS := -p shm-queue -p pd-idl -p mmio -p cost-ledger -p boards -p engine-models -p power-manager -p cipher-service -p cpu-engine -p session-table -p digest-service -p sec1-hash-driver -p vboot -p omap-aes-driver -p stm32-cryp-driver -p virtio-crypto-driver -p virtio-crypto-model
BENCH_DIR  := target/bench

.PHONY: setup run test bench pds lint check-systems qemu-setup qemu-test

setup:
	@command -v $(CARGO) >/dev/null || { echo "cargo is missing: install Rust with rustup (https://rustup.rs)"; exit 1; }
	@rustup target list --installed | grep -qx $(NOSTD) || rustup target add $(NOSTD)
	@rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
	@rustup component list --installed | grep -q '^clippy' || rustup component add clippy

run: setup
	$(CARGO) run --locked -q -p queue-demo

test: setup
	$(CARGO) test --locked --workspace
	$(MAKE) --no-print-directory check-systems

# Every Microkit system description in system/ must pass the checker.
check-systems:
	@files=$$(ls system/*.system 2>/dev/null); \
	if [ -n "$$files" ]; then $(CARGO) run --locked -q -p system-desc --bin system-check -- $$files; \
	else echo "check-systems: no system/*.system files yet"; fi

bench: setup
	@mkdir -p $(BENCH_DIR)
	$(CARGO) bench --locked -p queue-demo --bench queue | tee $(BENCH_DIR)/queue.txt

pds: setup
	$(CARGO) build --locked --target $(NOSTD) $(NOSTD_PKGS)

lint: setup
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings

# The virtio-crypto driver against QEMU's own virtio-crypto device: tools/qemu-test is a
# bare-metal aarch64 image (no seL4) that checks SP 800-38A vectors and random requests
# against RustCrypto and exits through semihosting with 0 only if every check passed.
# force-legacy=false: QEMU's virtio-mmio is legacy (version 1) unless told otherwise,
# and the driver speaks the modern transport only.
QEMU       ?= qemu-system-aarch64
QEMU_IMG   := target/$(NOSTD)/release/qemu-test
QEMU_TEST_CMD = $(QEMU) -machine virt -cpu cortex-a53 -m 256M -nographic -semihosting \
	-global virtio-mmio.force-legacy=false \
	-device virtio-crypto-device,cryptodev=c0 -object cryptodev-backend-builtin,id=c0 \
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
