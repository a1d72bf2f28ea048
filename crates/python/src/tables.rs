//! The trace tables (docs/tables.md) in SQL, as `pyarrow` tables and
//! readers: DataFusion's Arrow batches handed over through the Arrow C
//! data interface, so no value is converted or copied on the way.

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use arrow_pyarrow::{IntoPyArrow, Table as PyArrowTable};
use futures::StreamExt;
use pyo3::prelude::*;
use tarmac_lens_core::TraceSource;
use tarmac_lens_sql::datafusion::arrow::array::{RecordBatch, RecordBatchReader};
use tarmac_lens_sql::datafusion::arrow::datatypes::SchemaRef;
use tarmac_lens_sql::datafusion::arrow::error::ArrowError;
use tarmac_lens_sql::datafusion::execution::SendableRecordBatchStream;
use tarmac_lens_sql::datafusion::prelude::SessionContext;

use crate::errors::{error, with_attrs, Error, ImageError, QueryError};
use crate::indexing::default_jobs;
use crate::trace::{Inner, Trace};

impl Inner {
    /// The trace as the tables read it (made at the first query).
    fn tables(&mut self, py: Python<'_>) -> PyResult<Arc<tarmac_lens_sql::Trace>> {
        if let Some(t) = &self.tables {
            return Ok(t.clone());
        }
        let index = self.index(py)?;
        let opener = self.opener.clone();
        let open = Arc::new(move || {
            opener
                .open()
                .map(|s| Box::new(s) as Box<dyn TraceSource + Send>)
        });
        // A run's name, as `tarmac-lens sql` names it.
        let path = &self.opener.path;
        let name = path.file_stem().or_else(|| path.file_name()).map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let mut trace = tarmac_lens_sql::Trace::new(name, index, open);
        if let Some(image) = &self.image {
            let shown = image.path.display();
            let symbols = image
                .symbols()
                .map_err(|e| error::<ImageError>(py, format!("{shown}: {e}")))?;
            let dwarf = image
                .dwarf()
                .map_err(|e| error::<ImageError>(py, format!("{shown}: {e}")))?;
            trace = trace.with_image(symbols, dwarf);
        }
        let trace = Arc::new(trace);
        self.tables = Some(trace.clone());
        Ok(trace)
    }
}

/// A query's error as [`QueryError`], with its `position`.
fn query_error(py: Python<'_>, e: tarmac_lens_sql::QueryError) -> PyErr {
    let position = e
        .position
        .and_then(|p| p.into_pyobject(py).ok())
        .map_or_else(|| py.None(), |p| p.into_any().unbind());
    with_attrs::<QueryError>(py, e.to_string(), None, &[("position", position)])
}

fn runtime(jobs: usize) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(jobs.max(1))
        .enable_all()
        .build()
}

/// Runs `work` on `rt` while the calling thread waits without the
/// interpreter, looking at its signal handlers every 100 ms: Ctrl-C (or a
/// handler's exception) abandons the query and raises at once, and the
/// runtime's threads drop the query at its next batch.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    rt: tokio::runtime::Runtime,
    work: impl std::future::Future<Output = T> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    let task = rt.spawn(async move {
        let _ = tx.send(work.await);
    });
    // Waited on without the interpreter, from the calling thread only.
    let rx = Mutex::new(rx);
    loop {
        let waited = py.detach(|| {
            let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
            rx.recv_timeout(Duration::from_millis(100))
        });
        match waited {
            Ok(done) => return Ok(done),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(raised) = py.check_signals() {
                    task.abort();
                    rt.shutdown_background();
                    return Err(raised);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(error::<Error>(
                    py,
                    "the query stopped without an answer (a panic)",
                ));
            }
        }
    }
}

/// A query's result as Arrow batches read one at a time, on a runtime of
/// its own: `pyarrow.RecordBatchReader` pulls them through the C stream
/// interface.
struct Batches {
    rt: tokio::runtime::Runtime,
    stream: SendableRecordBatchStream,
    schema: SchemaRef,
    sql: String,
    _ctx: SessionContext,
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = self.rt.block_on(self.stream.next())?;
        Some(next.map_err(|e| {
            ArrowError::ExternalError(Box::new(tarmac_lens_sql::QueryError::new(e, &self.sql)))
        }))
    }
}

impl RecordBatchReader for Batches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Trace {
    /// [`Trace::sql`].
    pub(crate) fn run_sql(&self, py: Python<'_>, query: &str) -> PyResult<Py<PyAny>> {
        let trace = self.lock().tables(py)?;
        let jobs = default_jobs();
        let rt = runtime(jobs).map_err(|e| error::<Error>(py, e.to_string()))?;
        let sql = query.to_string();
        let collected = interruptible(py, rt, async move {
            let ctx = tarmac_lens_sql::session(vec![trace], false, jobs)
                .map_err(|e| tarmac_lens_sql::QueryError::new(e, &sql))?;
            let mut stream = tarmac_lens_sql::query(&ctx, &sql).await?;
            let schema = stream.schema();
            let mut batches = Vec::new();
            while let Some(batch) = stream.next().await {
                batches.push(batch.map_err(|e| tarmac_lens_sql::QueryError::new(e, &sql))?);
            }
            Ok((batches, schema))
        })?;
        let (batches, schema) = collected.map_err(|e| query_error(py, e))?;
        let table = PyArrowTable::try_new(batches, schema)
            .map_err(|e| error::<Error>(py, e.to_string()))?;
        Ok(table.into_pyarrow(py)?.unbind())
    }

    /// [`Trace::sql_reader`].
    pub(crate) fn run_sql_reader(&self, py: Python<'_>, query: &str) -> PyResult<Py<PyAny>> {
        let trace = self.lock().tables(py)?;
        let jobs = default_jobs();
        let started = py.detach(|| -> Result<_, tarmac_lens_sql::QueryError> {
            let rt = runtime(jobs).map_err(|e| {
                tarmac_lens_sql::QueryError::new(
                    tarmac_lens_sql::datafusion::error::DataFusionError::External(Box::new(e)),
                    query,
                )
            })?;
            let (ctx, stream) = rt.block_on(async {
                let ctx = tarmac_lens_sql::session(vec![trace], false, jobs)
                    .map_err(|e| tarmac_lens_sql::QueryError::new(e, query))?;
                let stream = tarmac_lens_sql::query(&ctx, query).await?;
                Ok::<_, tarmac_lens_sql::QueryError>((ctx, stream))
            })?;
            Ok(Batches {
                schema: stream.schema(),
                rt,
                stream,
                sql: query.to_string(),
                _ctx: ctx,
            })
        });
        let batches = started.map_err(|e| query_error(py, e))?;
        let reader: Box<dyn RecordBatchReader + Send> = Box::new(batches);
        Ok(reader.into_pyarrow(py)?.unbind())
    }

    /// [`Trace::table`].
    pub(crate) fn whole_table(
        &self,
        py: Python<'_>,
        name: &str,
        columns: Option<Vec<String>>,
    ) -> PyResult<Py<PyAny>> {
        if tarmac_lens_sql::Table::from_name(name).is_none() {
            let names: Vec<&str> = tarmac_lens_sql::Table::ALL
                .iter()
                .map(|t| t.name())
                .collect();
            return Err(error::<Error>(
                py,
                format!("no table '{name}' (the tables: {})", names.join(", ")),
            ));
        }
        let columns = match columns {
            None => "*".to_string(),
            Some(c) => c
                .iter()
                .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
                .collect::<Vec<_>>()
                .join(", "),
        };
        self.run_sql(py, &format!("SELECT {columns} FROM {name}"))
    }
}
