//! The symbols the `microkit` tool writes into each PD's ELF, and the setvar macros.
//!
//! The tool (`tool/microkit/src/symbols.rs`, `patch_symbols`, Microkit 2.3.0) writes,
//! for every PD and unconditionally, `microkit_name` (the PD's name, at most 64
//! bytes), `microkit_passive` (1 byte), and `microkit_irqs`, `microkit_notifications`,
//! `microkit_pps`, `microkit_ioports` (8 bytes each: one bit per channel id). A
//! missing symbol makes the tool panic (`write_symbol(..).unwrap()`); a symbol too
//! small for the data trips an `assert!` in `tool/microkit/src/elf.rs`. The write goes
//! into the ELF segment that contains the symbol (by `st_value`/`st_size`), so the
//! symbol must lie inside a PT_LOAD segment; `.bss` would do for the tool, but our
//! start code clears `.bss` (for restarts), so every patched symbol lives in the
//! `.data.microkit` section instead, which `microkit.ld` keeps in the data segment.
//!
//! setvar symbols (`setvar_vaddr`, `setvar_size` on a `<map>`, `<setvar symbol=..
//! region_paddr=..>`, `setvar_id`) are patched only if the `.system` file names them,
//! must exist in the ELF if it does ("could not patch symbol"), and must be exactly
//! one word (8 bytes) long. A symbol the `.system` file does not set keeps its
//! initial value: [`UNSET`], which is how the macros tell "not set" from 0.

use crate::MemoryRegion;

/// The initial value of every setvar static: the tool overwrites it if the `.system`
/// file sets the symbol. Not a plausible address, size or id.
pub const UNSET: u64 = 0xdead_5e7f_a11e_d000;

/// Declares the statics the tool patches: each exported under its own name, kept by the
/// linker even if nothing reads it (`microkit_ioports`), and in `.data.microkit` (see
/// above).
macro_rules! patched_by_the_tool {
    ($($(#[$doc:meta])* static mut $name:ident: $ty:ty = $init:expr;)*) => {
        $(
            $(#[$doc])*
            #[unsafe(no_mangle)]
            #[used]
            #[unsafe(link_section = ".data.microkit")]
            static mut $name: $ty = $init;
        )*
    };
}

patched_by_the_tool! {
    /// `char microkit_name[MICROKIT_PD_NAME_LENGTH]` (`libmicrokit/src/main.c`;
    /// `MICROKIT_PD_NAME_LENGTH` is 64 in `microkit.h`; the tool writes
    /// `min(len, PD_MAX_NAME_LENGTH)` bytes, so a 64-byte name has no NUL).
    static mut microkit_name: [u8; 64] = [0; 64];

    /// `bool microkit_passive` (`libmicrokit/src/main.c`): the tool writes one byte.
    static mut microkit_passive: u8 = 0;

    /// `seL4_Word microkit_irqs`: bit n = channel n is an interrupt (`pd.irq_bits()`).
    static mut microkit_irqs: u64 = 0;

    /// `seL4_Word microkit_notifications`: bit n = this end of channel n may notify.
    static mut microkit_notifications: u64 = 0;

    /// `seL4_Word microkit_pps`: bit n = this end of channel n may make a PPC.
    static mut microkit_pps: u64 = 0;

    /// `seL4_Word microkit_ioports`: x86 only, but written on every architecture.
    static mut microkit_ioports: u64 = 0;
}

/// Reads a patched word. Volatile: the compiler must not assume the initial value,
/// since the tool changes it in the image after linking.
fn patched(word: *const u64) -> u64 {
    // SAFETY: `word` points at one of the statics above, which nothing writes at run
    // time.
    unsafe { word.read_volatile() }
}

pub fn irqs() -> u64 {
    patched(&raw const microkit_irqs)
}

pub fn notifications() -> u64 {
    patched(&raw const microkit_notifications)
}

pub fn pps() -> u64 {
    patched(&raw const microkit_pps)
}

pub fn passive() -> bool {
    // SAFETY: as in `patched`.
    unsafe { (&raw const microkit_passive).read_volatile() != 0 }
}

/// The name, copied out once by [`init_name`] (after the tool patched it, the bytes
/// never change; the copy is what `&'static str` borrows).
static mut NAME: [u8; 64] = [0; 64];
static mut NAME_LEN: usize = 0;

/// Copies `microkit_name` out with volatile reads, each byte outside ASCII as `?`: the
/// copy is then a `str` with no check at each use (the UTF-8 check `name` made was 544
/// bytes of every PD's text; Microkit's names are ASCII identifiers in practice).
///
/// # Safety
/// Call once at start-up, before [`name`].
pub unsafe fn init_name() {
    let src = &raw const microkit_name as *const u8;
    let mut len = 0;
    while len < 64 {
        // SAFETY: `src` points at the 64-byte static; `len < 64`. Start-up is
        // single-threaded, so writing NAME cannot race.
        unsafe {
            let b = src.add(len).read_volatile();
            if b == 0 {
                break;
            }
            NAME[len] = if b.is_ascii() { b } else { b'?' };
        }
        len += 1;
    }
    // SAFETY: as above.
    unsafe { NAME_LEN = len };
}

pub fn name() -> &'static str {
    // SAFETY: NAME and NAME_LEN are written only by `init_name`, before any caller, and
    // it writes ASCII only, which is UTF-8.
    unsafe {
        let bytes = core::slice::from_raw_parts((&raw const NAME).cast::<u8>(), NAME_LEN);
        core::str::from_utf8_unchecked(bytes)
    }
}

/// Builds the region the seL4 [`memory_region!`](crate::memory_region!) found, or says
/// which attribute the `.system` file lacks.
pub fn region(vaddr: u64, size: u64, paddr: u64) -> Result<MemoryRegion, &'static str> {
    if vaddr == UNSET {
        return Err("no map with this setvar_vaddr");
    }
    if size == UNSET {
        return Err("its map needs setvar_size=\"<name>_size\" on seL4");
    }
    Ok(MemoryRegion {
        vaddr: vaddr as *mut u8,
        size: size as usize,
        // Microkit writes 0 for a region with no physical address (`paddr()
        // .unwrap_or_default()` in the tool); unset is reported the same way.
        paddr: if paddr == UNSET { 0 } else { paddr },
        // Microkit exports no permissions; a write through a read-only map is a
        // VMFault that the monitor (or the parent) sees, as it is a SIGSEGV on the host.
        writable: true,
    })
}

/// Defines the word-sized setvar symbol `$sym` (initially [`UNSET`]) and evaluates to
/// its value. The definition is assembly, weak and guarded by `.ifndef`, so that any
/// number of uses of one name, in one crate or several, make one symbol in the final
/// ELF (a Rust `#[no_mangle] static` per use would be a duplicate-symbol error, and a
/// library may well use `memory_region!(ring)` in two functions, one per PD). It sits
/// in `.data.microkit` like the other patched symbols: a PT_LOAD segment, not `.bss`.
#[doc(hidden)]
#[macro_export]
macro_rules! __setvar_word {
    ($sym:expr) => {{
        // An item (a module) because `global_asm!` may not be a statement.
        mod setvar_definition {
        ::core::arch::global_asm!(
            concat!(".ifndef ", $sym),
            ".pushsection .data.microkit, \"aw\", %progbits",
            ".balign 8",
            concat!(".weak ", $sym),
            concat!(".type ", $sym, ", %object"),
            concat!(".size ", $sym, ", 8"),
            concat!($sym, ":"),
            ".quad {unset}",
            ".popsection",
            ".endif",
            unset = const $crate::microkit::UNSET,
        );
        }
        unsafe extern "C" {
            #[link_name = $sym]
            static WORD: u64;
        }
        // SAFETY: WORD is the 8-byte symbol defined above, written only by the
        // microkit tool before boot; volatile so its initial value is not folded in.
        unsafe { (&raw const WORD).read_volatile() }
    }};
}

/// The seL4 form of [`memory_region!`](crate::memory_region!): the symbols are the
/// `.system` file's, so the macro defines them in the PD's binary.
///
/// `memory_region!(data)` uses three word symbols, `data` (for
/// `setvar_vaddr="data"`), `data_size` (`setvar_size="data_size"`, required: seL4 has no
/// other way to learn the size) and `data_paddr` (`<setvar symbol="data_paddr"
/// region_paddr="..."/>`, optional: 0 if unset).
#[macro_export]
macro_rules! memory_region {
    ($name:ident) => {{
        let vaddr = $crate::__setvar_word!(stringify!($name));
        let size = $crate::__setvar_word!(concat!(stringify!($name), "_size"));
        let paddr = $crate::__setvar_word!(concat!(stringify!($name), "_paddr"));
        $crate::microkit::region(vaddr, size, paddr).unwrap_or_else(|why| {
            $crate::__missing(format_args!(
                "memory region \"{}\": {}",
                stringify!($name),
                why
            ))
        })
    }};
}

/// The seL4 form of [`maybe_memory_region!`](crate::maybe_memory_region!): `None` if
/// the `.system` file sets no `setvar_vaddr` of this name (the symbol kept its initial
/// value); a map without `setvar_size` is still a panic naming what is missing.
#[macro_export]
macro_rules! maybe_memory_region {
    ($name:ident) => {{
        let vaddr = $crate::__setvar_word!(stringify!($name));
        if vaddr == $crate::microkit::UNSET {
            None
        } else {
            Some($crate::memory_region!($name))
        }
    }};
}

/// The seL4 form of [`maybe_var!`](crate::maybe_var!): `None` if the `.system` file
/// sets no symbol of this name.
#[macro_export]
macro_rules! maybe_var {
    ($name:ident) => {{
        let value = $crate::__setvar_word!(stringify!($name));
        (value != $crate::microkit::UNSET).then_some(value)
    }};
}

/// The seL4 form of [`var!`](crate::var!): defines the word symbol `$name` for the
/// `.system` file's setvar to patch; panics if the `.system` file sets none.
#[macro_export]
macro_rules! var {
    ($name:ident) => {{
        let value = $crate::__setvar_word!(stringify!($name));
        if value == $crate::microkit::UNSET {
            $crate::__missing(format_args!("no setvar \"{}\"", stringify!($name)));
        }
        value
    }};
}
