//! Saving and loading an index. The file starts with a magic number and a
//! format version, then the identity of the trace it was built from (length
//! and modification time) so a stale index is detected, then the parts.
//! Every length is checked on load: a corrupt file is an error, not a panic.

use std::collections::BTreeMap;

use super::calls::{CallParts, CallTable, Unnumbered};
use super::depth::DepthCache;
use super::events::{BlockHead, EventList};
use super::memdiff::MemHistory;
use super::pc_counts::{Counts, PcCountMap};
use super::reads::ReadHistory;
use super::snapshot::Snapshots;
use super::{Checkpoint, Index, IndexOptions, IndexSummary};
use crate::codec::varint;
use crate::engine::ResumeState;
use crate::parse::{CpuName, Dialect, InstructionForm, ParseOptions};
use crate::{Error, Result};

/// The first 8 bytes of an index file.
const INDEX_MAGIC: &[u8; 8] = b"TLENSIX\x01";
const VERSION: u64 = 11;
/// Files of this version lack each interval's own-time bounds (section 18):
/// read, a time is looked for by the clamped times alone. Their nodes are
/// this version's only if no line was unparsed (unparsed lines opened
/// nodes then): one that lists any is refused, to be built again.
const VERSION_WITHOUT_OWN_TIMES: u64 = 10;
/// Files of this version hold each call's call address and function as
/// deltas, not as a number in a table of (call address, function) pairs
/// (section 17): read, they are numbered.
const VERSION_UNNUMBERED_CALLS: u64 = 9;
/// Files of this version hold every checkpoint's register snapshot whole
/// (`snapshot.rs` delta-codes them since): read, they are re-encoded.
const VERSION_FULL_SNAPSHOTS: u64 = 8;
/// Format 5 lacks only the timeline's depth per bucket (section 12): read,
/// it answers that question from the calls.
const VERSION_WITHOUT_DEPTH: u64 = 5;
/// Files of this version have no per-PC counts.
const VERSION_WITHOUT_COUNTS: u64 = 6;
/// Files of this version do not say which memory and registers were read
/// (sections 14-16): read, a read watchpoint replays every interval.
const VERSION_WITHOUT_READS: u64 = 7;

/// What an index file says about the trace it indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceIdentity {
    /// The trace's length in bytes.
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
    fn u(&mut self) -> Result<u64> {
        varint::get(self.buf, &mut self.pos)
            .ok_or_else(|| Error::IndexFile("index file is truncated or corrupt".into()))
    }
    fn len(&mut self, max_item: usize) -> Result<usize> {
        let n = self.u()? as usize;
        // Each item takes at least `max_item` bytes... or at least one.
        if n.saturating_mul(max_item.max(1))
            > self.buf.len() - self.pos.min(self.buf.len()) + 16 * n.min(1 << 20)
        {
            return Err(Error::IndexFile(
                "index file has an impossible length".into(),
            ));
        }
        Ok(n)
    }
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u()? as usize;
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| Error::IndexFile("index file is truncated".into()))?;
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

fn dialect_from(c: u64) -> Result<Dialect> {
    match c {
        0 => Ok(Dialect::Tarmac),
        1 => Ok(Dialect::Armulator),
        2 => Ok(Dialect::TiEp),
        _ => Err(Error::IndexFile(
            "index file names an unknown dialect".into(),
        )),
    }
}

/// An index being encoded a piece at a time (made by [`Index::encoder`]):
/// the browser's worker answers the page between pieces, where encoding a
/// 10 GB trace's index in one call held its answers for a quarter of a
/// second. The bytes are those of [`Index::to_bytes`].
pub struct IndexEncoder {
    w: W,
    /// Which part of the index is being written.
    section: usize,
    /// How far into it.
    at: usize,
    /// The memory fills are a map: the key to go on from.
    next_fill: Option<(u64, u64)>,
    /// Whole snapshots and their starts, written instead of the deltas in
    /// a file of format 8.
    full_snapshots: Option<(Vec<u8>, Vec<u64>)>,
    /// Calls and their block directory as a file of format 9 or older
    /// holds them (no section 17).
    unnumbered_calls: Option<Unnumbered>,
    /// Written as format 10, without section 18.
    without_own_times: bool,
}

/// Bytes of a byte section copied per unit of a step's budget.
const BYTES_PER_UNIT: usize = 16;

impl IndexEncoder {
    /// Writes about `budget` more entries (or `16 * budget` bytes) of
    /// `index`, which must be the index this encoder was made for. True
    /// once all of it is written.
    pub fn step(&mut self, index: &Index, mut budget: usize) -> bool {
        let parts = index.mem.parts();
        let CallParts {
            encoded: calls,
            dir: call_dir,
            count: call_count,
            sites: call_sites,
        } = match &self.unnumbered_calls {
            Some(u) => CallParts {
                encoded: &u.encoded,
                dir: &u.dir,
                count: index.calls.len(),
                sites: &[],
            },
            None => index.calls.parts(),
        };
        let (events, event_dir, event_count) = index.events.parts();
        let (snapshots, snapshot_starts) = match &self.full_snapshots {
            Some((bytes, starts)) => (&bytes[..], &starts[..]),
            None => index.snapshots.parts(),
        };
        while budget > 0 {
            let w = &mut self.w;
            let at = self.at;
            // Each arm writes from `at` on and says how far it got; a part
            // is done when it gets to its end.
            let (to, end) = match self.section {
                0 => {
                    // Checkpoint k's snapshot is the k-th (they are pushed
                    // together); the file keeps where it starts beside it.
                    let mut starts = snapshot_starts[at.min(snapshot_starts.len())..].iter();
                    entries(w, &index.checkpoints, at, &mut budget, |w, c| {
                        w.u(c.line);
                        w.u(c.offset);
                        w.u(c.parser_time);
                        w.u(starts.next().copied().unwrap_or(0));
                        let r = &c.resume;
                        w.u(r.node_index);
                        w.u(r.current_time.map_or(0, |t| t.wrapping_add(1)));
                        w.u(r.expected_next_pc);
                        w.u(r.expected_next_lr);
                        w.u(r.insns_since_lr_update);
                        w.u(r.instructions);
                    })
                }
                1 => byte_run(w, snapshots, at, &mut budget),
                2 => entries(w, &index.reg_groups, at, &mut budget, |w, g| {
                    w.u(g[0]);
                    w.u(g[1]);
                }),
                3 => entries(w, &index.pc_blooms, at, &mut budget, |w, b| {
                    for v in b {
                        w.0.extend_from_slice(&v.to_le_bytes());
                    }
                }),
                4 => byte_run(w, parts.arena, at, &mut budget),
                5 => entries(w, parts.interval_start, at, &mut budget, |w, s| w.u(*s)),
                6 => entries(w, parts.segments, at, &mut budget, |w, seg| {
                    w.u(seg.len() as u64);
                    for (b, m) in seg {
                        w.u(*b);
                        w.u(*m);
                    }
                }),
                7 => {
                    if at == 0 {
                        w.u(parts.fills.len() as u64);
                    }
                    let mut written = 0;
                    let from = self.next_fill.unwrap_or((0, 0));
                    self.next_fill = None;
                    for (&key, (mask, data)) in parts.fills.range(from..) {
                        if written == budget {
                            self.next_fill = Some(key);
                            break;
                        }
                        let (since, block) = key;
                        w.u(since);
                        w.u(block);
                        w.u(u64::from(*mask));
                        w.0.extend_from_slice(data);
                        written += 1;
                    }
                    budget -= written;
                    (
                        at + written,
                        if self.next_fill.is_some() {
                            usize::MAX
                        } else {
                            at + written
                        },
                    )
                }
                8 => byte_run(w, calls, at, &mut budget),
                9 => {
                    let r = entries(w, call_dir, at, &mut budget, |w, (e, o)| {
                        w.u(*e);
                        w.u(*o);
                    });
                    if r.0 == r.1 {
                        w.u(call_count as u64);
                    }
                    r
                }
                10 => byte_run(w, events, at, &mut budget),
                11 => {
                    let r = entries(w, event_dir, at, &mut budget, |w, h| {
                        for v in [h.line, h.node, h.offset, h.at, u64::from(h.kinds)] {
                            w.u(v);
                        }
                    });
                    if r.0 == r.1 {
                        w.u(event_count);
                    }
                    r
                }
                12 => {
                    // A few kilobytes: one entry of the budget.
                    let (bounds, depth) = index.calls.depth_parts();
                    w.u(bounds.len() as u64);
                    let mut last = 0;
                    for &b in bounds {
                        w.u(b.saturating_sub(last));
                        last = b;
                    }
                    for &d in depth {
                        w.u(u64::from(d));
                    }
                    budget -= 1;
                    (1, 1)
                }
                13 => {
                    // One entry per distinct PC: the program's size.
                    match &index.pc_counts {
                        None => w.u(0),
                        Some(counts) => {
                            let sorted = counts.sorted();
                            w.u(1 + sorted.len() as u64);
                            let mut last = 0;
                            for (pc, c) in sorted {
                                w.u(pc - last);
                                w.u(c.executed);
                                w.u(c.failed);
                                last = pc;
                            }
                        }
                    }
                    budget -= 1;
                    (1, 1)
                }
                14 => {
                    if at == 0 {
                        w.u(u64::from(index.reads.is_some()));
                    }
                    let starts = index.reads.as_ref().map_or(&[][..], |r| r.parts().1);
                    entries(w, starts, at, &mut budget, |w, s| w.u(*s))
                }
                15 => {
                    let arena = index.reads.as_ref().map_or(&[][..], |r| r.parts().0);
                    byte_run(w, arena, at, &mut budget)
                }
                16 => {
                    if at == 0 {
                        w.u(u64::from(index.reg_reads.is_some()));
                    }
                    let groups = index.reg_reads.as_deref().unwrap_or(&[]);
                    entries(w, groups, at, &mut budget, |w, g| {
                        w.u(g[0]);
                        w.u(g[1]);
                    })
                }
                17 if self.unnumbered_calls.is_none() => {
                    entries(w, call_sites, at, &mut budget, |w, (call, function)| {
                        w.u(*call);
                        w.u(*function);
                    })
                }
                18 if self.unnumbered_calls.is_none() && !self.without_own_times => {
                    if at == 0 {
                        w.u(u64::from(index.own_times.is_some()));
                    }
                    let times = index.own_times.as_deref().unwrap_or(&[]);
                    entries(w, times, at, &mut budget, |w, t| {
                        // Most intervals' times are a span: the greatest
                        // as its distance from the least.
                        w.u(t[0]);
                        w.u(t[1].wrapping_sub(t[0]));
                    })
                }
                _ => return true,
            };
            if to == end {
                self.section += 1;
                self.at = 0;
            } else {
                self.at = to;
            }
        }
        self.section > 18
    }

    /// The encoded index (after `step` has said it is done), or what
    /// followed the last [`IndexEncoder::take_output`].
    pub fn finish(self) -> Vec<u8> {
        self.w.0
    }

    /// Makes room for `additional` more bytes of output at once.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.w.0.reserve(additional);
    }

    /// Hands the bytes encoded since the last call to `sink`.
    pub(crate) fn drain_to(&mut self, sink: &mut crate::codec::Enc<'_>) {
        sink.raw(&self.w.0);
        self.w.0.clear();
    }

    /// The bytes encoded since the last call (the first time: since the
    /// start), for a writer that passes them on as they come instead of
    /// holding the whole encoding (470 MB for a 10 GB trace).
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.w.0)
    }
}

/// Writes `items[at..]`, count first when `at` is 0, as far as `budget`
/// goes (taking what it used from it). Returns where it stopped and the end.
fn entries<T>(
    w: &mut W,
    items: &[T],
    at: usize,
    budget: &mut usize,
    mut f: impl FnMut(&mut W, &T),
) -> (usize, usize) {
    if at == 0 {
        w.u(items.len() as u64);
    }
    let to = at.saturating_add(*budget).min(items.len());
    for item in &items[at..to] {
        f(w, item);
    }
    *budget -= to - at;
    (to, items.len())
}

/// Writes `bytes[at..]`, length first when `at` is 0, as far as `budget`
/// goes. Returns where it stopped and the end.
fn byte_run(w: &mut W, bytes: &[u8], at: usize, budget: &mut usize) -> (usize, usize) {
    if at == 0 {
        w.u(bytes.len() as u64);
    }
    let room = budget.saturating_mul(BYTES_PER_UNIT);
    let to = at.saturating_add(room).min(bytes.len());
    w.0.extend_from_slice(&bytes[at..to]);
    *budget -= (to - at).div_ceil(BYTES_PER_UNIT).min(*budget);
    (to, bytes.len())
}

impl Index {
    /// Serializes the index.
    pub fn to_bytes(&self, trace: TraceIdentity) -> Vec<u8> {
        self.append_bytes(trace, Vec::new())
    }

    /// [`Index::to_bytes`] appended to `out`, which is first grown to about
    /// the final size: growing it by doubling copied the index's bytes twice
    /// over.
    pub(crate) fn append_bytes(&self, trace: TraceIdentity, mut out: Vec<u8>) -> Vec<u8> {
        out.reserve(self.encoded_len_estimate());
        let mut e = self.encoder(trace, out);
        while !e.step(self, usize::MAX) {}
        e.finish()
    }

    /// About how many bytes [`Index::to_bytes`] gives (a little more).
    pub(crate) fn encoded_len_estimate(&self) -> usize {
        let parts = self.mem.parts();
        let CallParts {
            encoded: calls,
            dir: call_dir,
            sites: call_sites,
            ..
        } = self.calls.parts();
        let (events, event_dir, _) = self.events.parts();
        // Byte sections whole, a few bytes per varint of the rest.
        64 + self.snapshots.parts().0.len()
            + parts.arena.len()
            + calls.len()
            + events.len()
            + 48 * self.checkpoints.len()
            + 6 * self.reg_groups.len()
            + std::mem::size_of_val(&self.pc_blooms[..])
            + 4 * parts.interval_start.len()
            + parts
                .segments
                .iter()
                .map(|s| 2 + 6 * s.len())
                .sum::<usize>()
            + parts
                .fills
                .values()
                .map(|(_, d)| 12 + d.len())
                .sum::<usize>()
            + 8 * call_dir.len()
            + 8 * call_sites.len()
            + 24 * event_dir.len()
            + 12 * self.pc_counts.as_ref().map_or(0, PcCountMap::len)
            + self.reads.as_ref().map_or(0, |r| {
                let (arena, starts) = r.parts();
                arena.len() + 4 * starts.len()
            })
    }

    /// An encoder of this index to be run a piece at a time with
    /// [`IndexEncoder::step`], appending to `out` (whose bytes can be taken
    /// as they come: [`IndexEncoder::take_output`]).
    pub fn encoder(&self, trace: TraceIdentity, mut out: Vec<u8>) -> IndexEncoder {
        out.extend_from_slice(INDEX_MAGIC);
        let mut w = W(out);
        w.u(VERSION);
        w.u(trace.len);
        w.u(trace.mtime);
        w.u(self.opts.checkpoint_bytes);
        // The instruction form shares implicit_thumb's word: files from
        // before it hold 0 or 1 there, read as no form, as they were made.
        let form = match self.opts.parse.instruction_form {
            None => 0,
            Some(InstructionForm::AddressAfter) => 1,
            Some(InstructionForm::AddressInBrackets) => 2,
        };
        w.u(u64::from(self.opts.parse.implicit_thumb) | form << 1);
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
        IndexEncoder {
            w,
            section: 0,
            at: 0,
            next_fill: None,
            full_snapshots: None,
            unnumbered_calls: None,
            without_own_times: false,
        }
    }

    /// The bytes of an index file of format 10, which lacked the
    /// intervals' own times: what the page's cache and saved sessions may
    /// still hold, for the tests that they load.
    #[doc(hidden)]
    pub fn to_bytes_format_10(&self, trace: TraceIdentity) -> Vec<u8> {
        let mut e = self.encoder(trace, Vec::new());
        e.w.0[INDEX_MAGIC.len()] = VERSION_WITHOUT_OWN_TIMES as u8;
        e.without_own_times = true;
        while !e.step(self, usize::MAX) {}
        e.finish()
    }

    /// The bytes of an index file of format 8, whose register snapshots
    /// were whole and whose calls held their addresses: what the page's
    /// cache and saved sessions may still hold, for the tests that they
    /// load.
    #[doc(hidden)]
    pub fn to_bytes_format_8(&self, trace: TraceIdentity) -> Vec<u8> {
        let mut e = self.encoder(trace, Vec::new());
        e.w.0[INDEX_MAGIC.len()] = VERSION_FULL_SNAPSHOTS as u8;
        e.full_snapshots = Some(self.snapshots.to_full());
        e.unnumbered_calls = Some(self.calls.to_unnumbered_parts());
        while !e.step(self, usize::MAX) {}
        e.finish()
    }

    /// Reads an index file, returning it and the identity of the trace it
    /// was built for.
    pub fn from_bytes(buf: &[u8]) -> Result<(Index, TraceIdentity)> {
        Self::from_prefix(buf).map(|(index, trace, _)| (index, trace))
    }

    /// [`Index::from_bytes`] of an index that `buf` starts with; also says
    /// where it ends.
    pub(crate) fn from_prefix(buf: &[u8]) -> Result<(Index, TraceIdentity, usize)> {
        if buf.len() < 8 || &buf[..8] != INDEX_MAGIC {
            return Err(Error::IndexFile(
                "not a Tarmac Lens index file (magic number did not match)".into(),
            ));
        }
        let mut r = R { buf, pos: 8 };
        let version = r.u()?;
        if ![
            VERSION,
            VERSION_WITHOUT_OWN_TIMES,
            VERSION_UNNUMBERED_CALLS,
            VERSION_FULL_SNAPSHOTS,
            VERSION_WITHOUT_READS,
            VERSION_WITHOUT_COUNTS,
            VERSION_WITHOUT_DEPTH,
        ]
        .contains(&version)
        {
            return Err(Error::IndexFile(format!(
                "index file format version {} is not the supported version {}",
                version, VERSION
            )));
        }
        let trace = TraceIdentity {
            len: r.u()?,
            mtime: r.u()?,
        };
        let checkpoint_bytes = r.u()?.max(1);
        let flags = r.u()?;
        let implicit_thumb = flags & 1 != 0;
        let instruction_form = match flags >> 1 {
            0 => None,
            1 => Some(InstructionForm::AddressAfter),
            2 => Some(InstructionForm::AddressInBrackets),
            n => {
                return Err(Error::IndexFile(format!(
                    "unknown instruction form {n} in the index file"
                )))
            }
        };
        let big_endian = r.u()? != 0;
        let dialect = dialect_from(r.u()?)?;
        let cpu = match r.bytes()? {
            [] => None,
            name => Some(CpuName::new(name).map_err(|e| Error::IndexFile(e.to_string()))?),
        };
        let opts = IndexOptions {
            parse: ParseOptions {
                implicit_thumb,
                big_endian,
                dialect: Some(dialect),
                cpu,
                instruction_form,
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
        let mut snapshot_starts = Vec::with_capacity(n);
        for _ in 0..n {
            let line = r.u()?;
            let offset = r.u()?;
            let parser_time = r.u()?;
            snapshot_starts.push(r.u()?);
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
            });
        }
        let snapshots = r.bytes()?;
        let snapshots = if version > VERSION_FULL_SNAPSHOTS {
            Snapshots::from_parts(snapshots.to_vec(), snapshot_starts)
        } else {
            Snapshots::from_full(snapshots, &snapshot_starts)
        };
        let snapshots = snapshots
            .ok_or_else(|| Error::IndexFile("index file is corrupt (register snapshots)".into()))?;
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
                .ok_or_else(|| Error::IndexFile("index file is truncated".into()))?;
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
                .ok_or_else(|| Error::IndexFile("index file is truncated".into()))?;
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
            return Err(Error::IndexFile(
                "index file is corrupt (call count)".into(),
            ));
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
                    .map_err(|_| Error::IndexFile("index file is corrupt (event kinds)".into()))?,
            });
        }
        let len = r.u()?;
        let events = EventList::from_parts(enc_events, event_dir, len)
            .map_err(|e| Error::IndexFile(format!("index file is corrupt ({e})")))?;
        let depth = if version == VERSION_WITHOUT_DEPTH {
            DepthCache::default()
        } else {
            let n = r.len(1)?;
            let mut bounds = Vec::with_capacity(n);
            let mut last = 0u64;
            for _ in 0..n {
                last = last
                    .checked_add(r.u()?)
                    .ok_or_else(|| Error::IndexFile("index file is corrupt (timeline)".into()))?;
                bounds.push(last);
            }
            let mut depth = Vec::with_capacity(n.saturating_sub(1));
            for _ in 1..n {
                depth
                    .push(u32::try_from(r.u()?).map_err(|_| {
                        Error::IndexFile("index file is corrupt (timeline)".into())
                    })?);
            }
            DepthCache::from_parts(bounds, depth)
                .ok_or_else(|| Error::IndexFile("index file is corrupt (timeline)".into()))?
        };
        let pc_counts = if version >= VERSION_WITHOUT_READS {
            match r.u()? {
                0 => None,
                n => {
                    let mut counts = PcCountMap::default();
                    let mut pc = 0u64;
                    for _ in 1..n {
                        pc = pc.checked_add(r.u()?).ok_or_else(|| {
                            Error::IndexFile("index file is corrupt (PC counts)".into())
                        })?;
                        let c = Counts {
                            executed: r.u()?,
                            failed: r.u()?,
                        };
                        counts.add(pc, c);
                    }
                    Some(counts)
                }
            }
        } else {
            None
        };
        let reads = if version >= VERSION_FULL_SNAPSHOTS {
            let present = r.u()? != 0;
            let n = r.len(1)?;
            let mut starts = Vec::with_capacity(n);
            for _ in 0..n {
                starts.push(r.u()?);
            }
            let arena = r.bytes()?.to_vec();
            if present {
                Some(ReadHistory::from_parts(arena, starts).ok_or_else(|| {
                    Error::IndexFile("index file is corrupt (memory reads)".into())
                })?)
            } else {
                None
            }
        } else {
            None
        };
        let reg_reads = if version >= VERSION_FULL_SNAPSHOTS {
            let present = r.u()? != 0;
            let n = r.len(2)?;
            let mut groups = Vec::with_capacity(n);
            for _ in 0..n {
                groups.push([r.u()?, r.u()?]);
            }
            present.then_some(groups)
        } else {
            None
        };
        let calls = if version >= VERSION_WITHOUT_OWN_TIMES {
            let n = r.len(2)?;
            let mut sites = Vec::with_capacity(n);
            for _ in 0..n {
                sites.push((r.u()?, r.u()?));
            }
            CallTable::from_parts(enc, dir, count, sites, depth)
        } else {
            CallTable::from_unnumbered_parts(&enc, &dir, count, depth)
                .ok_or_else(|| Error::IndexFile("index file is corrupt (calls)".into()))?
        };
        let own_times = if version >= VERSION {
            let present = r.u()? != 0;
            let n = r.len(2)?;
            let mut times = Vec::with_capacity(n);
            for _ in 0..n {
                let least = r.u()?;
                times.push([least, least.wrapping_add(r.u()?)]);
            }
            present.then_some(times)
        } else {
            if events.kinds() & super::EventKind::Unparsed.bit() != 0 {
                return Err(Error::IndexFile(format!(
                    "index file format version {version} groups unparsed lines otherwise than version {VERSION}"
                )));
            }
            None
        };
        let index = Index {
            opts,
            dialect,
            checkpoints,
            snapshots,
            reg_groups,
            reg_reads,
            pc_blooms,
            own_times,
            pc_counts,
            mem: MemHistory::from_parts(arena, starts, segments, fills),
            reads,
            calls,
            events,
            summary,
            complete,
            aarch64_used,
            first_event_line,
        };
        Ok((index, trace, r.pos))
    }
}
