#!/usr/bin/env python3
"""Prints `-p NAME` for every workspace package whose [package.metadata.crypto-pd]
says KEY (the Makefile's package lists, derived so that no crate can be missed):

  no-std     a library that must build for aarch64-unknown-none (it runs in seL4 PDs)
  sel4-test-client   a package whose binaries are PDs of the seL4 images (`make pds`)
  host-pds   a package whose binaries are PDs the host tools boot (`make bench`)

Reads `cargo metadata --no-deps` on stdin."""
import json
import sys

key = sys.argv[1]
packages = json.load(sys.stdin)["packages"]
names = sorted(
    p["name"]
    for p in packages
    if key in ((p.get("metadata") or {}).get("crypto-pd") or {}).get("lists", [])
)
if not names:
    sys.exit(f"packages.py: no package is in the list {key!r}")
print(" ".join(f"-p {n}" for n in names))
