//! The first screen's rehearsal material: a small trace of each common
//! dialect ([`TRACE`]) and the questions asked about it ([`questions`],
//! then [`follow_ups`]). The worker's warm-up asks them all at start and
//! the page's hidden rehearsal asks them again through the worker, so V8
//! has compiled every question's path, both sides of the message, before
//! the first drop. Native, so a test checks that the list names every
//! [`Query`] variant and that a real session answers each without error.

use tarmac_lens_core::{
    protocol::{Example, NodeId, Query, Reply, WhyQuery, WhyStep},
    SearchQuery,
};

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

/// Every question of the sample, in the order asked: each question's own
/// examples ([`Answerable::examples`](tarmac_lens_core::protocol::Answerable::examples)),
/// so one of each [`Query`] variant at least, and of each variant of what
/// they carry.
pub fn questions() -> Vec<Query> {
    Query::examples(&Example {
        node: NODE,
        line: LINE,
        fold_view: FOLD_VIEW,
        stack: STACK,
        function: FUNCTION,
        file: SOURCE_FILE.into(),
        source_line: SOURCE_LINE,
    })
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
        .chain(more.map(Query::Why))
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
