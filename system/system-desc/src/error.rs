//! Errors: a kind to match on, a place in the file, and a message for people.

use std::fmt;
use std::path::PathBuf;

/// A position in the `.system` file, 1-based as editors count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One problem found in a `.system` file.
///
/// Tests and tools match on [`Error::kind`]; [`Error::message`] is for people and may
/// change wording at any time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub file: PathBuf,
    pub loc: Loc,
    /// Tag name of the element at fault (`protection_domain`, `map`, ...).
    pub element: String,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Io errors have no position and Xml errors no element; leave out what is unknown.
        write!(f, "{}", self.file.display())?;
        if self.loc != Loc::default() {
            write!(f, ":{}", self.loc)?;
        }
        write!(f, ": error: ")?;
        if !self.element.is_empty() {
            write!(f, "<{}>: ", self.element)?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for Error {}

/// What is wrong. One variant per rule, so a test can say which rule fired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// Not well-formed XML (roxmltree's verdict).
    Xml,
    /// The root element is not `<system>`.
    NotASystem,
    /// An element Microkit does not know in this position.
    UnknownElement,
    /// An attribute Microkit does not know on this element.
    UnknownAttribute,
    /// An element or attribute Microkit knows but this loader does not model
    /// (virtual machines, cspace, domains, IOMMU, x86 I/O, prefill).
    Unsupported,
    MissingAttribute,
    /// Non-whitespace text where Microkit allows only elements and comments.
    UnexpectedText,
    /// Not a number in the accepted notation (see [`crate::parse_number`]).
    BadNumber,
    /// A boolean that is not exactly `true` or `false`.
    BadBool,
    /// `perms` has a letter other than `r`, `w`, `x`.
    BadPerms,
    /// `perms="w"`: the kernel has no write-only mappings.
    WriteOnlyMap,
    /// `perms` without `r` (`""`, `"x"`, `"wx"`): Microkit takes it, but such a map is
    /// no use to a PD here and hides a typo.
    NoReadMap,
    /// `perms` with both `w` and `x`: code that can be rewritten through the map (W^X).
    WritableExecutableMap,
    /// A memory region of size 0.
    ZeroSizedRegion,
    /// A map at vaddr 0: the null page stays unmapped so that a null pointer faults.
    NullVaddr,
    /// A map reaching above the highest address a PD maps (below its stack, under the
    /// architecture's user top); the kernel's half lies above.
    VaddrAboveUserTop,
    /// `trigger` is neither `level` nor `edge`.
    BadTrigger,
    MissingProgramImage,
    DuplicateProgramImage,
    NoProtectionDomains,
    TooManyPds,
    /// `monitor` is the Microkit monitor's name.
    ReservedPdName,
    DuplicatePdName,
    DuplicateMemoryRegionName,
    PriorityOutOfRange,
    BudgetExceedsPeriod,
    StackSizeOutOfRange,
    StackSizeUnaligned,
    CpuOutOfRange,
    /// A channel end or irq `id` outside 0..=61.
    ChannelIdOutOfRange,
    /// Two channel ends or irqs of one PD with the same id.
    DuplicateChannelId,
    ChildIdOutOfRange,
    DuplicateChildId,
    /// The same hardware interrupt claimed twice in the system.
    DuplicateIrq,
    /// A `<channel>` without exactly two `<end>`s.
    ChannelEndCount,
    /// Both ends of a channel have `pp="true"`.
    BidirectionalPp,
    /// `pp` toward a PD whose priority is not strictly higher.
    PpPriority,
    UnknownPd,
    UnknownMemoryRegion,
    UnsupportedPageSize,
    SizeNotPageMultiple,
    PhysAddrUnaligned,
    PhysAddrOverlap,
    VaddrUnaligned,
    MapOverlap,
    /// An address range that does not fit in 64 bits.
    AddressOverflow,
    /// Two setvars (of any kind) in one PD write the same symbol.
    DuplicateSymbol,
}
