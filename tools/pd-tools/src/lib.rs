//! `pd-tools`: command-line use of the crypto engines through the isolated driver PDs,
//! in the spirit of libkcapi's `kcapi-dgst`/`kcapi-enc` and of `openssl speed`/tcrypt.
//!
//! Each tool builds a minimal system (the engine's power manager where the engine has a
//! clock gate, the engine's driver PD, and one client PD of this crate), writes it as a
//! Microkit `.system` file into a private temporary directory ([`systems`]), boots it on
//! the host backend (`host-runner`) and reads what the client reports ([`run`]).
//!
//! Host-only plumbing, stated once: a client PD here is a Linux process, sandboxed so
//! that it opens no file, so the tool opens its input and output (a file, or the
//! tool's own stdin and stdout) and grants the descriptors to the client PD
//! (`host_runner::Grant`, `pd_runtime::host::take_file`). Everything the engine sees still goes the PD way: the client copies the
//! bytes into its data region and asks the driver over its queues; on seL4 the bytes
//! would come from a storage or network client instead. Results and errors come back
//! as debug-console lines of the client (`run::Report`).
//!
//! Assumes the PD binaries sit beside the running tool: the client PDs (`pdt-*`) are
//! this package's, the driver and power-manager PDs the engines' own (`omap-aes`,
//! `pm-am335x`, ...), which `cargo build --workspace --bins` puts in the same directory
//! (`make` does it for every target that runs a tool).

pub mod algs;
pub mod cli;
pub mod hexfmt;
pub mod pd;
pub mod refcrypto;
pub mod run;
pub mod speed;
pub mod systems;
