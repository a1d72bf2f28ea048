//! The typed records the parser yields, one per trace line.
//!
//! Records borrow from the line text and from the parser's scratch buffers, so
//! producing one allocates nothing. A record lives until the next call to
//! [`crate::parse::Parser::parse_line`].

pub use super::capability::Capability;
use super::regs::RegId;

/// Unit written after a timestamp. `None` on the record means no unit was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Clock ticks (`clk`), the Fast Models default.
    Clk,
    /// Nanoseconds.
    Ns,
    /// Picoseconds.
    Ps,
    /// `cs`, as some tools write it (values kept as written).
    Cs,
    /// CPU cycles (TI EP records carry the absolute cycle).
    Cyc,
    /// `tic`, as some tools write it (values kept as written).
    Tic,
    /// Microseconds, seen with fractional values (`10.356000us`); such values
    /// are normalised to picoseconds, as the reference tools do.
    Us,
}

impl TimeUnit {
    /// The unit as the trace spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Clk => "clk",
            TimeUnit::Ns => "ns",
            TimeUnit::Ps => "ps",
            TimeUnit::Cs => "cs",
            TimeUnit::Cyc => "cyc",
            TimeUnit::Tic => "tic",
            TimeUnit::Us => "us",
        }
    }
}

/// One parsed line.
#[derive(Clone, Debug)]
pub struct Record<'a> {
    /// Timestamp of the line; inherited from the previous line when absent.
    pub time: u64,
    /// Whether the line carried its own timestamp.
    pub has_time: bool,
    /// The unit written after the timestamp, `None` when the line gave none.
    pub unit: Option<TimeUnit>,
    /// Trace source identifier (`cpu0`), when the dialect has one.
    pub cpu: Option<&'a [u8]>,
    /// What the line says.
    pub kind: RecordKind<'a>,
}

/// What a line says.
#[derive(Clone, Debug)]
pub enum RecordKind<'a> {
    /// Empty or whitespace-only line.
    Blank,
    /// `#` comment line (test files and annotated traces); transparent to the
    /// parser's inter-line state.
    Comment,
    /// A line belonging to the container format rather than the event stream:
    /// `Tarmac Text Rev 3t`, ARMulator's `Date:`/`Source:`/`Options:`, the TI
    /// EP banner and `####Version:N`.
    Header(Header<'a>),
    /// An executed, skipped or failed instruction (`IT`, `IS`, `IF`, `ES`).
    Instruction(Instruction<'a>),
    /// One register update (`R X0 0000000000000001`).
    Register(RegisterWrite<'a>),
    /// ARMulator's `R r14=20000060, cpsr=200000d3`: several registers on one line.
    RegisterList(RegisterList<'a>),
    /// A data read or write by the processor (`MR4`, `MW8`, `LD`/`ST` diagrams,
    /// `MU` atomics).
    Memory(MemoryAccess<'a>),
    /// CPU exceptions and other `E`/`EXC` events.
    Exception(Exception<'a>),
    /// Program-flow records: Fast Models `FD`/`FI`/`FR`, ES-style `BR`.
    Branch(Branch<'a>),
    /// Memory-bus transactions (`B...` lines), and ARMulator bus/memory cycles.
    Bus(BusCycle<'a>),
    /// `CACHE <id> LINE <line> <op> 0x<paddr>`.
    Cache(CacheLine<'a>),
    /// `CACHE MAINTENANCE <side> <op> <scope> <data> ...`.
    CacheMaintenance(CacheMaintenance<'a>),
    /// `TTW`/`TTU` translation table walk or update.
    TableWalk(TableWalk<'a>),
    /// `TLB`/`WALKCACHE` `FILL`/`EVICT`.
    Tlb(Tlb<'a>),
    /// `R DC ...`, `R IC ...`, `R TLBI ...`, `R AT ...`: system operations
    /// written in register-update syntax.
    SystemOp(SystemOp<'a>),
    /// One record of TI's C64x+ EP trace.
    EpTrace(EpRecord),
    /// A coprocessor data transfer written like a memory access with
    /// `TRANSFER` in place of the address (`MCW4___R (...) TRANSFER 00000000`).
    CoprocTransfer(CoprocTransfer<'a>),
    /// A known line type with no effect on machine state (`CADI`, `SIGNAL`,
    /// `E DebugEvent_...`, aborted accesses, instruction-fetch bus lines, ...).
    Text(TextEvent<'a>),
    /// A line the parser could not understand.
    Unparsed(Unparsed),
}

impl RecordKind<'_> {
    /// Stable lower-case name used in statistics and JSON output.
    pub fn name(&self) -> &'static str {
        match self {
            RecordKind::Blank => "blank",
            RecordKind::Comment => "comment",
            RecordKind::Header(_) => "header",
            RecordKind::Instruction(_) => "instruction",
            RecordKind::Register(_) => "register",
            RecordKind::RegisterList(_) => "register_list",
            RecordKind::Memory(_) => "memory",
            RecordKind::Exception(_) => "exception",
            RecordKind::Branch(_) => "branch",
            RecordKind::Bus(_) => "bus",
            RecordKind::Cache(_) => "cache",
            RecordKind::CacheMaintenance(_) => "cache_maintenance",
            RecordKind::TableWalk(_) => "table_walk",
            RecordKind::Tlb(_) => "tlb",
            RecordKind::SystemOp(_) => "system_op",
            RecordKind::EpTrace(_) => "ep_trace",
            RecordKind::CoprocTransfer(_) => "coproc_transfer",
            RecordKind::Text(_) => "text",
            RecordKind::Unparsed(_) => "unparsed",
        }
    }

    /// Every kind name, in a fixed order (for tables and counters).
    pub const NAMES: [&'static str; 19] = [
        "blank",
        "comment",
        "header",
        "instruction",
        "register",
        "register_list",
        "memory",
        "exception",
        "branch",
        "bus",
        "cache",
        "cache_maintenance",
        "table_walk",
        "tlb",
        "system_op",
        "ep_trace",
        "coproc_transfer",
        "text",
        "unparsed",
    ];

    /// Index of this kind in [`RecordKind::NAMES`].
    #[inline]
    pub fn index(&self) -> usize {
        match self {
            RecordKind::Blank => 0,
            RecordKind::Comment => 1,
            RecordKind::Header(_) => 2,
            RecordKind::Instruction(_) => 3,
            RecordKind::Register(_) => 4,
            RecordKind::RegisterList(_) => 5,
            RecordKind::Memory(_) => 6,
            RecordKind::Exception(_) => 7,
            RecordKind::Branch(_) => 8,
            RecordKind::Bus(_) => 9,
            RecordKind::Cache(_) => 10,
            RecordKind::CacheMaintenance(_) => 11,
            RecordKind::TableWalk(_) => 12,
            RecordKind::Tlb(_) => 13,
            RecordKind::SystemOp(_) => 14,
            RecordKind::EpTrace(_) => 15,
            RecordKind::CoprocTransfer(_) => 16,
            RecordKind::Text(_) => 17,
            RecordKind::Unparsed(_) => 18,
        }
    }
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn names_and_indices_agree() {
        let kinds = [
            RecordKind::Blank,
            RecordKind::Comment,
            RecordKind::Unparsed(Unparsed {
                reason: "x",
                column: 0,
            }),
            RecordKind::EpTrace(EpRecord {
                cycle: 0,
                pc: 0,
                record_type: EpRecordType::Info,
                ep_cycles: 0,
                addr: 0,
                ep_size: 0,
                stall_cycles: 0,
            }),
        ];
        for k in kinds {
            assert_eq!(RecordKind::NAMES[k.index()], k.name());
        }
    }
}

/// Which container format a [`Header`] line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderKind {
    /// `Tarmac Text Rev 3t`
    TarmacText,
    /// ARMulator tracer `Date:`, `Source:`, `Options:` lines.
    Armulator,
    /// TI EP trace banner (`####...`) and `####Version:N`.
    EpBanner,
    /// TI EP `####Version:N`, with `N`.
    EpVersion(u32),
}

/// A header line: which format it belongs to and its text.
#[derive(Clone, Debug)]
pub struct Header<'a> {
    /// Which format's header it is.
    pub kind: HeaderKind,
    /// The whole line, trimmed.
    pub text: &'a [u8],
}

/// Instruction-set state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ISet {
    /// A32 (Arm state).
    Arm,
    /// T32 (Thumb state).
    Thumb,
    /// A64 (AArch64 state).
    A64,
    /// `X`: ThumbEE.
    ThumbEE,
    /// `C`: Morello's capability state (C64), AArch64 with capabilities;
    /// its encodings are A64's where the two share them.
    C64,
}

impl ISet {
    /// Whether it is an AArch64 state (A64 or C64): x registers, the
    /// 64-bit stack pointer, A64 decoding.
    #[inline]
    pub fn is_aarch64(self) -> bool {
        matches!(self, ISet::A64 | ISet::C64)
    }
}

/// What became of an instruction the trace lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Effect {
    /// Executed (condition passed, or none).
    Executed,
    /// Reached but failed its condition (`IS`, or `ES ... CCFAIL`).
    CondFail,
    /// The fetch failed and the encoding is `--------`.
    FetchFail,
}

/// Which line type introduced an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstrForm {
    /// `IT`
    Taken,
    /// `IS`
    Skipped,
    /// `IF`
    Folded,
    /// `ES`
    Es,
}

/// One instruction line.
#[derive(Clone, Debug)]
pub struct Instruction<'a> {
    /// Which line type gave it.
    pub form: InstrForm,
    /// Whether it executed.
    pub effect: Effect,
    /// Virtual address of the instruction (never with the Thumb bit set).
    pub pc: u64,
    /// Physical address, when given as `va:pa`.
    pub phys: Option<u64>,
    /// Instruction-set state it was decoded in.
    pub iset: ISet,
    /// Width of the encoding in bits: 16 or 32 (from the digit count).
    pub width: u8,
    /// The encoding as written (logical value; for 32-bit Thumb, first halfword first).
    pub encoding: u64,
    /// CPU mode such as `svc_s` or `EL3h_s`; `None` when absent.
    pub mode: Option<&'a [u8]>,
    /// The `(inst_id)` tick count, when present.
    pub inst_id: Option<u64>,
    /// The capability the address was written as (a Morello FVP's
    /// `(tag|metadata|value)`): `pc` is its value.
    pub capability: Option<Capability>,
    /// Everything after the fields, trailing whitespace kept.
    pub disassembly: &'a [u8],
}

/// One register update. Values are little-endian: `bytes[0]` is the least
/// significant byte. `known[i]` is false for bytes written as `--`, which the
/// update leaves unchanged.
#[derive(Clone, Debug)]
pub struct RegisterWrite<'a> {
    /// The name as written in the trace (`r13_svc`, `SP_EL3`, `X0`, `TPIDRRO_EL0`).
    pub name: &'a [u8],
    /// The canonical register, or `None` for registers no view models
    /// (most system registers).
    pub reg: Option<RegId>,
    /// The `(extra-info)` word, e.g. `USR` or `AARCH32`.
    pub extra: Option<&'a [u8]>,
    /// The `<hi:lo>` bit range, when given.
    pub bit_range: Option<(u16, u16)>,
    /// Register contents, least significant byte first, covering the whole register.
    pub bytes: &'a [u8],
    /// Per byte: 1 if this update sets it, 0 if it leaves it unchanged.
    pub known: &'a [u8],
    /// Text after the value (`__C_`, `(MSP)`), trimmed.
    pub interpretation: &'a [u8],
    /// The value had fewer digits than the register (or its bit range)
    /// holds and was filled out: with zeros (`R V0<63:0> 00000000`), or as
    /// unchanged after dashes (`R X1 --------`).
    pub short: bool,
}

/// One `name=value` of an ARMulator register line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegListEntry {
    /// Byte range of the name within the line.
    pub name_start: u32,
    /// End (exclusive) of the name's bytes within the line.
    pub name_end: u32,
    /// The canonical register, `None` for registers no view models.
    pub reg: Option<RegId>,
    /// The value as written (at most 64 bits).
    pub value: u64,
    /// Number of hex digits written (the value's width is `digits / 2` bytes).
    pub digits: u8,
}

/// ARMulator-style multi-register line: `R r14=20000060, cpsr=200000d3`.
#[derive(Clone, Debug)]
pub struct RegisterList<'a> {
    /// The whole line, which [`RegListEntry`] name ranges index.
    pub line: &'a [u8],
    /// The `name=value` entries in line order (borrowed from the parser's
    /// scratch).
    pub entries: &'a [RegListEntry],
}

impl<'a> RegisterList<'a> {
    /// The name of entry `e` as written.
    pub fn name(&self, e: &RegListEntry) -> &'a [u8] {
        &self.line[e.name_start as usize..e.name_end as usize]
    }
}

/// Direction of a [`MemoryAccess`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemDirection {
    /// A load: `bytes` is what memory held.
    Read,
    /// A store: `bytes` is what memory now holds.
    Write,
    /// `MU<sz>_<op>` atomic update: the value is what ends up in memory.
    Update,
}

/// How a [`MemoryAccess`] line lays out its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemForm {
    /// `MR4 addr value` and relatives: one value in logical order.
    Contiguous,
    /// `LD`/`ST` 16-byte diagram.
    Diagram,
}

/// Atomic operation of an `MU` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `ADD`: add.
    Add,
    /// `BIC`: clear bits.
    Bic,
    /// `CAS`: compare and swap.
    Cas,
    /// `EOR`: exclusive or.
    Eor,
    /// `ORR`: set bits.
    Orr,
    /// `SMAX`: signed maximum.
    Smax,
    /// `SMIN`: signed minimum.
    Smin,
    /// `SWP`: swap.
    Swp,
    /// `UMAX`: unsigned maximum.
    Umax,
    /// `UMIN`: unsigned minimum.
    Umin,
}

/// A data access by the processor.
///
/// `bytes` and `known` describe memory in address order: `bytes[i]` is the
/// byte at `addr + i` (endianness already applied). `accessed[i]` is 0 for
/// diagram bytes written `..`; `known[i]` is 0 for bytes accessed but not
/// shown (`##`, `xx`).
#[derive(Clone, Debug)]
pub struct MemoryAccess<'a> {
    /// Read, write or atomic update.
    pub direction: MemDirection,
    /// One value or an `LD`/`ST` diagram.
    pub form: MemForm,
    /// Type word as written (`MR4`, `MNW4___D`, `W08`, `LD`), for display.
    pub type_word: &'a [u8],
    /// Virtual address of `bytes[0]`.
    pub addr: u64,
    /// Physical address, when given as `va:pa`.
    pub phys: Option<u64>,
    /// The second physical address of `va:pa1,pa2`: an access that went
    /// through a second stage of translation.
    pub phys2: Option<u64>,
    /// Access size in bytes as the type word gives it (for diagrams, 16).
    pub size: u8,
    /// `X`: an exclusive access.
    pub exclusive: bool,
    /// `T`: unprivileged access.
    pub translated: bool,
    /// `L`: locked access.
    pub locked: bool,
    /// The operation of an `MU` atomic update.
    pub atomic: Option<AtomicOp>,
    /// Cortex-M4 style: data written in memory order rather than logical order.
    pub memory_order: bool,
    /// Memory bytes in address order, endianness applied.
    pub bytes: &'a [u8],
    /// Per byte: 1 if the access touched it, 0 for diagram bytes written `..`.
    pub accessed: &'a [u8],
    /// Per byte: 1 if its value is shown, 0 for accessed bytes written `##` or
    /// `xx`.
    pub known: &'a [u8],
    /// For contiguous records, the value token(s) as written (logical order);
    /// kept so that renderings can show exactly what the trace said.
    pub value_text: &'a [u8],
}

impl MemoryAccess<'_> {
    /// A diagram's runs as `dump` splits it, highest address first: bytes
    /// accessed side by side and alike known or unknown, a known run at
    /// most 8 bytes. Each is `(lowest byte index, length, known)`.
    pub fn diagram_runs(&self) -> impl Iterator<Item = (usize, usize, bool)> + '_ {
        let at = |k: usize| 15 - k;
        let usable = self.accessed.len() >= 16 && self.known.len() >= 16;
        let mut i = if usable { 0 } else { 16 };
        std::iter::from_fn(move || {
            while i < 16 && self.accessed[at(i)] == 0 {
                i += 1;
            }
            if i >= 16 {
                return None;
            }
            let known = self.known[at(i)] != 0;
            let mut j = i;
            while j < 16
                && self.accessed[at(j)] != 0
                && (self.known[at(j)] != 0) == known
                && (!known || j - i < 8)
            {
                j += 1;
            }
            let run = (at(j - 1), j - i, known);
            i = j;
            Some(run)
        })
    }
}

/// Which of the exception-line grammars an [`Exception`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExceptionForm {
    /// Fast Models `E <value> [mode] [value1] <number> <desc>`.
    CoreEvent,
    /// `ES EXC ...`, `EXC ...`, `ES Reset`.
    Exc,
    /// Other `E` lines (Cadence-style `E HRESETn 0`).
    Signal,
    /// ARMulator `E <word1> <word2> <number>`.
    Armulator,
}

/// An exception or other event line (`E`, `EXC`, `ES EXC`).
#[derive(Clone, Debug)]
pub struct Exception<'a> {
    /// Which grammar the line used.
    pub form: ExceptionForm,
    /// First value (usually the pc), when present.
    pub value: Option<u64>,
    /// Second value (ARMulator word2, Fast Models value1).
    pub value2: Option<u64>,
    /// Event number (`00000019`, `0x10005`, `[0x200]`).
    pub number: Option<u64>,
    /// Event name or description (`CoreEvent_ModeChange`, `Reset`).
    pub name: &'a [u8],
    /// New mode for mode-change events.
    pub mode: Option<&'a [u8]>,
    /// The text after the type word, for display.
    pub text: &'a [u8],
}

/// Which kind of program-flow record a [`Branch`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchKind {
    /// `FD`: direct branch.
    Direct,
    /// `FI`: indirect branch.
    Indirect,
    /// `FR`: return from exception.
    ExceptionReturn,
    /// ES-style `BR (target) state`.
    Es,
}

/// A program-flow record: a branch taken, from where to where.
#[derive(Clone, Debug)]
pub struct Branch<'a> {
    /// Direct, indirect, exception return or ES `BR`.
    pub kind: BranchKind,
    /// The `(inst_id)` tick count, when present.
    pub inst_id: Option<u64>,
    /// Address of the branch instruction (not given by `BR` lines).
    pub from: Option<u64>,
    /// Address branched to.
    pub target: u64,
    /// Instruction set after the branch.
    pub iset: Option<ISet>,
    /// The text after the type word, for display.
    pub text: &'a [u8],
}

/// A bus or memory cycle outside the processor's data accesses: Fast Models
/// `B<rw><sz><fd><lk><p><s> I<wrcbs> O<wrcbs> <master> <addr> <data>`,
/// ARMulator `M`/`B` cycle lines (`MNR4O___ 00008000 E28F8090`, `MI`, `MC`)
/// and their emulator form in Tarmac traces, whose last letter tells the side
/// (`MNR4O__I`, `BNR4___I`).
#[derive(Clone, Debug)]
pub struct BusCycle<'a> {
    /// Type word as written (`BR8DX_S`, `MNR4O___`), for display.
    pub type_word: &'a [u8],
    /// Read (true) or write (false); `None` for idle/coprocessor cycles.
    pub read: Option<bool>,
    /// Access size in bytes; `None` for idle and coprocessor cycles.
    pub size: Option<u8>,
    /// ARMulator: `S` sequential / `N` non-sequential.
    pub sequential: Option<bool>,
    /// Opcode (instruction) fetch.
    pub opcode_fetch: bool,
    /// `L`: a locked access.
    pub locked: bool,
    /// `X`: an exclusive access.
    pub exclusive: bool,
    /// `P`: a privileged access.
    pub privileged: bool,
    /// Secure (`S`) or Non-secure (`N`) access; `None` where the format has no
    /// such field (ARMulator).
    pub secure: Option<bool>,
    /// ARMulator `S` flag: a speculative cycle.
    pub speculative: bool,
    /// `MI`/`MIO` idle cycle, `MC` coprocessor cycle.
    pub idle: bool,
    /// `MC`: a coprocessor cycle.
    pub coprocessor: bool,
    /// Inner cache attributes, the five `WRCBS` letters (`_` where clear), when
    /// given.
    pub inner_attrs: Option<&'a [u8]>,
    /// Outer cache attributes, as `inner_attrs`.
    pub outer_attrs: Option<&'a [u8]>,
    /// Bus master number, when given.
    pub master_id: Option<u64>,
    /// Address of the cycle; `None` for idle and coprocessor cycles.
    pub addr: Option<u64>,
    /// Data words as written, separated by spaces.
    pub data: &'a [u8],
    /// `(wait)`: nWAIT held the cycle.
    pub wait: bool,
    /// `(abort)`: the access aborted.
    pub abort: bool,
    /// Instruction-side (`I`, true) or data-side (`D`, false) access, where
    /// the type word ends in one (`MNR4O__I`, `BNW4___D`).
    pub instruction_side: Option<bool>,
}

/// A cache line changing state: `CACHE <id> LINE <line> <op> 0x<paddr>`.
#[derive(Clone, Debug)]
pub struct CacheLine<'a> {
    /// Cache identifier, e.g. `cpu.cpu0.l1icache`.
    pub cache: &'a [u8],
    /// Line (set) number within the cache.
    pub line: u64,
    /// `ALLOC`, `INVAL`, `DIRTY`, `CLEAN`, `FILL`, `EVICT`.
    pub operation: &'a [u8],
    /// Physical address of the line.
    pub paddr: u64,
    /// The address carried `_NS`: Non-secure physical address space.
    pub non_secure: bool,
}

/// A cache maintenance operation: `CACHE MAINTENANCE <side> <op> <scope> <data>
/// ...`.
#[derive(Clone, Debug)]
pub struct CacheMaintenance<'a> {
    /// Which cache: `D` (data) or `I` (instruction).
    pub side: &'a [u8],
    /// `CLEAN`, `INVAL`, `CLEAN+INVAL`, ...
    pub operation: &'a [u8],
    /// What it applies to: `MVA_PoC`, `SetWay`, ...
    pub scope: &'a [u8],
    /// Address (by-MVA operations) or raw value (set/way).
    pub data: u64,
    /// Physical address for by-MVA operations given as `va:pa`.
    pub phys: Option<u64>,
    /// Page size and memory type, for by-MVA operations.
    pub rest: &'a [u8],
}

/// A translation table walk read (`TTW`) or update (`TTU`): `<side> <format>
/// <stage>:<level> <address> <data> : <result>`.
#[derive(Clone, Debug)]
pub struct TableWalk<'a> {
    /// `TTW` (walk, a read) or `TTU` (update, a write).
    pub update: bool,
    /// The TLB walking: `ITLB`, `DTLB`, ...
    pub side: &'a [u8],
    /// Descriptor format: `LPAE`, `VMSA`, ...
    pub format: &'a [u8],
    /// Translation stage (1 or 2).
    pub stage: u8,
    /// Table level read.
    pub level: u8,
    /// Address of the descriptor.
    pub addr: u64,
    /// The descriptor's value.
    pub data: u64,
    /// `BLOCK ATTRIDX=0 ...`, `FAULT`, `ABORTED`, ...
    pub result: &'a [u8],
}

/// A TLB or walk-cache entry filled or evicted.
#[derive(Clone, Debug)]
pub struct Tlb<'a> {
    /// `TLB` or `WALKCACHE`.
    pub walk_cache: bool,
    /// `FILL` (true) or `EVICT` (false).
    pub fill: bool,
    /// The TLB's identifier (`cpu.cpu0.ITLB`).
    pub id: &'a [u8],
    /// Page size as written (`4K`, `64K`).
    pub size: &'a [u8],
    /// Virtual base address of the entry.
    pub vaddr: u64,
    /// The virtual base carried `_NS`: a Non-secure translation regime.
    pub non_secure: bool,
    /// The rest: regime, physical address, memory type, attributes.
    pub rest: &'a [u8],
}

/// A system operation (`DC`, `IC`, `TLBI`, `AT`) written as a register update.
#[derive(Clone, Debug)]
pub struct SystemOp<'a> {
    /// `DC`, `IC`, `TLBI` or `AT`.
    pub op: &'a [u8],
    /// The rest of the line after the operation word.
    pub args: &'a [u8],
}

/// TI C64x+ EP trace record type (field 3 of a record line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpRecordType {
    /// 0: start/stop marker, no packet.
    Info,
    /// 1: a packet that left sequential flow (a branch or an interrupt).
    Discontinuity,
    /// 2: an ordinary execute packet.
    Normal,
    /// 3: a SPLOOP packet fetched from memory.
    SploopMemory,
    /// 4: cycles run wholly from the SPLOOP loop buffer (no packet fetched).
    SploopBuffer,
    /// 5: a discontinuity in a SPLOOP epilogue.
    SploopMemoryDiscontinuity,
}

/// One TI EP record, `cycle:pc:type:ep_cycles:addr:ep_size:stall`.
#[derive(Clone, Debug)]
pub struct EpRecord {
    /// Absolute CPU cycle of the record (also the record's time).
    pub cycle: u64,
    /// Address of the execute packet.
    pub pc: u64,
    /// The record type (field 3).
    pub record_type: EpRecordType,
    /// Cycles the packet took.
    pub ep_cycles: u64,
    /// Target address, for discontinuities.
    pub addr: u64,
    /// Size of the execute packet as the trace gives it; 0 for an interrupt's
    /// discontinuity.
    pub ep_size: u64,
    /// Stall cycles within the packet's cycles.
    pub stall_cycles: u64,
}

/// A coprocessor data transfer (`MCW4___R (...) TRANSFER 00000000`).
#[derive(Clone, Debug)]
pub struct CoprocTransfer<'a> {
    /// Type word as written, for display.
    pub type_word: &'a [u8],
    /// Read (true) or write.
    pub read: bool,
    /// Transfer size in bytes.
    pub size: u8,
    /// Instruction address and serial number from the bracketed prefix.
    pub tag: Option<(u64, u64)>,
    /// The value transferred.
    pub value: u64,
    /// The value as written, for display.
    pub value_text: &'a [u8],
}

/// A known line with no effect on machine state; kept as text for display and
/// search.
#[derive(Clone, Debug)]
pub struct TextEvent<'a> {
    /// The type word (`CADI`, `E`, `ABORTED`, `MNR4O__I`, ...).
    pub type_word: &'a [u8],
    /// The text the reference tools show for it.
    pub text: &'a [u8],
}

/// Why a line could not be parsed, and where.
#[derive(Clone, Debug)]
pub struct Unparsed {
    /// What the parser expected, for display.
    pub reason: &'static str,
    /// Byte column (0-based) where parsing stopped.
    pub column: usize,
}

/// Value of bytes stored in address order, read with the CPU's endianness.
pub fn bytes_value(bytes: &[u8], big_endian: bool) -> u64 {
    if big_endian {
        bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b))
    } else {
        bytes
            .iter()
            .rev()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b))
    }
}
