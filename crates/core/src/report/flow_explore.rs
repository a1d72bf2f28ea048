//! The program flow of a branch-only trace kept for the page's Reports
//! panel: the blocks in trace order, a page at a time, named from the ELF
//! image when one is loaded, and the exact `tarmac-lens flow` text.
//!
//! The panel keeps the first [`MAX_BLOCKS`] blocks (a branch-only trace of a
//! long run has millions); the text is written from a fresh pass over the
//! trace, block by block, so it is whole whatever the length.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::explore::MAX_PAGE;
use super::flow::{self, Block};
use crate::parse::ParseOptions;
use crate::source::{SourceError, TraceSource};
use crate::symbols::SymbolTable;

/// Blocks kept for paging.
pub const MAX_BLOCKS: usize = 200_000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowSummary {
    /// Blocks in the trace, and how many of them the list holds.
    pub blocks: u64,
    pub listed: u64,
    /// Instructions in the blocks whose length is known.
    pub instructions: u64,
    /// `IT`/`IS` lines: a trace with them shows its flow itself.
    pub instruction_lines: u64,
    pub unparsed: u64,
    pub has_symbols: bool,
}

/// One block as the panel shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowRow {
    /// Its place in the trace's list of blocks.
    pub index: u64,
    pub start: Option<u64>,
    pub end: u64,
    pub instructions: Option<u64>,
    /// `A32`, `T32`, `A64`, `T32EE` or empty, as `flow` prints it.
    pub iset: String,
    /// `FD`, `FI` or `FR`.
    pub kind: String,
    pub target: u64,
    /// The branch's line and time.
    pub line: u64,
    pub time: u64,
    pub interrupted: bool,
    /// The function holding `start`, and `target`'s (empty without symbols).
    pub function: String,
    pub target_function: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowPage {
    /// Blocks listed.
    pub total: u64,
    pub offset: u64,
    pub rows: Vec<FlowRow>,
}

pub struct FlowReports {
    flow: flow::Flow,
    instructions: u64,
    image: Option<SymbolTable>,
    parse: ParseOptions,
}

impl FlowReports {
    pub fn compute<S: TraceSource>(
        source: S,
        parse: ParseOptions,
        image: Option<SymbolTable>,
    ) -> Result<Self, SourceError> {
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
    pub fn write_text<S: TraceSource>(&self, source: S, out: &mut dyn Write) -> Result<(), String> {
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
        })
        .map_err(|e| e.0)?;
        match failed {
            Some(e) => Err(e.to_string()),
            None => Ok(()),
        }
    }
}
