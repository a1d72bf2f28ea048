//! The watch pane's questions: a watchpoint's next or previous hit from a
//! position, and its list a bounded piece at a time (each reply looks at
//! no more than [`INTERVALS_PER_REPLY`] checkpoint intervals, so the
//! worker answers other questions between pieces of a long list).

use super::protocol::{Access, AccessKind, AccessView, Accesses, AccessesReply, WriteTarget};
use super::question::{Answerable, Example};
use super::{registers, view, Session};
use crate::index::{AccessHit, Watched};
use crate::source::TraceSource;
use crate::{Error, Result};

/// Intervals one [`Accesses`] reply looks at: about 16 MB of
/// trace, of which only those the index names are replayed.
const INTERVALS_PER_REPLY: u64 = 256;

/// Most hits in one reply.
const MAX_HITS: u32 = 1000;

impl Answerable for Access {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<Box<AccessView>>> {
        session.access(self.node, self.target, self.kind, self.forward)
    }

    fn examples(at: &Example) -> Vec<Access> {
        vec![Access {
            node: at.node,
            target: WriteTarget::Memory {
                addr: at.stack,
                len: 64,
            },
            kind: AccessKind::Any,
            forward: false,
        }]
    }
}

impl Answerable for Accesses {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<AccessesReply> {
        session.accesses(self.target, self.kind, self.from, self.max)
    }

    fn examples(_: &Example) -> Vec<Accesses> {
        vec![Accesses {
            target: WriteTarget::Register("r0".into()),
            kind: AccessKind::Write,
            from: 0,
            max: 50,
        }]
    }
}

impl<S: TraceSource> Session<S> {
    /// The register or memory range a target names, read at `node`.
    pub(super) fn watched(&mut self, node: u64, target: &WriteTarget) -> Result<Watched> {
        Ok(match target {
            WriteTarget::Register(name) => {
                let hint = self.aarch64_hint();
                let (idx, src) = self.parts();
                let rf = idx.registers_after(src, node)?;
                match registers::lookup(name, registers::is_aarch64(&rf, hint)) {
                    Some(reg) => Watched::Reg(reg),
                    None => return Err(Error::Query(format!("unknown register '{name}'"))),
                }
            }
            WriteTarget::Memory { addr, len } => Watched::Mem {
                addr: *addr,
                len: (*len).max(1),
            },
        })
    }

    fn access_view(&self, h: &AccessHit) -> AccessView {
        let big_endian = self.index().is_some_and(|i| i.options().parse.big_endian);
        AccessView {
            node: view(&h.node),
            kind: h.kind_text().into(),
            detail: h.detail(big_endian),
            function: if h.node.has_instruction() {
                self.name_of(h.node.at.pc & !1)
            } else {
                String::new()
            },
        }
    }

    fn access(
        &mut self,
        node: u64,
        target: WriteTarget,
        kind: AccessKind,
        forward: bool,
    ) -> Result<Option<Box<AccessView>>> {
        let what = self.watched(node, &target)?;
        let (idx, src) = self.parts();
        let hit = if forward {
            idx.next_access(src, node, what, kind)?
        } else {
            idx.prev_access(src, node, what, kind)?
        };
        Ok(hit.map(|h| Box::new(self.access_view(&h))))
    }

    fn accesses(
        &mut self,
        target: WriteTarget,
        kind: AccessKind,
        from: u64,
        max: u32,
    ) -> Result<AccessesReply> {
        let what = self.watched(from, &target)?;
        let max = max.clamp(1, MAX_HITS) as usize;
        let (idx, src) = self.parts();
        let nodes = idx.nodes();
        let mut hits = Vec::new();
        let mut covered = 0u64;
        let mut looked = 0u64;
        if from < nodes {
            idx.accesses(
                src,
                what,
                kind,
                from..=nodes - 1,
                &mut |h| {
                    hits.push(h);
                    hits.len() < max
                },
                &mut |c| {
                    covered = c;
                    looked += 1;
                    looked < INTERVALS_PER_REPLY
                },
            )?;
        }
        // Stopped by the hit count: go on after the last hit; by the
        // budget: after the last node covered.
        let next = match hits.last() {
            Some(h) if hits.len() == max => h.node.at.node + 1,
            _ => from + covered,
        }
        .clamp(from, nodes.max(from));
        let hits = hits.iter().map(|h| self.access_view(h)).collect();
        Ok(AccessesReply { hits, next })
    }
}
