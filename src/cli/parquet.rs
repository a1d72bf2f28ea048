//! `tarmac-lens export --format parquet -o DIR TRACE…`: every trace
//! table of each trace as Parquet, `DIR/TABLE/run=NAME/part-K.parquet`,
//! the layout DuckDB, Spark, Polars and pandas read as one data set with
//! a `run` column (docs/farm.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::sql::TraceOptions;
use super::Common;

pub fn export(common: &Common, more: &[PathBuf], dir: Option<&Path>) -> Result<(), String> {
    let dir = dir.ok_or("--format parquet writes a directory: give it with -o DIR")?;
    let opts = TraceOptions::from_common(common);
    let paths: Vec<PathBuf> = std::iter::once(common.trace.clone())
        .chain(more.iter().cloned())
        .collect();
    let start = Instant::now();
    let traces = super::sql::load(&opts, &paths)?;
    let bytes: u64 = traces.iter().map(|t| t.index().summary().bytes).sum();
    let jobs = opts.jobs();
    for trace in traces {
        let name = trace.name().to_string();
        let exported = tarmac_lens_sql::block_on(
            jobs,
            tarmac_lens_sql::export::export_trace(trace, dir, jobs),
        )
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("{name}: {e}"))?;
        if !common.quiet {
            for (table, why) in &exported.skipped {
                eprintln!("tarmac-lens: {name}: no `{}` table: {why}", table.name());
            }
        }
        if common.verbose {
            for (table, rows, files) in &exported.tables {
                eprintln!(
                    "tarmac-lens: {name}: {} rows of `{}` in {} file(s)",
                    rows,
                    table.name(),
                    files.len()
                );
            }
        }
    }
    if common.verbose {
        let s = start.elapsed().as_secs_f64();
        eprintln!(
            "tarmac-lens: {} trace bytes in {s:.2} s ({:.0} MB/s)",
            bytes,
            bytes as f64 / 1e6 / s.max(1e-9)
        );
    }
    Ok(())
}
