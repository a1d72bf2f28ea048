//! Source lines at the session: the frames at a node, per-line counts of
//! a file, a line's executions, and stepping by source line.
//!
//! Every executed PC is in the index's per-PC counts, so one attribution
//! of those PCs through the DWARF ([`crate::report::source_lines::attribute`])
//! gives both the counts and, per PC, its line: stepping and finding
//! executions then compare addresses only, never DWARF in the scan loop.
//! The attribution is kept until the index grows.

use std::collections::{HashMap, HashSet};

use super::protocol::{self, *};
use super::question::{Answerable, Example};
use super::{view, Session};
use crate::engine::Node;
use crate::report::source_lines::{attribute, LineCounts, PcCounts};
use crate::source::TraceSource;
use crate::{Error, Result};

/// Most executions one [`protocol::LineHits`] gives.
const MAX_HITS: u32 = 500;

/// The PCs of the trace mapped to their lines, for the index as it was.
pub(super) struct SourceMap {
    /// Nodes indexed when it was made.
    nodes: u64,
    complete: bool,
    counts: LineCounts,
    /// Per PC (Thumb bit cleared): its file (index into `counts.files`)
    /// and line.
    pc_line: HashMap<u64, (usize, u32)>,
}

impl SourceMap {
    /// The file named `name`: as the DWARF names it, or by its last path
    /// components (`hash.c`, `programs/hash.c`), as a person writes it.
    fn file(&self, name: &str) -> Option<usize> {
        let files = &self.counts.files;
        if let Some(f) = files.iter().position(|x| x.file == name) {
            return Some(f);
        }
        let want: Vec<&str> = name.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
        files.iter().position(|x| {
            let have: Vec<&str> = x
                .file
                .split(['/', '\\'])
                .filter(|c| !c.is_empty())
                .collect();
            !want.is_empty() && have.ends_with(&want)
        })
    }

    fn pcs_of(&self, file: &str, line: u32) -> HashSet<u64> {
        let Some(f) = self.file(file) else {
            return HashSet::new();
        };
        self.pc_line
            .iter()
            .filter(|(_, &(ff, l))| ff == f && l == line)
            .map(|(&pc, _)| pc)
            .collect()
    }

    /// Every mapped PC but those of `(file, line)`.
    fn pcs_other_than(&self, at: Option<(usize, u32)>) -> HashSet<u64> {
        self.pc_line
            .iter()
            .filter(|(_, &fl)| Some(fl) != at)
            .map(|(&pc, _)| pc)
            .collect()
    }

    fn line_of(&self, pc: Option<u64>) -> Option<(usize, u32)> {
        pc.and_then(|pc| self.pc_line.get(&(pc & !1)).copied())
    }
}

impl Answerable for protocol::Source {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<SourceReply> {
        session.source_at(self.node)
    }

    fn examples(at: &Example) -> Vec<protocol::Source> {
        vec![protocol::Source { node: at.node }]
    }
}

impl Answerable for protocol::LineCounts {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<FileCountsReply> {
        session.line_counts(&self.file)
    }

    fn examples(at: &Example) -> Vec<protocol::LineCounts> {
        vec![protocol::LineCounts {
            file: at.file.clone(),
        }]
    }
}

impl Answerable for FindLine {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        session.find_line(self.node, &self.file, self.line, self.forward)
    }

    fn examples(at: &Example) -> Vec<FindLine> {
        vec![FindLine {
            node: at.node,
            file: at.file.clone(),
            line: at.source_line,
            forward: true,
        }]
    }
}

impl Answerable for LineHits {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<HitsReply> {
        session.line_hits(&self.file, self.line, self.after, self.count)
    }

    fn examples(at: &Example) -> Vec<LineHits> {
        vec![LineHits {
            file: at.file.clone(),
            line: at.source_line,
            after: None,
            count: 50,
        }]
    }
}

impl Answerable for LineStep {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        session.source_step(self.node, self.step)
    }

    fn examples(at: &Example) -> Vec<LineStep> {
        [
            SourceStep::Next,
            SourceStep::Prev,
            SourceStep::Over,
            SourceStep::Out,
        ]
        .map(|step| LineStep {
            node: at.node,
            step,
        })
        .into()
    }
}

impl<S: TraceSource> Session<S> {
    fn source_at(&mut self, node: NodeId) -> Result<SourceReply> {
        let n = self.node(node)?;
        let Some(info) = &self.debug_info else {
            return Ok(SourceReply::NoDebugInfo {
                image: self.image.is_some(),
            });
        };
        if n.at.pc == crate::engine::INVALID_PC {
            return Ok(SourceReply::NoInstruction);
        }
        let frames = info
            .frames(n.at.pc)?
            .into_iter()
            .map(|f| SourceFrame {
                function: f.function,
                file: f.location.as_ref().map(|l| l.file.clone()),
                line: f.location.as_ref().and_then(|l| l.line),
                column: f.location.as_ref().and_then(|l| l.column),
            })
            .collect();
        Ok(SourceReply::Frames {
            pc: n.at.pc,
            frames,
        })
    }

    /// The attribution of the index's PCs as it is now; `Err` says why
    /// there is none.
    fn source_map(&mut self) -> Result<std::result::Result<&SourceMap, String>> {
        let Some(info) = &self.debug_info else {
            return Ok(Err(
                "no ELF image with DWARF line information is loaded".into()
            ));
        };
        let Some(idx) = self.index() else {
            return Ok(Err("no trace is open".into()));
        };
        let nodes = idx.nodes();
        let complete = self.index.is_some();
        let fresh = self
            .source_map
            .as_ref()
            .is_some_and(|m| m.nodes == nodes && m.complete == complete);
        if !fresh {
            let Some(pcs) = idx.pc_counts() else {
                return Ok(Err(
                    "this index file has no per-PC counts (an older version wrote it): index the trace again".into(),
                ));
            };
            let counts = attribute(&PcCounts::from_counts(pcs), info, self.image.as_ref())?;
            let mut pc_line = HashMap::new();
            for (f, file) in counts.files.iter().enumerate() {
                for line in &file.lines {
                    for &(pc, _) in &line.instructions {
                        pc_line.insert(pc, (f, line.line));
                    }
                }
            }
            self.source_map = Some(SourceMap {
                nodes,
                complete,
                counts,
                pc_line,
            });
        }
        Ok(Ok(self.source_map.as_ref().expect("made above")))
    }

    fn line_counts(&mut self, file: &str) -> Result<FileCountsReply> {
        let map = match self.source_map()? {
            Ok(m) => m,
            Err(note) => {
                return Ok(FileCountsReply {
                    file: file.into(),
                    note: Some(note),
                    ..FileCountsReply::default()
                })
            }
        };
        let lines = map
            .file(file)
            .map(|f| &map.counts.files[f])
            .map(|f| {
                f.lines
                    .iter()
                    .map(|l| (l.line, l.counts.executed, l.counts.failed))
                    .collect()
            })
            .unwrap_or_default();
        Ok(FileCountsReply {
            file: file.into(),
            lines,
            complete: map.complete,
            note: None,
        })
    }

    /// The nearest node past `node` at one of `pcs` that `accept` takes.
    fn find_at(
        &mut self,
        node: NodeId,
        pcs: &HashSet<u64>,
        forward: bool,
        accept: impl FnMut(&Node) -> bool,
    ) -> Result<Option<Node>> {
        if pcs.is_empty() {
            return Ok(None);
        }
        let (idx, src) = self.parts();
        idx.find_pcs(src, node, pcs, forward, accept)
    }

    fn find_line(
        &mut self,
        node: NodeId,
        file: &str,
        line: u32,
        forward: bool,
    ) -> Result<Option<NodeView>> {
        let pcs = match self.source_map()? {
            Ok(m) => m.pcs_of(file, line),
            Err(note) => return Err(Error::Query(note)),
        };
        let found = self.find_at(node, &pcs, forward, |_| true)?;
        // Node 0 is never "past" a node: the first execution may be it.
        let first = match (&found, forward) {
            (None, false) if node > 0 => self.node_if_at(0, &pcs)?,
            _ => None,
        };
        Ok(found.or(first).as_ref().map(view))
    }

    fn node_if_at(&mut self, node: NodeId, pcs: &HashSet<u64>) -> Result<Option<Node>> {
        let n = self.node(node)?;
        Ok((n.at.pc != crate::engine::INVALID_PC && pcs.contains(&(n.at.pc & !1))).then_some(n))
    }

    fn line_hits(
        &mut self,
        file: &str,
        line: u32,
        after: Option<NodeId>,
        count: u32,
    ) -> Result<HitsReply> {
        let pcs = match self.source_map()? {
            Ok(m) => m.pcs_of(file, line),
            Err(note) => return Err(Error::Query(note)),
        };
        let want = count.min(MAX_HITS) as usize;
        let mut hits = Vec::new();
        let mut from = match after {
            Some(n) => Some(n),
            None => match self.node_if_at(0, &pcs)? {
                Some(n) => {
                    hits.push(n);
                    Some(0)
                }
                None => Some(0),
            },
        };
        let mut more = false;
        while let Some(at) = from {
            let found = self.find_at(at, &pcs, true, |_| true)?;
            match found {
                Some(_) if hits.len() == want => {
                    more = true;
                    break;
                }
                Some(n) => {
                    from = Some(n.at.node);
                    hits.push(n);
                }
                None => from = None,
            }
        }
        let calls = self.index().map(|i| i.calls());
        let hits = hits
            .iter()
            .map(|n| LineHit {
                node: view(n),
                depth: calls.map_or(0, |c| c.stack_at(n.at.node).len() as u32),
            })
            .collect();
        Ok(HitsReply { hits, more })
    }

    /// Calls active at `node` (0 before the index has its calls).
    fn depth_at(&self, node: NodeId) -> usize {
        self.index().map_or(0, |i| i.calls().stack_at(node).len())
    }

    fn source_step(&mut self, node: NodeId, step: SourceStep) -> Result<Option<NodeView>> {
        let start = self.node(node)?;
        let pc = (start.at.pc != crate::engine::INVALID_PC).then_some(start.at.pc);
        let others = match self.source_map()? {
            Ok(m) => m.pcs_other_than(m.line_of(pc)),
            Err(note) => return Err(Error::Query(note)),
        };
        let found = match step {
            SourceStep::Next => self.find_at(node, &others, true, |_| true)?,
            SourceStep::Over => self.step_over(node, &others)?,
            SourceStep::Prev => self.step_back(node, &others)?,
            SourceStep::Out => {
                let call = self
                    .index()
                    .and_then(|i| i.calls().stack_at(node).last().copied());
                match call.and_then(|c| Some((c, c.resume_node?))) {
                    None => None,
                    Some((call, r)) => {
                        let back = self.node(r)?;
                        let back_pc =
                            (back.at.pc != crate::engine::INVALID_PC).then_some(back.at.pc);
                        let (call_line, back_line, others) = match self.source_map()? {
                            Ok(m) => {
                                let call_line = m.line_of(Some(call.call_pc));
                                (call_line, m.line_of(back_pc), m.pcs_other_than(call_line))
                            }
                            Err(note) => return Err(Error::Query(note)),
                        };
                        // Returned onto the caller's next line already, or
                        // into the rest of the call's line: then over it.
                        if back_line.is_some() && back_line != call_line {
                            Some(back)
                        } else {
                            self.step_over(r, &others)?
                        }
                    }
                }
            }
        };
        Ok(found.as_ref().map(view))
    }

    /// The next node at one of `others` no deeper in calls than `node`.
    fn step_over(&mut self, node: NodeId, others: &HashSet<u64>) -> Result<Option<Node>> {
        let depth = self.depth_at(node);
        let Some(idx) = self.index.as_ref() else {
            // Calls are known once indexing ends: until then, a step.
            return self.find_at(node, others, true, |_| true);
        };
        let calls = idx.calls();
        let (src, idx) = (&mut self.source, idx);
        idx.find_pcs(src, node, others, true, |n| {
            calls.stack_at(n.at.node).len() <= depth
        })
    }

    /// The first node of the source line that ran before `node`'s.
    fn step_back(&mut self, node: NodeId, others: &HashSet<u64>) -> Result<Option<Node>> {
        let Some(before) = self.find_at(node, others, false, |_| true)? else {
            return Ok(None);
        };
        let line = match self.source_map()? {
            Ok(m) => m.line_of(Some(before.at.pc)),
            Err(_) => return Ok(Some(before)),
        };
        let not_it = match self.source_map()? {
            Ok(m) => m.pcs_other_than(line),
            Err(_) => return Ok(Some(before)),
        };
        // Back to where that line's run began: after the line before it.
        match self.find_at(before.at.node, &not_it, false, |_| true)? {
            Some(earlier) => {
                let pcs = match self.source_map()? {
                    Ok(m) => m
                        .pc_line
                        .iter()
                        .filter(|(_, &fl)| Some(fl) == line)
                        .map(|(&pc, _)| pc)
                        .collect(),
                    Err(_) => HashSet::new(),
                };
                Ok(self
                    .find_at(earlier.at.node, &pcs, true, |_| true)?
                    .or(Some(before)))
            }
            None => Ok(Some(before)),
        }
    }
}
