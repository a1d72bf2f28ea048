//! The questions about one position answered from the index directly:
//! finding a node, its registers, memory, lines, call stack, the write
//! that made a value, an expression's value, and names of addresses.

use super::protocol::{
    CallFrame, CallStack, Eval, FindPc, LineEffect, Locate, Memory, MemoryReply, NodeLines,
    NodeView, RegMark, Registers, RegistersReply, RowOfNode, Symbolize, Write, WriteTarget,
};
use super::question::{Answerable, Example};
use super::rows::display_text;
use super::{registers, view, Session, MAX_MEMORY};
use crate::parse::{Effect, MemDirection, Parser, RecordKind};
use crate::source::TraceSource;
use crate::{Error, Result};

impl Answerable for RowOfNode {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<u64> {
        let n = session.node(self.node)?;
        // Lines before the first node (an EP trace's banner, a header) are
        // listed as its rows, so its rows start there.
        let line = if self.node == 0 { 1 } else { n.at.line };
        Ok(session.view_folds(self.view).row_of_line(line))
    }

    fn examples(at: &Example) -> Vec<RowOfNode> {
        vec![RowOfNode {
            view: 0,
            node: at.node,
        }]
    }
}

impl Answerable for Locate {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        let nodes = session.nodes();
        let (idx, src) = session.parts();
        let n = match self {
            Locate::Line(line) => idx.node_at_line(src, line.max(1)),
            Locate::Time(t) => idx.node_at_time(src, t),
            Locate::Offset(o) => idx.node_at_offset(src, o),
            Locate::Node(n) => idx.node(src, n.min(nodes.saturating_sub(1))),
            Locate::Start => idx.node(src, 0),
            Locate::End => idx.node(src, nodes.saturating_sub(1)),
        };
        match n {
            Ok(n) => Ok(Some(view(&n))),
            Err(Error::OutOfRange(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn examples(at: &Example) -> Vec<Locate> {
        vec![
            Locate::Line(at.line),
            Locate::Time(0),
            Locate::Offset(0),
            Locate::Node(at.node),
            Locate::Start,
            Locate::End,
        ]
    }
}

impl Answerable for FindPc {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        let (idx, src) = session.parts();
        Ok(idx
            .find_pc(src, self.node, self.pc, self.forward)?
            .as_ref()
            .map(view))
    }

    fn examples(at: &Example) -> Vec<FindPc> {
        vec![FindPc {
            node: at.node,
            pc: at.function,
            forward: true,
        }]
    }
}

impl Answerable for Registers {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<RegistersReply> {
        let Registers { node, mark } = self;
        let hint = session.aarch64_hint();
        let (idx, src) = session.parts();
        let (rf, n) = idx.registers_and_node(src, node)?;
        let other = match mark {
            RegMark::Written => Some(idx.registers_written(src, node)?),
            RegMark::ChangedSince(c) if c != node => Some(idx.registers_after(src, c)?),
            RegMark::ChangedSince(_) | RegMark::None => None,
        };
        let marks = match (mark, &other) {
            (RegMark::Written, Some(w)) => registers::Marks::Written(w),
            (RegMark::ChangedSince(_), Some(c)) => registers::Marks::Differs(c),
            _ => registers::Marks::None,
        };
        let pc = (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc);
        Ok(registers::panels(&rf, marks, node, pc, hint))
    }

    fn examples(at: &Example) -> Vec<Registers> {
        [
            RegMark::Written,
            RegMark::ChangedSince(at.node - 1),
            RegMark::None,
        ]
        .map(|mark| Registers {
            node: at.node,
            mark,
        })
        .into()
    }
}

impl<S: TraceSource> Session<S> {
    /// The node holding 1-based `line` and the core registers after it,
    /// as [`Locate::Line`] and [`Registers`] (unmarked) answer them, from
    /// one replay instead of two (a script asking registers line by line
    /// pays for each); `None` for a line beyond the indexed trace.
    pub fn registers_at_line(&mut self, line: u64) -> Result<Option<(NodeView, RegistersReply)>> {
        let hint = self.aarch64_hint();
        let (idx, src) = self.parts();
        let (rf, n) = match idx.registers_at_line(src, line.max(1)) {
            Ok(found) => found,
            Err(Error::OutOfRange(_)) => return Ok(None),
            Err(e) => return Err(e),
        };
        let pc = (n.at.pc != crate::engine::INVALID_PC).then_some(n.at.pc);
        let reply = registers::panels(&rf, registers::Marks::None, n.at.node, pc, hint);
        Ok(Some((view(&n), reply)))
    }
}

impl Answerable for Memory {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<MemoryReply> {
        let Memory {
            node,
            addr,
            len,
            compare,
        } = self;
        let len = len.min(MAX_MEMORY);
        let (idx, src) = session.parts();
        let m = idx.memory_after(src, node, addr, u64::from(len))?;
        let changed = match compare {
            Some(c) if c != node => {
                let o = idx.memory_after(src, c, addr, u64::from(len))?;
                (0..m.bytes.len())
                    .map(|i| m.known[i] != o.known[i] || (m.known[i] && m.bytes[i] != o.bytes[i]))
                    .collect()
            }
            _ => vec![false; m.bytes.len()],
        };
        Ok(MemoryReply {
            node,
            addr,
            bytes: m.bytes,
            known: m.known,
            changed,
        })
    }

    fn examples(at: &Example) -> Vec<Memory> {
        vec![Memory {
            node: at.node,
            addr: at.stack,
            len: 256,
            compare: Some(at.node - 1),
        }]
    }
}

impl Answerable for Write {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Option<NodeView>> {
        let Write {
            node,
            target,
            forward,
        } = self;
        let hint = session.aarch64_hint();
        let (idx, src) = session.parts();
        let found = match target {
            WriteTarget::Register(name) => {
                let rf = idx.registers_after(src, node)?;
                let aarch64 = registers::is_aarch64(&rf, hint);
                let Some(reg) = registers::lookup(&name, aarch64) else {
                    return Err(Error::Query(format!("unknown register '{}'", name)));
                };
                if forward {
                    idx.next_reg_write(src, node, reg)?
                } else {
                    idx.prev_reg_write(src, node, reg)?
                }
            }
            WriteTarget::Memory { addr, len } => {
                if forward {
                    idx.next_mem_write(src, node, addr, len)?
                } else {
                    idx.prev_mem_write(src, node, addr, len)?
                }
            }
        };
        Ok(found.as_ref().map(view))
    }

    fn examples(at: &Example) -> Vec<Write> {
        vec![
            Write {
                node: at.node,
                target: WriteTarget::Register("r0".into()),
                forward: false,
            },
            Write {
                node: at.node,
                target: WriteTarget::Memory {
                    addr: at.stack,
                    len: 4,
                },
                forward: true,
            },
        ]
    }
}

impl Answerable for Eval {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<u64> {
        let hint = session.aarch64_hint();
        let image = session.image.as_ref();
        let (idx, src) = match (&session.index, &session.building) {
            (Some(i), _) => (i, &mut session.source as &mut dyn TraceSource),
            (None, Some(b)) => (
                b.builder.index(),
                &mut session.source as &mut dyn TraceSource,
            ),
            (None, None) => return Err(Error::Query("no trace is open".into())),
        };
        idx.eval_with_hint(src, self.node, &self.expr, image, hint)
    }

    fn examples(at: &Example) -> Vec<Eval> {
        vec![Eval {
            node: at.node,
            expr: "sp+0x10".into(),
        }]
    }
}

impl Answerable for CallStack {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Vec<CallFrame>> {
        let idx = session
            .index()
            .ok_or_else(|| Error::OutOfRange("no trace".into()))?;
        Ok(idx
            .calls()
            .stack_at(self.node)
            .into_iter()
            .map(|c| CallFrame {
                call: c.id,
                call_node: c.call_node,
                entry_node: c.entry_node,
                resume_node: c.resume_node,
                function: c.function,
                name: session.name_of(c.function),
            })
            .collect())
    }

    fn examples(at: &Example) -> Vec<CallStack> {
        vec![CallStack { node: at.node }]
    }
}

impl Answerable for Symbolize {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Vec<String>> {
        Ok(self.addrs.iter().map(|&a| session.name_of(a)).collect())
    }

    fn examples(at: &Example) -> Vec<Symbolize> {
        vec![Symbolize {
            addrs: vec![at.function],
        }]
    }
}

impl Answerable for NodeLines {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Vec<LineEffect>> {
        let n = session.node(self.node)?;
        let (idx, src) = session.parts();
        let opts = idx.options().parse;
        let mut texts: Vec<(u64, Vec<u8>)> = Vec::new();
        idx.scan_lines(src, n.at.line, n.lines, &mut |line, text, _| {
            texts.push((line, text.to_vec()))
        })?;
        let mut parser = Parser::new(opts, idx.dialect());
        let mut out = Vec::new();
        for (line, text) in texts {
            let rec = parser.parse_line(&text);
            let (target, read) = match &rec.kind {
                RecordKind::Register(r) if r.reg.is_some() => (
                    Some(WriteTarget::Register(
                        r.reg.map(|g| g.to_string()).unwrap_or_default(),
                    )),
                    false,
                ),
                RecordKind::Memory(m) => {
                    let first = m.accessed.iter().position(|&a| a != 0).unwrap_or(0) as u64;
                    let last = m.accessed.iter().rposition(|&a| a != 0).unwrap_or(0) as u64;
                    (
                        Some(WriteTarget::Memory {
                            addr: m.addr.wrapping_add(first),
                            len: last - first + 1,
                        }),
                        m.direction == MemDirection::Read,
                    )
                }
                RecordKind::Instruction(i) => (None, i.effect != Effect::Executed),
                _ => (None, false),
            };
            out.push(LineEffect {
                line,
                text: display_text(&text),
                target,
                read,
            });
        }
        Ok(out)
    }

    fn examples(at: &Example) -> Vec<NodeLines> {
        vec![NodeLines { node: at.node }]
    }
}

#[cfg(test)]
mod tests {
    use crate::browse::protocol::{Locate, RegMark, Registers};
    use crate::source::SliceSource;
    use crate::{IndexOptions, Session};

    /// The one replay answers as the two questions do, at every line: in
    /// the middle of nodes, at interval edges (4 KiB apart), before the
    /// first node (a banner) and past the last.
    #[test]
    fn registers_at_line_answers_as_locate_then_registers() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        for name in ["ttu/quicksort.tarmac", "ep/sploop-loop.ept.txt"] {
            let mut text = b"# a banner line before the first node\n".to_vec();
            text.extend(std::fs::read(data.join(name)).unwrap());
            let opts = IndexOptions {
                checkpoint_bytes: 4096,
                ..IndexOptions::default()
            };
            let mut s = Session::open_with(SliceSource(&text), opts).unwrap();
            while !s.index_step(1 << 20).unwrap().complete {}
            let lines = s.progress().lines;
            // Every line of the first 40 KB and each fifth after: the
            // sploop trace alone has 20,000 lines.
            let picks = (0..=lines + 2).filter(|&l| l < 1000 || l % 5 == 0 || l > lines - 3);
            let mut checked = 0;
            for line in picks {
                let want = s.ask(Locate::Line(line)).unwrap().map(|node| {
                    let regs = s.ask(Registers {
                        node: node.node,
                        mark: RegMark::None,
                    });
                    (node, regs.unwrap())
                });
                let got = s.registers_at_line(line).unwrap();
                assert_eq!(got, want, "{name} line {line}");
                checked += usize::from(got.is_some());
            }
            assert!(checked > 1000, "{name}: {checked} lines had a node");
        }
    }
}
