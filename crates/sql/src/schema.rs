//! The trace tables' names, columns, types and meanings: the one list the
//! engine's schemas, `docs/tables.md` (checked against it by
//! `tests/sql.rs`) and the Parquet files' metadata come from.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

/// The tables' version, written into every Parquet file's metadata
/// ([`VERSION_KEY`]): it changes when a column is added, removed, renamed
/// or changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// The Parquet key-value metadata key holding [`SCHEMA_VERSION`].
pub const VERSION_KEY: &str = "tarmac_lens.schema_version";

/// The column naming the trace a row came from, when a query spans many
/// (`sql --farm`); Parquet exports carry it as the `run=NAME` directory.
pub const RUN_COLUMN: &str = "run";

/// The field metadata key marking a column whose name reads as a trace
/// position (`time`, `own_time`) but holds a duration: the page's Query
/// pane makes `line` and `time` cells links to that position, but not these.
pub const DURATION_KEY: &str = "tarmac_lens.duration";

/// A trace table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Table {
    /// One row per instruction line.
    Instructions,
    /// One row per register written.
    Registers,
    /// One row per memory access.
    Memory,
    /// One row per call the index found.
    Calls,
    /// One row per function symbol of the ELF image.
    Functions,
    /// One row per source line with code.
    SourceLines,
    /// One row per exception, interrupt, mode change or aborted access.
    Events,
    /// One row per line the parser did not understand.
    Unparsed,
}

impl Table {
    /// Every table, in the documentation's order.
    pub const ALL: [Table; 8] = [
        Table::Instructions,
        Table::Registers,
        Table::Memory,
        Table::Calls,
        Table::Functions,
        Table::SourceLines,
        Table::Events,
        Table::Unparsed,
    ];

    /// Its SQL name.
    pub fn name(self) -> &'static str {
        match self {
            Table::Instructions => "instructions",
            Table::Registers => "registers",
            Table::Memory => "memory",
            Table::Calls => "calls",
            Table::Functions => "functions",
            Table::SourceLines => "source_lines",
            Table::Events => "events",
            Table::Unparsed => "unparsed",
        }
    }

    /// The table named `name`.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether its rows come from reading the trace's lines (by checkpoint
    /// interval), rather than from the index and the ELF alone.
    pub fn reads_lines(self) -> bool {
        matches!(
            self,
            Table::Instructions
                | Table::Registers
                | Table::Memory
                | Table::Events
                | Table::Unparsed
        )
    }

    /// Whether it can be filled only with an ELF image.
    pub fn needs_image(self) -> bool {
        matches!(self, Table::Functions | Table::SourceLines)
    }

    /// Its columns, in order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Instructions => INSTRUCTIONS,
            Table::Registers => REGISTERS,
            Table::Memory => MEMORY,
            Table::Calls => CALLS,
            Table::Functions => FUNCTIONS,
            Table::SourceLines => SOURCE_LINES,
            Table::Events => EVENTS,
            Table::Unparsed => UNPARSED,
        }
    }

    /// Its Arrow schema (with a leading `run` column when `with_run`).
    pub fn schema(self, with_run: bool) -> SchemaRef {
        let run = with_run.then(|| Field::new(RUN_COLUMN, DataType::Utf8, false));
        Arc::new(Schema::new(
            run.into_iter()
                .chain(self.columns().iter().map(Column::field))
                .collect::<Vec<_>>(),
        ))
    }

    /// What one row is, for the documentation.
    pub fn about(self) -> &'static str {
        match self {
            Table::Instructions => "one row per instruction line (executed, condition failed or fetch failed)",
            Table::Registers => "one row per register written (an ARMulator line writing several registers gives a row each)",
            Table::Memory => "one row per memory access line (a read, a write or an atomic update)",
            Table::Calls => "one row per call the index found (a call instruction, the callee's entry, the return)",
            Table::Functions => "one row per function symbol of the ELF image",
            Table::SourceLines => "one row per source line with code in the ELF image's DWARF",
            Table::Events => "one row per exception, interrupt, mode change or aborted access",
            Table::Unparsed => "one row per line the parser did not understand",
        }
    }
}

/// A column's Arrow type, as the documentation spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// `UInt64`.
    U64,
    /// `UInt32`.
    U32,
    /// `UInt8`.
    U8,
    /// `Boolean`.
    Bool,
    /// `Utf8`.
    Text,
}

impl Type {
    /// Its Arrow data type.
    pub fn data_type(self) -> DataType {
        match self {
            Type::U64 => DataType::UInt64,
            Type::U32 => DataType::UInt32,
            Type::U8 => DataType::UInt8,
            Type::Bool => DataType::Boolean,
            Type::Text => DataType::Utf8,
        }
    }

    /// Its name in `docs/tables.md` (Arrow's).
    pub fn name(self) -> &'static str {
        match self {
            Type::U64 => "UInt64",
            Type::U32 => "UInt32",
            Type::U8 => "UInt8",
            Type::Bool => "Boolean",
            Type::Text => "Utf8",
        }
    }
}

/// A column of a trace table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its SQL name.
    pub name: &'static str,
    /// Its type.
    pub ty: Type,
    /// Whether it may be null.
    pub nullable: bool,
    /// What it holds.
    pub doc: &'static str,
    /// A duration, not a position in the trace ([`DURATION_KEY`]).
    pub duration: bool,
}

impl Column {
    fn field(&self) -> Field {
        let field = Field::new(self.name, self.ty.data_type(), self.nullable);
        if self.duration {
            let marks = [(DURATION_KEY.to_string(), "true".to_string())];
            field.with_metadata(marks.into_iter().collect())
        } else {
            field
        }
    }

    /// This column, marked as a duration.
    const fn duration(self) -> Column {
        Column {
            duration: true,
            ..self
        }
    }
}

const fn col(name: &'static str, ty: Type, doc: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: false,
        doc,
        duration: false,
    }
}

const fn opt(name: &'static str, ty: Type, doc: &'static str) -> Column {
    Column {
        name,
        ty,
        nullable: true,
        doc,
        duration: false,
    }
}

const LINE: Column = col("line", Type::U64, "The line's number in the trace, from 1.");
const TIME: Column = col(
    "time",
    Type::U64,
    "The trace's timestamp of the line's node, as written (`clk`, `ns`, `tic`, ...), held non-decreasing as the index holds it.",
);
const CPU: Column = opt(
    "cpu",
    Type::Text,
    "The `<cpu>` field (`cpu0`) in a trace that has one, else null.",
);

const INSTRUCTIONS: &[Column] = &[
    LINE,
    TIME,
    CPU,
    col("pc", Type::U64, "The instruction's virtual address (never with the Thumb bit)."),
    opt("physical", Type::U64, "Its physical address, where the trace gives `va:pa`."),
    col("opcode", Type::U64, "The encoding as written (for 32-bit Thumb, the first halfword in the high half)."),
    col("width", Type::U8, "The encoding's width in bits: 16 or 32."),
    col("isa", Type::Text, "The instruction set: `A64`, `A32`, `T32`, `ThumbEE` or `C64` (Morello's capability state)."),
    opt("mode", Type::Text, "The mode as written (`EL3h_s`, `svc_s`), where the line has one."),
    opt(
        "el",
        Type::U8,
        "The exception level the mode is at: AArch64 `EL0`-`EL3`; AArch32 `usr` 0, `hyp` 2, `mon` 3, other modes 1. Null without a mode.",
    ),
    opt("security", Type::Text, "`secure` (mode ending `_s`) or `non-secure` (`_ns`); null where the mode does not say."),
    col("cond_failed", Type::Bool, "True for an instruction that failed its condition (`IS`, `CCFAIL`)."),
    col("mnemonic", Type::Text, "The disassembly's first word, upper-case (`BL`, `LDR`, `B.NE`); empty when the trace gives no disassembly."),
    col("operands", Type::Text, "The rest of the disassembly, as written."),
    opt("function", Type::Text, "The ELF symbol holding `pc` (`--image`), else null."),
    opt("source_file", Type::Text, "The source file `pc` was compiled from (the ELF's DWARF), else null."),
    opt("source_line", Type::U32, "The source line `pc` was compiled from (the ELF's DWARF), else null."),
    col("depth", Type::U32, "Calls the instruction is inside (0 outside every call the index found)."),
];

const VALUE: Column = opt(
    "value",
    Type::U64,
    "The value, when it is at most 64 bits wide and every byte of it is given; else null.",
);

const REGISTERS: &[Column] = &[
    LINE,
    TIME,
    CPU,
    col("register", Type::Text, "The register as written, lower-case (`x0`, `sp_el3`, `r13_svc`, `cpsr`, `q1`)."),
    VALUE,
    col("value_hex", Type::Text, "The whole value in hex, most significant byte first; `--` for bytes the line leaves unchanged."),
    col("width", Type::U32, "The register's width in bytes (as much as the line writes)."),
];

const MEMORY: &[Column] = &[
    LINE,
    TIME,
    CPU,
    col("address", Type::U64, "The virtual address of the first byte accessed."),
    opt("physical", Type::U64, "Its physical address, where the trace gives `va:pa`."),
    col("size", Type::U32, "Bytes accessed."),
    col("access", Type::Text, "`read`, `write` or `update` (an atomic read-modify-write)."),
    VALUE,
    col("value_hex", Type::Text, "The bytes accessed as a value in hex, most significant first (the trace's endianness applied); `##` for bytes not shown."),
];

const CALLS: &[Column] = &[
    col("id", Type::U64, "The call's number, in the order of entry, from 0."),
    col("call_pc", Type::U64, "The address of the call instruction."),
    opt("caller", Type::Text, "The ELF symbol holding `call_pc`, else null."),
    col("target", Type::U64, "The address called: the callee's first instruction."),
    opt("function", Type::Text, "The callee's name as the `profile` report prints it (`name`, or `name + 0xADDR` when entered past its start); null without an ELF image."),
    opt("call_line", Type::U64, "The first line of the node holding the call instruction (read from the trace)."),
    opt("call_time", Type::U64, "That node's time (read from the trace)."),
    col("entry_line", Type::U64, "The first line of the callee's first node."),
    opt("entry_time", Type::U64, "That node's time (read from the trace)."),
    opt("return_line", Type::U64, "The first line of the caller's node execution returned to; null for a call that never returned."),
    opt("return_time", Type::U64, "That node's time (read from the trace); null for a call that never returned."),
    col("depth", Type::U32, "Calls this one is inside (0 at the outermost level)."),
    opt("parent", Type::U64, "The `id` of the innermost call it was made inside; null at the outermost level."),
    col("instructions", Type::U64, "Instructions from the callee's entry to the return, callees included (to the trace's end for a call that never returned)."),
    col("own_instructions", Type::U64, "`instructions` less its direct callees' `instructions`."),
    opt("time", Type::U64, "`return_time - entry_time`, callees included (read from the trace); null for a call that never returned.").duration(),
    opt("own_time", Type::U64, "`time` less its direct callees' `time` (read from the trace); null for a call that never returned.").duration(),
];

const FUNCTIONS: &[Column] = &[
    col(
        "name",
        Type::Text,
        "The symbol's name (`name#N` for the N-th duplicate, as the reference tools print it).",
    ),
    col(
        "address",
        Type::U64,
        "Its address in the trace (the ELF's plus `--load-offset`).",
    ),
    col(
        "size",
        Type::U64,
        "Its size in bytes (0 where the ELF gives none).",
    ),
    col(
        "calls",
        Type::U64,
        "Calls the index found into it (entered at any of its addresses).",
    ),
    col(
        "instructions",
        Type::U64,
        "Instructions executed at its addresses (condition failed ones included).",
    ),
    col(
        "cond_failed",
        Type::U64,
        "Of those, the ones that failed their condition.",
    ),
    opt(
        "source_file",
        Type::Text,
        "The source file of its first instruction (DWARF), else null.",
    ),
    opt(
        "source_line",
        Type::U32,
        "The source line of its first instruction (DWARF), else null.",
    ),
];

const SOURCE_LINES: &[Column] = &[
    col("file", Type::Text, "The source file as the DWARF line table names it."),
    col("line", Type::U32, "The line in that file."),
    col("executions", Type::U64, "Instructions of this line executed (condition failed ones included); 0 for code never reached."),
    col("cond_failed", Type::U64, "Of those, the ones that failed their condition."),
    col("addresses", Type::U32, "Distinct instruction addresses of this line that ran."),
];

const EVENTS: &[Column] = &[
    LINE,
    TIME,
    CPU,
    col("kind", Type::Text, "`exception`, `interrupt`, `mode_change` (the instructions' mode changed, or a mode-change event line) or `aborted` (an access or bus cycle that aborted)."),
    col("text", Type::Text, "The line as written, trimmed."),
];

const UNPARSED: &[Column] = &[
    LINE,
    col(
        "text",
        Type::Text,
        "The line as written (its first MiB), trailing white space trimmed.",
    ),
    col("reason", Type::Text, "What the parser expected there."),
    col(
        "column",
        Type::U32,
        "The byte column (from 0) where parsing stopped.",
    ),
];
