//! A trace file as the core reads it: a plain file at offsets, or a gzip
//! or Zstandard file read in place through its decompressor table (as the
//! CLI reads one), and a reader that can be stopped from another thread.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tarmac_lens_core::{
    compressed,
    compressed::{Compressed, Table},
    FileSource, TraceSource,
};

/// The trace's text.
pub enum Source {
    /// A plain file.
    Plain(FileSource),
    /// A gzip or Zstandard file's decompressed text.
    Packed(Box<Compressed<FileSource>>),
}

impl TraceSource for Source {
    fn len(&self) -> u64 {
        match self {
            Source::Plain(f) => f.len(),
            Source::Packed(c) => c.len(),
        }
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        match self {
            Source::Plain(f) => f.read_at(offset, buf),
            Source::Packed(c) => c.read_at(offset, buf),
        }
    }
}

/// How a trace file is stored.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    Plain,
    /// gzip or Zstandard, read in place.
    Packed,
    /// xz: no decompressor table, so no reads at offsets.
    Xz,
}

/// From the file's first bytes.
pub fn storage_of(path: &Path) -> std::io::Result<Storage> {
    use std::io::Read;
    let mut head = [0u8; 6];
    let mut file = std::fs::File::open(path)?;
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..])? {
            0 => break,
            k => n += k,
        }
    }
    let head = &head[..n];
    Ok(if compressed::sniff(head).is_some() {
        Storage::Packed
    } else if head.starts_with(b"\xfd7zXZ\x00") {
        Storage::Xz
    } else {
        Storage::Plain
    })
}

/// Opens the trace at `path` again (once per reader: the browse session,
/// each SQL partition, each report pass, each iterator).
#[derive(Clone)]
pub struct Opener {
    pub path: PathBuf,
    pub storage: Storage,
    /// A packed trace's decompressor table, once known.
    pub table: Option<Table>,
}

impl Opener {
    pub fn open(&self) -> tarmac_lens_core::Result<Source> {
        let file = FileSource::open(&self.path)?;
        if self.storage == Storage::Plain {
            return Ok(Source::Plain(file));
        }
        let name = self.path.display().to_string();
        let packed = match Compressed::open(file, self.table.clone()) {
            // A table that does not fit the file (rewritten since) is dropped.
            Err(_) if self.table.is_some() => {
                Compressed::open(FileSource::open(&self.path)?, None)?
            }
            r => r?,
        }
        .ok_or_else(|| {
            tarmac_lens_core::Error::Read(format!("{name}: neither gzip nor Zstandard any more"))
        })?;
        Ok(Source::Packed(Box::new(packed)))
    }
}

/// Why a read was refused: the indexing was asked to stop.
pub const STOPPED: &str = "indexing was interrupted";

/// A source whose reads fail once `stop` is set, and which counts the
/// bytes read into `done`: the indexing threads read through it, and the
/// thread that holds the interpreter watches both.
pub struct Stoppable<'a, S> {
    pub inner: S,
    pub stop: &'a AtomicBool,
    pub done: &'a AtomicU64,
}

impl<S: TraceSource> TraceSource for Stoppable<'_, S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(tarmac_lens_core::Error::Read(STOPPED.into()));
        }
        let n = self.inner.read_at(offset, buf)?;
        self.done.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
