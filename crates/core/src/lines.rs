//! Splits a [`TraceSource`] into lines, reading it in fixed-size slices.
//!
//! Invariants: every byte of the source belongs to exactly one line; line
//! numbers start at 1; a line's offset is the source offset of its first byte;
//! the text handed out excludes the `\n` (a `\r` before it is left for the
//! parser to drop); a final line without `\n` is still a line. Memory use is
//! one slice buffer, however large the source, and however long a line: a
//! line longer than 1 MiB hands out only its first MiB (no trace line is
//! that long; a file with no newlines at all, such as a core dump dropped
//! by mistake, must not need its size in memory).

use crate::source::TraceSource;
use crate::Result;

/// Default slice size: large enough that per-read overhead vanishes, small
/// enough to stay cache- and browser-friendly.
pub(crate) const DEFAULT_CHUNK: usize = 1 << 20;

/// Most bytes of one line handed out as its text.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// A line of the trace.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// 1-based line number.
    pub number: u64,
    /// Byte offset of the first byte of the line in the source.
    pub offset: u64,
    /// Line text without the terminating `\n`, cut at 1 MiB.
    pub text: &'a [u8],
    /// Length of the whole line without the `\n` (more than `text` only
    /// for a line longer than [`MAX_LINE`]).
    pub(crate) len: u64,
}

/// The reading state of a line stream without its source, so that the
/// source can be lent to other work between lines (the browser's session
/// answers queries from the same file between indexing steps).
pub(crate) struct LineBuffer {
    buf: Vec<u8>,
    /// Valid bytes in `buf` are `start..filled`.
    start: usize,
    filled: usize,
    /// Source offset of `buf[0]`.
    buf_offset: u64,
    /// Next source offset to read.
    read_offset: u64,
    end_offset: u64,
    next_number: u64,
    eof: bool,
    /// Most bytes the next read may ask for: starts small and doubles up to
    /// the buffer's size, so the first lines come back after a short read
    /// (the page shows them while the rest is read) yet long runs still get
    /// large reads (each browser read has a fixed cost of milliseconds).
    ramp: usize,
    /// While skipping the tail of an over-long line: where it started.
    long: Option<u64>,
    /// The first [`MAX_LINE`] bytes of that line.
    long_text: Vec<u8>,
}

/// Size of the first read of a [`LineBuffer`].
const FIRST_READ: usize = 64 << 10;

impl LineBuffer {
    /// Lines from `start` (which must be a line start, numbered
    /// `first_line`) up to `end`, read in slices of `chunk` bytes.
    pub(crate) fn new(start: u64, end: u64, first_line: u64, chunk: usize) -> Self {
        // A replay reads one checkpoint interval: a buffer sized to the range,
        // not to the chunk, saves zeroing 256 KiB per query.
        let range = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
        LineBuffer {
            buf: vec![0; chunk.min(range.saturating_add(1)).max(4096)],
            start: 0,
            filled: 0,
            buf_offset: start,
            read_offset: start,
            end_offset: end,
            next_number: first_line,
            eof: false,
            ramp: FIRST_READ,
            long: None,
            long_text: Vec::new(),
        }
    }

    /// Ends the lines at `end` instead (a line start), if nothing past it
    /// has been read yet; false, changing nothing, if it has.
    pub(crate) fn limit_to(&mut self, end: u64) -> bool {
        if self.read_offset > end || self.long.is_some() || end < self.position() {
            return false;
        }
        self.end_offset = end;
        true
    }

    /// Offset just past the last line handed out.
    pub(crate) fn position(&self) -> u64 {
        self.buf_offset + self.start as u64
    }

    /// Number the next line will get.
    pub(crate) fn next_number(&self) -> u64 {
        self.next_number
    }

    /// The most the next read from the source will ask for: small for the
    /// first reads (they grow from 64 KiB, so the first lines come soon),
    /// then the slice size.
    pub(crate) fn next_read_len(&self) -> usize {
        self.ramp.min(self.buf.len())
    }

    /// The next line, reading from `source` when the buffer runs dry.
    pub(crate) fn next_line<S: TraceSource + ?Sized>(
        &mut self,
        source: &mut S,
    ) -> Result<Option<Line<'_>>> {
        loop {
            if let Some(nl) = memchr::memchr(b'\n', &self.buf[self.start..self.filled]) {
                let s = self.start;
                let e = s + nl;
                self.start = e + 1;
                let number = self.next_number;
                self.next_number += 1;
                if let Some(offset) = self.long.take() {
                    return Ok(Some(Line {
                        number,
                        offset,
                        text: &self.long_text,
                        len: self.buf_offset + e as u64 - offset,
                    }));
                }
                return Ok(Some(Line {
                    number,
                    offset: self.buf_offset + s as u64,
                    text: &self.buf[s..e],
                    len: nl as u64,
                }));
            }
            if self.long.is_some() {
                // The rest of an over-long line: counted, not kept.
                self.start = self.filled;
            } else if self.filled - self.start >= MAX_LINE {
                self.long = Some(self.buf_offset + self.start as u64);
                self.long_text.clear();
                self.long_text
                    .extend_from_slice(&self.buf[self.start..self.start + MAX_LINE]);
                self.start = self.filled;
            }
            if self.eof {
                let number = self.next_number;
                if let Some(offset) = self.long.take() {
                    self.next_number += 1;
                    return Ok(Some(Line {
                        number,
                        offset,
                        text: &self.long_text,
                        len: self.buf_offset + self.filled as u64 - offset,
                    }));
                }
                if self.start < self.filled {
                    let s = self.start;
                    let e = self.filled;
                    self.start = e;
                    self.next_number += 1;
                    return Ok(Some(Line {
                        number,
                        offset: self.buf_offset + s as u64,
                        text: &self.buf[s..e],
                        len: (e - s) as u64,
                    }));
                }
                return Ok(None);
            }
            self.refill(source)?;
        }
    }

    fn refill<S: TraceSource + ?Sized>(&mut self, source: &mut S) -> Result<()> {
        // Keep the partial line, moving it to the front; grow the buffer if a
        // single line is longer than it.
        let keep = self.filled - self.start;
        self.buf.copy_within(self.start..self.filled, 0);
        self.buf_offset += self.start as u64;
        self.start = 0;
        self.filled = keep;
        if self.filled == self.buf.len() {
            let n = self.buf.len() * 2;
            self.buf.resize(n, 0);
        }
        // In u64 first: a usize cast of a multi-GiB distance wraps in wasm32.
        let room = (self.buf.len() - self.filled).min(self.ramp);
        self.ramp = self.ramp.saturating_mul(2);
        let want = (self.end_offset - self.read_offset).min(room as u64) as usize;
        if want == 0 {
            self.eof = true;
            return Ok(());
        }
        let got = source.read_at(
            self.read_offset,
            &mut self.buf[self.filled..self.filled + want],
        )?;
        if got == 0 {
            self.eof = true;
        }
        self.filled += got;
        self.read_offset += got as u64;
        Ok(())
    }
}

/// Streams lines out of a source, one slice at a time.
pub struct LineReader<S: TraceSource> {
    source: S,
    buf: LineBuffer,
}

impl<S: TraceSource> LineReader<S> {
    /// Reads every line of `source`, numbered from 1.
    pub fn new(source: S) -> Self {
        let end = source.len();
        Self::with_range(source, 0, end, 1, DEFAULT_CHUNK)
    }

    /// Reads lines from `start` (which must be a line start, numbered
    /// `first_line`) up to `end`, in slices of `chunk` bytes.
    pub fn with_range(source: S, start: u64, end: u64, first_line: u64, chunk: usize) -> Self {
        LineReader {
            source,
            buf: LineBuffer::new(start, end, first_line, chunk),
        }
    }

    /// The source it reads.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// Offset just past the last line handed out.
    pub fn position(&self) -> u64 {
        self.buf.position()
    }

    /// Gives the source back.
    pub fn into_source(self) -> S {
        self.source
    }

    /// The next line, or `None` at the end.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>> {
        self.buf.next_line(&mut self.source)
    }
}

/// Lines of an in-memory (or memory-mapped) trace, without copying: the
/// fast path for native indexing. Same numbering and offsets as [`LineReader`].
pub struct SliceLines<'a> {
    data: &'a [u8],
    pos: usize,
    next_number: u64,
}

impl<'a> SliceLines<'a> {
    /// Lines of `data`, numbered from 1.
    pub fn new(data: &'a [u8]) -> Self {
        SliceLines {
            data,
            pos: 0,
            next_number: 1,
        }
    }

    /// Offset just past the last line handed out.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }
}

impl<'a> Iterator for SliceLines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let rest = &self.data[self.pos..];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = Line {
            number: self.next_number,
            offset: self.pos as u64,
            text: &rest[..len.min(MAX_LINE)],
            len: len as u64,
        };
        self.pos += (len + 1).min(rest.len());
        self.next_number += 1;
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    fn collect(data: &[u8], chunk: usize) -> Vec<(u64, u64, Vec<u8>)> {
        let mut r = LineReader::with_range(SliceSource(data), 0, data.len() as u64, 1, chunk);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.number, l.offset, l.text.to_vec()));
        }
        out
    }

    #[test]
    fn splits_lines_with_offsets() {
        let v = collect(b"ab\r\n\ncd", 4096);
        assert_eq!(
            v,
            vec![
                (1, 0, b"ab\r".to_vec()),
                (2, 4, b"".to_vec()),
                (3, 5, b"cd".to_vec())
            ]
        );
    }

    #[test]
    fn lines_longer_than_the_buffer() {
        let mut data = vec![b'x'; 10000];
        data.push(b'\n');
        data.extend_from_slice(b"y\n");
        let v = collect(&data, 4096);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].2.len(), 10000);
        assert_eq!(v[1], (2, 10001, b"y".to_vec()));
    }

    #[test]
    fn slice_lines_match_the_reader() {
        for data in [&b"ab\r\n\ncd"[..], b"x\n", b"", b"\n\n", b"one\ntwo\nthree"] {
            let a: Vec<_> = SliceLines::new(data)
                .map(|l| (l.number, l.offset, l.text.to_vec()))
                .collect();
            assert_eq!(a, collect(data, 4096));
        }
    }

    #[test]
    fn every_byte_accounted_for() {
        let data: Vec<u8> = (0..50_000u32)
            .flat_map(|i| format!("{} clk line\n", i).into_bytes())
            .collect();
        let v = collect(&data, 4096);
        assert_eq!(v.len(), 50_000);
        let total: usize = v.iter().map(|l| l.2.len() + 1).sum();
        assert_eq!(total, data.len());
    }

    #[test]
    fn over_long_lines_keep_their_start_and_length() {
        // A tiny source-side buffer (4 KiB), lines around the cap, with and
        // without a final newline; the reader must hold no more than about
        // two caps whatever the line length.
        for (long, tail) in [
            (MAX_LINE - 1, &b"\nnext\n"[..]),
            (MAX_LINE, b"\nnext\n"),
            (MAX_LINE + 1, b"\nnext"),
            (3 * MAX_LINE + 17, b"\nnext\n"),
            (3 * MAX_LINE + 17, b""),
        ] {
            let mut data = vec![b'a'; long];
            data[0] = b'#';
            data.extend_from_slice(tail);
            let mut r = LineReader::with_range(SliceSource(&data), 0, data.len() as u64, 1, 4096);
            let mut got = Vec::new();
            while let Some(l) = r.next_line().unwrap() {
                got.push((
                    l.number,
                    l.offset,
                    l.len,
                    l.text.len(),
                    l.text.first().copied(),
                ));
            }
            assert!(
                r.buf.buf.len() <= 2 * MAX_LINE,
                "buffer grew to {}",
                r.buf.buf.len()
            );
            let mut want = vec![(1, 0, long as u64, long.min(MAX_LINE), Some(b'#'))];
            if !tail.is_empty() {
                want.push((2, long as u64 + 1, 4, 4, Some(b'n')));
            }
            assert_eq!(got, want, "line of {long}");
            let sliced: Vec<_> = SliceLines::new(&data)
                .map(|l| {
                    (
                        l.number,
                        l.offset,
                        l.len,
                        l.text.len(),
                        l.text.first().copied(),
                    )
                })
                .collect();
            assert_eq!(sliced, want, "slice lines, line of {long}");
        }
    }
}
