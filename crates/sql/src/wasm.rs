//! The SQL engine as a page worker runs it (wasm32 only): built as a wasm
//! module of its own (`scripts/build-sql-wasm.sh`), fetched when the
//! Query pane first opens, so the page's first load does not carry it.
//!
//! The worker hands over what the session worker already has: the saved
//! index's bytes, the trace's length and a `read(offset, length)` that
//! returns the bytes there (`FileReaderSync` over the dropped `File` in a
//! worker, or `fs.readSync` in Node), and the ELF image's bytes if any.
//! A query runs in one partition (no threads); its result stays in the
//! engine, read back by pages of rows as JSON, or whole as Arrow IPC.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::SessionContext;
use futures::StreamExt;
use js_sys::{Function, Promise, Uint8Array};
use tarmac_lens_core::{DebugInfo, Index, SymbolTable, TraceSource};
use wasm_bindgen::prelude::*;

use crate::output::{Format, ResultWriter};
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

/// The SQL engine over one trace.
#[wasm_bindgen]
pub struct SqlEngine {
    ctx: SessionContext,
    /// The last query's result (shared with the query's future).
    result: Rc<RefCell<Vec<RecordBatch>>>,
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
        let (index, _) = Index::from_bytes(index).map_err(js_error)?;
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
        })
    }

    /// Runs `sql`, keeping its result; resolves to its row count, or
    /// rejects with the error (its position in the query included).
    pub fn query(&self, sql: String) -> Promise {
        let (ctx, result) = (self.ctx.clone(), self.result.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            result.borrow_mut().clear();
            let mut stream = crate::query(&ctx, &sql).await.map_err(js_error)?;
            let mut rows = 0usize;
            while let Some(batch) = stream.next().await {
                let batch = batch.map_err(|e| js_error(crate::QueryError::new(e, &sql)))?;
                rows += batch.num_rows();
                result.borrow_mut().push(batch);
            }
            Ok(JsValue::from_f64(rows as f64))
        })
    }

    /// The result's column names and types, as JSON `[[name, type], ...]`.
    pub fn columns(&self) -> String {
        let fields: Vec<(String, String)> = self
            .result
            .borrow()
            .first()
            .map(|b| {
                b.schema()
                    .fields()
                    .iter()
                    .map(|f| (f.name().clone(), f.data_type().to_string()))
                    .collect()
            })
            .unwrap_or_default();
        format!(
            "[{}]",
            fields
                .iter()
                .map(|(n, t)| format!("[{n:?},{t:?}]"))
                .collect::<Vec<_>>()
                .join(",")
        )
    }

    /// Rows `offset..offset + count` of the result as a JSON array.
    pub fn rows(&self, offset: f64, count: f64) -> Result<String, JsValue> {
        let (mut skip, mut left) = (offset as usize, count as usize);
        let mut out = Vec::new();
        {
            let mut w = datafusion::arrow::json::ArrayWriter::new(&mut out);
            for b in self.result.borrow().iter() {
                if left == 0 {
                    break;
                }
                if skip >= b.num_rows() {
                    skip -= b.num_rows();
                    continue;
                }
                let take = left.min(b.num_rows() - skip);
                w.write(&b.slice(skip, take)).map_err(js_error)?;
                left -= take;
                skip = 0;
            }
            w.finish().map_err(js_error)?;
        }
        String::from_utf8(out).map_err(js_error)
    }

    /// The whole result as an Arrow IPC stream (or Parquet, `parquet`).
    pub fn download(&self, parquet: bool) -> Result<Vec<u8>, JsValue> {
        let result = self.result.borrow();
        let Some(first) = result.first() else {
            return Ok(Vec::new());
        };
        let schema = first.schema();
        let format = if parquet {
            Format::Parquet
        } else {
            Format::Arrow
        };
        let mut out = Vec::new();
        let mut w = ResultWriter::new(format, schema.clone(), &mut out).map_err(js_error)?;
        for b in result.iter() {
            w.write(b).map_err(js_error)?;
        }
        w.finish(&schema).map_err(js_error)?;
        Ok(out)
    }
}
