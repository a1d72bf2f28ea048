//! `source_lines`: the index's per-address counts added up by source line
//! through the ELF image's DWARF (as the `lines` command does).

use datafusion::error::{DataFusionError, Result};
use tarmac_lens_core::report::source_lines::{attribute, PcCounts};

use super::external;
use crate::builders::Rows;
use crate::trace::Trace;

pub(super) fn add(rows: &mut Rows, trace: &Trace) -> Result<()> {
    let Some(dwarf) = &trace.dwarf else {
        return Err(super::super::provider::needs_image(
            "source_lines",
            &trace.name,
        ));
    };
    let counts = trace.index.pc_counts().ok_or_else(|| {
        DataFusionError::Plan(format!(
            "{}: the index file predates per-address counts; rebuild it (--force-index)",
            trace.name
        ))
    })?;
    let dwarf = dwarf
        .lock()
        .map_err(|_| DataFusionError::Internal("DWARF lock poisoned".into()))?;
    let lines = attribute(
        &PcCounts::from_counts(counts),
        &dwarf,
        trace.image.as_deref(),
    )
    .map_err(external)?;
    for file in &lines.files {
        for l in &file.lines {
            rows.text(0, Some(&file.file));
            rows.u32(1, Some(l.line));
            rows.u64(2, Some(l.counts.executed + l.counts.failed));
            rows.u64(3, Some(l.counts.failed));
            rows.u32(4, Some(l.instructions.len() as u32));
            rows.end_row();
        }
    }
    Ok(())
}
