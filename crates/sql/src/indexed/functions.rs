//! `functions`: the ELF image's function symbols, with the calls into
//! each (the index's calls) and the instructions run at its addresses
//! (the index's per-address counts).

use datafusion::error::{DataFusionError, Result};

use super::external;
use crate::builders::Rows;
use crate::trace::Trace;

pub(super) fn add(rows: &mut Rows, trace: &Trace) -> Result<()> {
    let Some(image) = trace.image.as_deref() else {
        return Err(super::super::provider::needs_image(
            "functions",
            &trace.name,
        ));
    };
    let counts = trace.index.pc_counts().ok_or_else(|| {
        DataFusionError::Plan(format!(
            "{}: the index file predates per-address counts; rebuild it (--force-index)",
            trace.name
        ))
    })?;
    // Running sums, so a function's figures are two binary searches.
    let mut executed = Vec::with_capacity(counts.len() + 1);
    let mut failed = Vec::with_capacity(counts.len() + 1);
    executed.push(0u64);
    failed.push(0u64);
    for (_, c) in &counts {
        executed.push(executed.last().copied().unwrap_or(0) + c.executed + c.failed);
        failed.push(failed.last().copied().unwrap_or(0) + c.failed);
    }
    let mut targets: Vec<u64> = trace
        .index
        .calls()
        .iter()
        .map(|c| c.function & !1)
        .collect();
    targets.sort_unstable();
    let wants_source = rows.wants(6) || rows.wants(7);
    for sym in image.symbols().iter().filter(|s| s.is_function()) {
        let start = sym.addr & !1;
        let end = start.saturating_add(sym.size.max(1));
        let a = counts.partition_point(|(pc, _)| *pc < start);
        let b = counts.partition_point(|(pc, _)| *pc < end);
        let calls = targets.partition_point(|&t| t < end) - targets.partition_point(|&t| t < start);
        rows.text(0, Some(&sym.display_name()));
        rows.u64(1, Some(sym.addr));
        rows.u64(2, Some(sym.size));
        rows.u64(3, Some(calls as u64));
        rows.u64(4, Some(executed[b] - executed[a]));
        rows.u64(5, Some(failed[b] - failed[a]));
        let loc = match (&trace.dwarf, wants_source) {
            (Some(d), true) => d
                .lock()
                .map_err(|_| DataFusionError::Internal("DWARF lock poisoned".into()))?
                .location(sym.addr)
                .map_err(external)?,
            _ => None,
        };
        rows.text(6, loc.as_ref().map(|l| l.file.as_str()));
        rows.u32(7, loc.and_then(|l| l.line));
        rows.end_row();
    }
    Ok(())
}
