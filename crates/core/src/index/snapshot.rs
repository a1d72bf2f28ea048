//! Register snapshots, one per checkpoint, delta-coded: most of a register
//! file (SIMD, system registers) is known but unchanged from one checkpoint
//! to the next, and storing it whole at each one made snapshots half the
//! resident index. Checkpoint `k` with `k % KEYFRAME_EVERY == 0` holds a
//! keyframe (the known byte runs); the others hold only the runs whose
//! value or known-ness changed since checkpoint `k - 1`. A restore thus
//! applies one keyframe and at most `KEYFRAME_EVERY - 1` deltas.
//!
//! Both are one record: a varint run count, then per run a varint gap
//! (from the previous run's end), a varint `len << 1 | known`, and the
//! `len` bytes when `known`. A keyframe is the delta from an empty file.

use super::*;

/// Checkpoints per keyframe. Placement follows the checkpoint number alone,
/// so a parallel build's stitch, re-encoding in checkpoint order, writes
/// the bytes a sequential build writes.
pub(super) const KEYFRAME_EVERY: usize = 16;

/// The register snapshots of an index's checkpoints.
#[derive(Default)]
pub(super) struct Snapshots {
    /// The records, in checkpoint order.
    bytes: Vec<u8>,
    /// Where each checkpoint's record starts in `bytes`.
    starts: Vec<u64>,
    /// The last pushed state with unknown bytes zeroed, which the next
    /// delta is taken from; `None` when not known (an index file was
    /// loaded) until the next push needs it.
    last: Option<RegFile>,
}

impl Snapshots {
    /// Stores the state at the next checkpoint.
    pub(super) fn push(&mut self, regs: &RegFile) {
        let k = self.starts.len();
        self.starts.push(self.bytes.len() as u64);
        let mut last = match self.last.take() {
            Some(last) => last,
            None if k == 0 => RegFile::default(),
            None => self.get(k - 1),
        };
        if k.is_multiple_of(KEYFRAME_EVERY) {
            last.bytes.fill(0);
            last.known.fill(0);
        }
        encode_delta(&mut self.bytes, &mut last, regs);
        self.last = Some(last);
    }

    /// The register file at checkpoint `k` (empty past the end).
    pub(super) fn get(&self, k: usize) -> RegFile {
        let mut rf = RegFile::default();
        if k < self.starts.len() {
            for &start in &self.starts[k - k % KEYFRAME_EVERY..=k] {
                apply_delta(&self.bytes, start as usize, &mut rf);
            }
        }
        rf
    }

    /// Each register file from checkpoint `from` on, in order, with the
    /// bytes unknown there taken from `base`: a range's snapshots as the
    /// stitch adopts them (the state at the split under what the range did
    /// not know). Each record is applied once, onto the last file.
    pub(super) fn each_over(
        &self,
        from: usize,
        base: &RegFile,
        mut f: impl FnMut(usize, &RegFile),
    ) {
        let mut rf = base.clone();
        let first = from - from % KEYFRAME_EVERY;
        for (k, &start) in self.starts.iter().enumerate().skip(first) {
            if k.is_multiple_of(KEYFRAME_EVERY) {
                rf.bytes.copy_from_slice(&base.bytes[..]);
                rf.known.copy_from_slice(&base.known[..]);
            }
            let _ = apply_record(&self.bytes, start as usize, Some(&mut rf), Some(base));
            if k >= from {
                f(k, &rf);
            }
        }
    }

    /// Gives back unused room (the index is complete).
    pub(super) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.starts.shrink_to_fit();
    }

    /// Bytes held, counted by capacity.
    pub(super) fn resident_bytes(&self) -> usize {
        self.bytes.capacity()
            + self.starts.capacity() * 8
            + self.last.as_ref().map_or(0, |_| 2 * regfile::SIZE)
    }

    /// The encoded records and where each starts (for an index file).
    pub(super) fn parts(&self) -> (&[u8], &[u64]) {
        (&self.bytes, &self.starts)
    }

    /// Snapshots read from an index file, checked: every record must decode
    /// within `bytes` and end where the next starts.
    pub(super) fn from_parts(bytes: Vec<u8>, starts: Vec<u64>) -> Option<Snapshots> {
        let ends = starts.iter().skip(1).copied().chain([bytes.len() as u64]);
        for (&start, end) in starts.iter().zip(ends) {
            if record_end(&bytes, start as usize)? as u64 != end {
                return None;
            }
        }
        Some(Snapshots {
            bytes,
            starts,
            last: None,
        })
    }

    /// Snapshots from an index file of format 8 or older, where each
    /// checkpoint held its known runs whole (a varint count, then varint
    /// offset from the previous run's start, varint length, bytes).
    pub(super) fn from_full(bytes: &[u8], starts: &[u64]) -> Option<Snapshots> {
        let mut s = Snapshots::default();
        for &start in starts {
            let mut rf = RegFile::default();
            apply_full(bytes, start as usize, &mut rf)?;
            s.push(&rf);
        }
        Some(s)
    }
}

/// Whether byte `i` of `cur` differs from the canonical `last` (unknown
/// bytes zero): in known-ness, or in value while known.
fn differs(last: &RegFile, cur: &RegFile, i: usize) -> bool {
    let known = cur.known[i] != 0;
    known != (last.known[i] != 0) || (known && cur.bytes[i] != last.bytes[i])
}

/// Appends the record taking `last` to `cur`, and makes `last` the
/// canonical form of `cur`.
fn encode_delta(out: &mut Vec<u8>, last: &mut RegFile, cur: &RegFile) {
    let mut runs: Vec<(usize, usize, bool)> = Vec::new();
    let mut i = 0;
    while i < regfile::SIZE {
        // Most of the file is the same as at the last checkpoint, or unknown
        // in both (SVE, predicates): skip it eight bytes at a time.
        if i % 8 == 0 && i + 8 <= regfile::SIZE {
            let word = |a: &[u8; regfile::SIZE]| {
                u64::from_ne_bytes(a[i..i + 8].try_into().unwrap_or_default())
            };
            let known = word(&cur.known);
            if known == word(&last.known) && (known == 0 || word(&cur.bytes) == word(&last.bytes)) {
                i += 8;
                continue;
            }
        }
        if !differs(last, cur, i) {
            i += 1;
            continue;
        }
        let known = cur.known[i] != 0;
        let s = i;
        while i < regfile::SIZE && differs(last, cur, i) && (cur.known[i] != 0) == known {
            i += 1;
        }
        runs.push((s, i, known));
    }
    varint::put(out, runs.len() as u64);
    let mut prev = 0;
    for (s, e, known) in runs {
        varint::put(out, (s - prev) as u64);
        varint::put(out, ((e - s) << 1 | usize::from(known)) as u64);
        if known {
            out.extend_from_slice(&cur.bytes[s..e]);
            last.bytes[s..e].copy_from_slice(&cur.bytes[s..e]);
            last.known[s..e].fill(1);
        } else {
            last.bytes[s..e].fill(0);
            last.known[s..e].fill(0);
        }
        prev = e;
    }
}

/// Applies the record at `pos` to `rf`; where it ends, `None` if it does
/// not decode within `buf` and the register file.
/// Unknown runs become `base`'s bytes when given.
fn apply_record(
    buf: &[u8],
    mut pos: usize,
    mut rf: Option<&mut RegFile>,
    base: Option<&RegFile>,
) -> Option<usize> {
    let n = varint::get(buf, &mut pos)?;
    let mut off = 0usize;
    for _ in 0..n {
        off = off.checked_add(varint::get(buf, &mut pos)? as usize)?;
        let word = varint::get(buf, &mut pos)? as usize;
        let (len, known) = (word >> 1, word & 1 != 0);
        let end = off.checked_add(len).filter(|&e| e <= regfile::SIZE)?;
        let bytes = if known {
            let b = buf.get(pos..pos.checked_add(len)?)?;
            pos += len;
            Some(b)
        } else {
            None
        };
        if let Some(rf) = rf.as_deref_mut() {
            match bytes {
                Some(b) => {
                    rf.bytes[off..end].copy_from_slice(b);
                    rf.known[off..end].fill(1);
                }
                None => match base {
                    Some(base) => {
                        rf.bytes[off..end].copy_from_slice(&base.bytes[off..end]);
                        rf.known[off..end].copy_from_slice(&base.known[off..end]);
                    }
                    None => {
                        rf.bytes[off..end].fill(0);
                        rf.known[off..end].fill(0);
                    }
                },
            }
        }
        off = end;
    }
    Some(pos)
}

fn apply_delta(buf: &[u8], pos: usize, rf: &mut RegFile) {
    // Records are checked when read from a file: this cannot fail.
    let _ = apply_record(buf, pos, Some(rf), None);
}

fn record_end(buf: &[u8], pos: usize) -> Option<usize> {
    apply_record(buf, pos, None, None)
}

/// Writes the known runs of a format-8 snapshot at `pos` over `rf`.
fn apply_full(buf: &[u8], mut pos: usize, rf: &mut RegFile) -> Option<()> {
    let n = varint::get(buf, &mut pos)?;
    let mut off = 0usize;
    for _ in 0..n {
        off = off.checked_add(varint::get(buf, &mut pos)? as usize)?;
        let len = varint::get(buf, &mut pos)? as usize;
        let bytes = buf.get(pos..pos.checked_add(len)?)?;
        let end = off.checked_add(len).filter(|&e| e <= regfile::SIZE)?;
        rf.bytes[off..end].copy_from_slice(bytes);
        rf.known[off..end].fill(1);
        pos += len;
    }
    Some(())
}

impl Snapshots {
    /// Every snapshot whole, as an index file of format 8 held them, and
    /// where each starts.
    pub(super) fn to_full(&self) -> (Vec<u8>, Vec<u64>) {
        let mut bytes = Vec::new();
        let mut starts = Vec::with_capacity(self.starts.len());
        for k in 0..self.starts.len() {
            starts.push(bytes.len() as u64);
            encode_full(&mut bytes, &self.get(k));
        }
        (bytes, starts)
    }
}

/// The format-8 encoding of `regs`.
fn encode_full(out: &mut Vec<u8>, regs: &RegFile) {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < regfile::SIZE {
        if regs.known[i] == 0 {
            i += 1;
            continue;
        }
        let s = i;
        while i < regfile::SIZE && regs.known[i] != 0 {
            i += 1;
        }
        runs.push((s, i));
    }
    varint::put(out, runs.len() as u64);
    let mut prev = 0;
    for (s, e) in runs {
        varint::put(out, (s - prev) as u64);
        varint::put(out, (e - s) as u64);
        out.extend_from_slice(&regs.bytes[s..e]);
        prev = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::Rng;

    fn canonical(rf: &RegFile) -> RegFile {
        let mut c = RegFile::default();
        for i in 0..regfile::SIZE {
            if rf.known[i] != 0 {
                c.bytes[i] = rf.bytes[i];
                c.known[i] = 1;
            }
        }
        c
    }

    fn same(a: &RegFile, b: &RegFile) -> bool {
        a.bytes[..] == b.bytes[..] && a.known[..] == b.known[..]
    }

    /// Random register files evolving as a trace's do: a few registers
    /// written, some becoming unknown, known-ness flags other than 1 and
    /// garbage under unknown bytes; every checkpoint restores exactly.
    #[test]
    fn deltas_restore_every_checkpoint() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut regs = RegFile::default();
        let mut states = Vec::new();
        let mut snaps = Snapshots::default();
        for _ in 0..200 {
            for _ in 0..rng.index(40) {
                let off = rng.index(regfile::SIZE);
                let len = (1 + rng.index(32)).min(regfile::SIZE - off);
                let action = rng.index(10);
                for i in off..off + len {
                    regs.bytes[i] = rng.next() as u8;
                    regs.known[i] = match action {
                        0 => 0,
                        1 => 2 + rng.index(200) as u8,
                        _ => 1,
                    };
                }
            }
            if rng.index(20) == 0 {
                // A register file forgotten whole (a new range, a reset).
                regs.known.fill(0);
            }
            snaps.push(&regs);
            states.push(canonical(&regs));
        }
        for (k, want) in states.iter().enumerate() {
            assert!(same(&snaps.get(k), want), "checkpoint {k}");
        }
        // Read back from its parts (as from a file), it restores the same,
        // and pushing on from there encodes what pushing on did.
        let (bytes, starts) = snaps.parts();
        let mut back = Snapshots::from_parts(bytes.to_vec(), starts.to_vec()).unwrap();
        for (k, want) in states.iter().enumerate() {
            assert!(same(&back.get(k), want), "checkpoint {k} read back");
        }
        regs.known[..64].fill(1);
        snaps.push(&regs);
        back.push(&regs);
        assert_eq!(snaps.parts(), back.parts());
        // Deltas are the point: far smaller than whole snapshots.
        let mut full = Vec::new();
        for s in &states {
            encode_full(&mut full, s);
        }
        assert!(snaps.parts().0.len() * 2 < full.len());
    }

    /// The stitch's reading of a range's snapshots: each checkpoint's known
    /// bytes, and the base's under the unknown ones, from any start.
    #[test]
    fn each_over_fills_unknown_bytes_from_the_base() {
        let mut rng = Rng(0x51ed_270b);
        let mut base = RegFile::default();
        for i in 0..regfile::SIZE {
            base.bytes[i] = rng.next() as u8;
            base.known[i] = u8::from(rng.index(3) != 0);
        }
        let mut regs = RegFile::default();
        let (mut snaps, mut states) = (Snapshots::default(), Vec::new());
        for k in 0..70 {
            for _ in 0..rng.index(30) {
                let off = rng.index(regfile::SIZE - 16);
                let known = u8::from(rng.index(5) != 0);
                for i in off..off + 1 + rng.index(16) {
                    regs.bytes[i] = rng.next() as u8;
                    regs.known[i] = known;
                }
            }
            if k % 23 == 22 {
                regs.known.fill(0);
            }
            snaps.push(&regs);
            let mut want = canonical(&regs);
            for i in 0..regfile::SIZE {
                if want.known[i] == 0 {
                    want.bytes[i] = base.bytes[i];
                    want.known[i] = base.known[i];
                }
            }
            states.push(want);
        }
        for from in [0, 1, 15, 16, 17, 69] {
            let mut seen = Vec::new();
            snaps.each_over(from, &base, |k, rf| {
                assert!(same(rf, &states[k]), "checkpoint {k} from {from}");
                seen.push(k);
            });
            assert_eq!(seen, (from..70).collect::<Vec<_>>());
        }
    }

    #[test]
    fn format_8_snapshots_convert() {
        let mut rng = Rng(7);
        let mut regs = RegFile::default();
        let (mut full, mut starts, mut states) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..40 {
            for _ in 0..8 {
                let i = rng.index(regfile::SIZE);
                regs.bytes[i] = rng.next() as u8;
                regs.known[i] = u8::from(rng.index(4) != 0);
            }
            starts.push(full.len() as u64);
            encode_full(&mut full, &regs);
            states.push(canonical(&regs));
        }
        let snaps = Snapshots::from_full(&full, &starts).unwrap();
        for (k, want) in states.iter().enumerate() {
            assert!(same(&snaps.get(k), want), "checkpoint {k}");
        }
    }

    #[test]
    fn corrupt_records_are_refused() {
        let mut snaps = Snapshots::default();
        let mut regs = RegFile::default();
        regs.known[100..120].fill(1);
        regs.bytes[100..120].fill(0xab);
        snaps.push(&regs);
        regs.known[110..130].fill(0);
        snaps.push(&regs);
        let (bytes, starts) = snaps.parts();
        assert!(Snapshots::from_parts(bytes.to_vec(), starts.to_vec()).is_some());
        // Cut short, a run past the register file, a start inside a record.
        assert!(
            Snapshots::from_parts(bytes[..bytes.len() - 1].to_vec(), starts.to_vec()).is_none()
        );
        let mut past = Vec::new();
        for v in [1, regfile::SIZE as u64 - 2, 4 << 1] {
            varint::put(&mut past, v);
        }
        assert!(Snapshots::from_parts(past, vec![0]).is_none());
        assert!(Snapshots::from_parts(bytes.to_vec(), vec![0, starts[1] - 1]).is_none());
        assert!(Snapshots::from_full(&[1, 0, 200, 1], &[0]).is_none());
    }
}
