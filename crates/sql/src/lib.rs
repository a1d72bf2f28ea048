//! SQL over Tarmac traces: the trace tables (`instructions`, `registers`,
//! `memory`, `calls`, `functions`, `source_lines`, `events`, `unparsed`;
//! [`schema`], `docs/tables.md`) as Apache DataFusion tables over a
//! `tarmac-lens-core` index and the trace's text.
//!
//! Tables the index holds (`calls`, `functions`, `source_lines`) are made
//! from it and the ELF image without reading the trace's lines, but for
//! the calls' lines and times, which the index does not keep. Tables of
//! lines (`instructions`, `registers`, `memory`, `events`, `unparsed`)
//! read only the checkpoint intervals that the `line` and `time` bounds
//! of the query's `WHERE` touch (events and unparsed lines: only the
//! intervals the index lists them in), make only the columns the query
//! names, and read in as many partitions as the session runs, each with
//! its own reader of the trace, in batches: a result of any size streams.
//!
//! The same code builds for `wasm32-unknown-unknown` (one partition, no
//! threads), where `wasm` is the entry of a worker of its own.
//!
//! ```no_run
//! # async fn f(index: std::sync::Arc<tarmac_lens_core::Index>) -> datafusion::error::Result<()> {
//! use std::sync::Arc;
//! use tarmac_lens_sql::{session, Trace};
//! let open = Arc::new(|| {
//!     let file = tarmac_lens_core::FileSource::open("trace.tarmac".as_ref())?;
//!     Ok(Box::new(file) as Box<dyn tarmac_lens_core::TraceSource + Send>)
//! });
//! let ctx = session(vec![Arc::new(Trace::new("trace", index, open))], false, 2)?;
//! let batches = ctx.sql("SELECT mnemonic, count(*) FROM instructions GROUP BY 1").await?.collect().await?;
//! # Ok(()) }
//! ```

mod bounds;
mod builders;
mod depth;
mod error;
#[cfg(not(target_arch = "wasm32"))]
pub mod export;
mod indexed;
pub mod output;
mod places;
mod provider;
mod row_filter;
mod rows;
mod scan;
pub mod schema;
mod trace;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

use std::sync::Arc;

pub use datafusion;
use datafusion::error::Result;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::prelude::{SessionConfig, SessionContext};
pub use parquet;

pub use error::QueryError;
pub use provider::TraceTable;
pub use schema::{Table, SCHEMA_VERSION};
pub use trace::{OpenSource, Trace};

/// A DataFusion session with every trace table registered over `traces`
/// (with a leading `run` column when `with_run`), running `partitions`
/// partitions at once.
pub fn session(
    traces: Vec<Arc<Trace>>,
    with_run: bool,
    partitions: usize,
) -> Result<SessionContext> {
    let mut config = SessionConfig::new()
        .with_target_partitions(partitions.max(1))
        .with_information_schema(true);
    // Spans in the parsed query, so an error can say where it is.
    config.options_mut().sql_parser.collect_spans = true;
    let ctx = SessionContext::new_with_config(config);
    let traces: Arc<[Arc<Trace>]> = traces.into();
    for table in Table::ALL {
        ctx.register_table(
            table.name(),
            Arc::new(TraceTable::new(table, traces.clone(), with_run)),
        )?;
    }
    Ok(ctx)
}

/// Plans `sql` and starts it: its batches come as the stream is polled.
/// An error says where in `sql` it is, when the engine knows.
pub async fn query(
    ctx: &SessionContext,
    sql: &str,
) -> std::result::Result<SendableRecordBatchStream, QueryError> {
    let df = ctx.sql(sql).await.map_err(|e| QueryError::new(e, sql))?;
    df.execute_stream()
        .await
        .map_err(|e| QueryError::new(e, sql))
}

/// Runs `sql` and writes its result to `out` in `format` as it streams
/// (no more than a batch held); the rows written. Errors are the
/// sentences a person reads.
pub async fn write_query<W: std::io::Write + Send>(
    ctx: &SessionContext,
    sql: &str,
    format: output::Format,
    out: W,
) -> std::result::Result<u64, String> {
    use futures::StreamExt;
    let mut stream = query(ctx, sql).await.map_err(|e| e.to_string())?;
    let schema = stream.schema();
    let mut w =
        output::ResultWriter::new(format, schema.clone(), out).map_err(|e| e.to_string())?;
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(|e| QueryError::new(e, sql).to_string())?;
        w.write(&batch).map_err(|e| e.to_string())?;
    }
    w.finish(&schema).map_err(|e| e.to_string())
}

/// Runs `f` to its end on a runtime of `threads` worker threads (the
/// partitions of a scan run on them).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(threads: usize, f: F) -> std::io::Result<F::Output> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()?;
    Ok(rt.block_on(f))
}
