//! A compact binary encoding of in-progress indexing state (varints and
//! length-prefixed byte runs), for handing a range's partial index from one
//! worker to another. Decoding never panics: short or corrupt input gives
//! `None`. The varints ([`varint`]) are also what the index stores its
//! deltas in.

pub(crate) mod varint;

/// Bytes gathered before a sink is handed them.
const SPILL: usize = 1 << 20;

/// Where an [`Enc`] hands its bytes.
pub(crate) type Sink<'s> = &'s mut dyn FnMut(&[u8]);

/// An encoder. Without a sink its bytes gather in memory
/// ([`Enc::into_bytes`]); with one ([`Enc::to_sink`]) they are handed on
/// every MiB and long byte runs go straight through, so a large encoding
/// (a 53 GB range's 600 MB) never sits whole beside what it encodes.
#[derive(Default)]
pub(crate) struct Enc<'s> {
    buf: Vec<u8>,
    sink: Option<Sink<'s>>,
}

impl<'s> Enc<'s> {
    /// An encoder handing its bytes to `sink` as they come (the last ones
    /// on [`Enc::flush`]).
    pub(crate) fn to_sink(sink: Sink<'s>) -> Self {
        Enc {
            buf: Vec::with_capacity(SPILL + 16),
            sink: Some(sink),
        }
    }
    /// The bytes written (without a sink).
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        debug_assert!(self.sink.is_none());
        self.buf
    }
    /// The bytes written so far (without a sink).
    #[cfg(test)]
    pub(crate) fn written(&self) -> &[u8] {
        &self.buf
    }
    /// Hands what has gathered to the sink.
    pub(crate) fn flush(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if !self.buf.is_empty() {
                sink(&self.buf);
                self.buf.clear();
            }
        }
    }
    fn spill_if_full(&mut self) {
        if self.buf.len() >= SPILL {
            self.flush();
        }
    }
    pub(crate) fn u(&mut self, v: u64) {
        varint::put(&mut self.buf, v);
        self.spill_if_full();
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
    /// `b` as it is.
    pub(crate) fn raw(&mut self, b: &[u8]) {
        if b.len() >= SPILL && self.sink.is_some() {
            self.flush();
            if let Some(sink) = self.sink.as_mut() {
                sink(b);
            }
        } else {
            self.buf.extend_from_slice(b);
            self.spill_if_full();
        }
    }
    /// `b`'s length, then `b`.
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.u(b.len() as u64);
        self.raw(b);
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
    /// The bytes not yet read.
    pub(crate) fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }
    /// Skips `n` bytes (at most what is left).
    pub(crate) fn skip(&mut self, n: usize) {
        self.pos = self.buf.len().min(self.pos.saturating_add(n));
    }
    pub(crate) fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_mix(e: &mut Enc<'_>) {
        for i in 0..300_000u64 {
            e.u(i * 977);
            e.opt((i % 3 == 0).then_some(i));
            if i % 50_000 == 0 {
                // Runs short and long: a long one passes straight through.
                e.bytes(&vec![i as u8; 3 * SPILL]);
                e.raw(&[7; 100]);
            }
        }
    }

    /// Handed to a sink, the bytes are those written without one, in
    /// pieces of about a MiB (a long run whole): what a range worker hands
    /// on as it encodes.
    #[test]
    fn a_sink_gets_the_same_bytes_a_piece_at_a_time() {
        let mut whole = Enc::default();
        write_mix(&mut whole);
        let whole = whole.into_bytes();

        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let mut sink = |b: &[u8]| pieces.push(b.to_vec());
        let mut e = Enc::to_sink(&mut sink);
        write_mix(&mut e);
        e.flush();
        drop(e);
        assert_eq!(pieces.concat(), whole);
        assert!(pieces.len() > 5);
        for p in &pieces {
            assert!(
                p.len() < 2 * SPILL || p.len() == 3 * SPILL,
                "a piece of {} bytes",
                p.len()
            );
            assert!(!p.is_empty());
        }
        let mut d = Dec::new(&whole);
        assert_eq!(d.u(), Some(0));
        assert_eq!(d.opt(), Some(Some(0)));
        assert_eq!(d.bytes().map(<[u8]>::len), Some(3 * SPILL));
    }
}
