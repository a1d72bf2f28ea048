//! A query's result written as it streams: an aligned text table, CSV,
//! JSON, Arrow IPC or Parquet. Nothing holds the whole result: the table's
//! column widths come from its first batch.

use std::io::Write;

use datafusion::arrow::array::Array;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::schema::{SCHEMA_VERSION, VERSION_KEY};

/// How a result is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Columns aligned, a header and a rule; `NULL` for nulls.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON array of objects, a row each.
    Json,
    /// Arrow IPC stream.
    Arrow,
    /// A Parquet file.
    Parquet,
}

impl Format {
    /// The format named `name` (`table`, `csv`, `json`, `arrow`, `parquet`).
    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "table" => Format::Table,
            "csv" => Format::Csv,
            "json" => Format::Json,
            "arrow" => Format::Arrow,
            "parquet" => Format::Parquet,
            _ => return None,
        })
    }

    /// Whether it is binary (not for a terminal).
    pub fn is_binary(self) -> bool {
        matches!(self, Format::Arrow | Format::Parquet)
    }
}

/// Parquet settings every file gets: zstd natively (Snappy in wasm, where
/// no C codec is built), and the tables' schema version in its metadata.
pub fn parquet_properties() -> WriterProperties {
    #[cfg(not(target_arch = "wasm32"))]
    let compression = Compression::ZSTD(Default::default());
    #[cfg(target_arch = "wasm32")]
    let compression = Compression::SNAPPY;
    WriterProperties::builder()
        .set_compression(compression)
        .set_key_value_metadata(Some(vec![KeyValue::new(
            VERSION_KEY.to_string(),
            SCHEMA_VERSION.to_string(),
        )]))
        .build()
}

enum Sink<W: Write + Send> {
    Table(TableWriter<W>),
    // Boxed: in wasm32 it is twice the size of the next largest.
    Csv(Box<datafusion::arrow::csv::Writer<W>>),
    Json(datafusion::arrow::json::ArrayWriter<W>),
    Arrow(datafusion::arrow::ipc::writer::StreamWriter<W>),
    Parquet(ArrowWriter<W>),
}

/// A result being written.
pub struct ResultWriter<W: Write + Send> {
    sink: Sink<W>,
    rows: u64,
}

impl<W: Write + Send> ResultWriter<W> {
    /// Writes results of `schema` to `out` in `format`.
    pub fn new(format: Format, schema: SchemaRef, out: W) -> Result<Self, ArrowError> {
        let sink = match format {
            Format::Table => Sink::Table(TableWriter::new(out)),
            Format::Csv => Sink::Csv(Box::new(
                datafusion::arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(out),
            )),
            Format::Json => Sink::Json(datafusion::arrow::json::ArrayWriter::new(out)),
            Format::Arrow => Sink::Arrow(datafusion::arrow::ipc::writer::StreamWriter::try_new(
                out, &schema,
            )?),
            Format::Parquet => Sink::Parquet(
                ArrowWriter::try_new(out, schema, Some(parquet_properties()))
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?,
            ),
        };
        Ok(ResultWriter { sink, rows: 0 })
    }

    /// Writes a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        self.rows += batch.num_rows() as u64;
        match &mut self.sink {
            Sink::Table(w) => w.write(batch),
            Sink::Csv(w) => w.write(batch),
            Sink::Json(w) => w.write(batch),
            Sink::Arrow(w) => w.write(batch),
            Sink::Parquet(w) => w
                .write(batch)
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
        }
    }

    /// Ends the output (a table with no batch still gets its header from
    /// `schema`); the rows written.
    pub fn finish(self, schema: &SchemaRef) -> Result<u64, ArrowError> {
        match self.sink {
            Sink::Table(w) => w.finish(schema)?,
            Sink::Csv(w) => {
                let mut out = w.into_inner();
                out.flush()?;
            }
            Sink::Json(mut w) => {
                w.finish()?;
                w.into_inner().flush()?;
            }
            Sink::Arrow(mut w) => {
                w.finish()?;
                w.into_inner()?.flush()?;
            }
            Sink::Parquet(w) => {
                w.close()
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?;
            }
        }
        Ok(self.rows)
    }
}

/// An aligned text table, streamed: widths from the first batch (a later,
/// wider value just pushes its row's next columns right).
struct TableWriter<W: Write> {
    out: W,
    widths: Option<Vec<usize>>,
}

impl<W: Write> TableWriter<W> {
    fn new(out: W) -> Self {
        TableWriter { out, widths: None }
    }

    fn cells(batch: &RecordBatch) -> Result<Vec<Vec<String>>, ArrowError> {
        let options = FormatOptions::default().with_null("NULL");
        let mut columns = Vec::with_capacity(batch.num_columns());
        for c in batch.columns() {
            let f = ArrayFormatter::try_new(c.as_ref(), &options)?;
            columns.push((0..c.len()).map(|i| f.value(i).to_string()).collect());
        }
        Ok(columns)
    }

    fn header(&mut self, schema: &SchemaRef, columns: &[Vec<String>]) -> Result<(), ArrowError> {
        let widths: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let widest = columns
                    .get(i)
                    .map_or(0, |c| c.iter().map(String::len).max().unwrap_or(0));
                widest.max(f.name().len())
            })
            .collect();
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        self.line(schema, &widths, &names, false)?;
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        self.line(schema, &widths, &rule, false)?;
        self.widths = Some(widths);
        Ok(())
    }

    fn line(
        &mut self,
        schema: &SchemaRef,
        widths: &[usize],
        cells: &[String],
        align_numbers: bool,
    ) -> Result<(), ArrowError> {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let w = widths.get(i).copied().unwrap_or(0);
            let numeric = align_numbers && schema.field(i).data_type().is_numeric();
            let last = i + 1 == cells.len();
            if numeric {
                s.push_str(&format!("{cell:>w$}"));
            } else if last {
                s.push_str(cell);
            } else {
                s.push_str(&format!("{cell:<w$}"));
            }
        }
        writeln!(self.out, "{}", s.trim_end())?;
        Ok(())
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        let columns = Self::cells(batch)?;
        let schema = batch.schema();
        if self.widths.is_none() {
            self.header(&schema, &columns)?;
        }
        let widths = self.widths.clone().unwrap_or_default();
        for r in 0..batch.num_rows() {
            let row: Vec<String> = columns.iter().map(|c| c[r].clone()).collect();
            self.line(&schema, &widths, &row, true)?;
        }
        Ok(())
    }

    fn finish(mut self, schema: &SchemaRef) -> Result<(), ArrowError> {
        if self.widths.is_none() {
            self.header(schema, &[])?;
        }
        self.out.flush()?;
        Ok(())
    }
}
