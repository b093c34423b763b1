# crypto-pd: every entry point. Each target installs what it needs first (idempotently).
#   make run    boot the default demo on the host backend
#   make test   every test
#   make bench  benchmarks (reports under target/bench/)
#   make pds    every no_std crate for aarch64-unknown-none
#   make lint   rustfmt --check and clippy -D warnings

CARGO      ?= cargo
NOSTD      := aarch64-unknown-none
# Crates that must stay no_std: they run inside seL4 protection domains.
NOSTD_PKGS := -p shm-queue -p pd-idl -p mmio -p cost-ledger -p boards -p engine-models -p power-manager -p cipher-service -p cpu-engine -p vboot
BENCH_DIR  := target/bench

.PHONY: setup run test bench pds lint check-systems

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
