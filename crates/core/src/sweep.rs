//! Reads of a search that sweeps the trace one way, served from one large
//! window read ahead in that direction. Why: in a page's worker a read is a
//! `FileReaderSync` call costing milliseconds whatever its size, and a
//! condition search read its intervals (64 KiB then) one call each (64 MB: about
//! 1,000 calls, most of the search's 2.4 s; `docs/performance.md`).

use crate::source::TraceSource;
use crate::Result;

/// Bytes read per call: four intervals. Larger windows read more that a
/// sparse search (most intervals skipped by the index) never looks at.
const WINDOW: usize = 1 << 20;

/// A [`TraceSource`] over `inner` that reads [`WINDOW`] bytes at once from
/// where a read starts (forward) or up to where it ends (backward), and
/// answers reads inside that window from memory. Changes when bytes are
/// read, never which.
pub(crate) struct Sweep<'a> {
    inner: &'a mut dyn TraceSource,
    forward: bool,
    start: u64,
    window: Vec<u8>,
    /// Whether `window` holds what was read from `start` (an empty one may:
    /// the source ends there).
    loaded: bool,
}

impl<'a> Sweep<'a> {
    /// Reads of `inner` for a search going `forward` (or backward).
    pub(crate) fn new(inner: &'a mut dyn TraceSource, forward: bool) -> Sweep<'a> {
        Sweep {
            inner,
            forward,
            start: 0,
            window: Vec::new(),
            loaded: false,
        }
    }

    /// Makes the window the [`WINDOW`] bytes the direction wants around
    /// `[offset, offset + len)`; a failed read leaves no window behind.
    fn refill(&mut self, offset: u64, len: usize) -> Result<()> {
        let start = if self.forward {
            offset
        } else {
            (offset + len as u64)
                .saturating_sub(WINDOW as u64)
                .min(offset)
        };
        let want = self.inner.len().saturating_sub(start).min(WINDOW as u64) as usize;
        self.window.resize(want, 0);
        let mut got = 0;
        while got < want {
            match self
                .inner
                .read_at(start + got as u64, &mut self.window[got..])
            {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => {
                    self.loaded = false;
                    return Err(e);
                }
            }
        }
        self.window.truncate(got);
        self.start = start;
        self.loaded = true;
        Ok(())
    }
}

impl TraceSource for Sweep<'_> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.len() > WINDOW {
            return self.inner.read_at(offset, buf);
        }
        let end = self.start + self.window.len() as u64;
        let inside = self.loaded && offset >= self.start && offset + buf.len() as u64 <= end;
        // A window cut short by the source's end still answers reads that
        // run past it.
        let at_end =
            self.loaded && offset >= self.start && offset <= end && self.window.len() < WINDOW;
        if !(inside || at_end) {
            self.refill(offset, buf.len())?;
        }
        // Past the source's end (a backward window ends before the offset).
        let Some(held) = self.window.get((offset - self.start) as usize..) else {
            return Ok(0);
        };
        let n = buf.len().min(held.len());
        buf[..n].copy_from_slice(&held[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;
    use crate::testing::Counting;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    fn read(s: &mut dyn TraceSource, offset: u64, len: usize) -> Vec<u8> {
        let mut buf = vec![0u8; len];
        let n = s.read_at(offset, &mut buf).unwrap();
        buf.truncate(n);
        buf
    }

    #[test]
    fn reads_match_the_source_both_ways_with_a_read_per_window() {
        let bytes = data(5 * WINDOW + 12_345);
        let step = 64 << 10;
        for forward in [true, false] {
            let mut counting = Counting {
                inner: SliceSource(&bytes),
                reads: 0,
            };
            let mut sweep = Sweep::new(&mut counting, forward);
            let mut offsets: Vec<usize> = (0..bytes.len()).step_by(step).collect();
            if !forward {
                offsets.reverse();
            }
            for &o in &offsets {
                let got = read(&mut sweep, o as u64, step);
                assert_eq!(got, bytes[o..(o + step).min(bytes.len())], "at {o}");
            }
            let reads = counting.reads;
            assert!(reads <= 7, "{reads} reads of the source sweeping {forward}");
        }
    }

    #[test]
    fn odd_reads_jumps_and_the_end_are_answered_exactly() {
        let bytes = data(3 * WINDOW + 17);
        let mut src = SliceSource(&bytes);
        for forward in [true, false] {
            let mut sweep = Sweep::new(&mut src, forward);
            for &(o, len) in &[
                (0usize, 10usize),
                (WINDOW - 3, 100),
                (3 * WINDOW, 100),
                (5, 2 * WINDOW + 1),
                (2 * WINDOW + 1, WINDOW),
                (3 * WINDOW + 16, 1),
                (3 * WINDOW + 17, 4),
                (10 * WINDOW, 4),
                (1, 0),
            ] {
                let end = (o + len).min(bytes.len());
                let want = bytes.get(o..end).unwrap_or_default();
                assert_eq!(read(&mut sweep, o as u64, len), want, "{o}+{len} {forward}");
            }
        }
    }
}
