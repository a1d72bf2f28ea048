//! The first screen's rehearsal material: a small trace of each common
//! dialect ([`TRACE`]) and the questions asked about it ([`questions`],
//! then [`follow_ups`]). The worker's warm-up asks them all at start and
//! the page's hidden rehearsal asks them again through the worker, so V8
//! has compiled every question's path, both sides of the message, before
//! the first drop. Native, so a test checks that the list names every
//! [`Query`] variant and that a real session answers each without error.

use tarmac_lens_core::browse::protocol::{
    AccessKind, FoldOp, Locate, NodeId, Query, RegMark, Reply, SourceStep, WriteTarget,
};
use tarmac_lens_core::browse::search::{SearchQuery, SearchRequest};
use tarmac_lens_core::browse::why::{WhyQuery, WhyStep};

/// A few hundred lines of each common dialect (Fast Models AArch64 and
/// Thumb, ES/LD/ST-style AArch32, gem5), cut from the test traces.
pub const TRACE: &[u8] = include_bytes!("sample.tarmac");

/// An ELF image with DWARF for the source questions (the generated
/// `recursion` program's, from `tests/data/tracegen/lines/`, 14 KB).
pub const ELF: &[u8] = include_bytes!("sample.elf");

/// A file of [`ELF`]'s line table, and one of its lines with code.
const SOURCE_FILE: &str = "recursion.c";
const SOURCE_LINE: u32 = 20;

/// The line the questions look at, and its node.
pub const LINE: u64 = 400;
pub const NODE: NodeId = 177;

/// Folds go to a view of their own, so the rehearsal's browser (views from
/// 0) shows its rows unfolded.
const FOLD_VIEW: u32 = u32::MAX;

/// An address the sample's stack uses, and one of its functions.
const STACK: u64 = 0x3f_ffc0;
const FUNCTION: u64 = 0x1_0000;

/// Every question of the sample, in the order asked: one of each
/// [`Query`] variant at least, and of each variant of what they carry.
pub fn questions() -> Vec<Query> {
    let node = NODE;
    let mut q = vec![
        Query::Rows {
            view: 0,
            first: 0,
            count: 80,
        },
        Query::Locate(Locate::Line(LINE)),
        Query::Locate(Locate::Time(0)),
        Query::Locate(Locate::Offset(0)),
        Query::Locate(Locate::Node(node)),
        Query::Locate(Locate::Start),
        Query::Locate(Locate::End),
        Query::Registers {
            node,
            mark: RegMark::Written,
        },
        Query::Registers {
            node,
            mark: RegMark::ChangedSince(node - 1),
        },
        Query::Registers {
            node,
            mark: RegMark::None,
        },
        Query::Memory {
            node,
            addr: STACK,
            len: 256,
            compare: Some(node - 1),
        },
        Query::Write {
            node,
            target: WriteTarget::Register("r0".into()),
            forward: false,
        },
        Query::Write {
            node,
            target: WriteTarget::Memory {
                addr: STACK,
                len: 4,
            },
            forward: true,
        },
        Query::Access {
            node,
            target: WriteTarget::Memory {
                addr: STACK,
                len: 64,
            },
            kind: AccessKind::Any,
            forward: false,
        },
        Query::Accesses {
            target: WriteTarget::Register("r0".into()),
            kind: AccessKind::Write,
            from: 0,
            max: 50,
        },
        // A condition: a hit, a piece that goes on, one that is not one.
        Query::Condition {
            text: "r0 == 0".into(),
            node,
            forward: true,
            budget: 64,
        },
        Query::Condition {
            text: "[sp:4] > 100 && r1 != 0".into(),
            node,
            forward: false,
            budget: 1,
        },
        Query::Condition {
            text: "r0 = 1".into(),
            node,
            forward: true,
            budget: 1,
        },
        Query::CallStack { node },
    ];
    // The "why?" pane's trees, of a register and of memory.
    q.extend(
        [
            WriteTarget::Register("r0".into()),
            WriteTarget::Memory {
                addr: STACK,
                len: 4,
            },
        ]
        .map(|target| {
            Query::Why(Box::new(WhyQuery {
                node,
                target,
                depth: 2,
                loaded: None,
            }))
        }),
    );
    // What a key press asks (a step and its row): without these the first
    // Down key after indexing paid 3 ms of compiling in the worker.
    q.extend([1, -1, 40].map(|delta| Query::Step {
        view: 0,
        node,
        delta,
    }));
    q.extend([
        Query::RowOfNode { view: 0, node },
        Query::NodeLines { node },
        Query::Symbolize {
            addrs: vec![FUNCTION],
        },
        Query::Eval {
            node,
            expr: "sp+0x10".into(),
        },
        Query::FindPc {
            node,
            pc: FUNCTION,
            forward: true,
        },
        Query::Events {
            first: 0,
            count: 50,
        },
        Query::EventRank { node },
        Query::NextEvent {
            node,
            forward: true,
        },
        Query::NextEvent {
            node,
            forward: false,
        },
    ]);
    q.extend(
        [
            FoldOp::FoldAll,
            FoldOp::UnfoldAll,
            FoldOp::FoldChildren,
            FoldOp::UnfoldInside,
            FoldOp::FoldCall,
            FoldOp::UnfoldCall,
        ]
        .map(|op| Query::Fold {
            view: FOLD_VIEW,
            node,
            op,
        }),
    );
    // Text search, plain and regex (the regex crate's compiler is a lot of
    // code); the regex one last, as [`follow_ups`] continue it.
    q.extend([("BL ", false), (r"\bBL\b", true)].map(|(pattern, regex)| {
        Query::Search(SearchQuery::Start(SearchRequest {
            pattern: pattern.into(),
            regex,
            ignore_case: false,
            kinds: vec![],
            lines: None,
        }))
    }));
    // The timeline is asked for as soon as a trace opens.
    q.push(Query::Timeline { buckets: 1200 });
    // The source pane's questions (with [`ELF`] loaded).
    q.extend([
        Query::Source { node },
        Query::LineCounts {
            file: SOURCE_FILE.into(),
        },
        Query::FindLine {
            node,
            file: SOURCE_FILE.into(),
            line: SOURCE_LINE,
            forward: true,
        },
        Query::LineHits {
            file: SOURCE_FILE.into(),
            line: SOURCE_LINE,
            after: None,
            count: 50,
        },
        // The palette's functions.
        Query::Functions {
            text: "a".into(),
            count: 20,
        },
        // The disassembly pane's.
        Query::Disassembly { node },
    ]);
    q.extend(
        [
            SourceStep::Next,
            SourceStep::Prev,
            SourceStep::Over,
            SourceStep::Out,
        ]
        .map(|step| Query::SourceStep { node, step }),
    );
    q
}

/// The first step a "why?" tree left for later, depth first.
fn first_more(t: &WhyStep) -> Option<&WhyQuery> {
    t.more
        .as_ref()
        .or_else(|| t.inputs.iter().find_map(first_more))
}

/// The questions that continue the answers to [`questions`]: the last
/// search's next step, then its end; a "why?" tree's expansion.
pub fn follow_ups(answers: &[Reply]) -> Vec<Query> {
    let more = answers.iter().find_map(|r| match r {
        Reply::Why(t) => first_more(t).cloned(),
        _ => None,
    });
    let last_search = answers.iter().rev().find_map(|r| match r {
        Reply::Search(s) => Some(s.id),
        _ => None,
    });
    last_search
        .map(|id| {
            vec![
                Query::Search(SearchQuery::More { id }),
                Query::Search(SearchQuery::Cancel { id }),
            ]
        })
        .unwrap_or_default()
        .into_iter()
        .chain(more.map(|m| Query::Why(Box::new(m))))
        .collect()
}

/// Asks [`questions`] and their [`follow_ups`] through `answer`, in order;
/// returns each with its answer.
pub fn ask_all(mut answer: impl FnMut(Query) -> Reply) -> Vec<(Query, Reply)> {
    let mut asked: Vec<(Query, Reply)> = questions()
        .into_iter()
        .map(|q| (q.clone(), answer(q)))
        .collect();
    let replies: Vec<Reply> = asked.iter().map(|(_, r)| r.clone()).collect();
    asked.extend(
        follow_ups(&replies)
            .into_iter()
            .map(|q| (q.clone(), answer(q))),
    );
    asked
}

#[cfg(test)]
mod tests;
