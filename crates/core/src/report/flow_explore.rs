//! The program flow of a branch-only trace kept for the page's Reports
//! panel: the blocks in trace order, a page at a time, named from the ELF
//! image when one is loaded, and the exact `tarmac-lens flow` text.
//!
//! The panel keeps the first [`MAX_BLOCKS`] blocks (a branch-only trace of a
//! long run has millions); the text is written from a fresh pass over the
//! trace, block by block, so it is whole whatever the length.

use crate::{Error, Result};
use std::io::Write;

use serde::{Deserialize, Serialize};

use super::explore::MAX_PAGE;
use super::flow::{self, Block};
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;

/// Blocks kept for paging.
pub const MAX_BLOCKS: usize = 200_000;

/// The program-flow report's heading numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowSummary {
    /// Blocks in the trace, and how many of them the list holds.
    pub blocks: u64,
    /// How many of them the list holds (at most [`MAX_BLOCKS`]).
    pub listed: u64,
    /// Instructions in the blocks whose length is known.
    pub instructions: u64,
    /// `IT`/`IS` lines: a trace with them shows its flow itself.
    pub instruction_lines: u64,
    /// Lines the parser did not understand.
    pub unparsed: u64,
    /// Whether an ELF image names the functions.
    pub has_symbols: bool,
}

/// One block as the panel shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowRow {
    /// Its place in the trace's list of blocks.
    pub index: u64,
    /// Where the block started; `None` for the block before the first branch.
    pub start: Option<u64>,
    /// Address of the branch that left it.
    pub end: u64,
    /// Instructions from `start` to `end`, when both branches carry tick
    /// counts.
    pub instructions: Option<u64>,
    /// `A32`, `T32`, `A64`, `T32EE` or empty, as `flow` prints it.
    pub iset: String,
    /// `FD`, `FI` or `FR`.
    pub kind: String,
    /// Where the branch went.
    pub target: u64,
    /// The branch's line and time.
    pub line: u64,
    /// The branch's timestamp.
    pub time: u64,
    /// An exception or other event happened inside the block: it may not have
    /// run straight through.
    pub interrupted: bool,
    /// The function holding `start`, and `target`'s (empty without symbols).
    pub function: String,
    /// The function holding `target` (empty without symbols).
    pub target_function: String,
}

/// A page of the block list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowPage {
    /// Blocks listed.
    pub total: u64,
    /// Position of the page's first block in the list.
    pub offset: u64,
    /// The page's blocks, in trace order.
    pub rows: Vec<FlowRow>,
}

/// The program-flow report of one trace (branch records only), kept for paging
/// and its text.
pub struct FlowReports {
    flow: flow::Flow,
    instructions: u64,
    image: Option<SymbolTable>,
    parse: ParseOptions,
}

impl FlowReports {
    /// One pass over `source` (no engine: branch records carry no state);
    /// `image` names the functions.
    pub fn compute<S: TraceSource>(
        source: S,
        parse: ParseOptions,
        image: Option<SymbolTable>,
    ) -> Result<Self> {
        let mut blocks = Vec::new();
        let mut instructions = 0u64;
        let mut f = flow::flow_each(source, parse, |b| {
            instructions += b.instructions.unwrap_or(0);
            if blocks.len() < MAX_BLOCKS {
                blocks.push(b.clone());
            }
        })?;
        f.blocks = blocks;
        Ok(FlowReports {
            flow: f,
            instructions,
            image,
            parse,
        })
    }

    /// The numbers for the panel's heading.
    pub fn summary(&self) -> FlowSummary {
        FlowSummary {
            blocks: self.flow.block_count,
            listed: self.flow.blocks.len() as u64,
            instructions: self.instructions,
            instruction_lines: self.flow.instruction_lines,
            unparsed: self.flow.unparsed.count,
            has_symbols: self.image.is_some(),
        }
    }

    fn row(&self, index: usize, b: &Block) -> FlowRow {
        let name = |addr| flow::symbol_name(self.image.as_ref(), addr);
        FlowRow {
            index: index as u64,
            start: b.start,
            end: b.end,
            instructions: b.instructions,
            iset: flow::iset_name(b.iset).to_string(),
            kind: flow::kind_name(b.kind).to_string(),
            target: b.target,
            line: b.line,
            time: b.time,
            interrupted: b.interrupted,
            function: b.start.map(name).unwrap_or_default(),
            target_function: name(b.target),
        }
    }

    /// Blocks from `offset`, a page.
    pub fn blocks(&self, offset: u64, limit: usize) -> FlowPage {
        let list = &self.flow.blocks;
        let start = (offset as usize).min(list.len());
        FlowPage {
            total: list.len() as u64,
            offset: start as u64,
            rows: list[start..]
                .iter()
                .take(limit.min(MAX_PAGE))
                .enumerate()
                .map(|(i, b)| self.row(start + i, b))
                .collect(),
        }
    }

    /// `tarmac-lens flow`'s text, written as a fresh pass over the trace
    /// (`source`) goes, a block at a time.
    pub fn write_text<S: TraceSource>(&self, source: S, out: &mut dyn Write) -> Result<()> {
        let mut line = String::new();
        let mut failed: Option<std::io::Error> = None;
        flow::flow_each(source, self.parse, |b| {
            if failed.is_some() {
                return;
            }
            line.clear();
            flow::render_block(b, self.image.as_ref(), &mut line);
            if let Err(e) = out.write_all(line.as_bytes()) {
                failed = Some(e);
            }
        })?;
        match failed {
            Some(e) => Err(Error::Write(e)),
            None => Ok(()),
        }
    }
}
