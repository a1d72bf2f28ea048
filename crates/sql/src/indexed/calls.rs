//! `calls`: the index's calls, with their nesting, instruction counts and,
//! when asked for, their lines and times.

use datafusion::common::HashMap;
use datafusion::error::Result;
use tarmac_lens_core::report::names;

use super::node_facts::{positions, Instructions};
use crate::builders::Rows;
use crate::trace::Trace;

const ID: usize = 0;
const CALL_PC: usize = 1;
const CALLER: usize = 2;
const TARGET: usize = 3;
const FUNCTION: usize = 4;
const CALL_LINE: usize = 5;
const CALL_TIME: usize = 6;
const ENTRY_LINE: usize = 7;
const ENTRY_TIME: usize = 8;
const RETURN_LINE: usize = 9;
const RETURN_TIME: usize = 10;
const DEPTH: usize = 11;
const PARENT: usize = 12;
const INSTRUCTIONS: usize = 13;
const OWN_INSTRUCTIONS: usize = 14;
const TIME: usize = 15;
const OWN_TIME: usize = 16;

pub(super) fn add(rows: &mut Rows, trace: &Trace, threads: usize) -> Result<()> {
    let table = trace.index.calls();
    let n = table.len();
    // `count(*)` asks for no column: the index knows how many, and
    // decoding its 662,303 calls for nothing was most of a 1 GB trace's
    // 126 ms.
    if !(ID..=OWN_TIME).any(|c| rows.wants(c)) {
        (0..n).for_each(|_| rows.end_row());
        return Ok(());
    }
    rows.reserve(n);
    let timed = [
        CALL_LINE,
        CALL_TIME,
        ENTRY_TIME,
        RETURN_TIME,
        TIME,
        OWN_TIME,
    ]
    .iter()
    .any(|&c| rows.wants(c));
    let counts = rows.wants(INSTRUCTIONS) || rows.wants(OWN_INSTRUCTIONS);
    let parents = rows.wants(DEPTH) || rows.wants(OWN_INSTRUCTIONS) || rows.wants(OWN_TIME);
    // One pass over the calls: a row's own fields go out as each call is
    // decoded, and only the figures other rows need (parents, counts,
    // nodes to place) are kept; the columns that need the whole table
    // are appended after it (holding 662,303 decoded calls, or decoding
    // them twice, cost more).
    let mut parent = vec![NO_PARENT; if parents { n } else { 0 }];
    let mut inclusive = vec![0u64; if counts { n } else { 0 }];
    let mut nodes: Vec<[Option<u64>; 3]> = Vec::with_capacity(if timed { n } else { 0 });
    let mut ins = Instructions::new(trace);
    let image = trace.image.as_deref();
    // Names per address: a trace makes many calls from few sites to few
    // functions.
    let mut callers: HashMap<u64, Option<String>> = HashMap::new();
    let mut functions: HashMap<u64, Option<String>> = HashMap::new();
    for (i, c) in table.iter().enumerate().take(n) {
        if let (Some(slot), Some(p)) = (parent.get_mut(i), c.parent) {
            *slot = p;
        }
        if counts {
            inclusive[i] = ins.between(c.entry_node, c.resume_node)?;
        }
        if timed {
            nodes.push([Some(c.call_node), Some(c.entry_node), c.resume_node]);
        }
        rows.u64(ID, Some(c.id));
        rows.u64(CALL_PC, Some(c.call_pc));
        if rows.wants(CALLER) {
            let caller = callers.entry(c.call_pc).or_insert_with(|| {
                let found = image.and_then(|im| im.find_by_address(c.call_pc));
                found.map(|(s, _)| s.display_name())
            });
            rows.text(CALLER, caller.as_deref());
        }
        rows.u64(TARGET, Some(c.function));
        if rows.wants(FUNCTION) {
            let name = functions.entry(c.function).or_insert_with(|| {
                image.map(|im| names::function_name(Some(im), c.function, true))
            });
            rows.text(FUNCTION, name.as_deref());
        }
        rows.u64(ENTRY_LINE, Some(c.entry_line));
        rows.u64(RETURN_LINE, c.resume_line);
        rows.u64(PARENT, c.parent);
        rows.end_row();
    }
    if rows.wants(DEPTH) {
        // Parents come before their children (entry order).
        let mut depth = vec![0u32; n];
        for i in 0..n {
            if let Some(&d) = usize::try_from(parent[i]).ok().and_then(|p| depth.get(p)) {
                depth[i] = d + 1;
            }
        }
        rows.u32_values(DEPTH, &depth);
    }
    if rows.wants(OWN_INSTRUCTIONS) {
        // Every count is known: less its direct callees' counts.
        let mut own = inclusive.clone();
        for (i, &p) in parent.iter().enumerate() {
            if let Some(slot) = usize::try_from(p).ok().and_then(|p| own.get_mut(p)) {
                *slot = slot.saturating_sub(inclusive[i]);
            }
        }
        rows.u64_values(OWN_INSTRUCTIONS, &own);
    }
    rows.u64_values(INSTRUCTIONS, &inclusive);
    if timed {
        let mut wanted: Vec<u64> = nodes.iter().flatten().flatten().copied().collect();
        wanted.sort_unstable();
        wanted.dedup();
        let at = positions(trace, &wanted, threads)?;
        let line_of = |node: Option<u64>| at.get(&node?).map(|p| p.0);
        let time_of = |node: Option<u64>| at.get(&node?).map(|p| p.1);
        let times: Vec<Option<u64>> = nodes
            .iter()
            .map(|&[_, entry, resume]| Some(time_of(resume)?.saturating_sub(time_of(entry)?)))
            .collect();
        let own_times = if rows.wants(OWN_TIME) {
            own(&parent, &times)
        } else {
            Vec::new()
        };
        for (i, &[call, entry, resume]) in nodes.iter().enumerate() {
            rows.u64(CALL_LINE, line_of(call));
            rows.u64(CALL_TIME, time_of(call));
            rows.u64(ENTRY_TIME, time_of(entry));
            rows.u64(RETURN_TIME, time_of(resume));
            rows.u64(TIME, times[i]);
            rows.u64(OWN_TIME, own_times.get(i).copied().flatten());
        }
    }
    Ok(())
}

/// `parent`'s value for a call at the outermost level.
const NO_PARENT: u64 = u64::MAX;

/// Each call's figure less its direct callees' (none where its own or a
/// callee's is unknown), from each call's parent (parents before their
/// children).
fn own(parent: &[u64], inclusive: &[Option<u64>]) -> Vec<Option<u64>> {
    if inclusive.len() != parent.len() {
        return vec![None; parent.len()];
    }
    let mut out: Vec<Option<u64>> = inclusive.to_vec();
    for (i, &p) in parent.iter().enumerate() {
        if let Some(slot) = usize::try_from(p).ok().and_then(|p| out.get_mut(p)) {
            *slot = match (*slot, inclusive[i]) {
                (Some(a), Some(b)) => Some(a.saturating_sub(b)),
                _ => None,
            };
        }
    }
    out
}
