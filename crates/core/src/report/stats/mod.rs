//! What the machine did, in numbers: the instruction mix ([`mix`]), time
//! by exception level and security state ([`levels`]), exceptions and
//! interrupts ([`exceptions`]), function statistics ([`functions`]),
//! branches and loops ([`loops`]), a function's executed control-flow
//! graph ([`mod@cfg`]) and the translation and cache events ([`memsys`]).
//!
//! All of them come from one pass ([`Statistics::compute`]): the engine
//! runs over the trace, as for `profile`, and every record is shown to a
//! collector that keeps per executed instruction (address, encoding,
//! mode) its counts and time, the executed edges, the exceptions and the
//! loops: memory grows with the program's size, not the trace's (the
//! exceptions listed one by one are capped, [`exceptions::MAX_LISTED`]).
//! Each report is then built from that, and is a serialisable value with
//! a text renderer: the CLI prints the text or the value as JSON; a page
//! pane can show the value, its download the CLI's text.

pub mod cfg;
pub mod context;
pub mod exceptions;
pub mod functions;
pub mod levels;
pub mod loops;
pub mod memsys;
pub mod mix;
mod pass;
mod site;
pub mod syndrome;

use serde::{Deserialize, Serialize};

use crate::engine::EngineOptions;
use crate::parse::ParseOptions;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;
use crate::Result;

/// Count, total, min and max of a quantity over events (calls, visits,
/// exceptions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// How many.
    pub count: u64,
    /// Their sum.
    pub total: u64,
    /// The least (0 when none).
    pub min: u64,
    /// The most.
    pub max: u64,
}

impl Span {
    /// Adds one.
    pub fn add(&mut self, v: u64) {
        self.min = if self.count == 0 { v } else { self.min.min(v) };
        self.max = self.max.max(v);
        self.count += 1;
        self.total = self.total.saturating_add(v);
    }

    /// The mean, if any.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.total as f64 / self.count as f64)
    }

    /// `min/mean/max`, the mean to one decimal; `-` for none.
    pub fn text(&self) -> String {
        match self.mean() {
            Some(m) => format!("{}/{:.1}/{}", self.min, m, self.max),
            None => "-".to_string(),
        }
    }
}

/// The one pass's findings, from which every report here is built.
pub struct Statistics {
    pub(crate) pass: pass::Pass,
    image: Option<SymbolTable>,
    /// Function entries the calls found, ascending (names without an
    /// image).
    entries: Vec<u64>,
    /// The calls, until the first report that needs them as a tree takes
    /// them (held, calls and tree would double the memory per call).
    calls: std::sync::Mutex<crate::report::CallLog>,
    tree: std::sync::OnceLock<Option<crate::report::calltree::CallTree>>,
}

impl Statistics {
    /// Runs the pass over `source`; `image` names functions.
    pub fn compute<S: TraceSource>(
        source: S,
        parse: ParseOptions,
        engine: EngineOptions,
        image: Option<SymbolTable>,
    ) -> Result<Statistics> {
        let mut pass = pass::run(source, parse, engine)?;
        let mut entries: Vec<u64> = pass.calls.calls.iter().map(|c| c.entry.pc).collect();
        if let Some(first) = pass.calls.first_instruction_node {
            entries.push(first.pc);
        }
        entries.sort_unstable();
        entries.dedup();
        let calls = std::mem::take(&mut pass.calls.calls).into();
        Ok(Statistics {
            pass,
            image,
            entries,
            calls,
            tree: std::sync::OnceLock::new(),
        })
    }

    /// The activation tree, built the first time it is asked for (the
    /// reports that need no tree do not wait for it).
    pub(crate) fn tree(&self) -> Option<&crate::report::calltree::CallTree> {
        self.tree
            .get_or_init(|| {
                let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
                crate::report::calltree::build_from_log(
                    &self.pass.calls,
                    std::mem::take(&mut calls),
                )
            })
            .as_ref()
    }

    /// Lines the pass could not parse.
    pub fn unparsed(&self) -> &crate::report::run::UnparsedLines {
        &self.pass.calls.unparsed
    }

    /// Instructions in the trace (executed or not).
    pub fn instructions(&self) -> u64 {
        self.pass.c.index
    }

    /// The function holding `pc`: its symbol's name with an image; without
    /// one, the nearest function entry the calls found at or below it, in
    /// hex; empty if none.
    pub fn function_of(&self, pc: u64) -> String {
        match &self.image {
            Some(image) => image
                .find_by_address(pc)
                .map_or(String::new(), |(s, _)| s.display_name()),
            None => {
                let i = self.entries.partition_point(|&e| e <= pc);
                match i.checked_sub(1).map(|j| self.entries[j]) {
                    Some(e) => format!("0x{e:x}"),
                    None => String::new(),
                }
            }
        }
    }

    /// An address as a person reads it: `name + 0x10` with an image, else
    /// empty.
    pub fn symbolic(&self, pc: u64) -> String {
        match &self.image {
            Some(image) => image.symbolic_address(pc, false),
            None => String::new(),
        }
    }

    /// The name reports give a function by its entry address: as
    /// `profile` names it.
    pub fn entry_name(&self, pc: u64) -> String {
        crate::report::names::function_name(self.image.as_ref(), pc, true)
    }

    /// The address range of the function named `function` (a symbol, or
    /// an address expression): `[start, end)` without Thumb bits, its name.
    /// Without an image, or for a symbol of no size, it ends at the next
    /// function entry the calls found (or symbol).
    pub fn function_range(&self, function: &str) -> Result<(u64, u64, String)> {
        let target = crate::report::callinfo::resolve(function, self.image.as_ref())?;
        let start = target.addr() & !1;
        let mut end = u64::MAX;
        let mut name = function.to_string();
        if let Some(image) = &self.image {
            if let Some((sym, 0)) = image.find_by_address(target.addr()) {
                name = sym.display_name();
                if sym.size > 0 {
                    end = start + sym.size;
                }
            }
            if end == u64::MAX {
                end = image
                    .symbols()
                    .iter()
                    .map(|s| s.addr & !1)
                    .filter(|&a| a > start)
                    .min()
                    .unwrap_or(u64::MAX);
            }
        } else {
            end = self
                .entries
                .iter()
                .map(|&e| e & !1)
                .filter(|&e| e > start)
                .min()
                .unwrap_or(u64::MAX);
        }
        Ok((start, end, name))
    }

    /// The instruction mix.
    pub fn mix(&self) -> mix::MixReport {
        mix::MixReport::build(self, &|pc| self.function_of(pc))
    }

    /// Time by exception level and security state.
    pub fn levels(&self) -> levels::LevelsReport {
        levels::LevelsReport::build(self)
    }

    /// Exceptions and interrupts.
    pub fn exceptions(&self) -> exceptions::ExceptionsReport {
        exceptions::ExceptionsReport::build(self)
    }

    /// Function statistics; `exceptions_in_calls`: whether the time spent
    /// in exceptions taken inside a call counts in it.
    pub fn functions(&self, exceptions_in_calls: bool) -> functions::FunctionsReport {
        functions::FunctionsReport::build(self, exceptions_in_calls, &|pc| self.entry_name(pc))
    }

    /// Conditional branches and loops.
    pub fn loops(&self) -> loops::LoopsReport {
        loops::LoopsReport::build(self, &|pc| self.symbolic(pc))
    }

    /// The executed control-flow graph of a function (see
    /// [`Statistics::function_range`]).
    pub fn cfg(&self, function: &str) -> Result<cfg::CfgReport> {
        let (start, end, name) = self.function_range(function)?;
        Ok(cfg::CfgReport::build(self, &name, start, end))
    }

    /// Translation and cache events.
    pub fn memsys(&self) -> memsys::MemsysReport {
        memsys::MemsysReport::build(self)
    }

    /// `report`'s text, as the CLI prints it (the page's downloads are
    /// this text, so the two cannot drift apart).
    pub fn text(&self, report: &Report) -> Result<String> {
        let symbolic = |pc| self.symbolic(pc);
        Ok(match report {
            Report::Mix => self.mix().render(),
            Report::Levels => self.levels().render(),
            Report::Exceptions => self.exceptions().render(&symbolic),
            Report::Functions {
                exceptions_in_calls,
            } => self.functions(*exceptions_in_calls).render(),
            Report::Loops => self.loops().render(),
            Report::Cfg { function } => self.cfg(function)?.to_dot(&symbolic),
            Report::CacheTlb { max } => self.memsys().render(*max),
        })
    }
}

/// One of the reports [`Statistics`] makes, with its options: what the
/// CLI's commands and the page's Statistics tab name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Report {
    /// [`Statistics::mix`].
    Mix,
    /// [`Statistics::levels`].
    Levels,
    /// [`Statistics::exceptions`].
    Exceptions,
    /// [`Statistics::functions`].
    Functions {
        /// Time in exceptions taken inside a call counted in it.
        exceptions_in_calls: bool,
    },
    /// [`Statistics::loops`].
    Loops,
    /// [`Statistics::cfg`] as Graphviz DOT.
    Cfg {
        /// A symbol, or an address expression.
        function: String,
    },
    /// [`Statistics::memsys`], `max` events of each kind listed.
    CacheTlb {
        /// Events of each kind listed with their fields.
        max: usize,
    },
}

impl Report {
    /// The CLI command that prints it (`tarmac-lens NAME`), also the
    /// stem of the page's download.
    pub fn command(&self) -> &'static str {
        match self {
            Report::Mix => "mix",
            Report::Levels => "levels",
            Report::Exceptions => "exceptions",
            Report::Functions { .. } => "functions",
            Report::Loops => "loops",
            Report::Cfg { .. } => "cfg",
            Report::CacheTlb { .. } => "cache-tlb",
        }
    }
}
