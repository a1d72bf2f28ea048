//! The "why?" pane's question: where a register's or memory range's value
//! came from, as a tree of the writes that made it
//! ([`crate::dataflow::why`]), with the image's memory for bytes the
//! trace never wrote. A tree is depth-limited; each step it did not
//! expand carries the question that expands it ([`WhyStep::more`]), so
//! the pane grows it a subtree at a time.

use super::protocol::{NodeId, WriteTarget};
use super::question::{Answerable, Example};
use super::Session;
use crate::dataflow::{self, Source, WhyImage, WhyNode};
use crate::index::Watched;
use crate::source::TraceSource;
use crate::{Error, Result};

pub use super::protocol::{WhyQuery, WhyStep, MAX_DEPTH};

/// The target a walk's [`Watched`] is asked as.
fn target_of(w: Watched) -> WriteTarget {
    match w {
        Watched::Reg(r) => WriteTarget::Register(dataflow::reg_name(r)),
        Watched::Mem { addr, len } => WriteTarget::Memory { addr, len },
    }
}

/// `n` as the pane shows it; `asked_at` is the node its parent read it at
/// (the parent's writer's node minus one), `None` for the root.
fn step(n: WhyNode, asked_at: Option<NodeId>, depth: u32) -> WhyStep {
    let unexpanded = matches!(
        n.source,
        Source::DepthLimit | Source::SeeAbove | Source::NodeLimit
    );
    let memory = matches!(n.watched, Watched::Mem { .. });
    let more = match asked_at {
        Some(node) if unexpanded => Some(WhyQuery {
            node,
            target: target_of(n.watched),
            depth,
            loaded: memory.then(|| (n.bytes.clone(), n.known.clone())),
        }),
        _ => None,
    };
    // A root's children read their values just before its writer ran.
    let below = n.writer.and_then(|w| w.node.checked_sub(1));
    WhyStep {
        what: n.what,
        value: n.value,
        writer: n.writer,
        instruction: n.instruction,
        function: n.function,
        source: n.source,
        not_followed: n.not_followed,
        inputs: (n.inputs.into_iter())
            .map(|c| step(c, below, depth))
            .collect(),
        more,
    }
}

impl Answerable for WhyQuery {
    fn answer<S: TraceSource>(self, session: &mut Session<S>) -> Result<Box<WhyStep>> {
        session.why(self)
    }

    /// Trees of a register and of memory.
    fn examples(at: &Example) -> Vec<WhyQuery> {
        [
            WriteTarget::Register("r0".into()),
            WriteTarget::Memory {
                addr: at.stack,
                len: 4,
            },
        ]
        .map(|target| WhyQuery {
            node: at.node,
            target,
            depth: 2,
            loaded: None,
        })
        .into()
    }
}

impl<S: TraceSource> Session<S> {
    fn why(&mut self, q: WhyQuery) -> Result<Box<WhyStep>> {
        if let WriteTarget::Memory { len, .. } = q.target {
            if len == 0 || len > 4096 {
                return Err(Error::Query(format!(
                    "{len} bytes: the length must be 1 to 4096 bytes"
                )));
            }
        }
        if q.node >= self.nodes() {
            return Err(Error::Query(format!(
                "node {} is beyond the part indexed",
                q.node
            )));
        }
        let what = self.watched(q.node, &q.target)?;
        if let (Some((b, k)), Watched::Mem { len, .. }) = (&q.loaded, what) {
            if b.len() as u64 != len || k.len() as u64 != len {
                return Err(Error::Query(format!(
                    "the value loaded has {} bytes, the range {len}",
                    b.len()
                )));
            }
        }
        let depth = q.depth.min(MAX_DEPTH);
        let image = WhyImage {
            symbols: self.image.as_ref(),
            memory: self.image_memory.as_ref(),
        };
        let idx = match (&self.index, &self.building) {
            (Some(i), _) => i,
            (None, Some(b)) => b.builder.index(),
            (None, None) => return Err(Error::Query("no trace is open".into())),
        };
        let source: &mut dyn TraceSource = &mut self.source;
        let tree = dataflow::why_loaded(idx, source, q.node, what, q.loaded, depth, image)?;
        Ok(Box::new(step(tree, None, depth)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataflow::Writer;
    use crate::parse::{RegClass, RegId};

    fn node(watched: Watched, source: Source, writer: Option<u64>) -> WhyNode {
        WhyNode {
            watched,
            what: String::new(),
            value: String::new(),
            bytes: vec![1, 2],
            known: vec![true, false],
            writer: writer.map(|node| Writer {
                node,
                line: node * 3,
                time: node,
                pc: None,
            }),
            instruction: None,
            function: None,
            source,
            inputs: Vec::new(),
            not_followed: Vec::new(),
        }
    }

    #[test]
    fn why_unexpanded_steps_ask_where_their_parent_read_them() {
        let x1 = Watched::Reg(RegId::new(RegClass::X, 1));
        let mem = Watched::Mem { addr: 0x40, len: 2 };
        let mut root = node(x1, Source::Computed, Some(10));
        root.inputs = vec![
            node(x1, Source::DepthLimit, Some(7)),
            node(mem, Source::NodeLimit, None),
            node(x1, Source::Immediate, Some(4)),
        ];
        let s = step(root, None, 3);
        assert_eq!(s.more, None, "the root is the question itself");
        let reg = s.inputs[0].more.as_ref().unwrap();
        assert_eq!(reg.node, 9);
        assert_eq!(reg.target, WriteTarget::Register("x1".into()));
        assert_eq!((reg.depth, reg.loaded.clone()), (3, None));
        let m = s.inputs[1].more.as_ref().unwrap();
        assert_eq!(m.target, WriteTarget::Memory { addr: 0x40, len: 2 });
        assert_eq!(m.loaded, Some((vec![1, 2], vec![true, false])));
        assert_eq!(s.inputs[2].more, None, "an immediate has nothing more");
        assert_eq!(s.count(), 4);
    }
}
