//! A list kept in chunks of one byte size, whatever it holds. Why: a
//! worker's wasm memory keeps every byte it ever touched, so the Reports
//! pass's peak is what it keeps. A `Vec` doubled to 2^20 calls for
//! 662,304 (168 MB allocated, 106 used, and the 84 MB it grew from);
//! chunks waste at most one. And because a call chunk and an activation
//! chunk take the same bytes, the tree's chunks reuse the calls' chunks
//! freed as the tree is built (report worker 229 → 133 MB at 1 GB;
//! docs/performance.md).

use std::ops::{Index, IndexMut};

/// Bytes per chunk, at most: 16,384 calls of 160 bytes.
const CHUNK_BYTES: usize = 5 << 19;

#[derive(Debug)]
pub(crate) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    /// Items per chunk: as many as fit in [`CHUNK_BYTES`].
    pub(crate) const PER_CHUNK: usize = {
        let size = std::mem::size_of::<T>();
        if size == 0 || size > CHUNK_BYTES {
            1
        } else {
            CHUNK_BYTES / size
        }
    };

    pub(crate) fn push(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < Self::PER_CHUNK => last.push(item),
            _ => {
                let mut chunk = Vec::with_capacity(Self::PER_CHUNK);
                chunk.push(item);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.chunks
            .get(i / Self::PER_CHUNK)
            .and_then(|c| c.get(i % Self::PER_CHUNK))
    }

    /// The items in order (a freed chunk's are skipped).
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.chunks.iter_mut().flatten()
    }

    /// How many chunks, freed ones included.
    pub(crate) fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Items `chunk × PER_CHUNK ..` up to the next chunk's.
    pub(crate) fn chunk(&self, chunk: usize) -> &[T] {
        &self.chunks[chunk]
    }

    /// Gives chunk `chunk`'s memory back; its items are gone (indexing one
    /// panics), the others keep their indices.
    pub(crate) fn free_chunk(&mut self, chunk: usize) {
        self.chunks[chunk] = Vec::new();
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        &self.chunks[i / Self::PER_CHUNK][i % Self::PER_CHUNK]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / Self::PER_CHUNK][i % Self::PER_CHUNK]
    }
}

impl<T> FromIterator<T> for Chunked<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Chunked<T> {
        let mut list = Chunked::default();
        for item in items {
            list.push(item);
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::{Chunked, CHUNK_BYTES};

    #[test]
    fn items_keep_their_index_across_chunks_and_after_a_chunk_is_freed() {
        type Item = [u64; 5];
        let per = Chunked::<Item>::PER_CHUNK;
        assert_eq!(per, CHUNK_BYTES / 40);
        let n = 2 * per + 7;
        let mut list: Chunked<Item> = (0..n as u64).map(|i| [i; 5]).collect();
        assert_eq!((list.len(), list.chunk_count()), (n, 3));
        assert_eq!(list[per - 1], [per as u64 - 1; 5]);
        assert_eq!(list[per], [per as u64; 5]);
        assert_eq!(list.get(n), None);
        list[n - 1][0] = 99;
        assert_eq!(
            list.iter().last(),
            Some(&[99, n as u64 - 1, n as u64 - 1, n as u64 - 1, n as u64 - 1])
        );
        list.free_chunk(1);
        assert_eq!(list.get(per), None);
        assert_eq!(list[2 * per], [2 * per as u64; 5]);
        assert_eq!(list.iter().count(), per + 7);
        assert_eq!(list.chunk(0).len(), per);
    }
}
