//! Coverage of an ELF image by traces: functions, source lines (from the
//! DWARF; instruction addresses without it), instructions and branches.
//!
//! Three steps, so that a farm's thousands of traces cost one pass each
//! and memory the program's size, not the traces' number:
//! - [`Image::from_elf_bytes`] decodes the image's executable sections once
//!   (`image.rs`), each instruction classified by the outcomes it can have
//!   ([`Kind`]);
//! - [`count_trace`] reads one trace in a streaming pass (`pass.rs`): per
//!   address, executed, failed, and where it went next;
//! - [`Coverage::add_trace`] folds that in and drops it. The one part that
//!   grows with the traces is the attribution: for each line and function,
//!   which traces ran it.
//!
//! [`Coverage::to_json`] is the output and also the partial result:
//! [`Coverage::from_json`] reads it back losslessly, and
//! [`Coverage::merge`] appends another run's traces after this one's, so
//! that parts merged in order render byte for byte as one run over all the
//! traces (`tests/coverage.rs`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

mod algebra;
mod attribution;
mod blocks;
pub(crate) mod classify;
mod drcov;
mod image;
mod json;
mod pass;
mod render;
mod table;

pub use attribution::{Cover, Runs, Target};
pub use classify::Kind;
pub use drcov::DrcovSummary;
pub use image::{CodeInsn, Image};
pub use pass::{count_trace, Outcomes, TraceCounts};
pub use table::{CoverageTable, Figures, FunctionRow, GroupRow};

use crate::{Error, Result};

/// What identifies the image a coverage is of: parts of other images (or
/// of the same one at another load offset) do not merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImageId {
    pub(crate) name: String,
    pub(crate) digest: u64,
    pub(crate) load_offset: i64,
    pub(crate) dwarf: bool,
}

/// Distinct addresses a trace reached, in the image's code and outside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reached {
    /// Addresses of the image's instructions.
    pub in_image: u64,
    /// Other addresses.
    pub outside: u64,
}

/// One instruction's place and counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Insn {
    pub(crate) size: u8,
    pub(crate) kind: Kind,
    /// In the image's code (else a PC the traces ran outside it).
    pub(crate) in_image: bool,
    pub(crate) line: Option<(Arc<str>, u32)>,
    pub(crate) function: Option<Arc<str>>,
    pub(crate) counts: Outcomes,
}

/// Coverage of one image by any number of traces.
#[derive(Clone, Debug)]
pub struct Coverage {
    pub(crate) image: ImageId,
    /// Trace names by position: a run's order of arguments, each merged
    /// part's after the one before.
    pub(crate) traces: BTreeMap<u32, String>,
    /// The position the next merged part starts at.
    pub(crate) next_position: u32,
    /// Every instruction of the image, and those reached outside it.
    pub(crate) insns: BTreeMap<u64, Insn>,
    /// Every source line with code, with the traces that executed it.
    pub(crate) lines: BTreeMap<(Arc<str>, u32), Vec<u32>>,
    /// Every function, with the traces that executed any of its code.
    pub(crate) functions: BTreeMap<Arc<str>, Vec<u32>>,
    names: HashSet<Arc<str>>,
}

impl Coverage {
    /// The image's code, none of it run yet.
    pub fn new(image: &Image) -> Result<Coverage> {
        let mut cov = Coverage {
            image: ImageId {
                name: image.name.clone(),
                digest: image.digest,
                load_offset: image.load_offset,
                dwarf: image.dwarf.is_some(),
            },
            traces: BTreeMap::new(),
            next_position: 0,
            insns: BTreeMap::new(),
            lines: BTreeMap::new(),
            functions: BTreeMap::new(),
            names: HashSet::new(),
        };
        for c in &image.code {
            let insn = cov.placed(image, c.addr, c.size, c.kind, true)?;
            cov.insns.insert(c.addr, insn);
        }
        // Lines whose rows hold no whole instruction still have code, as
        // `lines` shows them.
        if let Some(dwarf) = &image.dwarf {
            for (file, lines) in dwarf.lines_with_code() {
                let file = cov.intern(&file);
                for line in lines {
                    cov.lines.entry((file.clone(), line)).or_default();
                }
            }
        }
        Ok(cov)
    }

    fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.names.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.names.insert(a.clone());
        a
    }

    /// An instruction with its place looked up, its line and function
    /// registered.
    fn placed(
        &mut self,
        image: &Image,
        pc: u64,
        size: u8,
        kind: Kind,
        in_image: bool,
    ) -> Result<Insn> {
        let place = image.place(pc, in_image)?;
        let line = place.line.map(|(f, n)| (self.intern(&f), n));
        let function = place.function.map(|f| self.intern(&f));
        if let Some(l) = &line {
            self.lines.entry(l.clone()).or_default();
        }
        if let Some(f) = &function {
            self.functions.entry(f.clone()).or_default();
        }
        Ok(Insn {
            size,
            kind,
            in_image,
            line,
            function,
            counts: Outcomes::default(),
        })
    }

    /// Folds in one trace's counts as the trace at `position` (its place
    /// among the run's traces: outputs list traces in this order, whatever
    /// order they finish in). `image` must be the one this coverage is of.
    /// Says how many addresses the trace reached in the image's code and
    /// outside it: none inside means another program, or a load offset
    /// missing.
    pub fn add_trace(
        &mut self,
        position: u32,
        name: &str,
        counts: &TraceCounts,
        image: &Image,
    ) -> Result<Reached> {
        if image.digest != self.image.digest || image.load_offset != self.image.load_offset {
            return Err(Error::Coverage(format!(
                "{name}: counted against another image than {}",
                self.image.name
            )));
        }
        let mut reached = Reached::default();
        let mut lines = BTreeSet::new();
        let mut functions = BTreeSet::new();
        for (&pc, &o) in &counts.by_pc {
            if !self.insns.contains_key(&pc) {
                // Reached outside the image's code: its kind is not known.
                let insn = self.placed(image, pc, 0, Kind::Plain, false)?;
                self.insns.insert(pc, insn);
            }
            let Some(insn) = self.insns.get_mut(&pc) else {
                continue;
            };
            insn.counts.add(o);
            if insn.in_image {
                reached.in_image += 1;
            } else {
                reached.outside += 1;
            }
            if o.executed > 0 {
                if let Some(l) = &insn.line {
                    lines.insert(l.clone());
                }
                if let Some(f) = &insn.function {
                    functions.insert(f.clone());
                }
            }
        }
        for l in lines {
            self.lines.entry(l).or_default().push(position);
        }
        for f in functions {
            self.functions.entry(f).or_default().push(position);
        }
        self.traces.insert(position, name.to_string());
        self.next_position = self.next_position.max(position.saturating_add(1));
        Ok(reached)
    }

    /// Appends `other`'s traces after this one's: the coverage one run
    /// over both runs' traces, in order, gives.
    pub fn merge(&mut self, other: Coverage) -> Result<()> {
        let (a, b) = (&self.image, &other.image);
        if a.digest != b.digest || a.load_offset != b.load_offset {
            return Err(Error::Coverage(format!(
                "coverage of another image: {} (load offset {}) is not {} (load offset {})",
                b.name, b.load_offset, a.name, a.load_offset
            )));
        }
        let shift = self.next_position;
        let moved = |p: u32| p.saturating_add(shift);
        for (pc, theirs) in other.insns {
            match self.insns.get_mut(&pc) {
                Some(mine) => mine.counts.add(theirs.counts),
                None => {
                    let line = theirs.line.map(|(f, n)| (self.intern(&f), n));
                    let function = theirs.function.map(|f| self.intern(&f));
                    self.insns.insert(
                        pc,
                        Insn {
                            line,
                            function,
                            ..theirs
                        },
                    );
                }
            }
        }
        for ((file, line), traces) in other.lines {
            let file = self.intern(&file);
            let entry = self.lines.entry((file, line)).or_default();
            entry.extend(traces.into_iter().map(moved));
        }
        for (name, traces) in other.functions {
            let name = self.intern(&name);
            let entry = self.functions.entry(name).or_default();
            entry.extend(traces.into_iter().map(moved));
        }
        for (p, name) in other.traces {
            self.traces.insert(moved(p), name);
        }
        self.next_position = shift.saturating_add(other.next_position);
        Ok(())
    }

    /// How many traces it covers.
    pub fn trace_count(&self) -> usize {
        self.traces.len()
    }

    /// The lcov tracefile: a record per source file (`SF`) with its
    /// functions (`FN`, `FNDA`), branches (`BRDA`) and lines (`DA`).
    /// An image without DWARF has no source lines to give.
    pub fn to_lcov(&self) -> Result<String> {
        render::lcov(self)
    }

    /// The summary: per source file (per function without DWARF) and in
    /// total, lines, functions, branch outcomes and instructions covered.
    pub fn to_text(&self) -> String {
        render::text(self)
    }

    /// The JSON output, which is also the partial result
    /// [`Coverage::from_json`] reads back.
    pub fn to_json(&self) -> String {
        json::write(self)
    }

    /// The drcov file of the code the traces reached (`drcov.rs`), with
    /// `image` (the one this coverage is of) as its one module, named
    /// `path`.
    pub fn to_drcov(
        &self,
        image: &Image,
        path: &str,
        out: &mut dyn std::io::Write,
    ) -> Result<DrcovSummary> {
        if image.digest != self.image.digest || image.load_offset != self.image.load_offset {
            return Err(Error::Coverage(format!(
                "{}: not the image this coverage is of ({})",
                image.name, self.image.name
            )));
        }
        drcov::write_drcov(
            image,
            path,
            &|pc| {
                self.insns
                    .get(&pc)
                    .is_some_and(|i| i.counts.executed + i.counts.failed > 0)
            },
            out,
        )
    }

    /// Reads [`Coverage::to_json`]'s output back.
    pub fn from_json(text: &str) -> Result<Coverage> {
        json::read(text)
    }
}
