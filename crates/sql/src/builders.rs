//! A table's rows being built, column by column, only for the columns the
//! query asked for (projection pushdown): a column not asked for is
//! neither computed nor stored.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanBuilder, StringArray, StringBuilder, UInt32Builder, UInt64Builder,
    UInt8Builder,
};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::error::Result;

use crate::schema::{Table, Type};

enum Builder {
    U64(UInt64Builder),
    U32(UInt32Builder),
    U8(UInt8Builder),
    Bool(BooleanBuilder),
    Text(StringBuilder),
}

/// Which columns of a table a scan makes, and the table's `run` column.
#[derive(Clone, Debug)]
pub(crate) struct Projection {
    /// Output columns: `None` is the `run` column, `Some(i)` the table's
    /// column `i`.
    pub(crate) columns: Vec<Option<usize>>,
    /// The output schema.
    pub(crate) schema: SchemaRef,
}

impl Projection {
    /// The columns `projection` picks of `table`'s schema (with a leading
    /// `run` column when `with_run`); all without a projection.
    pub(crate) fn new(table: Table, with_run: bool, projection: Option<&Vec<usize>>) -> Self {
        let full = table.schema(with_run);
        let all: Vec<usize> = (0..full.fields().len()).collect();
        let picked = projection.unwrap_or(&all);
        let columns = picked
            .iter()
            .map(|&i| if with_run { i.checked_sub(1) } else { Some(i) })
            .collect();
        let schema = Arc::new(full.project(picked).expect("projection within the schema"));
        Projection { columns, schema }
    }

    /// Whether table column `i` is made.
    pub(crate) fn wants(&self, i: usize) -> bool {
        self.columns.contains(&Some(i))
    }
}

/// Rows of one table, for the projected columns only.
pub(crate) struct Rows {
    /// Per table column: its builder, if projected.
    builders: Vec<Option<Builder>>,
    projection: Projection,
    len: usize,
}

impl Rows {
    pub(crate) fn new(table: Table, projection: Projection) -> Rows {
        let builders = table
            .columns()
            .iter()
            .enumerate()
            .map(|(i, c)| {
                projection.wants(i).then(|| match c.ty {
                    Type::U64 => Builder::U64(UInt64Builder::new()),
                    Type::U32 => Builder::U32(UInt32Builder::new()),
                    Type::U8 => Builder::U8(UInt8Builder::new()),
                    Type::Bool => Builder::Bool(BooleanBuilder::new()),
                    Type::Text => Builder::Text(StringBuilder::new()),
                })
            })
            .collect();
        Rows {
            builders,
            projection,
            len: 0,
        }
    }

    /// Room for `rows` rows in every column, made before the first row:
    /// a table whose length is known up front (the index's) then never
    /// copies its columns as they grow.
    pub(crate) fn reserve(&mut self, rows: usize) {
        debug_assert_eq!(self.len, 0, "reserved after the first row");
        for b in self.builders.iter_mut().flatten() {
            *b = match b {
                Builder::U64(_) => Builder::U64(UInt64Builder::with_capacity(rows)),
                Builder::U32(_) => Builder::U32(UInt32Builder::with_capacity(rows)),
                Builder::U8(_) => Builder::U8(UInt8Builder::with_capacity(rows)),
                Builder::Bool(_) => Builder::Bool(BooleanBuilder::with_capacity(rows)),
                Builder::Text(_) => Builder::Text(StringBuilder::with_capacity(rows, rows * 16)),
            };
        }
    }

    /// Whether column `i` is made (so worth computing).
    #[inline]
    pub(crate) fn wants(&self, i: usize) -> bool {
        self.builders[i].is_some()
    }

    /// Rows so far.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Ends a row (every projected column was given a value).
    #[inline]
    pub(crate) fn end_row(&mut self) {
        self.len += 1;
    }

    #[inline]
    pub(crate) fn u64(&mut self, i: usize, v: Option<u64>) {
        if let Some(Builder::U64(b)) = &mut self.builders[i] {
            b.append_option(v);
        }
    }

    /// Appends a whole column's values at once (for columns made after
    /// the rows' other fields).
    pub(crate) fn u64_values(&mut self, i: usize, v: &[u64]) {
        if let Some(Builder::U64(b)) = &mut self.builders[i] {
            b.append_slice(v);
        }
    }

    /// [`Rows::u64_values`] for a `u32` column.
    pub(crate) fn u32_values(&mut self, i: usize, v: &[u32]) {
        if let Some(Builder::U32(b)) = &mut self.builders[i] {
            b.append_slice(v);
        }
    }

    #[inline]
    pub(crate) fn u32(&mut self, i: usize, v: Option<u32>) {
        if let Some(Builder::U32(b)) = &mut self.builders[i] {
            b.append_option(v);
        }
    }

    #[inline]
    pub(crate) fn u8(&mut self, i: usize, v: Option<u8>) {
        if let Some(Builder::U8(b)) = &mut self.builders[i] {
            b.append_option(v);
        }
    }

    #[inline]
    pub(crate) fn bool(&mut self, i: usize, v: bool) {
        if let Some(Builder::Bool(b)) = &mut self.builders[i] {
            b.append_value(v);
        }
    }

    #[inline]
    pub(crate) fn text(&mut self, i: usize, v: Option<&str>) {
        if let Some(Builder::Text(b)) = &mut self.builders[i] {
            b.append_option(v);
        }
    }

    /// Text from trace bytes (ASCII in practice; anything else replaced).
    #[inline]
    pub(crate) fn bytes(&mut self, i: usize, v: Option<&[u8]>) {
        if let Some(Builder::Text(b)) = &mut self.builders[i] {
            match v {
                Some(v) => match std::str::from_utf8(v) {
                    Ok(s) => b.append_value(s),
                    Err(_) => b.append_value(String::from_utf8_lossy(v)),
                },
                None => b.append_null(),
            }
        }
    }

    /// The rows so far as a batch in the projection's order (`run` filled
    /// with `run`); the builders start afresh.
    pub(crate) fn finish(&mut self, run: &str) -> Result<RecordBatch> {
        let len = std::mem::take(&mut self.len);
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.projection.columns.len());
        for c in &self.projection.columns {
            arrays.push(match c {
                None => Arc::new(StringArray::from_iter_values(std::iter::repeat_n(run, len))),
                Some(i) => match self.builders[*i].as_mut().expect("projected") {
                    Builder::U64(b) => Arc::new(b.finish()),
                    Builder::U32(b) => Arc::new(b.finish()),
                    Builder::U8(b) => Arc::new(b.finish()),
                    Builder::Bool(b) => Arc::new(b.finish()),
                    Builder::Text(b) => Arc::new(b.finish()),
                },
            });
        }
        // A projection may be empty (`count(*)`): the row count says it all.
        let options = RecordBatchOptions::new().with_row_count(Some(len));
        Ok(RecordBatch::try_new_with_options(
            self.projection.schema.clone(),
            arrays,
            &options,
        )?)
    }
}
