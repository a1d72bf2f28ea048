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
