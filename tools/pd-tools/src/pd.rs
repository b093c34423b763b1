//! What the client PDs of this crate share: their data region as bytes, their
//! parameters from the environment, and the way they fail.
//!
//! Host-only: parameters come from the process environment (see [`crate::run`]); on
//! seL4 they would be setvars or a configuration region.

use std::io::{self, Read};

use crypto_client::{Completion, Link, MAX_POLL, Tagged};
use pd_runtime::{MemoryRegion, debug_println, exit, memory_region};

/// Prints `error: what` (the tool shows it) and ends the PD with status 1.
pub fn fail(what: impl core::fmt::Display) -> ! {
    debug_println!("{}{what}", crate::run::ERROR);
    exit(1)
}

/// The answers waiting on `link`, the driver notified if it must be. A restarted
/// driver ends the run: a tool's client keeps no state to resume a stream from.
pub fn answers<Req: Tagged, Resp: Tagged>(link: &mut Link<'_, Req, Resp>) -> Vec<Resp> {
    let taken = crypto_client::pd::answers::<_, _, MAX_POLL>(link)
        .unwrap_or_else(|e| fail(format!("response queue: {e:?}")));
    taken
        .into_iter()
        .map(|c| match c {
            Completion::Answered(r) => r,
            Completion::Restarted(id) => fail(format!("driver restarted (request {id})")),
        })
        .collect()
}

/// An answer's status in words: `Ok` if the driver did the request, else what it said
/// and what that means (a user reads this, not the enum).
pub fn status_words<E: core::fmt::Debug, U: core::fmt::Debug>(
    status: Result<Result<(), E>, U>,
) -> Result<(), String> {
    let e = match status {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(e)) => format!("{e:?}"),
        Err(unknown) => return Err(format!("the driver answered an unknown status {unknown:?}")),
    };
    let meaning = match e.as_str() {
        "BadLength" => "the request is not whole 16-byte blocks (CBC and ECB take no padding)",
        "SegmentOutOfRange" => "a segment lies outside the client's data region",
        "TooManySegments" => "more segments than a request carries",
        "OverlappingSegments" => "two segments of an in-place request share bytes",
        "UnsupportedPath" => "the engine cannot take this request on the path asked for",
        "UnsupportedMode" | "UnsupportedAlgorithm" => "the engine does not do this algorithm",
        "BadKeySize" => "the key is not 16, 24 or 32 bytes",
        "NoPower" => "the power manager did not grant the engine",
        "EngineFault" => "the engine failed (or failed its self-test)",
        "UnknownSession" => "the session is not open",
        "SessionFinished" => "the session already answered its final",
        "TooManySessions" => "the driver's session table is full",
        "EntropyFailure" => "the entropy source failed a health test; no byte was given",
        "ServerRestarted" => "the driver restarted",
        _ => "",
    };
    Err(if meaning.is_empty() {
        format!("the driver refused the request: {e}")
    } else {
        format!("the driver refused the request: {e} ({meaning})")
    })
}

/// The parameter `PDT_<name>`; fails the PD if missing.
pub fn param(name: &str) -> String {
    param_opt(name).unwrap_or_else(|| fail(format!("PDT_{name} not set")))
}

/// The parameter `PDT_<name>_<this PD's name>` if set (one client of several given its
/// own, as `speed --flood` gives its flooder), else `PDT_<name>`.
pub fn param_opt(name: &str) -> Option<String> {
    let own = format!("PDT_{name}_{}", pd_runtime::pd_name());
    std::env::var(own)
        .or_else(|_| std::env::var(format!("PDT_{name}")))
        .ok()
}

/// The host file the tool granted this PD as `name` (its input or output); fails the
/// PD if there is none. The PD cannot open files itself (pd-runtime's sandbox).
pub fn granted(name: &str) -> std::fs::File {
    pd_runtime::host::take_file(name)
        .unwrap_or_else(|| fail(format!("no file {name:?} granted to this PD")))
}

/// The client's data region (`setvar_vaddr="data"`), shared with its driver.
pub struct Data(MemoryRegion);

impl Data {
    pub fn map() -> Self {
        let r = memory_region!(data);
        assert!(r.writable, "a client maps its data region read-write");
        Data(r)
    }

    pub fn size(&self) -> usize {
        self.0.size
    }

    /// Copies `bytes` in at `offset`.
    pub fn write(&self, offset: usize, bytes: &[u8]) {
        assert!(
            offset + bytes.len() <= self.0.size,
            "inside the data region"
        );
        // SAFETY: inside the region (checked), mapped read-write for the life of the PD.
        // The driver reads it only for a request submitted after this copy (the queue's
        // release/acquire orders the bytes before the descriptor).
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0.vaddr.add(offset), bytes.len())
        };
    }

    /// Copies `out.len()` bytes out from `offset`.
    pub fn read(&self, offset: usize, out: &mut [u8]) {
        assert!(offset + out.len() <= self.0.size, "inside the data region");
        // SAFETY: inside the region (checked); read only after the driver answered the
        // request that wrote it (the response queue's acquire orders its writes first).
        unsafe {
            core::ptr::copy_nonoverlapping(self.0.vaddr.add(offset), out.as_mut_ptr(), out.len())
        };
    }
}

/// Reads until `buf` is full or the input ends (a FIFO returns short reads).
pub fn fill(from: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match from.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
