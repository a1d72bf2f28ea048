//! A trace's tables as Parquet files, laid out as DuckDB, Spark, Polars
//! and pandas read a partitioned data set: `DIR/<table>/run=<NAME>/`, one
//! file per scan partition (written in parallel), each with the schema's
//! version in its metadata. A table the trace cannot fill (no ELF image
//! for `functions` and `source_lines`) is left out, and said so.
//!
//! The tables every line gives rows to are written from one read of the
//! trace (`ONE_PASS`): a scan per table parsed a 1 GB trace three times.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::{execute_stream_partitioned, ExecutionPlan};
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use parquet::arrow::ArrowWriter;

use crate::bounds::Bounds;
use crate::builders::{Projection, Rows};
use crate::output::parquet_properties;
use crate::places::Places;
use crate::rows;
use crate::scan::{intervals, partition, walk_interval, Reading, Unit, BATCH_ROWS};
use crate::schema::Table;
use crate::trace::Trace;

/// The tables written from one read of each partition's lines.
const ONE_PASS: [Table; 3] = [Table::Instructions, Table::Registers, Table::Memory];

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
    let ctx = crate::session(vec![trace.clone()], false, partitions)?;
    let mut out = Exported::default();
    let mut dirs = Vec::new();
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
        dirs.push((table, at));
    }
    let one_pass = ONE_PASS.map(|t| {
        let dir = dirs
            .iter()
            .find(|(d, _)| *d == t)
            .expect("a line table is never left out");
        dir.1.clone()
    });
    let mut written = write_line_tables(trace, one_pass, partitions).await?;
    for (table, at) in dirs {
        let (rows, files) = match ONE_PASS.iter().position(|&t| t == table) {
            Some(i) => std::mem::take(&mut written[i]),
            None => write_table(&ctx, table, &at).await?,
        };
        out.tables.push((table, rows, files));
    }
    Ok(out)
}

/// [`ONE_PASS`]'s tables into their directories `at`, a file per partition
/// each, cut as their scans would cut them.
async fn write_line_tables(
    trace: Arc<Trace>,
    at: [PathBuf; ONE_PASS.len()],
    partitions: usize,
) -> Result<Vec<(u64, Vec<PathBuf>)>> {
    let units = vec![Unit {
        trace: 0,
        intervals: intervals(&trace, Table::Instructions, &Bounds::default()),
    }];
    let mut parts = partition(std::slice::from_ref(&trace), units, partitions);
    if parts.is_empty() {
        // No interval: one empty file per table, for its schema.
        parts.push(Vec::new());
    }
    let at = Arc::new(at);
    let mut tasks = Vec::new();
    for (k, units) in parts.into_iter().enumerate() {
        let (trace, at) = (trace.clone(), at.clone());
        tasks.push(tokio::task::spawn_blocking(move || {
            write_part(&trace, &at[..], k, units)
        }));
    }
    let mut out = vec![(0u64, Vec::new()); ONE_PASS.len()];
    for t in tasks {
        let got = t
            .await
            .map_err(|e| DataFusionError::Execution(format!("export task: {e}")))??;
        for (o, (n, file)) in out.iter_mut().zip(got) {
            o.0 += n;
            o.1.extend(file);
        }
    }
    for o in &mut out {
        o.1.sort();
    }
    Ok(out)
}

/// A partition's Parquet file being written.
struct PartFile {
    writer: ArrowWriter<BufWriter<std::fs::File>>,
    path: PathBuf,
    written: u64,
}

impl PartFile {
    fn create(path: PathBuf, schema: SchemaRef) -> Result<Self> {
        let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        let writer = ArrowWriter::try_new(BufWriter::new(file), schema, Some(parquet_properties()))
            .map_err(parquet_error)?;
        Ok(PartFile {
            writer,
            path,
            written: 0,
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.written += batch.num_rows() as u64;
        self.writer.write(batch).map_err(parquet_error)
    }

    /// Its rows and path; an empty file is removed but for partition 0's,
    /// so a reader always finds the table's schema.
    fn close(self, k: usize) -> Result<(u64, Option<PathBuf>)> {
        self.writer.close().map_err(parquet_error)?;
        if self.written == 0 && k > 0 {
            std::fs::remove_file(&self.path).map_err(|e| io(&self.path, e))?;
            return Ok((0, None));
        }
        Ok((self.written, Some(self.path)))
    }
}

fn parquet_error(e: parquet::errors::ParquetError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// Partition `k`'s intervals into a file per [`ONE_PASS`] table: its rows
/// and path (none for an empty file but the first).
fn write_part(
    trace: &Trace,
    at: &[PathBuf],
    k: usize,
    units: Vec<Unit>,
) -> Result<Vec<(u64, Option<PathBuf>)>> {
    let mut files = Vec::new();
    for (&table, dir) in ONE_PASS.iter().zip(at) {
        let projection = Projection::new(table, false, None);
        let file = PartFile::create(
            dir.join(format!("part-{k}.parquet")),
            projection.schema.clone(),
        )?;
        files.push((table, Rows::new(table, projection), file));
    }
    let mut source = trace
        .source
        .open()
        .map_err(|e| DataFusionError::External(Box::new(e)))?;
    let mut places = Places::default();
    for i in units.into_iter().flat_map(|u| u.intervals) {
        let reading = Reading {
            source: &mut *source,
            places: &mut places,
            events: &[],
        };
        walk_interval(
            trace,
            i,
            0..u64::MAX,
            true,
            reading,
            &mut |at, line, rec| {
                for (table, rows, _) in files.iter_mut() {
                    rows::add(*table, rows, at, line, rec);
                }
            },
        )?;
        for (_, rows, file) in &mut files {
            if rows.len() >= BATCH_ROWS {
                file.write(&rows.finish(&trace.name)?)?;
            }
        }
    }
    let mut out = Vec::new();
    for (_, mut rows, mut file) in files {
        if rows.len() > 0 {
            file.write(&rows.finish(&trace.name)?)?;
        }
        out.push(file.close(k)?);
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
            let mut file = PartFile::create(path, schema)?;
            while let Some(batch) = stream.next().await {
                file.write(&batch?)?;
            }
            file.close(k)
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
