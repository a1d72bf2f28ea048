//! The tables the index and the ELF image hold (`calls`, `functions`,
//! `source_lines`): made whole from them, one batch per trace, without
//! reading the trace's lines (but for the calls' times, below).

mod calls;
mod functions;
mod node_facts;
mod source_lines;

use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;

use crate::builders::{Projection, Rows};
use crate::schema::Table;
use crate::trace::Trace;

/// The rows of `table` for `trace`, projected.
fn batch(
    table: Table,
    trace: &Trace,
    projection: &Projection,
    threads: usize,
) -> Result<RecordBatch> {
    let mut rows = Rows::new(table, projection.clone());
    match table {
        Table::Calls => calls::add(&mut rows, trace, threads)?,
        Table::Functions => functions::add(&mut rows, trace)?,
        Table::SourceLines => source_lines::add(&mut rows, trace)?,
        _ => {
            return Err(DataFusionError::Internal(format!(
                "{} is not an index table",
                table.name()
            )))
        }
    }
    rows.finish(&trace.name)
}

/// One partition of an index table: some traces' batches, made when the
/// stream is first polled.
#[derive(Debug)]
pub(crate) struct IndexPartition {
    pub(crate) table: Table,
    pub(crate) traces: Vec<Arc<Trace>>,
    pub(crate) projection: Projection,
    /// Threads a replay for the calls' times may use.
    pub(crate) threads: usize,
}

impl PartitionStream for IndexPartition {
    fn schema(&self) -> &SchemaRef {
        &self.projection.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (table, projection, threads) = (self.table, self.projection.clone(), self.threads);
        let batches = self
            .traces
            .clone()
            .into_iter()
            .map(move |t| batch(table, &t, &projection, threads));
        Box::pin(RecordBatchStreamAdapter::new(
            self.projection.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}

/// A core error as the engine's.
pub(crate) fn external(e: tarmac_lens_core::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
