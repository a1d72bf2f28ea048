//! Trace parser: bytes of one line in, one typed [`Record`] out.
//!
//! The public surface is [`Parser`], [`ParseOptions`], [`Dialect`] and the
//! record types; each dialect lives in a private module. The parser keeps the
//! little state that spans lines (the previous timestamp, the LD/ST
//! continuation column) and scratch buffers that records borrow, so parsing
//! allocates nothing per line.

mod armulator;
pub mod capability;
mod cpu;
mod ep;
mod extra;
pub(crate) mod lex;
pub mod record;
mod regs;
mod tarmac;

pub use cpu::CpuName;
pub(crate) use cpu::{is_cpu_field, CoreSelect};
pub use record::*;
pub use regs::{RegClass, RegId};
pub(crate) use tarmac::fetch_word;

/// Trace dialects that need different grammars. Everything Fast Models,
/// ES/LD/ST, gem5 and RTL simulators write is one general Tarmac grammar (as in
/// the reference tools); ARMulator's older tracer and TI's EP trace differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Tarmac as Fast Models, ES/LD/ST, gem5 and RTL simulators write it.
    Tarmac,
    /// ARMulator's older tracer.
    Armulator,
    /// TI C64x+ EP (execute packet) trace text.
    TiEp,
}

impl Dialect {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dialect::Tarmac => "tarmac",
            Dialect::Armulator => "armulator",
            Dialect::TiEp => "ti-ep",
        }
    }

    /// The dialect named as `--dialect` takes it (`tarmac`, `armulator`,
    /// `ti-ep` or `ep`).
    pub fn from_name(s: &str) -> Option<Dialect> {
        match s {
            "tarmac" => Some(Dialect::Tarmac),
            "armulator" => Some(Dialect::Armulator),
            "ti-ep" | "ep" => Some(Dialect::TiEp),
            _ => None,
        }
    }
}

/// How to read a trace's lines: the reference tools' command-line switches.
/// The default (little-endian, dialect and instruction form detected from
/// the first bytes, no core chosen: see `cpu`) suits most traces.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOptions {
    /// Instruction lines without an instruction-set state are Thumb
    /// (`--implicit-thumb`).
    pub implicit_thumb: bool,
    /// The traced CPU is big-endian (`--bi`).
    pub big_endian: bool,
    /// Force a dialect instead of detecting it.
    pub dialect: Option<Dialect>,
    /// In a multi-core trace, the core whose lines drive registers and calls
    /// (`--cpu`); the other cores' memory writes still update memory.
    pub cpu: Option<CpuName>,
    /// Where the file's instruction lines write the address, found from its
    /// first lines ([`Parser::for_sample`]); `None`: each line's fields say.
    pub instruction_form: Option<InstructionForm>,
}

/// Where a Tarmac instruction line with a bracketed value writes the
/// instruction's address. A whole file is in one form: the form its first
/// lines show decides the lines whose fields alone cannot (no state field,
/// an encoding of unusual width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstructionForm {
    /// `IT (id) ADDR ENC …`: the bracketed value is a count, the address follows.
    AddressAfter,
    /// `IT (ADDR) ENC …` or `IT (ADDR:INDEX) ENC …`: no address after the brackets.
    AddressInBrackets,
}

/// Guesses the dialect from the first bytes of a trace.
pub fn detect_dialect(sample: &[u8]) -> Dialect {
    let mut armulator = 0;
    let mut ep = 0;
    let mut tarmac = 0;
    for line in sample.split(|&b| b == b'\n').take(200) {
        let line = lex::trim(line);
        if line.is_empty() {
            continue;
        }
        if ep::looks_like_ep(line) {
            ep += 1;
        } else if armulator::looks_like_armulator(line) {
            armulator += 1;
        } else {
            tarmac += 1;
        }
    }
    if ep > 0 && ep >= tarmac && ep >= armulator {
        Dialect::TiEp
    } else if armulator > 0 && armulator >= tarmac {
        Dialect::Armulator
    } else {
        Dialect::Tarmac
    }
}

/// Whether `word` is a Tarmac timestamp's unit (`clk`, `ns`, `ps`, `cs`,
/// `cyc`, `tic`, `us`).
pub(crate) fn is_time_unit(word: &[u8]) -> bool {
    tarmac::unit_of(word).is_some()
}

/// LD/ST continuation: a line whose first token starts in the column where the
/// previous LD/ST line's address started repeats that line's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Continuation {
    store: bool,
    column: usize,
}

/// Scratch space records borrow from. Sized for the widest register (SVE z,
/// 256 bytes) and the widest memory record (a 16-byte diagram or `MR16`).
struct Scratch {
    bytes: [u8; 256],
    known: [u8; 256],
    accessed: [u8; 256],
    /// Hex digits of a register value being gathered (two per byte).
    chars: [u8; 512],
    reglist: Vec<RegListEntry>,
}

/// What a [`Parser`] carries from one line to the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParserState {
    prev_time: u64,
    cont: Option<Continuation>,
}

impl ParserState {
    pub(crate) fn encode(&self, e: &mut crate::codec::Enc) {
        e.u(self.prev_time);
        e.b(self.cont.is_some());
        if let Some(c) = self.cont {
            e.b(c.store);
            e.u(c.column as u64);
        }
    }
    pub(crate) fn decode(d: &mut crate::codec::Dec<'_>) -> Option<ParserState> {
        let prev_time = d.u()?;
        let cont = if d.b()? {
            Some(Continuation {
                store: d.b()?,
                column: usize::try_from(d.u()?).ok()?,
            })
        } else {
            None
        };
        Some(ParserState { prev_time, cont })
    }
}

/// Stateful line parser. Feed it every line of a trace in order.
pub struct Parser {
    opts: ParseOptions,
    dialect: Dialect,
    prev_time: u64,
    cont: Option<Continuation>,
    scratch: Scratch,
    memo: tarmac::Memo,
    /// The form the last instruction line with a bracketed value was read
    /// in (general grammar only), for [`tarmac::detect_form`].
    line_form: Option<InstructionForm>,
}

impl Parser {
    /// A parser for `dialect` (use [`detect_dialect`] on the first bytes of
    /// the trace when `opts.dialect` is `None`).
    pub fn new(opts: ParseOptions, dialect: Dialect) -> Parser {
        Parser {
            opts,
            dialect: opts.dialect.unwrap_or(dialect),
            prev_time: 0,
            cont: None,
            scratch: Scratch {
                bytes: [0; 256],
                known: [0; 256],
                accessed: [0; 256],
                chars: [0; 512],
                reglist: Vec::with_capacity(16),
            },
            memo: tarmac::Memo::default(),
            line_form: None,
        }
    }

    /// A parser whose dialect is forced by `opts` or detected from `sample`,
    /// as is the instruction lines' form ([`InstructionForm`]).
    pub fn for_sample(mut opts: ParseOptions, sample: &[u8]) -> Parser {
        let dialect = opts.dialect.unwrap_or_else(|| detect_dialect(sample));
        if dialect == Dialect::Tarmac && opts.instruction_form.is_none() {
            opts.instruction_form = tarmac::detect_form(opts, sample);
        }
        Parser::new(opts, dialect)
    }

    /// The dialect it parses.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The options it was made with.
    pub fn options(&self) -> &ParseOptions {
        &self.opts
    }

    /// Forgets inter-line state, as at the start of a file. Used when
    /// re-parsing a window that begins at a known instruction boundary.
    pub(crate) fn reset(&mut self, time: u64) {
        self.prev_time = time;
        self.cont = None;
    }

    /// Continues from a state taken with [`Parser::state`].
    pub(crate) fn set_state(&mut self, state: ParserState) {
        self.prev_time = state.prev_time;
        self.cont = state.cont;
    }

    /// Whether an `LD`/`ST` line left a continuation pending: the next
    /// line's first column decides how it reads.
    pub(crate) fn in_continuation(&self) -> bool {
        self.cont.is_some()
    }

    /// Timestamp a line without one would inherit.
    pub(crate) fn current_time(&self) -> u64 {
        self.prev_time
    }

    /// The inter-line state, to check that two parsers will read the next
    /// lines alike (parallel indexing joins ranges where they agree).
    pub(crate) fn state(&self) -> ParserState {
        ParserState {
            prev_time: self.prev_time,
            cont: self.cont,
        }
    }

    /// Parses one line. The line excludes its `\n`; a trailing `\r` (and any
    /// run of `\r`/`\n`) is ignored.
    pub fn parse_line<'a>(&'a mut self, line: &'a [u8]) -> Record<'a> {
        let mut end = line.len();
        while end > 0 && (line[end - 1] == b'\r' || line[end - 1] == b'\n') {
            end -= 1;
        }
        let line = &line[..end];
        match self.dialect {
            Dialect::Tarmac => tarmac::parse(self, line),
            Dialect::Armulator => armulator::parse(self, line),
            Dialect::TiEp => ep::parse(self, line),
        }
    }
}
