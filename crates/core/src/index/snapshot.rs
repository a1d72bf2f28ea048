//! Sparse register snapshots: the known byte runs of a register file at
//! a checkpoint, varint-encoded, restored before a replay.

use super::*;

/// Known byte runs of a register file, in order, without allocating.
pub(super) fn for_known_runs(regs: &RegFile, mut f: impl FnMut(usize, &[u8])) {
    let known = &regs.known[..];
    let mut i = 0;
    while i < known.len() {
        if known[i] == 0 {
            // Most of the file (SVE, predicates) is usually unknown: skip
            // it eight bytes at a time.
            if i % 8 == 0 && i + 8 <= known.len() && known[i..i + 8] == [0; 8] {
                i += 8;
            } else {
                i += 1;
            }
            continue;
        }
        let s = i;
        while i < known.len() && known[i] != 0 {
            i += 1;
        }
        f(s, &regs.bytes[s..i]);
    }
}

pub(super) fn encode_snapshot(out: &mut Vec<u8>, regs: &RegFile) {
    let mut runs = 0u64;
    for_known_runs(regs, |_, _| runs += 1);
    varint::put(out, runs);
    let mut prev = 0usize;
    for_known_runs(regs, |off, bytes| {
        varint::put(out, (off - prev) as u64);
        varint::put(out, bytes.len() as u64);
        out.extend_from_slice(bytes);
        prev = off;
    });
}

/// Writes the known runs of the snapshot at `start` over `rf`.
pub(super) fn apply_snapshot(buf: &[u8], start: u64, rf: &mut RegFile) {
    let mut pos = start as usize;
    let n = varint::get(buf, &mut pos).unwrap_or(0);
    let mut off = 0usize;
    for _ in 0..n {
        let (Some(d), Some(len)) = (varint::get(buf, &mut pos), varint::get(buf, &mut pos)) else {
            break;
        };
        off += d as usize;
        let len = len as usize;
        let Some(bytes) = buf.get(pos..pos + len) else {
            break;
        };
        if off + len <= regfile::SIZE {
            rf.bytes[off..off + len].copy_from_slice(bytes);
            rf.known[off..off + len].fill(1);
        }
        pos += len;
    }
}

pub(super) fn decode_snapshot(buf: &[u8], start: u64) -> RegFile {
    let mut rf = RegFile::default();
    apply_snapshot(buf, start, &mut rf);
    rf
}
