//! Either format behind one source and one table, and the table kept in
//! the same file as the index it goes with: a caller that opens traces by
//! their magic bytes (the CLI, the page's worker) needs neither to know
//! which format it has.

use super::{sniff, Format, GzipSource, GzipTable, ZstdSource, ZstdTable};
use crate::{Error, Result, TraceSource};

/// A compressed file's table of decompressor checkpoints, either format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Table {
    /// gzip access points.
    Gzip(GzipTable),
    /// Zstandard frame starts.
    Zstd(ZstdTable),
}

impl Table {
    /// How many checkpoints it has.
    pub fn points(&self) -> usize {
        match self {
            Table::Gzip(t) => t.points(),
            Table::Zstd(t) => t.points(),
        }
    }

    /// Whether the pass has reached the end of the stream.
    pub fn is_complete(&self) -> bool {
        match self {
            Table::Gzip(t) => t.is_complete(),
            Table::Zstd(t) => t.is_complete(),
        }
    }

    /// The table as bytes (either format's own encoding, which starts
    /// with its own magic).
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Table::Gzip(t) => t.encode(),
            Table::Zstd(t) => t.encode(),
        }
    }

    /// A table from [`Table::encode`]'s bytes, of either format.
    pub fn decode(bytes: &[u8]) -> Result<Table> {
        GzipTable::decode(bytes)
            .map(Table::Gzip)
            .or_else(|_| ZstdTable::decode(bytes).map(Table::Zstd))
            .map_err(|_| Error::IndexFile("saved decompressor table: truncated or corrupt".into()))
    }
}

/// The decompressed bytes of a gzip or Zstandard file, at any offset
/// (each boxed: their sizes differ, by target too).
pub enum Compressed<S> {
    /// A gzip file.
    Gzip(Box<GzipSource<S>>),
    /// A Zstandard file.
    Zstd(Box<ZstdSource<S>>),
}

impl<S: TraceSource> Compressed<S> {
    /// The source's decompressed bytes if its magic bytes say gzip or
    /// Zstandard (`Ok(None)` otherwise), with `table` if one was saved.
    /// A table of the other format or of another file length is refused:
    /// the caller drops it and builds a new one.
    pub fn open(mut source: S, table: Option<Table>) -> Result<Option<Compressed<S>>> {
        let mut head = [0u8; 4];
        let n = source.read_at(0, &mut head)?;
        let Some(format) = sniff(&head[..n]) else {
            return Ok(None);
        };
        Ok(Some(match (format, table) {
            (Format::Gzip, None) => Compressed::Gzip(Box::new(GzipSource::new(source)?)),
            (Format::Gzip, Some(Table::Gzip(t))) => {
                Compressed::Gzip(Box::new(GzipSource::with_table(source, t)?))
            }
            (Format::Zstd, None) => Compressed::Zstd(Box::new(ZstdSource::new(source)?)),
            (Format::Zstd, Some(Table::Zstd(t))) => {
                Compressed::Zstd(Box::new(ZstdSource::with_table(source, t)?))
            }
            _ => {
                return Err(Error::IndexFile(
                    "the saved decompressor table is for the other compression format".into(),
                ))
            }
        }))
    }

    /// Which format it is.
    pub fn format(&self) -> Format {
        match self {
            Compressed::Gzip(_) => Format::Gzip,
            Compressed::Zstd(_) => Format::Zstd,
        }
    }

    /// The checkpoints found so far (a copy, to save).
    pub fn table(&self) -> Table {
        match self {
            Compressed::Gzip(s) => Table::Gzip(s.table().clone()),
            Compressed::Zstd(s) => Table::Zstd(s.table().clone()),
        }
    }

    /// Runs the pass to the end of the stream, after which
    /// [`TraceSource::len`] is known; `progress` gets compressed bytes
    /// read (gzip only: a zstd pass reports at its end).
    pub fn build_table(&mut self, mut progress: impl FnMut(u64)) -> Result<()> {
        match self {
            Compressed::Gzip(s) => s.build_table(progress),
            Compressed::Zstd(s) => {
                s.build_table()?;
                progress(s.table().compressed_len());
                Ok(())
            }
        }
    }
}

impl<S: TraceSource> TraceSource for Compressed<S> {
    fn len(&self) -> u64 {
        match self {
            Compressed::Gzip(s) => s.len(),
            Compressed::Zstd(s) => s.len(),
        }
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        match self {
            Compressed::Gzip(s) => s.read_at(offset, buf),
            Compressed::Zstd(s) => s.read_at(offset, buf),
        }
    }
}

/// The first bytes of an index saved with a decompressor table.
const BUNDLE_MAGIC: &[u8; 8] = b"TLENSCT\x01";

/// An index file's bytes (or a saved session's) with the compressed
/// trace's table before them: one file, so the table is reused exactly
/// when the index is, and a stale index takes its table with it.
pub fn bundle(table: &Table, index: &[u8]) -> Vec<u8> {
    let mut out = bundle_head(table);
    out.extend_from_slice(index);
    out
}

/// What [`bundle`] puts before the index's bytes, for a writer that
/// passes the index on in pieces.
pub fn bundle_head(table: &Table) -> Vec<u8> {
    let table = table.encode();
    let mut out = Vec::with_capacity(16 + table.len());
    out.extend_from_slice(BUNDLE_MAGIC);
    out.extend_from_slice(&(table.len() as u64).to_le_bytes());
    out.extend_from_slice(&table);
    out
}

/// Splits what [`bundle`] wrote into its table and the index's bytes;
/// bytes without a table are the index's as they are.
pub fn unbundle(bytes: &[u8]) -> Result<(Option<Table>, &[u8])> {
    let Some(rest) = bytes.strip_prefix(BUNDLE_MAGIC.as_slice()) else {
        return Ok((None, bytes));
    };
    let bad = || Error::IndexFile("index file with a decompressor table: truncated".into());
    let (len, rest) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
    let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| bad())?;
    if len > rest.len() {
        return Err(bad());
    }
    let (table, index) = rest.split_at(len);
    Ok((Some(Table::decode(table)?), index))
}
