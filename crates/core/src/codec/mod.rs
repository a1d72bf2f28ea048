//! A compact binary encoding of in-progress indexing state (varints and
//! length-prefixed byte runs), for handing a range's partial index from one
//! worker to another. Decoding never panics: short or corrupt input gives
//! `None`. The varints ([`varint`]) are also what the index stores its
//! deltas in.

pub(crate) mod varint;

#[derive(Default)]
pub(crate) struct Enc(pub(crate) Vec<u8>);

impl Enc {
    pub(crate) fn u(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    pub(crate) fn b(&mut self, v: bool) {
        self.u(u64::from(v));
    }
    /// `None` as 0, `Some(v)` as 1 then v.
    pub(crate) fn opt(&mut self, v: Option<u64>) {
        match v {
            None => self.u(0),
            Some(v) => {
                self.u(1);
                self.u(v);
            }
        }
    }
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u(b.len() as u64);
        self.0.extend_from_slice(b);
    }
}

pub(crate) struct Dec<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Dec<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Dec { buf, pos: 0 }
    }
    pub(crate) fn u(&mut self) -> Option<u64> {
        varint::get(self.buf, &mut self.pos)
    }
    pub(crate) fn b(&mut self) -> Option<bool> {
        Some(self.u()? != 0)
    }
    pub(crate) fn opt(&mut self) -> Option<Option<u64>> {
        Some(if self.u()? == 0 {
            None
        } else {
            Some(self.u()?)
        })
    }
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u()?).ok()?;
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }
    pub(crate) fn raw(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }
    /// A count of items that each take at least one byte.
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.u()?).ok()?;
        (n <= self.buf.len() - self.pos).then_some(n)
    }
    pub(crate) fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
}
