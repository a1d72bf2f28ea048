//! A trace table as DataFusion sees it: a `TableProvider` over one trace
//! or many (a farm, with a `run` column), planning a scan of the
//! projected columns only, over the intervals the pushed-down `line` and
//! `time` bounds touch, in as many partitions as the session runs.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{LexOrdering, PhysicalSortExpr};
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;

use crate::bounds::{is_pushable, Bounds};
use crate::builders::Projection;
use crate::indexed::IndexPartition;
use crate::row_filter::RowFilter;
use crate::scan::{intervals, partition, ScanPartition, Unit};
use crate::schema::Table;
use crate::trace::Trace;

/// One trace table over one or more traces.
#[derive(Debug)]
pub struct TraceTable {
    table: Table,
    traces: Arc<[Arc<Trace>]>,
    with_run: bool,
}

impl TraceTable {
    /// `table` over `traces`; `with_run` adds the leading `run` column
    /// (each trace's name).
    pub fn new(table: Table, traces: Arc<[Arc<Trace>]>, with_run: bool) -> TraceTable {
        TraceTable {
            table,
            traces,
            with_run,
        }
    }
}

/// The error of a table that needs the trace's ELF image.
pub(crate) fn needs_image(table: &str, trace: &str) -> DataFusionError {
    DataFusionError::Plan(format!(
        "table `{table}` needs the traced program's ELF image, and {trace} has none (give it with --image ELF)"
    ))
}

impl TraceTable {
    /// A scan of one trace's lines comes in line order in each partition:
    /// said, an `ORDER BY line` merges the partitions instead of sorting.
    fn line_order(&self, projection: &Projection) -> Option<LexOrdering> {
        if !self.table.reads_lines() || self.with_run {
            return None;
        }
        let at = projection.schema.index_of("line").ok()?;
        LexOrdering::new([PhysicalSortExpr::new(
            Arc::new(Column::new("line", at)),
            SortOptions::default(),
        )])
    }
}

#[async_trait]
impl TableProvider for TraceTable {
    fn schema(&self) -> SchemaRef {
        self.table.schema(self.with_run)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| {
                if RowFilter::is_exact(self.table, f) {
                    TableProviderFilterPushDown::Exact
                } else if self.table.reads_lines() && is_pushable(f) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let projection = Projection::new(self.table, self.with_run, projection);
        // A bare `LIMIT` reads from the trace's start, not from wherever
        // the fastest partition is.
        let n = match limit {
            Some(_) => 1,
            None => state.config().target_partitions().max(1),
        };
        let partitions: Vec<Arc<dyn PartitionStream>> = if self.table.reads_lines() {
            let bounds = Bounds::of(filters);
            let keep = RowFilter::of(self.table, filters);
            let units: Vec<Unit> = self
                .traces
                .iter()
                .enumerate()
                .map(|(i, t)| Unit {
                    trace: i,
                    intervals: intervals(t, self.table, &bounds),
                })
                .filter(|u| !u.intervals.is_empty())
                .collect();
            partition(&self.traces, units, n)
                .into_iter()
                .map(|units| {
                    Arc::new(ScanPartition {
                        table: self.table,
                        traces: self.traces.clone(),
                        units,
                        projection: projection.clone(),
                        bounds,
                        keep: keep.clone(),
                    }) as Arc<dyn PartitionStream>
                })
                .collect()
        } else {
            if self.table.needs_image() {
                if let Some(t) = self.traces.iter().find(|t| match self.table {
                    Table::SourceLines => t.dwarf.is_none(),
                    _ => t.image.is_none(),
                }) {
                    return Err(needs_image(self.table.name(), &t.name));
                }
            }
            let mut parts: Vec<Vec<Arc<Trace>>> = vec![Vec::new(); n.min(self.traces.len())];
            let count = parts.len();
            for (i, t) in self.traces.iter().enumerate() {
                parts[i % count].push(t.clone());
            }
            parts
                .into_iter()
                .map(|traces| {
                    Arc::new(IndexPartition {
                        table: self.table,
                        traces,
                        projection: projection.clone(),
                        threads: state.config().target_partitions(),
                    }) as Arc<dyn PartitionStream>
                })
                .collect()
        };
        let partitions = if partitions.is_empty() {
            // No interval to read: one empty partition.
            vec![Arc::new(ScanPartition {
                table: self.table,
                traces: self.traces.clone(),
                units: Vec::new(),
                projection: projection.clone(),
                bounds: Bounds::default(),
                keep: RowFilter::default(),
            }) as Arc<dyn PartitionStream>]
        } else {
            partitions
        };
        Ok(Arc::new(StreamingTableExec::try_new(
            projection.schema.clone(),
            partitions,
            None,
            self.line_order(&projection),
            false,
            limit,
        )?))
    }
}
