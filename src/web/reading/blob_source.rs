//! A [`TraceSource`] over a browser `Blob` (a dropped `File` is one).
//!
//! Only usable in a worker: `FileReaderSync` does not exist on the main
//! thread, where a synchronous read would freeze the page.

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, FileReaderSync};

use super::read_ahead::{self, Origin, ReadAhead, ReadCounts, SharedReadAhead};
use tarmac_lens_core::{Error, TraceSource};

pub struct BlobSource {
    blob: Blob,
    /// The same, for the read-ahead.
    origin: Origin,
    len: u64,
    reader: FileReaderSync,
    /// Only for a reader that lets the event loop run between reads (the
    /// slices arrive as tasks): one that never yields would fetch every
    /// byte twice.
    ahead: Option<SharedReadAhead>,
}

fn js_error(context: &str, err: JsValue) -> Error {
    let detail = err
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| err.as_string())
        .unwrap_or_else(|| format!("{err:?}"));
    Error::Read(format!("{context}: {detail}"))
}

impl BlobSource {
    pub fn new(blob: Blob) -> Result<BlobSource, Error> {
        let reader =
            FileReaderSync::new().map_err(|e| js_error("FileReaderSync unavailable", e))?;
        // Blob sizes are exact integers in an f64 (files stay far below 2^53).
        let len = blob.size() as u64;
        // Slicing a `File` asks the browser about the file each time (a
        // blocking round trip, measured at several milliseconds per slice
        // in a worker); slicing a plain `Blob` of the same bytes does not.
        let blob = blob
            .slice_with_f64_and_f64(0.0, len as f64)
            .map_err(|e| js_error("cannot slice the file", e))?;
        Ok(BlobSource {
            origin: Origin::Blob(blob.clone()),
            blob,
            len,
            reader,
            ahead: None,
        })
    }

    /// The whole of a small `blob` (an ELF image) in memory.
    pub fn read_whole(blob: Blob) -> Result<Vec<u8>, Error> {
        let mut src = BlobSource::new(blob)?;
        let mut bytes = vec![0u8; src.len() as usize];
        let n = src.read_at(0, &mut bytes)?;
        // A short read (the file changed since it was picked) would leave
        // zeros where the image's end should be.
        if n < bytes.len() {
            return Err(Error::Read(format!(
                "the file gave {n} of its {} bytes: was it changed since it was picked?",
                bytes.len()
            )));
        }
        Ok(bytes)
    }

    /// Reads long sequential slices ahead, asynchronously (see
    /// [`super::read_ahead`]).
    pub fn with_read_ahead(mut self) -> BlobSource {
        self.ahead = Some(SharedReadAhead::new(ReadAhead::default()));
        self
    }

    /// Asks for the first slice from `offset` now: the first short reads
    /// would ask for nothing until 960 KiB (the slice then 40 ms late); they
    /// never wait for it ([`super::read_ahead::ReadAhead::would_wait_for`]).
    pub fn read_ahead_from(&self, offset: u64) {
        if let Some(ahead) = &self.ahead {
            ahead.borrow_mut().advance(&self.origin, self.len, offset);
        }
    }

    /// Read-ahead whose nested worker reads each slice on its own (tests
    /// the path taken where the browser's streams take no BYOB reader).
    pub fn with_read_ahead_without_streams(mut self) -> BlobSource {
        self.ahead = Some(SharedReadAhead::new(ReadAhead::without_streams()));
        self
    }

    /// Read-ahead without the nested reading worker (tests the path taken
    /// where none can start).
    pub fn with_read_ahead_here(mut self) -> BlobSource {
        self.ahead = Some(SharedReadAhead::new(ReadAhead::here()));
        self
    }

    /// Whether a nested worker reads the slices ahead.
    pub fn reads_ahead_in_a_worker(&self) -> bool {
        self.ahead
            .as_ref()
            .is_some_and(|a| a.borrow().in_a_worker())
    }

    /// Bytes of long reads served from the read-ahead and read
    /// synchronously.
    pub fn read_counts(&self) -> ReadCounts {
        self.ahead
            .as_ref()
            .map(|a| a.borrow().counts)
            .unwrap_or_default()
    }

    /// The read-ahead, for a loop that reads through this source from
    /// elsewhere (inside a session) and must know when to wait for it.
    pub fn read_ahead(&self) -> Option<SharedReadAhead> {
        self.ahead.clone()
    }

    /// Waits for the next slice ahead, if one is on its way.
    pub async fn settle(&self) {
        if let Some(a) = &self.ahead {
            a.settle().await;
        }
    }
}

/// Bytes at `offset` of `blob` (`len` long), read now.
fn read_sync(
    blob: &Blob,
    reader: &FileReaderSync,
    len: u64,
    offset: u64,
    buf: &mut [u8],
) -> Result<usize, Error> {
    let end = offset.saturating_add(buf.len() as u64).min(len);
    if offset >= end {
        return Ok(0);
    }
    // Slicing a Blob is free; only the slice's bytes are read into memory.
    let slice = blob
        .slice_with_f64_and_f64(offset as f64, end as f64)
        .map_err(|e| js_error("cannot slice the file", e))?;
    let bytes = reader
        .read_as_array_buffer(&slice)
        .map_err(|e| js_error(&format!("cannot read the file at byte {offset}"), e))?;
    let array = Uint8Array::new(&bytes);
    let n = (array.length() as usize).min(buf.len());
    array.subarray(0, n as u32).copy_to(&mut buf[..n]);
    super::after_sync_read(n);
    Ok(n)
}

impl TraceSource for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize, Error> {
        let (blob, reader, len) = (&self.blob, &self.reader, self.len);
        read_ahead::read_through(
            self.ahead.as_ref(),
            &self.origin,
            len,
            offset,
            buf,
            |at, b| read_sync(blob, reader, len, at, b),
        )
    }
}
