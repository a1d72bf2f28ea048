//! Program flow from a branch-only trace (Fast Models' program-flow source:
//! `FD`/`FI`/`FR` lines, no `IT` lines): between one branch's target and the
//! next branch's address the program ran straight through, so the trace
//! becomes a list of address ranges, each with the number of instructions
//! it took (from the branches' tick counts) and the branch that left it.

use crate::Result;
use std::fmt::Write;

use crate::lines::LineReader;
use crate::parse::{BranchKind, ISet, ParseOptions, Parser, RecordKind};
use crate::report::run::UnparsedLines;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;

/// Straight-line execution from `start` to `end` (the leaving branch's
/// address), then the branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// `None` for the block before the first branch: where it started is
    /// not in the trace.
    pub start: Option<u64>,
    /// Address of the branch leaving it.
    pub end: u64,
    /// Instructions from `start` to `end` inclusive, when both branches
    /// carry tick counts.
    pub instructions: Option<u64>,
    pub(crate) iset: Option<ISet>,
    /// The branch leaving the block.
    pub kind: BranchKind,
    /// Where the branch went.
    pub target: u64,
    pub(crate) line: u64,
    pub(crate) time: u64,
    /// An exception or other event happened inside the block: it may not
    /// have run straight through.
    pub interrupted: bool,
}

/// The program flow of a trace with branch records (`FD`/`FI`/`FR`, ES `BR`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    /// The blocks, in trace order.
    pub blocks: Vec<Block>,
    /// Blocks seen (the list keeps the first `max`).
    pub(crate) block_count: u64,
    /// `IT`/`IS` lines: a trace that has them shows its flow itself.
    pub instruction_lines: u64,
    /// Lines the parser did not understand.
    pub unparsed: UnparsedLines,
}

/// Reads the branches of a trace into blocks. At most `max` blocks are kept.
pub fn flow<S: TraceSource>(source: S, parse: ParseOptions, max: usize) -> Result<Flow> {
    let mut blocks = Vec::new();
    let mut out = flow_each(source, parse, |b| {
        if blocks.len() < max {
            blocks.push(b.clone());
        }
    })?;
    out.blocks = blocks;
    Ok(out)
}

/// Reads the branches of a trace, handing each block to `on_block` as it
/// ends (the returned `Flow` keeps none), so a flow of any length can be
/// written out without holding it.
pub(crate) fn flow_each<S: TraceSource>(
    mut source: S,
    parse: ParseOptions,
    mut on_block: impl FnMut(&Block),
) -> Result<Flow> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse, &sample);
    let mut reader = LineReader::new(source);
    let mut out = Flow::default();
    // Where the current block started, its first tick and instruction set.
    let mut start: Option<(u64, Option<u64>, Option<ISet>)> = None;
    let mut interrupted = false;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        match &rec.kind {
            RecordKind::Branch(b) => {
                // ES-style `BR` lines have no source address: they come
                // with instruction lines, which show the flow already.
                let Some(from) = b.from else { continue };
                let (block_start, instructions, iset) = match start {
                    Some((s, tick, iset)) => (
                        Some(s),
                        tick.zip(b.inst_id)
                            .map(|(t0, t1)| t1.saturating_sub(t0) + 1),
                        iset,
                    ),
                    None => (None, None, None),
                };
                out.block_count += 1;
                on_block(&Block {
                    start: block_start,
                    end: from,
                    instructions,
                    iset,
                    kind: b.kind,
                    target: b.target,
                    line: line.number,
                    time: rec.time,
                    interrupted,
                });
                start = Some((b.target, b.inst_id.map(|t| t + 1), b.iset.or(iset)));
                interrupted = false;
            }
            RecordKind::Instruction(_) => out.instruction_lines += 1,
            RecordKind::Exception(_) => interrupted = true,
            RecordKind::Unparsed(u) => {
                out.unparsed.note(line.number, u.reason);
            }
            _ => {}
        }
    }
    Ok(out)
}

pub(crate) fn kind_name(k: BranchKind) -> &'static str {
    match k {
        BranchKind::Direct => "FD",
        BranchKind::Indirect => "FI",
        BranchKind::ExceptionReturn => "FR",
        BranchKind::Es => "BR",
    }
}

pub(crate) fn iset_name(i: Option<ISet>) -> &'static str {
    match i {
        Some(ISet::Arm) => "A32",
        Some(ISet::Thumb) => "T32",
        Some(ISet::A64) => "A64",
        Some(ISet::ThumbEE) => "T32EE",
        Some(ISet::C64) => "C64",
        None => "",
    }
}

/// The flow as `tarmac-lens flow` prints it: one line per block, with
/// symbols when an ELF image is given.
pub fn render(f: &Flow, symbols: Option<&SymbolTable>) -> String {
    let mut out = String::new();
    for b in &f.blocks {
        render_block(b, symbols, &mut out);
    }
    out
}

/// The name `tarmac-lens flow` puts after an address (empty without one).
pub(crate) fn symbol_name(symbols: Option<&SymbolTable>, addr: u64) -> String {
    symbols
        .map(|s| s.symbolic_address(addr, false))
        .unwrap_or_default()
}

/// One block's two lines of [`render`].
pub(crate) fn render_block(b: &Block, symbols: Option<&SymbolTable>, out: &mut String) {
    let name = |addr: u64| -> String {
        match symbol_name(symbols, addr) {
            n if !n.is_empty() => format!(" <{n}>"),
            _ => String::new(),
        }
    };
    let start = match b.start {
        Some(s) => format!("0x{s:08x}"),
        None => "?".repeat(10),
    };
    let count = b
        .instructions
        .map_or_else(|| "?".to_string(), |n| n.to_string());
    let head = format!(
        "{start}..0x{:08x} {:>6} instr {:<5}{}{}",
        b.end,
        count,
        iset_name(b.iset),
        b.start.map(&name).unwrap_or_default(),
        if b.interrupted {
            " (an exception came in between)"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "{}", head.trim_end());
    let _ = writeln!(
        out,
        "    {} 0x{:08x} -> 0x{:08x}{}  (line {}, time {})",
        kind_name(b.kind),
        b.end,
        b.target,
        name(b.target),
        b.line,
        b.time
    );
}
