//! A finished session saved for later: its index and record statistics,
//! with the identity of the trace they describe. The browser caches these
//! (in the origin-private file system) so reopening the same trace does not
//! index it again, as the reference tools reuse `TRACE.index`.
//!
//! Layout: magic, statistics as JSON (length-prefixed), then the index in
//! its own file format (which carries the trace's length and mtime).

use crate::index::{Index, IndexEncoder, TraceIdentity};
use crate::stats::Stats;
use crate::{Error, Result};

const MAGIC: &[u8; 8] = b"TLSAVED\x01";

/// Serializes a complete index with its statistics.
pub(crate) fn save(index: &Index, stats: &Stats, trace: TraceIdentity) -> Vec<u8> {
    let mut saving = start(index, stats, trace);
    saving.0.reserve(index.encoded_len_estimate());
    while !saving.step(index, usize::MAX) {}
    saving.finish()
}

/// A session being saved a piece at a time, so that the browser's worker
/// can answer the page in between (see [`IndexEncoder`]).
pub struct Saving(IndexEncoder);

/// Starts saving: the header and statistics are written at once.
pub(crate) fn start(index: &Index, stats: &Stats, trace: TraceIdentity) -> Saving {
    let json = serde_json::to_vec(stats).expect("Stats serializes to JSON");
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    Saving(index.encoder(trace, out))
}

impl Saving {
    /// Writes about `budget` more entries of `index` (the one saving
    /// started with). True once all of it is written.
    pub(crate) fn step(&mut self, index: &Index, budget: usize) -> bool {
        self.0.step(index, budget)
    }

    /// The saved bytes (after `step` has said it is done), or what
    /// followed the last [`Saving::take_output`].
    pub(crate) fn finish(self) -> Vec<u8> {
        self.0.finish()
    }

    /// The bytes saved since the last call (see
    /// [`IndexEncoder::take_output`]).
    pub fn take_output(&mut self) -> Vec<u8> {
        self.0.take_output()
    }
}

/// Reads what [`save`] wrote. Every length is checked: a truncated or
/// foreign file is an error, never a panic.
pub(crate) fn load(bytes: &[u8]) -> Result<(Index, Stats, TraceIdentity)> {
    let bad = |why: &str| Error::IndexFile(why.into());
    let rest = bytes
        .strip_prefix(MAGIC.as_slice())
        .ok_or_else(|| bad("not a saved Tarmac Lens session (magic number did not match)"))?;
    let (len, rest) = rest
        .split_first_chunk::<8>()
        .ok_or_else(|| bad("saved session is truncated"))?;
    let len =
        usize::try_from(u64::from_le_bytes(*len)).map_err(|_| bad("saved session is corrupt"))?;
    if len > rest.len() {
        return Err(bad("saved session is truncated"));
    }
    let (json, body) = rest.split_at(len);
    let stats: Stats = serde_json::from_slice(json)
        .map_err(|e| Error::IndexFile(format!("saved statistics: {e}")))?;
    let (index, trace) = Index::from_bytes(body)?;
    if !index.is_complete() {
        return Err(bad("saved index is incomplete"));
    }
    // Saved by a version before per-PC counts: the page indexes again
    // (once) rather than show a source pane without its counts.
    if index.pc_counts().is_none() {
        return Err(bad(
            "saved index has no per-PC counts (an older version saved it)",
        ));
    }
    Ok((index, stats, trace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexOptions;
    use crate::parse::ParseOptions;
    use crate::source::SliceSource;
    use crate::stats::compute;

    const TRACE: &[u8] = b"0 clk IT (0) 00008000 e3a00001 A svc_mon : MOV r0,#1\n\
0 clk R r0 00000001\n\
1 clk IT (1) 00008004 e3a01002 A svc_mon : MOV r1,#2\n\
1 clk R r1 00000002\n";

    #[test]
    fn round_trip_and_corruption() {
        let index = Index::build_from_slice(TRACE, IndexOptions::default(), |_| {});
        let stats = compute(SliceSource(TRACE), ParseOptions::default(), |_| {}).unwrap();
        let id = TraceIdentity {
            len: TRACE.len() as u64,
            mtime: 1_700_000_000_123,
        };
        let bytes = save(&index, &stats, id);
        let (back, back_stats, back_id) = load(&bytes).unwrap();
        assert_eq!(back_id, id);
        assert_eq!(back_stats, stats);
        assert_eq!(back.summary(), index.summary());
        for cut in [0, 5, 12, 20, bytes.len() - 1] {
            assert!(load(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = bytes.clone();
        bad[0] ^= 1;
        assert!(load(&bad).err().unwrap().to_string().contains("magic"));
    }
}
