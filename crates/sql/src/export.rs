//! A trace's tables as Parquet files, laid out as DuckDB, Spark, Polars
//! and pandas read a partitioned data set: `DIR/<table>/run=<NAME>/`, one
//! file per scan partition (written in parallel), each with the schema's
//! version in its metadata. A table the trace cannot fill (no ELF image
//! for `functions` and `source_lines`) is left out, and said so.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::{execute_stream_partitioned, ExecutionPlan};
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use parquet::arrow::ArrowWriter;

use crate::output::parquet_properties;
use crate::schema::Table;
use crate::trace::Trace;

/// What one trace's export wrote.
#[derive(Debug, Default)]
pub struct Exported {
    /// Per table written: its name, rows and files.
    pub tables: Vec<(Table, u64, Vec<PathBuf>)>,
    /// Tables left out, and why.
    pub skipped: Vec<(Table, String)>,
}

/// Whether `name` can be a `run=NAME` directory that every reader takes
/// back as the same text.
pub fn check_run_name(name: &str) -> std::result::Result<(), String> {
    if name.is_empty()
        || name.starts_with('.')
        || name
            .chars()
            .any(|c| matches!(c, '/' | '\\' | '=' | '%' | ':' | '*' | '?') || c.is_control())
    {
        return Err(format!(
            "`{name}` cannot name a run directory (no /, \\, =, %, :, *, ?, nor a leading dot)"
        ));
    }
    Ok(())
}

/// Writes `trace`'s tables under `dir`, partitioned by its name, with
/// `partitions` files (and threads) per table at most.
pub async fn export_trace(trace: Arc<Trace>, dir: &Path, partitions: usize) -> Result<Exported> {
    check_run_name(&trace.name).map_err(DataFusionError::Plan)?;
    let name = trace.name.clone();
    let has_image = trace.image.is_some();
    let has_dwarf = trace.dwarf.is_some();
    let ctx = crate::session(vec![trace], false, partitions)?;
    let mut out = Exported::default();
    for table in Table::ALL {
        let missing = match table {
            Table::Functions if !has_image => Some("no ELF image"),
            Table::SourceLines if !has_dwarf => Some("no ELF image with DWARF line information"),
            _ => None,
        };
        if let Some(why) = missing {
            out.skipped.push((table, why.to_string()));
            continue;
        }
        let at = dir.join(table.name()).join(format!("run={name}"));
        // Files of an earlier export of this run would mix with these.
        if at.exists() {
            std::fs::remove_dir_all(&at).map_err(|e| io(&at, e))?;
        }
        std::fs::create_dir_all(&at).map_err(|e| io(&at, e))?;
        let (rows, files) = write_table(&ctx, table, &at).await?;
        out.tables.push((table, rows, files));
    }
    Ok(out)
}

fn io(path: &Path, e: std::io::Error) -> DataFusionError {
    DataFusionError::Execution(format!("{}: {e}", path.display()))
}

/// Each partition of `table`'s scan into its own file under `at`, on its
/// own task; an empty partition leaves no file, but for the first, so a
/// reader always finds the table's schema.
async fn write_table(ctx: &SessionContext, table: Table, at: &Path) -> Result<(u64, Vec<PathBuf>)> {
    let plan: Arc<dyn ExecutionPlan> = ctx
        .table(table.name())
        .await?
        .create_physical_plan()
        .await?;
    let schema = plan.schema();
    let streams = execute_stream_partitioned(plan, ctx.task_ctx())?;
    let mut tasks = Vec::new();
    for (k, mut stream) in streams.into_iter().enumerate() {
        let path = at.join(format!("part-{k}.parquet"));
        let schema = schema.clone();
        tasks.push(tokio::task::spawn(async move {
            let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
            let pq = |e: parquet::errors::ParquetError| DataFusionError::External(Box::new(e));
            let mut w = ArrowWriter::try_new(
                std::io::BufWriter::new(file),
                schema,
                Some(parquet_properties()),
            )
            .map_err(pq)?;
            let mut rows = 0u64;
            while let Some(batch) = stream.next().await {
                let batch = batch?;
                rows += batch.num_rows() as u64;
                w.write(&batch).map_err(pq)?;
            }
            w.close().map_err(pq)?;
            if rows == 0 && k > 0 {
                std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
                return Ok::<_, DataFusionError>((0, None));
            }
            Ok((rows, Some(path)))
        }));
    }
    let mut rows = 0;
    let mut files = Vec::new();
    for t in tasks {
        let (n, file) = t
            .await
            .map_err(|e| DataFusionError::Execution(format!("export task: {e}")))??;
        rows += n;
        files.extend(file);
    }
    files.sort();
    Ok((rows, files))
}
