//! How the workers read a trace and keep its index: a dropped `File`
//! through [`blob_source::BlobSource`] (`FileReaderSync`, in a worker),
//! with [`read_ahead`] reading the next slices asynchronously in a nested
//! worker (`read_ahead_reader.js`); a URL through [`http_source`] (ranges
//! by synchronous XHR, or one download); finished indexes in
//! [`index_cache`] (OPFS), which the page also lists and clears; a gzip
//! or Zstandard trace through [`compressed`], in place. A
//! session's source over a `Blob` is [`session_source`]: the block cache
//! and the read-ahead put together.

pub mod blob_source;
pub mod compressed;
pub mod http_source;
pub mod index_cache;
pub mod read_ahead;
pub mod url;

use tarmac_lens_core::{BlockCache, Error, TraceSource};

use blob_source::BlobSource;
use read_ahead::SharedReadAhead;

/// Call after each synchronous read of `bytes`. Each such read makes a
/// fresh `ArrayBuffer`, freed only when V8 collects its young objects, and
/// a worker that only reads and parses makes almost none: reading 1 GB
/// that way held 549-648 MB at its peak, and the Reports worker kept
/// 186-241 MB of them once done. So every [`COLLECT_EVERY`] bytes read
/// this makes about 4 MB of short-lived arrays, which fills the young
/// generation and has it collected with the buffers (peak 187-256 MB, for
/// 2.5% of the reading time; docs/performance.md).
pub(crate) fn after_sync_read(bytes: usize) {
    thread_local! {
        static SINCE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    let since = SINCE.with(|s| {
        s.set(s.get() + bytes);
        s.get()
    });
    if since < COLLECT_EVERY {
        return;
    }
    SINCE.with(|s| s.set(0));
    // Kept in a small ring, so none can be optimised away.
    let ring = js_sys::Array::new_with_length(16);
    for i in 0..512u32 {
        ring.set(i % 16, js_sys::Array::new_with_length(1024).into());
    }
}

/// See [`after_sync_read`].
const COLLECT_EVERY: usize = 64 << 20;

/// A session's source over a `Blob`: read through a block cache (for
/// queries), with read-ahead (for indexing and search); `indexing`: about
/// to be indexed from its start, so the first slice is asked for at once.
pub fn session_source(
    blob: web_sys::Blob,
    indexing: bool,
) -> Result<(Box<dyn TraceSource>, Option<SharedReadAhead>), Error> {
    let source = BlobSource::new(blob)?.with_read_ahead();
    if indexing {
        source.read_ahead_from(0);
    }
    let ahead = source.read_ahead();
    Ok((Box::new(BlockCache::new(source)), ahead))
}
