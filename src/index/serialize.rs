//! Saving and loading an index. The file starts with a magic number and a
//! format version, then the identity of the trace it was built from (length
//! and modification time) so a stale index is detected, then the parts.
//! Every length is checked on load: a corrupt file is an error, not a panic.

use std::collections::BTreeMap;

use super::calls::CallTable;
use super::events::{BlockHead, EventList};
use super::memdiff::MemHistory;
use super::{varint, Checkpoint, Index, IndexOptions, IndexSummary};
use crate::engine::ResumeState;
use crate::parse::{CpuName, Dialect, ParseOptions};

pub const INDEX_MAGIC: &[u8; 8] = b"TLENSIX\x01";
const VERSION: u64 = 5;

#[derive(Debug)]
pub struct IndexFileError(pub String);

impl std::fmt::Display for IndexFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for IndexFileError {}

/// What an index file says about the trace it indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceIdentity {
    pub len: u64,
    /// Modification time, seconds since the epoch (0 if unknown).
    pub mtime: u64,
}

struct W(Vec<u8>);

impl W {
    fn u(&mut self, v: u64) {
        varint::put(&mut self.0, v);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u(b.len() as u64);
        self.0.extend_from_slice(b);
    }
}

struct R<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> R<'a> {
    fn u(&mut self) -> Result<u64, IndexFileError> {
        varint::get(self.buf, &mut self.pos)
            .ok_or_else(|| IndexFileError("index file is truncated or corrupt".into()))
    }
    fn len(&mut self, max_item: usize) -> Result<usize, IndexFileError> {
        let n = self.u()? as usize;
        // Each item takes at least `max_item` bytes... or at least one.
        if n.saturating_mul(max_item.max(1))
            > self.buf.len() - self.pos.min(self.buf.len()) + 16 * n.min(1 << 20)
        {
            return Err(IndexFileError("index file has an impossible length".into()));
        }
        Ok(n)
    }
    fn bytes(&mut self) -> Result<&'a [u8], IndexFileError> {
        let n = self.u()? as usize;
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| IndexFileError("index file is truncated".into()))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }
}

fn dialect_code(d: Dialect) -> u64 {
    match d {
        Dialect::Tarmac => 0,
        Dialect::Armulator => 1,
        Dialect::TiEp => 2,
    }
}

fn dialect_from(c: u64) -> Result<Dialect, IndexFileError> {
    match c {
        0 => Ok(Dialect::Tarmac),
        1 => Ok(Dialect::Armulator),
        2 => Ok(Dialect::TiEp),
        _ => Err(IndexFileError("index file names an unknown dialect".into())),
    }
}

impl Index {
    /// Serializes the index.
    pub fn to_bytes(&self, trace: TraceIdentity) -> Vec<u8> {
        let mut w = W(INDEX_MAGIC.to_vec());
        w.u(VERSION);
        w.u(trace.len);
        w.u(trace.mtime);
        w.u(self.opts.checkpoint_bytes);
        w.u(u64::from(self.opts.parse.implicit_thumb));
        w.u(u64::from(self.opts.parse.big_endian));
        w.u(dialect_code(self.dialect));
        w.bytes(
            self.opts
                .parse
                .cpu
                .as_ref()
                .map_or(&[][..], |c| c.as_bytes()),
        );
        let s = &self.summary;
        for v in [s.bytes, s.lines, s.nodes, s.instructions, s.calls] {
            w.u(v);
        }
        w.u(u64::from(self.complete));
        w.u(u64::from(self.aarch64_used));
        w.u(self.first_event_line.map_or(0, |l| l + 1));
        w.u(self.checkpoints.len() as u64);
        for c in &self.checkpoints {
            w.u(c.line);
            w.u(c.offset);
            w.u(c.parser_time);
            w.u(c.snapshot);
            let r = &c.resume;
            w.u(r.node_index);
            w.u(r.current_time.map_or(0, |t| t.wrapping_add(1)));
            w.u(r.expected_next_pc);
            w.u(r.expected_next_lr);
            w.u(r.insns_since_lr_update);
            w.u(r.instructions);
        }
        w.bytes(&self.snapshots);
        w.u(self.reg_groups.len() as u64);
        for g in &self.reg_groups {
            w.u(g[0]);
            w.u(g[1]);
        }
        w.u(self.pc_blooms.len() as u64);
        for b in &self.pc_blooms {
            for v in b {
                w.0.extend_from_slice(&v.to_le_bytes());
            }
        }
        let parts = self.mem.parts();
        let (arena, starts, segments, fills) = (
            parts.arena,
            parts.interval_start,
            parts.segments,
            parts.fills,
        );
        w.bytes(arena);
        w.u(starts.len() as u64);
        for s in starts {
            w.u(*s);
        }
        w.u(segments.len() as u64);
        for seg in segments {
            w.u(seg.len() as u64);
            for (b, m) in seg {
                w.u(*b);
                w.u(*m);
            }
        }
        w.u(fills.len() as u64);
        for ((since, block), (mask, data)) in fills {
            w.u(*since);
            w.u(*block);
            w.u(u64::from(*mask));
            w.0.extend_from_slice(data);
        }
        let (enc, dir, count) = self.calls.parts();
        w.bytes(enc);
        w.u(dir.len() as u64);
        for (e, o) in dir {
            w.u(*e);
            w.u(*o);
        }
        w.u(count as u64);
        let (enc, dir, len) = self.events.parts();
        w.bytes(enc);
        w.u(dir.len() as u64);
        for h in dir {
            for v in [h.line, h.node, h.offset, h.at, u64::from(h.kinds)] {
                w.u(v);
            }
        }
        w.u(len);
        w.0
    }

    /// Reads an index file, returning it and the identity of the trace it
    /// was built for.
    pub fn from_bytes(buf: &[u8]) -> Result<(Index, TraceIdentity), IndexFileError> {
        if buf.len() < 8 || &buf[..8] != INDEX_MAGIC {
            return Err(IndexFileError(
                "not a Tarmac Lens index file (magic number did not match)".into(),
            ));
        }
        let mut r = R { buf, pos: 8 };
        let version = r.u()?;
        if version != VERSION {
            return Err(IndexFileError(format!(
                "index file format version {} is not the supported version {}",
                version, VERSION
            )));
        }
        let trace = TraceIdentity {
            len: r.u()?,
            mtime: r.u()?,
        };
        let checkpoint_bytes = r.u()?.max(1);
        let implicit_thumb = r.u()? != 0;
        let big_endian = r.u()? != 0;
        let dialect = dialect_from(r.u()?)?;
        let cpu = match r.bytes()? {
            [] => None,
            name => Some(CpuName::new(name).map_err(IndexFileError)?),
        };
        let opts = IndexOptions {
            parse: ParseOptions {
                implicit_thumb,
                big_endian,
                dialect: Some(dialect),
                cpu,
            },
            checkpoint_bytes,
        };
        let summary = IndexSummary {
            bytes: r.u()?,
            lines: r.u()?,
            nodes: r.u()?,
            instructions: r.u()?,
            calls: r.u()?,
        };
        let complete = r.u()? != 0;
        let aarch64_used = r.u()? != 0;
        let first_event_line = r.u()?.checked_sub(1);
        let n = r.len(10)?;
        let mut checkpoints = Vec::with_capacity(n);
        for _ in 0..n {
            let line = r.u()?;
            let offset = r.u()?;
            let parser_time = r.u()?;
            let snapshot = r.u()?;
            let resume = ResumeState {
                node_index: r.u()?,
                current_time: r.u()?.checked_sub(1),
                expected_next_pc: r.u()?,
                expected_next_lr: r.u()?,
                insns_since_lr_update: r.u()?,
                instructions: r.u()?,
            };
            checkpoints.push(Checkpoint {
                line,
                offset,
                parser_time,
                resume,
                snapshot,
            });
        }
        let snapshots = r.bytes()?.to_vec();
        if checkpoints
            .iter()
            .any(|c| c.snapshot as usize > snapshots.len())
        {
            return Err(IndexFileError(
                "index file is corrupt (register snapshot out of range)".into(),
            ));
        }
        let n = r.len(2)?;
        let mut reg_groups = Vec::with_capacity(n);
        for _ in 0..n {
            reg_groups.push([r.u()?, r.u()?]);
        }
        let n = r.len(32)?;
        let mut pc_blooms = Vec::with_capacity(n);
        for _ in 0..n {
            let raw = r
                .buf
                .get(r.pos..r.pos + 32)
                .ok_or_else(|| IndexFileError("index file is truncated".into()))?;
            let mut b = [0u64; 4];
            for (i, v) in b.iter_mut().enumerate() {
                let mut word = [0u8; 8];
                word.copy_from_slice(&raw[i * 8..i * 8 + 8]);
                *v = u64::from_le_bytes(word);
            }
            r.pos += 32;
            pc_blooms.push(b);
        }
        let arena = r.bytes()?.to_vec();
        let n = r.len(1)?;
        let mut starts = Vec::with_capacity(n);
        for _ in 0..n {
            starts.push(r.u()?);
        }
        let n = r.len(1)?;
        let mut segments = Vec::with_capacity(n);
        for _ in 0..n {
            let m = r.len(2)?;
            let mut seg = Vec::with_capacity(m);
            for _ in 0..m {
                seg.push((r.u()?, r.u()?));
            }
            segments.push(seg);
        }
        let n = r.len(19)?;
        let mut fills = BTreeMap::new();
        for _ in 0..n {
            let since = r.u()?;
            let block = r.u()?;
            let mask = r.u()? as u16;
            let data: [u8; 16] = r
                .buf
                .get(r.pos..r.pos + 16)
                .and_then(|s| s.try_into().ok())
                .ok_or_else(|| IndexFileError("index file is truncated".into()))?;
            r.pos += 16;
            fills.insert((since, block), (mask, data));
        }
        let enc = r.bytes()?.to_vec();
        let n = r.len(2)?;
        let mut dir = Vec::with_capacity(n);
        for _ in 0..n {
            dir.push((r.u()?, r.u()?));
        }
        let count = r.u()? as usize;
        if count > enc.len() {
            return Err(IndexFileError("index file is corrupt (call count)".into()));
        }
        let enc_events = r.bytes()?.to_vec();
        let n = r.len(5)?;
        let mut event_dir = Vec::with_capacity(n);
        for _ in 0..n {
            event_dir.push(BlockHead {
                line: r.u()?,
                node: r.u()?,
                offset: r.u()?,
                at: r.u()?,
                kinds: u8::try_from(r.u()?)
                    .map_err(|_| IndexFileError("index file is corrupt (event kinds)".into()))?,
            });
        }
        let len = r.u()?;
        let events = EventList::from_parts(enc_events, event_dir, len)
            .map_err(|e| IndexFileError(format!("index file is corrupt ({e})")))?;
        let index = Index {
            opts,
            dialect,
            checkpoints,
            snapshots,
            reg_groups,
            pc_blooms,
            mem: MemHistory::from_parts(arena, starts, segments, fills),
            calls: CallTable::from_parts(enc, dir, count),
            events,
            summary,
            complete,
            aarch64_used,
            first_event_line,
        };
        Ok((index, trace))
    }
}
