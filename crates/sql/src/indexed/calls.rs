//! `calls`: the index's calls, with their nesting, instruction counts and,
//! when asked for, their lines and times.

use std::collections::HashMap;

use datafusion::error::Result;
use tarmac_lens_core::index::CallInfo;
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
    // `count(*)` asks for no column: the index knows how many, and
    // decoding its 662,303 calls for nothing was most of a 1 GB trace's
    // 126 ms.
    if !(ID..=OWN_TIME).any(|c| rows.wants(c)) {
        (0..table.len()).for_each(|_| rows.end_row());
        return Ok(());
    }
    let calls: Vec<CallInfo> = table.iter().collect();
    let n = calls.len();
    // Parents come before their children (entry order).
    let mut depth = vec![0u32; if rows.wants(DEPTH) { n } else { 0 }];
    for (i, c) in calls.iter().enumerate().take(depth.len()) {
        if let Some(p) = c.parent {
            depth[i] = depth.get(p as usize).map_or(0, |d| d + 1);
        }
    }
    let counts = rows.wants(INSTRUCTIONS) || rows.wants(OWN_INSTRUCTIONS);
    let mut inclusive = vec![0u64; if counts { n } else { 0 }];
    if counts {
        let mut ins = Instructions::new(trace);
        for (i, c) in calls.iter().enumerate() {
            let end = ins.before(c.resume_node.unwrap_or(u64::MAX))?;
            inclusive[i] = end.saturating_sub(ins.before(c.entry_node)?);
        }
    }
    let own_instructions = if rows.wants(OWN_INSTRUCTIONS) {
        own(
            &calls,
            &inclusive.iter().map(|&v| Some(v)).collect::<Vec<_>>(),
        )
    } else {
        Vec::new()
    };
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
    let at = if timed {
        let mut nodes: Vec<u64> = calls
            .iter()
            .flat_map(|c| [Some(c.call_node), Some(c.entry_node), c.resume_node])
            .flatten()
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        positions(trace, &nodes, threads)?
    } else {
        Default::default()
    };
    let line_of = |node: u64| at.get(&node).map(|p| p.0);
    let time_of = |node: u64| at.get(&node).map(|p| p.1);
    let times: Vec<Option<u64>> = if rows.wants(TIME) || rows.wants(OWN_TIME) {
        calls
            .iter()
            .map(|c| {
                let (e, r) = (time_of(c.entry_node)?, time_of(c.resume_node?)?);
                Some(r.saturating_sub(e))
            })
            .collect()
    } else {
        Vec::new()
    };
    let own_times = if rows.wants(OWN_TIME) {
        own(&calls, &times)
    } else {
        Vec::new()
    };
    let image = trace.image.as_deref();
    // Names per address: a trace makes many calls from few sites to few
    // functions.
    let mut callers: HashMap<u64, Option<String>> = HashMap::new();
    let mut functions: HashMap<u64, Option<String>> = HashMap::new();
    for (i, c) in calls.iter().enumerate() {
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
        rows.u64(CALL_LINE, line_of(c.call_node));
        rows.u64(CALL_TIME, time_of(c.call_node));
        rows.u64(ENTRY_LINE, Some(c.entry_line));
        rows.u64(ENTRY_TIME, time_of(c.entry_node));
        rows.u64(RETURN_LINE, c.resume_line);
        rows.u64(RETURN_TIME, c.resume_node.and_then(time_of));
        rows.u32(DEPTH, depth.get(i).copied());
        rows.u64(PARENT, c.parent);
        rows.u64(INSTRUCTIONS, inclusive.get(i).copied());
        rows.u64(OWN_INSTRUCTIONS, own_instructions.get(i).copied().flatten());
        rows.u64(TIME, times.get(i).copied().flatten());
        rows.u64(OWN_TIME, own_times.get(i).copied().flatten());
        rows.end_row();
    }
    Ok(())
}

/// Each call's figure less its direct callees' (none where its own or a
/// callee's is unknown).
fn own(calls: &[CallInfo], inclusive: &[Option<u64>]) -> Vec<Option<u64>> {
    if inclusive.len() != calls.len() {
        return vec![None; calls.len()];
    }
    let mut out: Vec<Option<u64>> = inclusive.to_vec();
    for (i, c) in calls.iter().enumerate() {
        if let Some(slot) = c.parent.and_then(|p| out.get_mut(p as usize)) {
            *slot = match (*slot, inclusive[i]) {
                (Some(a), Some(b)) => Some(a.saturating_sub(b)),
                _ => None,
            };
        }
    }
    out
}
