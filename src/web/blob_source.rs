//! A [`TraceSource`] over a browser `Blob` (a dropped `File` is one).
//!
//! Only usable in a worker: `FileReaderSync` does not exist on the main
//! thread, where a synchronous read would freeze the page.

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FileReaderSync};

use crate::source::{SourceError, TraceSource};

pub struct BlobSource {
    blob: Blob,
    len: u64,
    reader: FileReaderSync,
}

fn js_error(context: &str, err: JsValue) -> SourceError {
    let detail = err
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| err.as_string())
        .unwrap_or_else(|| format!("{err:?}"));
    SourceError(format!("{context}: {detail}"))
}

impl BlobSource {
    pub fn new(blob: Blob) -> Result<BlobSource, SourceError> {
        let reader =
            FileReaderSync::new().map_err(|e| js_error("FileReaderSync unavailable", e))?;
        // Blob sizes are exact integers in an f64 (files stay far below 2^53).
        let len = blob.size() as u64;
        Ok(BlobSource { blob, len, reader })
    }
}

impl TraceSource for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, SourceError> {
        let end = offset.saturating_add(buf.len() as u64).min(self.len);
        if offset >= end {
            return Ok(0);
        }
        // Slicing a Blob is free; only the slice's bytes are read into memory.
        let slice = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(|e| js_error("cannot slice the file", e))?;
        let bytes = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|e| js_error(&format!("cannot read the file at byte {offset}"), e))?;
        let array = Uint8Array::new(&bytes);
        let n = (array.length() as usize).min(buf.len());
        array.subarray(0, n as u32).copy_to(&mut buf[..n]);
        Ok(n)
    }
}
