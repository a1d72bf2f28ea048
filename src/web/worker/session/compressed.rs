//! A gzip or Zstandard trace opened in place: its decompressor table is
//! built by one pass over the stream (a step per task), then a session
//! indexes the decompressed bytes; the index cache keeps the table with
//! the index, so a reopened trace is browsed at once. No range workers:
//! a byte range of a compressed file cannot be entered without the table.

use tarmac_lens_core::{
    compressed::unbundle, BlockCache, Error, ParseOptions, Result, Session, TraceIdentity,
    TraceSource,
};

use super::{in_place, with, Shared};
use crate::web::reading::blob_source::BlobSource;
use crate::web::reading::index_cache;
use crate::web::shared::protocol::{OpenOptions, Reading};
use crate::web::worker::runtime::parse_options;

/// The compressed bytes of a dropped file. Without the read-ahead: it
/// fetches slices by the offsets the session reads, which are
/// decompressed ones here.
fn blob_source(blob: web_sys::Blob) -> Result<Box<dyn TraceSource>> {
    Ok(Box::new(BlockCache::new(BlobSource::new(blob)?)))
}

/// Opens a dropped gzip or Zstandard file: from the index cache if it
/// holds `cache`'s key (`cached`), else by reading it once for its table
/// and indexing it.
pub(super) async fn open(
    generation: u32,
    blob: web_sys::Blob,
    options: OpenOptions,
    cache: Option<(String, u64)>,
    cached: Option<Vec<u8>>,
) {
    let parse = parse_options(options);
    if let (Some(bytes), Some((key, mtime))) = (cached, &cache) {
        match restore(blob.clone(), &bytes, *mtime, parse) {
            Ok((session, shared)) => {
                return with(|w| {
                    w.install(
                        generation,
                        (session, None),
                        options,
                        None,
                        Reading::CachedIndex,
                        Some(shared),
                    )
                })
            }
            Err(e) => {
                web_sys::console::warn_1(
                    &format!("tarmac-lens: cached index not used: {e}").into(),
                );
                let _ = index_cache::remove(key).await;
            }
        }
    }
    let opened = match blob_source(blob).and_then(|s| in_place::open(s, None)) {
        Ok(s) => finish(s, generation, parse).await,
        Err(e) => Err(e),
    };
    match opened {
        Ok(Some((session, shared))) => {
            let cache = cache.map(|(key, mtime)| {
                let len = shared.len();
                (key, TraceIdentity { len, mtime })
            });
            with(|w| {
                w.install(
                    generation,
                    (session, None),
                    options,
                    cache,
                    Reading::File,
                    Some(shared),
                )
            })
        }
        Ok(None) => {}
        Err(e) => with(|w| w.fail_opening(e.to_string())),
    }
}

/// Builds `shared`'s table, then opens a session over it; `None` if
/// another trace was opened meanwhile.
async fn finish(
    shared: Shared,
    generation: u32,
    parse: ParseOptions,
) -> Result<Option<(Session<Box<dyn TraceSource>>, Shared)>> {
    if !in_place::build_table(&shared, || with(|w| w.is_current(generation))).await? {
        return Ok(None);
    }
    let session = Session::open(Box::new(shared.clone()) as Box<dyn TraceSource>, parse)?;
    Ok(Some((session, shared)))
}

/// A session restored from a saved index with its table.
fn restore(
    blob: web_sys::Blob,
    bytes: &[u8],
    mtime: u64,
    parse: ParseOptions,
) -> Result<(Session<Box<dyn TraceSource>>, Shared)> {
    let (table, saved) = unbundle(bytes)?;
    let table = table
        .filter(|t| t.is_complete())
        .ok_or_else(|| Error::IndexFile("the saved index has no decompressor table".into()))?;
    let shared = in_place::open(blob_source(blob)?, Some(table))?;
    let id = TraceIdentity {
        len: shared.len(),
        mtime,
    };
    let session = Session::restore(
        Box::new(shared.clone()) as Box<dyn TraceSource>,
        saved,
        id,
        parse,
    )?;
    Ok((session, shared))
}

/// A fetched trace's source, read in place if it is gzip or Zstandard
/// (with the handle that keeps its table); `None` if another trace was
/// opened meanwhile.
pub(super) async fn over(
    mut source: Box<dyn TraceSource>,
    generation: u32,
) -> Result<Option<(Box<dyn TraceSource>, Option<Shared>)>> {
    if in_place::format_of(&mut *source)?.is_none() {
        return Ok(Some((source, None)));
    }
    let shared = in_place::open(source, None)?;
    if !in_place::build_table(&shared, || with(|w| w.is_current(generation))).await? {
        return Ok(None);
    }
    Ok(Some((Box::new(shared.clone()), Some(shared))))
}
