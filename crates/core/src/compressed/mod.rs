//! Compressed traces read in place, at random offsets: a [`TraceSource`] of
//! the *decompressed* bytes over a [`TraceSource`] of the compressed file,
//! which never writes or holds the whole decompressed trace.
//!
//! # Checkpoints, not a decompressed copy
//!
//! One front-to-back pass records a small table of decompressor
//! checkpoints; a read at any offset then restarts the decompressor at the
//! last checkpoint before it and inflates forward, at most one spacing of
//! output. The pass is the adaptor's own reading: the table grows as reads
//! go forward past what it covers (indexing's one pass builds it for free),
//! or [`GzipSource::build_table`] runs it to the end at once. The table is
//! saved with [`GzipTable::encode`] next to the index and given back with
//! [`GzipSource::with_table`].
//!
//! - gzip ([`GzipSource`]): zran-style access points every
//!   [`DEFAULT_SPACING`] bytes of output, each at a deflate block boundary
//!   (the compressed bit offset, the output offset, the 32 KiB of output
//!   before it, stored deflated), and one at the start of a member where
//!   the spacing falls there; multi-member files (pigz, bgzip) too. Each
//!   member's CRC-32 and ISIZE are checked at its end, also when a read
//!   starts mid-member (checkpoints carry the CRC so far).
//! - Zstandard ([`ZstdSource`]): frame boundaries, as a zstd frame cannot
//!   be entered in the middle with ruzstd. Seekable-format files (a seek
//!   table in a skippable frame at the end) have the whole table at once.
//!   A file of one big frame (the `zstd` tool's default) reads forward
//!   fine, but a jump backwards decodes from the frame's start.
//!
//! # Length
//!
//! A compressed file does not say how long its text is (gzip's ISIZE is
//! the length mod 2^32), so [`TraceSource::len`] is
//! [`crate::source::UNKNOWN_LEN`] until the pass has reached the end of the
//! stream, then the exact length. The one-pass readers accept that length;
//! a caller that needs the length first (an index's byte count, a progress
//! bar) runs [`GzipSource::build_table`] first or loads a saved table.
//!
//! # Errors
//!
//! A damaged or cut stream is an [`Error::Read`] naming the compressed
//! offset, never a panic and never a shorter trace.

mod either;
mod gzip;
mod zstd;

pub use either::{bundle, bundle_head, unbundle, Compressed, Table};
pub use gzip::{GzipSource, GzipTable};
pub use zstd::{ZstdSource, ZstdTable};

use crate::{Error, Result, TraceSource};

/// Output bytes between gzip access points: a random read inflates half
/// of this on average, and on to the next point to check it (1-2 ms
/// natively); the table costs about 6 KiB per point (a deflated 32 KiB
/// window), so 0.6% of the trace. At 4 MiB a page jump, which reads at
/// a few places, took p99 50-120 ms (docs/performance.md).
pub const DEFAULT_SPACING: u64 = 1 << 20;

/// A compression format known by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// gzip (RFC 1952), one member or several.
    Gzip,
    /// Zstandard (RFC 8878), one frame or several, skippable frames too.
    Zstd,
}

/// The format the first bytes of a file say it is in, if a compressed
/// one.
pub fn sniff(head: &[u8]) -> Option<Format> {
    if head.starts_with(&[0x1f, 0x8b]) {
        Some(Format::Gzip)
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || is_skippable(head) {
        Some(Format::Zstd)
    } else {
        None
    }
}

fn is_skippable(head: &[u8]) -> bool {
    head.len() >= 4
        && u32::from_le_bytes([head[0], head[1], head[2], head[3]]) & 0xffff_fff0 == 0x184d_2a50
}

/// Opens a compressed source by its magic bytes, with an empty table built
/// as reads go; `None` for a file in neither format.
pub fn open<S: TraceSource + 'static>(mut source: S) -> Result<Option<Box<dyn TraceSource>>> {
    let mut head = [0u8; 4];
    let n = source.read_at(0, &mut head)?;
    Ok(match sniff(&head[..n]) {
        Some(Format::Gzip) => Some(Box::new(GzipSource::new(source)?)),
        Some(Format::Zstd) => Some(Box::new(ZstdSource::new(source)?)),
        None => None,
    })
}

pub(crate) fn damaged(format: &str, offset: u64, what: impl std::fmt::Display) -> Error {
    Error::Read(format!(
        "{format} stream damaged at compressed byte {offset}: {what}"
    ))
}

/// The compressed bytes read in runs from a position: both decoders read
/// forward only, in chunks, from where a checkpoint says.
pub(crate) struct Input {
    buf: Vec<u8>,
    /// Compressed offset of `buf[0]`.
    start: u64,
    pos: usize,
    chunk: usize,
}

impl Input {
    pub(crate) fn new(chunk: usize) -> Input {
        Input {
            buf: Vec::with_capacity(chunk),
            start: 0,
            pos: 0,
            chunk,
        }
    }

    /// Forgets the buffered bytes unless `offset` is among them.
    pub(crate) fn seek(&mut self, offset: u64) {
        if offset >= self.start && offset <= self.start + self.buf.len() as u64 {
            self.pos = (offset - self.start) as usize;
        } else {
            self.buf.clear();
            self.start = offset;
            self.pos = 0;
        }
    }

    /// Compressed offset of the next unread byte.
    pub(crate) fn offset(&self) -> u64 {
        self.start + self.pos as u64
    }

    pub(crate) fn rest(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    /// Reads more after what is buffered; false at the source's end.
    pub(crate) fn fill<S: TraceSource + ?Sized>(&mut self, source: &mut S) -> Result<bool> {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.start += self.pos as u64;
            self.pos = 0;
        }
        let have = self.buf.len();
        self.buf.resize(have + self.chunk, 0);
        let n = source.read_at(self.start + have as u64, &mut self.buf[have..])?;
        self.buf.truncate(have + n);
        Ok(n > 0)
    }

    /// The next byte, or `None` at the source's end.
    pub(crate) fn byte<S: TraceSource + ?Sized>(&mut self, source: &mut S) -> Result<Option<u8>> {
        if self.pos == self.buf.len() && !self.fill(source)? {
            return Ok(None);
        }
        self.pos += 1;
        Ok(Some(self.buf[self.pos - 1]))
    }
}

/// A `std::io::Read` of the compressed bytes for ruzstd.
pub(crate) struct InputReader<'a, S: ?Sized> {
    pub(crate) input: &'a mut Input,
    pub(crate) source: &'a mut S,
    pub(crate) error: Option<Error>,
}

impl<S: TraceSource + ?Sized> std::io::Read for InputReader<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.input.rest().is_empty() {
            match self.input.fill(self.source) {
                Ok(_) => {}
                Err(e) => {
                    self.error = Some(e);
                    return Err(std::io::Error::other("source read failed"));
                }
            }
        }
        let rest = self.input.rest();
        let n = rest.len().min(out.len());
        out[..n].copy_from_slice(&rest[..n]);
        self.input.consume(n);
        Ok(n)
    }
}

/// What the one read loop needs of a format's adaptor: a cursor that
/// holds one run of decompressed output and steps forward, and a table of
/// checkpoints to restart it at.
trait Decode {
    /// Where the cursor can restart: an access point, a frame.
    type Point: Copy;

    /// The exact decompressed length, once the table reaches the end.
    fn total(&self) -> Option<u64>;

    /// The run of output held now (its offset and bytes), if any is valid.
    fn held(&self) -> Option<(u64, &[u8])>;

    /// The last checkpoint at or before output offset `pos`, and its
    /// output offset.
    fn checkpoint(&self, pos: u64) -> (Self::Point, u64);

    /// Restarts the cursor at `point`.
    fn place(&mut self, point: Self::Point) -> Result<()>;

    /// Whether the cursor has reached the end of the stream.
    fn at_end(&self) -> bool;

    /// Decodes the next run (or header, or frame start); a failed step
    /// leaves the cursor invalid.
    fn step(&mut self) -> Result<()>;
}

/// [`TraceSource::read_at`] over a [`Decode`]: copies from the held run
/// while it covers the offset, goes on forward when the cursor is on the
/// way there (no checkpoint lies between), else restarts at the last
/// checkpoint before it.
fn read_decoded<D: Decode>(d: &mut D, offset: u64, buf: &mut [u8]) -> Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        let pos = offset.saturating_add(done as u64);
        if d.total().is_some_and(|t| pos >= t) {
            break;
        }
        if let Some((start, data)) = d.held() {
            let n = copy_held(data, start, pos, &mut buf[done..]);
            if n > 0 {
                done += n;
                continue;
            }
        }
        let (point, point_out) = d.checkpoint(pos);
        let forward = d
            .held()
            .is_some_and(|(start, data)| pos >= start && start + data.len() as u64 >= point_out);
        if !forward {
            d.place(point)?;
        }
        if d.at_end() {
            break;
        }
        d.step()?;
    }
    Ok(done)
}

/// Copies from a held run of output `[start, start + data.len())` into
/// `buf` at `offset`; how many bytes it gave.
fn copy_held(data: &[u8], start: u64, offset: u64, buf: &mut [u8]) -> usize {
    if offset < start || offset >= start + data.len() as u64 {
        return 0;
    }
    let at = (offset - start) as usize;
    let n = buf.len().min(data.len() - at);
    buf[..n].copy_from_slice(&data[at..at + n]);
    n
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
