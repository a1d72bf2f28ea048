//! A read-through cache of the last blocks read from a [`TraceSource`].
//!
//! One step in the browser asks several questions (the rows, the node, the
//! register and memory panes), and each replays the same checkpoint
//! interval from the trace. In a worker every read is a `FileReaderSync`
//! call with a fixed cost of milliseconds, so without this the same 64 KiB
//! were read four or five times per key press. Large reads (indexing's
//! sequential slices) pass through untouched: they are read once.

use crate::source::TraceSource;
use crate::Result;

/// Cached unit: aligned blocks of this many bytes (a checkpoint interval).
pub(crate) const BLOCK: u64 = 64 << 10;
/// Blocks kept: the intervals around the current position.
const KEEP: usize = 16;
/// Reads longer than this bypass the cache.
const BYPASS: usize = 2 * BLOCK as usize;

/// A read-through cache of the last 16 aligned 64 KiB blocks of a source; reads
/// over 128 KiB pass through uncached, and a failed read leaves no block
/// behind. Changes when bytes are read, never which.
pub struct BlockCache<S> {
    inner: S,
    /// (block number, its bytes, last use), at most [`KEEP`].
    blocks: Vec<(u64, Vec<u8>, u64)>,
    clock: u64,
}

impl<S: TraceSource> BlockCache<S> {
    /// Wraps `inner` with an empty cache.
    pub fn new(inner: S) -> Self {
        BlockCache {
            inner,
            blocks: Vec::new(),
            clock: 0,
        }
    }

    /// Slot holding block `b`, reading it if needed (evicting the least
    /// recently used block).
    fn block(&mut self, b: u64) -> Result<usize> {
        self.clock += 1;
        if let Some(i) = self.blocks.iter().position(|x| x.0 == b) {
            self.blocks[i].2 = self.clock;
            return Ok(i);
        }
        let start = b * BLOCK;
        let want = (self.inner.len().saturating_sub(start)).min(BLOCK) as usize;
        let slot = if self.blocks.len() < KEEP {
            self.blocks.push((b, Vec::new(), 0));
            self.blocks.len() - 1
        } else {
            let (i, _) = self
                .blocks
                .iter()
                .enumerate()
                .min_by_key(|(_, x)| x.2)
                .expect("the cache is full");
            i
        };
        let mut bytes = std::mem::take(&mut self.blocks[slot].1);
        bytes.resize(want, 0);
        let mut got = 0;
        while got < want {
            match self.inner.read_at(start + got as u64, &mut bytes[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => {
                    // Nothing half-read stays behind.
                    self.blocks.swap_remove(slot);
                    return Err(e);
                }
            }
        }
        bytes.truncate(got);
        self.blocks[slot] = (b, bytes, self.clock);
        Ok(slot)
    }
}

impl<S: TraceSource> TraceSource for BlockCache<S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        if buf.len() > BYPASS {
            return self.inner.read_at(offset, buf);
        }
        let mut done = 0;
        while done < buf.len() {
            let at = offset + done as u64;
            let slot = self.block(at / BLOCK)?;
            let bytes = &self.blocks[slot].1;
            let within = (at % BLOCK) as usize;
            if within >= bytes.len() {
                break;
            }
            let n = (bytes.len() - within).min(buf.len() - done);
            buf[done..done + n].copy_from_slice(&bytes[within..within + n]);
            done += n;
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;
    use crate::testing::Counting;

    #[test]
    fn reads_match_the_source_and_repeats_are_served_from_memory() {
        let data: Vec<u8> = (0..(5 * BLOCK + 123))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let mut c = BlockCache::new(Counting {
            inner: SliceSource(&data),
            reads: 0,
        });
        for &(off, len) in &[
            (0u64, 10usize),
            (BLOCK - 3, 100),
            (3 * BLOCK + 5, 2 * BLOCK as usize),
            (5 * BLOCK, 4096),
            (5 * BLOCK + 100, 100),
            (6 * BLOCK, 10),
        ] {
            let mut buf = vec![0u8; len];
            let n = c.read_at(off, &mut buf).unwrap();
            let start = (off as usize).min(data.len());
            let want = &data[start..(start + len).min(data.len())];
            assert_eq!(&buf[..n], want, "read at {off}, {len} bytes");
        }
        let before = c.inner.reads;
        let mut buf = vec![0u8; 100];
        c.read_at(BLOCK - 3, &mut buf).unwrap();
        assert_eq!(c.inner.reads, before, "a repeated read reaches the source");
        assert_eq!(&buf[..], &data[BLOCK as usize - 3..BLOCK as usize + 97]);
    }

    #[test]
    fn large_reads_bypass_and_old_blocks_are_evicted() {
        let data = vec![7u8; (KEEP as u64 + 4) as usize * BLOCK as usize];
        let mut c = BlockCache::new(Counting {
            inner: SliceSource(&data),
            reads: 0,
        });
        let mut big = vec![0u8; 4 * BLOCK as usize];
        assert_eq!(c.read_at(0, &mut big).unwrap(), big.len());
        assert_eq!((c.inner.reads, c.blocks.len()), (1, 0));
        let mut small = [0u8; 1];
        for b in 0..KEEP as u64 + 4 {
            c.read_at(b * BLOCK, &mut small).unwrap();
        }
        assert_eq!(c.blocks.len(), KEEP);
        let reads = c.inner.reads;
        c.read_at(0, &mut small).unwrap();
        assert_eq!(c.inner.reads, reads + 1, "block 0 was evicted");
    }
}
