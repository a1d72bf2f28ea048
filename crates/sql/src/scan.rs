//! Scans of the tables read from the trace's lines: the checkpoint
//! intervals a query's bounds touch, cut into partitions of about equal
//! bytes (each read by its own reader, in parallel where the runtime has
//! threads), each a lazy stream of batches: one batch holds the rows of
//! a few intervals, so a result of any size streams.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use tarmac_lens_core::{EventKind, Line, Record, TraceSource};

use crate::bounds::Bounds;
use crate::builders::{Projection, Rows};
use crate::depth::Depth;
use crate::places::Places;
use crate::row_filter::RowFilter;
use crate::rows::{self, At};
use crate::schema::Table;
use crate::trace::Trace;

/// Rows per batch, about: a batch ends after the interval that reaches it.
pub(crate) const BATCH_ROWS: usize = 8192;

/// Intervals of one trace to read.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub(crate) trace: usize,
    pub(crate) intervals: Vec<usize>,
}

/// The intervals of `trace` that `bounds` and `table` need, in order.
pub(crate) fn intervals(trace: &Trace, table: Table, bounds: &Bounds) -> Vec<usize> {
    let n = trace.intervals();
    if bounds.is_empty() || n == 0 {
        return Vec::new();
    }
    let index = &trace.index;
    let lines = index.interval_of_line(bounds.lines.0)..index.interval_of_line(bounds.lines.1) + 1;
    let times = index.intervals_of_time(bounds.times.0, bounds.times.1);
    let range = lines.start.max(times.start)..lines.end.min(times.end).min(n);
    match table {
        Table::Events | Table::Unparsed => {
            let mut ks: Vec<usize> = events(trace, table)
                .iter()
                .map(|&(line, _)| index.interval_of_line(line))
                .filter(|k| range.contains(k))
                .collect();
            ks.dedup();
            ks
        }
        _ => range.collect(),
    }
}

/// The index's events a table gives rows for, by line.
pub(crate) fn events(trace: &Trace, table: Table) -> Vec<(u64, EventKind)> {
    let index = &trace.index;
    index
        .events_page(0, index.event_count())
        .into_iter()
        .filter(|e| (e.kind == EventKind::Unparsed) == (table == Table::Unparsed))
        .map(|e| (e.line, e.kind))
        .collect()
}

/// Cuts `units` (each trace's intervals) into at most `n` partitions of
/// about equal bytes, each a list of units.
pub(crate) fn partition(traces: &[Arc<Trace>], units: Vec<Unit>, n: usize) -> Vec<Vec<Unit>> {
    let bytes = |t: usize, k: usize| traces[t].interval_bytes(k).max(1);
    let total: u64 = units
        .iter()
        .flat_map(|u| u.intervals.iter().map(|&k| bytes(u.trace, k)))
        .sum();
    let n = n.max(1);
    let share = total.div_ceil(n as u64).max(1);
    let mut parts: Vec<Vec<Unit>> = vec![Vec::new()];
    let mut filled = 0u64;
    for u in units {
        let mut cur = Unit {
            trace: u.trace,
            intervals: Vec::new(),
        };
        for k in u.intervals {
            if filled >= share && parts.len() < n {
                if !cur.intervals.is_empty() {
                    let done = std::mem::replace(
                        &mut cur,
                        Unit {
                            trace: u.trace,
                            intervals: Vec::new(),
                        },
                    );
                    parts.last_mut().expect("a part").push(done);
                }
                parts.push(Vec::new());
                filled = 0;
            }
            filled += bytes(u.trace, k);
            cur.intervals.push(k);
        }
        if !cur.intervals.is_empty() {
            parts.last_mut().expect("a part").push(cur);
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// One partition of a scan.
#[derive(Debug)]
pub(crate) struct ScanPartition {
    pub(crate) table: Table,
    pub(crate) traces: Arc<[Arc<Trace>]>,
    pub(crate) units: Vec<Unit>,
    pub(crate) projection: Projection,
    pub(crate) bounds: Bounds,
    pub(crate) keep: RowFilter,
}

impl PartitionStream for ScanPartition {
    fn schema(&self) -> &SchemaRef {
        &self.projection.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let scan = Scan {
            table: self.table,
            traces: self.traces.clone(),
            units: self.units.clone().into_iter().collect(),
            rows: Rows::new(self.table, self.projection.clone()),
            bounds: self.bounds,
            keep: self.keep.clone(),
            open: None,
            failed: false,
        };
        Box::pin(RecordBatchStreamAdapter::new(
            self.projection.schema.clone(),
            futures::stream::iter(scan),
        ))
    }
}

/// The unit being read: its trace, reader, place cache and events.
struct Open {
    trace: usize,
    source: Box<dyn TraceSource + Send>,
    places: Places,
    events: Vec<(u64, EventKind)>,
    intervals: std::vec::IntoIter<usize>,
}

/// A partition's batches, made as they are asked for.
struct Scan {
    table: Table,
    traces: Arc<[Arc<Trace>]>,
    units: std::collections::VecDeque<Unit>,
    rows: Rows,
    bounds: Bounds,
    keep: RowFilter,
    open: Option<Open>,
    failed: bool,
}

/// What reading an interval needs beside its trace: a reader, the place
/// cache and the events the rows name.
pub(crate) struct Reading<'r> {
    pub(crate) source: &'r mut dyn TraceSource,
    pub(crate) places: &'r mut Places,
    pub(crate) events: &'r [(u64, EventKind)],
}

/// Gives `each` the lines of `trace`'s interval `k` within `lines`, with
/// the state a scan carries (`depth`: the call depth followed too).
pub(crate) fn walk_interval(
    trace: &Trace,
    k: usize,
    lines: Range<u64>,
    depth: bool,
    reading: Reading<'_>,
    each: &mut dyn FnMut(&mut At<'_>, &Line<'_>, &Record<'_>),
) -> Result<()> {
    let time = trace.starts[k].time_before.unwrap_or(0);
    let mut at = At {
        trace,
        time,
        now: time,
        depth: depth.then(|| Depth::for_interval(trace, k)),
        places: reading.places,
        events: reading.events,
    };
    trace
        .index
        .scan_interval_records(reading.source, k, &mut |line, rec| {
            if lines.contains(&line.number) {
                each(&mut at, line, rec);
            } else if line.number >= lines.end {
                return false;
            }
            true
        })
        .map_err(|e| DataFusionError::External(Box::new(e)))
}

impl Scan {
    /// Reads interval `k` of the open unit into the rows.
    fn read(&mut self, k: usize) -> Result<()> {
        let open = self.open.as_mut().expect("an open unit");
        let trace = &self.traces[open.trace];
        let lines: Range<u64> = self.bounds.lines.0..self.bounds.lines.1.saturating_add(1);
        let depth = self.table == Table::Instructions && self.rows.wants(rows::instructions::DEPTH);
        let reading = Reading {
            source: &mut *open.source,
            places: &mut open.places,
            events: &open.events,
        };
        let table = self.table;
        let rows = &mut self.rows;
        let keep = &self.keep;
        walk_interval(trace, k, lines, depth, reading, &mut |at, line, rec| {
            if keep.admits(rec) {
                rows::add(table, rows, at, line, rec);
            } else {
                at.advance(rec);
            }
        })
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if self.open.is_none() {
                let Some(unit) = self.units.pop_front() else {
                    break;
                };
                let trace = &self.traces[unit.trace];
                let source = trace
                    .source
                    .open()
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                let events = match self.table {
                    Table::Events | Table::Unparsed => events(trace, self.table),
                    _ => Vec::new(),
                };
                self.open = Some(Open {
                    trace: unit.trace,
                    source,
                    places: Places::default(),
                    events,
                    intervals: unit.intervals.into_iter(),
                });
            }
            let open = self.open.as_mut().expect("open");
            let trace = open.trace;
            match open.intervals.next() {
                Some(k) => self.read(k)?,
                None => {
                    self.open = None;
                    if self.rows.len() > 0 {
                        return self.finish(trace).map(Some);
                    }
                    continue;
                }
            }
            if self.rows.len() >= BATCH_ROWS {
                return self.finish(trace).map(Some);
            }
        }
        Ok(None)
    }

    fn finish(&mut self, trace: usize) -> Result<RecordBatch> {
        let name = self.traces[trace].name.clone();
        self.rows.finish(&name)
    }
}

impl Iterator for Scan {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.next_batch().transpose();
        if matches!(r, Some(Err(_))) {
            self.failed = true;
        }
        r
    }
}
