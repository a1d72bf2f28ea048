//! The SQL engine as a page worker runs it (wasm32 only): built as a wasm
//! module of its own (`scripts/build-sql-wasm.sh`), fetched when the
//! Query pane first opens, so the page's first load does not carry it.
//!
//! The worker hands over what the session worker already has: the saved
//! index's bytes, the trace's length and a `read(offset, length)` that
//! returns the bytes there (`FileReaderSync` over the dropped `File` in a
//! worker, or `fs.readSync` in Node), and the ELF image's bytes if any.
//! A query runs in one partition (no threads); its result stays in the
//! engine, read back by pages of rows as JSON, or whole as Arrow IPC. A
//! result larger than [`KEEP_BYTES`] is counted to its end but only its
//! first rows kept: a `SELECT *` of a gigabyte trace must not take the
//! worker's memory.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use js_sys::{Function, Promise, Uint8Array};
use tarmac_lens_core::{DebugInfo, Index, SymbolTable, TraceSource};
use wasm_bindgen::prelude::*;

use crate::output::{Format, ResultWriter};
use crate::schema::{Table, DURATION_KEY};
use crate::trace::Trace;

/// A JavaScript `read(offset, length) -> Uint8Array` as a trace source.
struct JsSource {
    len: u64,
    read: Function,
}

// SAFETY: wasm32-unknown-unknown without atomics runs one thread: nothing
// is ever sent to or shared with another, which is all these promise.
unsafe impl Send for JsSource {}
unsafe impl Sync for JsSource {}

impl TraceSource for JsSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let got = self
            .read
            .call2(
                &JsValue::NULL,
                &JsValue::from_f64(offset as f64),
                &JsValue::from_f64(buf.len() as f64),
            )
            .map_err(|e| tarmac_lens_core::Error::Read(format!("read({offset}): {e:?}")))?;
        let bytes = Uint8Array::new(&got);
        let n = (bytes.length() as usize).min(buf.len());
        bytes.subarray(0, n as u32).copy_to(&mut buf[..n]);
        Ok(n)
    }
}

/// The most of a result kept, in Arrow's bytes: beyond it rows are
/// counted, not kept (a worker's wasm32 memory is 4 GiB, and the engine's
/// own work needs room too).
const KEEP_BYTES: usize = 256 << 20;

/// A query's result: its schema, the batches kept, and all its rows.
#[derive(Default)]
struct Kept {
    schema: Option<SchemaRef>,
    batches: Vec<RecordBatch>,
    bytes: usize,
    rows: u64,
    kept: u64,
}

/// The SQL engine over one trace.
#[wasm_bindgen]
pub struct SqlEngine {
    ctx: SessionContext,
    /// The last query's result (shared with the query's future).
    result: Rc<RefCell<Kept>>,
    /// The trace's length as the index was made for it.
    indexed_len: u64,
}

fn js_error(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

#[wasm_bindgen]
impl SqlEngine {
    /// An engine over the trace of `len` bytes that `read` reads, indexed
    /// by `index` (a saved index's bytes), with an optional ELF image.
    #[wasm_bindgen(constructor)]
    pub fn new(
        name: String,
        len: f64,
        read: Function,
        index: &[u8],
        elf: Option<Vec<u8>>,
    ) -> Result<SqlEngine, JsValue> {
        let (index, identity) = Index::from_bytes(index).map_err(js_error)?;
        let source = JsSource {
            len: len as u64,
            read: read.clone(),
        };
        let open = Arc::new(move || {
            Ok(Box::new(JsSource {
                len: source.len,
                read: source.read.clone(),
            }) as Box<dyn TraceSource + Send>)
        });
        let mut trace = Trace::new(name, Arc::new(index), open);
        if let Some(elf) = elf {
            let symbols = SymbolTable::from_elf_bytes(&elf, 0).map_err(js_error)?;
            let dwarf = DebugInfo::from_elf_bytes(elf.into(), 0).map_err(js_error)?;
            trace = trace.with_image(symbols, dwarf);
        }
        let ctx = crate::session(vec![Arc::new(trace)], false, 1).map_err(js_error)?;
        Ok(SqlEngine {
            ctx,
            result: Rc::default(),
            indexed_len: identity.len,
        })
    }

    /// The length of the trace the index was made for (a compressed
    /// trace's index counts its text, not the file's bytes).
    #[wasm_bindgen(js_name = indexedLength)]
    pub fn indexed_len(&self) -> f64 {
        self.indexed_len as f64
    }

    /// Every table with its columns, as JSON: `[{name, about, columns:
    /// [{name, type, doc}]}]`.
    pub fn tables() -> String {
        let json = |s: &str| serde_json::Value::from(s).to_string();
        let tables: Vec<String> = Table::ALL
            .iter()
            .map(|t| {
                let columns: Vec<String> = t
                    .columns()
                    .iter()
                    .map(|c| {
                        format!(
                            "{{\"name\":{},\"type\":{},\"doc\":{}}}",
                            json(c.name),
                            json(c.ty.name()),
                            json(c.doc)
                        )
                    })
                    .collect();
                format!(
                    "{{\"name\":{},\"about\":{},\"columns\":[{}]}}",
                    json(t.name()),
                    json(t.about()),
                    columns.join(",")
                )
            })
            .collect();
        format!("[{}]", tables.join(","))
    }

    /// Runs `sql`, keeping its result (its first [`KEEP_BYTES`]);
    /// resolves to its row count, or rejects with the error (its
    /// position in the query included).
    pub fn query(&self, sql: String) -> Promise {
        let (ctx, result) = (self.ctx.clone(), self.result.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            *result.borrow_mut() = Kept::default();
            let mut stream = crate::query(&ctx, &sql).await.map_err(js_error)?;
            result.borrow_mut().schema = Some(stream.schema());
            while let Some(batch) = stream.next().await {
                let batch = batch.map_err(|e| js_error(crate::QueryError::new(e, &sql)))?;
                let mut kept = result.borrow_mut();
                kept.rows += batch.num_rows() as u64;
                if kept.bytes < KEEP_BYTES {
                    kept.bytes += batch.get_array_memory_size();
                    kept.kept += batch.num_rows() as u64;
                    kept.batches.push(batch);
                }
            }
            let rows = result.borrow().rows;
            Ok(JsValue::from_f64(rows as f64))
        })
    }

    /// The rows of the last result kept (its first rows, all of them
    /// unless it passed [`KEEP_BYTES`]).
    pub fn kept(&self) -> f64 {
        self.result.borrow().kept as f64
    }

    /// The result's columns as JSON: `[[name, type, duration], ...]`
    /// (`duration`: a column the tables mark as one, see
    /// [`DURATION_KEY`]).
    pub fn columns(&self) -> String {
        let result = self.result.borrow();
        let fields: Vec<String> = result
            .schema
            .iter()
            .flat_map(|s| s.fields().iter())
            .map(|f| {
                serde_json::json!([
                    f.name(),
                    f.data_type().to_string(),
                    f.metadata().contains_key(DURATION_KEY)
                ])
                .to_string()
            })
            .collect();
        format!("[{}]", fields.join(","))
    }

    /// Rows `offset..offset + count` of the result kept, as a JSON array
    /// of rows, each an array of its cells as text (as the CLI's CSV
    /// writes them; `null` for a null).
    pub fn rows(&self, offset: f64, count: f64) -> Result<String, JsValue> {
        let (mut skip, mut left) = (offset as usize, count as usize);
        let options = FormatOptions::default();
        let mut rows: Vec<String> = Vec::new();
        for b in self.result.borrow().batches.iter() {
            if left == 0 {
                break;
            }
            if skip >= b.num_rows() {
                skip -= b.num_rows();
                continue;
            }
            let take = left.min(b.num_rows() - skip);
            let formatters = b
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
                .collect::<Result<Vec<_>, _>>()
                .map_err(js_error)?;
            for row in skip..skip + take {
                let cells: Vec<String> = formatters
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        if b.column(i).is_null(row) {
                            "null".to_string()
                        } else {
                            serde_json::Value::from(f.value(row).to_string()).to_string()
                        }
                    })
                    .collect();
                rows.push(format!("[{}]", cells.join(",")));
            }
            left -= take;
            skip = 0;
        }
        Ok(format!("[{}]", rows.join(",")))
    }

    /// The whole result as an Arrow IPC stream (or Parquet, `parquet`).
    pub fn download(&self, parquet: bool) -> Result<Vec<u8>, JsValue> {
        let result = self.result.borrow();
        let Some(schema) = result.schema.clone() else {
            return Ok(Vec::new());
        };
        let format = if parquet {
            Format::Parquet
        } else {
            Format::Arrow
        };
        let mut out = Vec::new();
        let mut w = ResultWriter::new(format, schema.clone(), &mut out).map_err(js_error)?;
        for b in result.batches.iter() {
            w.write(b).map_err(js_error)?;
        }
        w.finish(&schema).map_err(js_error)?;
        Ok(out)
    }
}
