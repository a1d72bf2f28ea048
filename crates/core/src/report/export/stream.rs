//! The activations of the call tree in trace order without the tree:
//! what an export of any size walks in constant memory.
//!
//! The engine confirms a call only at its return, so in one pass the
//! start of a call is not known for one until much later (and a call
//! that never returns, `main` in a trace cut short, never is). A first
//! pass ([`Entries::scan`]) keeps one bit per node: whether a confirmed
//! call starts there. A second pass then knows each entry as it reaches
//! it, and the engine confirms each return as it happens, so the walk
//! ([`super::walk`] with [`super::Calls::Stream`]) enters and leaves
//! activations in the order the tree's depth walk does
//! ([`crate::report::calltree::build`]: in line order, a return closing
//! the innermost open activation), holding only the open ones.

use crate::engine::{Call, EngineOptions, Observer};
use crate::parse::ParseOptions;
use crate::report::calltree::Activation;
use crate::report::run::{run_engine, UnparsedLines};
use crate::source::TraceSource;
use crate::Result;

/// The nodes at which a confirmed call's callee starts: a bit per node
/// (a 10 GB trace has some 100 million nodes: 12 MB).
#[derive(Clone, Debug, Default)]
pub(crate) struct Entries {
    bits: Vec<u64>,
}

impl Entries {
    fn insert(&mut self, node: u64) {
        let word = (node / 64) as usize;
        if word >= self.bits.len() {
            // Doubling: a trace's nodes arrive in order, so this grows
            // like the trace, without one reallocation per call.
            let want = (word + 1).max(self.bits.len() * 2);
            self.bits.resize(want, 0);
        }
        self.bits[word] |= 1 << (node % 64);
    }

    /// Whether a confirmed call starts at node `node`.
    pub(crate) fn contains(&self, node: u64) -> bool {
        self.bits
            .get((node / 64) as usize)
            .is_some_and(|w| w & (1 << (node % 64)) != 0)
    }

    /// The entries of a tree's activations (the calls it was built
    /// from: the same set of entries as [`Entries::scan`] finds).
    pub(crate) fn from_tree(root: Activation<'_>) -> Entries {
        let mut e = Entries::default();
        let mut stack = vec![root];
        while let Some(act) = stack.pop() {
            for (_, _, callee) in act.calls.iter() {
                e.insert(callee.entry.node);
                stack.push(callee);
            }
        }
        e
    }

    /// The first pass: the engine over the whole trace, keeping where
    /// each confirmed call started.
    pub(crate) fn scan<S: TraceSource>(
        source: S,
        parse_opts: ParseOptions,
        engine_opts: EngineOptions,
    ) -> Result<(Entries, UnparsedLines)> {
        struct Keep(Entries);
        impl Observer for Keep {
            fn call(&mut self, call: &Call) {
                self.0.insert(call.entry.node);
            }
        }
        let mut keep = Keep(Entries::default());
        let unparsed = run_engine(source, parse_opts, engine_opts, &mut keep)?;
        Ok((keep.0, unparsed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the tree: reads the test data, which wasm has not.
    #[cfg(not(target_arch = "wasm32"))]
    mod against_the_tree {
        use super::*;
        use crate::report::export::{walk, Act, Calls, Sink};
        use crate::source::SliceSource;

        /// Every entry and return the walk tells, as text.
        #[derive(Default)]
        struct Log(Vec<String>);

        impl Sink for Log {
            fn enter(&mut self, open: &[Act], ts: u64, n: u64) -> Result<()> {
                let a = open[open.len() - 1];
                self.0.push(format!(
                    "> {:x} from {:x} at {ts} ({n}) depth {}",
                    a.pc,
                    a.call_pc,
                    open.len()
                ));
                Ok(())
            }
            fn leave(&mut self, open: &[Act], ts: u64, n: u64) -> Result<()> {
                self.0
                    .push(format!("< {:x} at {ts} ({n})", open[open.len() - 1].pc));
                Ok(())
            }
            fn instruction(&mut self, open: &[Act], pc: u64, ts: u64) {
                self.0
                    .push(format!(". {pc:x} in {:x} at {ts}", open[open.len() - 1].pc));
            }
            fn instant(&mut self, ts: u64, name: &str, category: &str) -> Result<()> {
                self.0.push(format!("! {name} {category} at {ts}"));
                Ok(())
            }
        }

        /// The walk with the first pass's entries tells what the walk with
        /// the tree tells, on every trace of the test data that has calls.
        #[test]
        fn streamed_calls_are_the_trees() {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
            let mut files = Vec::new();
            for dir in [
                "tracegen",
                "ttu",
                "ttu/calltests",
                "ttu/samples",
                "ttu/truncate",
                "field",
                "multicore",
            ] {
                for e in std::fs::read_dir(root.join(dir)).unwrap() {
                    let p = e.unwrap().path();
                    if p.extension().is_some_and(|x| x == "tarmac") {
                        files.push(p);
                    }
                }
            }
            let mut compared = 0;
            for path in files {
                let data = std::fs::read(&path).unwrap();
                let popts = ParseOptions::default();
                let eopts = EngineOptions::default();
                let mut src = SliceSource(&data);
                if crate::cores::check_single_core(&mut src, popts).is_err() {
                    continue;
                }
                let analysis =
                    crate::report::analyse_calls(SliceSource(&data), popts, eopts).unwrap();
                let tree = crate::report::calltree::build(&analysis);
                let mut by_tree = Log::default();
                walk(
                    SliceSource(&data),
                    popts,
                    eopts,
                    Calls::Tree(tree.as_ref().map(crate::report::calltree::CallTree::root)),
                    true,
                    &mut by_tree,
                )
                .unwrap();
                let (entries, _) = Entries::scan(SliceSource(&data), popts, eopts).unwrap();
                if let Some(root) = &tree {
                    let from_tree = Entries::from_tree(root.root());
                    let first = analysis.first_instruction_node.map_or(0, |s| s.node);
                    let n = entries.bits.len().max(from_tree.bits.len()) as u64 * 64;
                    for node in first + 1..n {
                        assert_eq!(
                            entries.contains(node),
                            from_tree.contains(node),
                            "{}: node {node}",
                            path.display()
                        );
                    }
                }
                let mut by_stream = Log::default();
                walk(
                    SliceSource(&data),
                    popts,
                    eopts,
                    Calls::Stream(&entries),
                    true,
                    &mut by_stream,
                )
                .unwrap();
                assert_eq!(by_tree.0.len(), by_stream.0.len(), "{}", path.display());
                for (i, (a, b)) in by_tree.0.iter().zip(&by_stream.0).enumerate() {
                    assert_eq!(a, b, "{}: event {i}", path.display());
                }
                compared += usize::from(!analysis.calls.is_empty());
            }
            assert!(compared >= 10, "{compared} traces with calls");
        }
    }

    #[test]
    fn a_bit_per_node_set_in_any_order() {
        let mut e = Entries::default();
        for n in [700, 3, 64, 63, 100_000] {
            e.insert(n);
        }
        for n in [700, 3, 64, 63, 100_000] {
            assert!(e.contains(n), "{n}");
        }
        for n in [0, 2, 4, 65, 699, 99_999, 100_001, u64::MAX] {
            assert!(!e.contains(n), "{n}");
        }
    }
}
