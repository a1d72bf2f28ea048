//! Helpers for the crate's unit tests.

use crate::source::{SliceSource, TraceSource};
use crate::Result;

/// A source that counts the reads reaching it, for the readers that exist
/// to make fewer (`block_cache`, `sweep`).
pub(crate) struct Counting<'a> {
    pub inner: SliceSource<'a>,
    pub reads: usize,
}

impl TraceSource for Counting<'_> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        self.reads += 1;
        self.inner.read_at(offset, buf)
    }
}

/// A small xorshift generator: reproducible cases without a dependency.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An index below `n`.
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
}
