//! A fast hasher for integer keys (addresses, block numbers). The default
//! SipHash guards against hash flooding, which an index of a trace on the
//! user's own machine does not need, and costs a tenth of indexing time.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Multiply-shift mixing: good spread for sequential addresses.
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(26)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(crate) type AddrMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<AddrHasher>>;
