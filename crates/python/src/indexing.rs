//! The trace's index, with the CLI's rules: the file `TRACE.index` beside
//! the trace is reused while it is current (same length and modification
//! time, same options, a packed trace's decompressor table bundled in
//! front), and otherwise built and written there, so the CLI and Python
//! share it both ways.
//!
//! Building runs on threads of its own, without the interpreter: a plain
//! trace memory-mapped and cut into ranges indexed in parallel, then
//! stitched (the CLI's parallel index); a packed one in one pass that
//! also records its decompressor table. The progress callback hears
//! `(0, total)` before they start; the calling thread then holds the
//! interpreter, and every tenth of a second runs the signal handlers
//! (`Python::check_signals`: Ctrl-C raises `KeyboardInterrupt` there) and
//! the progress callback; either raising sets a flag on which every read
//! of the indexing threads fails, and the exception is the one `open`
//! raises.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, UNIX_EPOCH};

use pyo3::prelude::*;
use tarmac_lens_core::{
    compressed::{bundle, unbundle, Table},
    dialect_of, split_offsets, stitch, Index, IndexOptions, ParseOptions, RangeIndex, SliceSource,
    TraceIdentity,
};

use crate::errors::{error, Error};
use crate::source::{Opener, Source, Stoppable, Storage, STOPPED};

/// What `open` does with the index file.
pub struct IndexFile {
    /// Where it is (default `TRACE.index`).
    pub path: PathBuf,
    /// Write it after building (else only use it if current).
    pub write: bool,
    /// Rebuild even if it is current.
    pub force: bool,
}

/// An index, and the packed trace's decompressor table.
pub struct Obtained {
    pub index: Index,
    /// The index serialized (as its file holds it, without the table).
    pub bytes: Vec<u8>,
    pub table: Option<Table>,
    /// Whether it came from the index file.
    pub reused: bool,
}

fn identity(path: &Path) -> std::io::Result<TraceIdentity> {
    let md = std::fs::metadata(path)?;
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    Ok(TraceIdentity {
        len: md.len(),
        mtime,
    })
}

/// The index file's index and table if it is current for this trace and
/// these options.
fn reusable(
    opener: &Opener,
    file: &IndexFile,
    parse: ParseOptions,
) -> Option<(Index, Option<Table>, Vec<u8>)> {
    if file.force || !file.path.exists() {
        return None;
    }
    let bytes = std::fs::read(&file.path).ok()?;
    let (table, rest) = unbundle(&bytes).ok()?;
    let (index, built_for) = Index::from_bytes(rest).ok()?;
    let now = identity(&opener.path).ok()?;
    let packed = opener.storage == Storage::Packed;
    let o = index.options().parse;
    let current = built_for == now
        // A plain trace's index covers as many bytes as the file has; a
        // packed one's covers more, and is no use without its table.
        && (index.summary().bytes == now.len) != packed
        && (table.is_some() || !packed)
        && o.big_endian == parse.big_endian
        && o.implicit_thumb == parse.implicit_thumb
        && o.cpu == parse.cpu;
    current.then(|| (index, table, rest.to_vec()))
}

/// The index of the trace `opener` opens: reused or built (see the module).
pub fn obtain(
    py: Python<'_>,
    opener: &Opener,
    file: &IndexFile,
    parse: ParseOptions,
    jobs: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Obtained> {
    let name = opener.path.display().to_string();
    let total = std::fs::metadata(&opener.path).map_or(0, |m| m.len());
    if let Some((index, table, bytes)) = reusable(opener, file, parse) {
        if let Some(p) = progress {
            let len = index.summary().bytes;
            p.call1((len, len))?;
        }
        return Ok(Obtained {
            index,
            bytes,
            table,
            reused: true,
        });
    }
    let opts = IndexOptions {
        parse,
        ..IndexOptions::default()
    };
    // A packed trace's length is known at its end only.
    let of = (opener.storage == Storage::Plain).then_some(total);
    // Heard before a byte is read: a progress bar starts at 0, and a
    // callback that raises (or Ctrl-C in it) stops what never started.
    if let Some(p) = progress {
        p.call1((0u64, of))?;
    }
    let stop = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel();
    // Waited on without the interpreter, from the calling thread only.
    let rx = std::sync::Mutex::new(rx);
    let built = std::thread::scope(|s| {
        let (stop, done) = (&stop, &done);
        s.spawn(move || {
            let r = match opener.storage {
                Storage::Packed => build_packed(opener, opts, stop, done),
                _ => build_plain(&opener.path, opts, jobs, stop, done).map(|i| (i, None)),
            };
            let _ = tx.send(r);
        });
        let mut raised: Option<PyErr> = None;
        loop {
            match py.detach(|| {
                let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
                rx.recv_timeout(Duration::from_millis(100))
            }) {
                Ok(r) => break (r, raised),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break (Err(tarmac_lens_core::Error::Read(STOPPED.into())), raised)
                }
                Err(mpsc::RecvTimeoutError::Timeout) if raised.is_none() => {
                    let at = done.load(Ordering::Relaxed);
                    let r = py
                        .check_signals()
                        .and_then(|()| progress.map_or(Ok(()), |p| p.call1((at, of)).map(drop)));
                    if let Err(e) = r {
                        stop.store(true, Ordering::Relaxed);
                        raised = Some(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    });
    let (index, table) = match built {
        (_, Some(raised)) => return Err(raised),
        (Ok(r), None) => r,
        (Err(e), None) => return Err(error::<Error>(py, format!("{name}: {e}"))),
    };
    if let Some(p) = progress {
        let len = index.summary().bytes;
        p.call1((len, len))?;
    }
    let id = identity(&opener.path).map_err(|e| error::<Error>(py, format!("{name}: {e}")))?;
    let bytes = index.to_bytes(id);
    if file.write {
        let written = match &table {
            Some(t) => std::fs::write(&file.path, bundle(t, &bytes)),
            None => std::fs::write(&file.path, &bytes),
        };
        if let Err(e) = written {
            // Not fatal: the index still serves this session.
            let message = format!("cannot write index {}: {e}", file.path.display());
            let warning = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
            PyErr::warn(py, &warning, &std::ffi::CString::new(message)?, 1)?;
        }
    }
    Ok(Obtained {
        index,
        bytes,
        table,
        reused: false,
    })
}

/// A packed trace in one pass, which records its decompressor table too.
fn build_packed(
    opener: &Opener,
    opts: IndexOptions,
    stop: &AtomicBool,
    done: &AtomicU64,
) -> tarmac_lens_core::Result<(Index, Option<Table>)> {
    let mut source = Stoppable {
        inner: opener.open()?,
        stop,
        done,
    };
    let index = Index::build(&mut source, opts, |_| {})?;
    let table = match &source.inner {
        Source::Packed(p) => Some(p.table()),
        Source::Plain(_) => None,
    };
    Ok((index, table))
}

/// Ranges under this are not worth a thread (the CLI's threshold).
const PARALLEL_FROM: u64 = 8 << 20;

/// A plain trace, memory-mapped (no copy from the page cache), in `jobs`
/// ranges at once, then stitched: the index one sequential pass builds.
fn build_plain(
    path: &Path,
    opts: IndexOptions,
    jobs: usize,
    stop: &AtomicBool,
    done: &AtomicU64,
) -> tarmac_lens_core::Result<Index> {
    let read = |e: std::io::Error| tarmac_lens_core::Error::Read(e.to_string());
    let file = std::fs::File::open(path).map_err(read)?;
    let len = file.metadata().map_err(read)?.len();
    if len == 0 {
        let mut source = Stoppable {
            inner: tarmac_lens_core::FileSource::open(path)?,
            stop,
            done,
        };
        return Index::build(&mut source, opts, |_| {});
    }
    // SAFETY: the map is read-only and lives only for this build; a trace
    // truncated meanwhile by another process may fault it, as any reader
    // of a file truncated under it may; traces are not modified while
    // being analysed (the CLI's rule).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(read)?;
    let _ = map.advise(memmap2::Advice::Sequential);
    let data: &[u8] = &map;
    let reader = || Stoppable {
        inner: SliceSource(data),
        stop,
        done,
    };
    if jobs <= 1 || len < PARALLEL_FROM {
        return Index::build(&mut reader(), opts, |_| {});
    }
    let dialect = dialect_of(&mut reader(), &opts)?;
    let starts = split_offsets(len, jobs);
    let parts = std::thread::scope(|s| {
        let handles: Vec<_> = starts
            .iter()
            .enumerate()
            .map(|(i, &from)| {
                let to = starts.get(i + 1).copied().unwrap_or(len);
                s.spawn(move || RangeIndex::build(&mut reader(), opts, dialect, from, to, |_| {}))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an indexing thread panicked"))
            .collect::<tarmac_lens_core::Result<Vec<_>>>()
    })?;
    let (index, _) = stitch(&mut reader(), parts, len)?;
    Ok(index)
}

/// The number of indexing threads by default: the CLI's.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// `TRACE.index`.
pub fn default_index_path(trace: &Path) -> PathBuf {
    let mut p = trace.as_os_str().to_owned();
    p.push(".index");
    PathBuf::from(p)
}
