//! Parallel indexing: byte ranges of a trace are indexed independently
//! (threads natively, workers in the browser), then stitched into the index
//! a single sequential pass builds, identical to it.
//!
//! A range other than the first starts with nothing known. Its builder runs
//! until a *split point*: a checkpoint at which the engine's control state
//! no longer depends on what came before. There it
//! drops what it built, restarts memory empty (bytes not seen since stand
//! for "as before the split") and defers call-detection decisions that could
//! involve calls made before it. From then
//! on it records what the sequential pass would, up to numbering.
//!
//! The stitch runs in order. For each range it re-runs the sequential
//! builder over the range's text up to the split point (a few KB), checks
//! that the sequential parser and engine state there equal what the range
//! recorded, and then adopts the range's intervals with node, line and
//! instruction numbers shifted, register snapshots completed from the
//! sequential registers at the split, reads of not-yet-seen bytes resolved
//! against the sequential memory at the split, the deferred transfers
//! replayed on the sequential call detector, and the range's final engine
//! laid over the sequential one. A range that found no split point, whose
//! state did not match, or that met a semihosting call reading operands
//! from before its split is re-run sequentially instead: slower, never
//! different.
//!
//! Changes of execution state need not stop a join (traces switch state all
//! the time: a 32-bit EL0 under a 64-bit kernel, programs one after
//! another). Registers a range reads without having seen them written (sp
//! and lr of the state it enters) are noted, and the stitch joins if the
//! sequential pass did not know them either; a range that met such a read,
//! or a semihosting call it cannot decide, early on makes its split again
//! once it knows them (the stitch parses a little more). An sp the range
//! never saw written (gem5 traces no sp writes) is the sequential pass's at
//! the split: the transfers of control that read it are logged with where
//! it is, and the stitch replays them with its value. Time that went
//! backwards before a split leaves the sequential pass clamping to a later
//! time than the range: the range follows which of its nodes would differ
//! under such a clamp, and the stitch lifts its times to the clamp when
//! none would.

use crate::lines::{Line, LineReader, SliceLines};
use crate::parse::{Dialect, Parser};
use crate::source::{read_sample, TraceSource};
use crate::state::memory::ByteKind;
use crate::{Error, Result};

use super::{
    Accumulator, Checkpoint, Index, IndexBuilder, IndexOptions, SourceRef, SplitSeek, TraceIdentity,
};
use crate::codec::{Dec, Enc};
use crate::engine::Engine;
use crate::parse::ParserState;

const RANGE_MAGIC: &[u8; 8] = b"TLENSRG\x01";
use crate::engine::Site;

/// The partial index of one byte range, ready to stitch.
pub struct RangeIndex {
    /// Line-aligned byte range.
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) builder: IndexBuilder,
}

/// What a stitch did, for tests and figures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StitchStats {
    /// Ranges stitched.
    pub ranges: usize,
    /// Ranges whose work was adopted.
    pub joined: usize,
    /// Ranges that had no split point to join at (no node boundary where
    /// the state no longer depended on what came before, or work since
    /// it that depended on it); the others that did not join disagreed
    /// with the sequential state at their split.
    pub no_split: usize,
    /// Bytes the stitch parsed again.
    pub replayed_bytes: u64,
    /// Wall time of the parallel part and of the stitch (where measured).
    pub ranges_seconds: f64,
    /// Wall time of the stitch, in seconds.
    pub stitch_seconds: f64,
}

/// The dialect ranges are parsed as: forced, or detected from the start.
pub fn dialect_of(source: &mut dyn TraceSource, opts: &IndexOptions) -> Result<Dialect> {
    let sample = read_sample(&mut SourceRef(source))?;
    Ok(Parser::for_sample(opts.parse, &sample).dialect())
}

/// `n` raw range starts spread evenly over `len` bytes (the first is 0).
pub fn split_offsets(len: u64, n: usize) -> Vec<u64> {
    let n = n.max(1) as u64;
    (0..n).map(|i| len / n * i).collect()
}

/// The first line start at or after `offset`.
pub fn line_start_at(source: &mut dyn TraceSource, offset: u64) -> Result<u64> {
    let len = source.len();
    if offset == 0 || offset >= len {
        return Ok(offset.min(len));
    }
    let mut pos = offset - 1;
    let mut buf = vec![0u8; 4096];
    while pos < len {
        let n = source.read_at(pos, &mut buf)?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Ok(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    Ok(len)
}

fn slice_line_start(data: &[u8], offset: usize) -> usize {
    if offset == 0 || offset >= data.len() {
        return offset.min(data.len());
    }
    memchr::memchr(b'\n', &data[offset - 1..]).map_or(data.len(), |i| offset + i)
}

impl IndexBuilder {
    /// A builder for the range starting at a line start inside the trace.
    fn for_range(opts: IndexOptions, dialect: Dialect) -> IndexBuilder {
        let mut b = IndexBuilder::new(
            IndexOptions {
                parse: crate::parse::ParseOptions {
                    dialect: Some(dialect),
                    ..opts.parse
                },
                ..opts
            },
            b"",
        );
        b.acc.index.opts = opts;
        b.acc.split = Some(SplitSeek::default());
        b
    }
}

impl RangeIndex {
    /// `sample`: the trace's first bytes, wherever the range starts: the
    /// instruction form they show is the whole file's.
    pub(super) fn new(
        mut opts: IndexOptions,
        dialect: Dialect,
        sample: &[u8],
        start: u64,
        end: u64,
    ) -> Self {
        let forced = crate::parse::ParseOptions {
            dialect: Some(dialect),
            ..opts.parse
        };
        opts.parse.instruction_form = Parser::for_sample(forced, sample)
            .options()
            .instruction_form;
        let builder = if start == 0 {
            IndexBuilder::new(opts, sample)
        } else {
            IndexBuilder::for_range(opts, dialect)
        };
        RangeIndex {
            start,
            end,
            builder,
        }
    }

    /// Indexes the lines starting in `[from, to)` (raw offsets, moved to
    /// the next line starts) of a source.
    pub fn build(
        source: &mut dyn TraceSource,
        opts: IndexOptions,
        dialect: Dialect,
        from: u64,
        to: u64,
        mut progress: impl FnMut(u64),
    ) -> Result<RangeIndex> {
        let start = line_start_at(source, from)?;
        let end = line_start_at(source, to)?;
        let sample = read_sample(&mut SourceRef(source))?;
        let mut r = RangeIndex::new(opts, dialect, &sample, start, end);
        let mut reader = LineReader::with_range(
            SourceRef(source),
            start,
            end,
            1,
            crate::lines::DEFAULT_CHUNK,
        );
        let mut next_report = start;
        while let Some(line) = reader.next_line()? {
            if line.offset >= next_report {
                progress(line.offset - start);
                next_report = line.offset + (8 << 20);
            }
            r.builder.line(&line);
        }
        progress(end - start);
        Ok(r)
    }

    /// [`RangeIndex::build`] over a trace in memory.
    pub fn build_from_slice(
        data: &[u8],
        opts: IndexOptions,
        dialect: Dialect,
        from: u64,
        to: u64,
        mut progress: impl FnMut(u64),
    ) -> RangeIndex {
        let start = slice_line_start(data, from as usize);
        let end = slice_line_start(data, to as usize);
        let sample = &data[..data.len().min(crate::source::SAMPLE_BYTES as usize)];
        let mut r = RangeIndex::new(opts, dialect, sample, start as u64, end as u64);
        let mut next_report = 0;
        for line in SliceLines::new(&data[start..end]) {
            if line.offset >= next_report {
                progress(line.offset);
                next_report = line.offset + (8 << 20);
            }
            r.builder.line(&Line {
                offset: line.offset + start as u64,
                ..line
            });
        }
        progress((end - start) as u64);
        r
    }

    /// The partial index and everything needed to continue or stitch it,
    /// as bytes (a browser worker hands it to the one that stitches).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut |b| out.extend_from_slice(b));
        out
    }

    /// [`RangeIndex::to_bytes`] handed to `sink` a piece at a time (a MiB,
    /// or a long byte run whole): the whole encoding never sits beside the
    /// index (a 53 GB range's 600 MB had, with the index's own encoding
    /// beside it: the range worker's memory grew 1082 → 2764 MB).
    pub fn write(&self, sink: &mut dyn FnMut(&[u8])) {
        let b = &self.builder;
        let index = &b.acc.index;
        let mut e = Enc::to_sink(sink);
        e.raw(RANGE_MAGIC);
        e.u(self.start);
        e.u(self.end);
        // The index is self-delimiting ([`Index::from_prefix`]).
        let mut saved = index.encoder(TraceIdentity { len: 0, mtime: 0 }, Vec::new());
        while !saved.step(index, 1 << 16) {
            saved.drain_to(&mut e);
        }
        saved.drain_to(&mut e);
        drop(saved);
        index.calls.encode_raw(&mut e);
        index.mem.encode_open(&mut e);
        if let Some(r) = &index.reads {
            r.encode_open(&mut e);
        }
        b.parser.state().encode(&mut e);
        b.engine.encode(&mut e);
        let acc = &b.acc;
        e.u(acc.parser_time_before);
        for v in acc
            .groups
            .iter()
            .chain(&acc.bloom)
            .chain(&acc.read_groups)
            .chain(&acc.own_times)
        {
            e.u(*v);
        }
        acc.parser_state_before.encode(&mut e);
        encode_mode(&mut e, acc.mode);
        e.b(acc.split.is_some());
        if let Some(seek) = &acc.split {
            e.b(seek.parser_state.is_some());
            if let Some(p) = &seek.parser_state {
                p.encode(&mut e);
            }
            e.u(seek.boundary_fills.len() as u64);
            for &(addr, v) in &seek.boundary_fills {
                e.u(addr);
                e.u(u64::from(v));
            }
            e.b(seek.just_split);
            e.b(seek.tentative);
            encode_mode(&mut e, seek.mode);
        }
        e.u(b.next_line);
        e.flush();
    }

    /// Reads what [`RangeIndex::to_bytes`] wrote.
    pub fn from_bytes(buf: &[u8]) -> Result<RangeIndex> {
        let bad = || Error::IndexFile("range index is truncated or corrupt".into());
        if buf.len() < 8 || &buf[..8] != RANGE_MAGIC {
            return Err(Error::IndexFile("not a Tarmac Lens range index".into()));
        }
        let mut d = Dec::new(&buf[8..]);
        let (start, end) = (d.u().ok_or_else(bad)?, d.u().ok_or_else(bad)?);
        let (mut index, _, used) = Index::from_prefix(d.rest())?;
        d.skip(used);
        let mut rest = || -> Option<IndexBuilder> {
            index.calls.decode_raw(&mut d)?;
            index.mem.decode_open(&mut d)?;
            if let Some(r) = &mut index.reads {
                r.decode_open(&mut d)?;
            }
            let mut parser = Parser::new(index.opts.parse, index.dialect);
            parser.set_state(ParserState::decode(&mut d)?);
            let engine = Engine::decode(&mut d)?;
            let parser_time_before = d.u()?;
            let mut words = [0u64; 10];
            for w in &mut words {
                *w = d.u()?;
            }
            let parser_state_before = ParserState::decode(&mut d)?;
            let mode = decode_mode(&mut d)?;
            let split = if d.b()? {
                let parser_state = if d.b()? {
                    Some(ParserState::decode(&mut d)?)
                } else {
                    None
                };
                let mut boundary_fills = Vec::new();
                for _ in 0..d.count()? {
                    boundary_fills.push((d.u()?, u8::try_from(d.u()?).ok()?));
                }
                Some(SplitSeek {
                    parser_state,
                    boundary_fills,
                    just_split: d.b()?,
                    tentative: d.b()?,
                    mode: decode_mode(&mut d)?,
                })
            } else {
                None
            };
            let next_line = d.u()?;
            Some(IndexBuilder {
                parser,
                engine,
                acc: Accumulator {
                    index: std::mem::replace(
                        &mut index,
                        Index::empty(IndexOptions::default(), Dialect::Tarmac),
                    ),
                    parser_time_before,
                    groups: [words[0], words[1]],
                    bloom: [words[2], words[3], words[4], words[5]],
                    read_groups: [words[6], words[7]],
                    own_times: [words[8], words[9]],
                    read_decoder: Default::default(),
                    parser_state_before,
                    split,
                    mode,
                },
                next_line,
                finishing: None,
            })
        };
        let builder = rest().ok_or_else(bad)?;
        if !d.done() || start > end {
            return Err(bad());
        }
        Ok(RangeIndex {
            start,
            end,
            builder,
        })
    }

    /// Byte range covered.
    pub(crate) fn range(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    /// Closed intervals of the range's memory history.
    pub fn memory_intervals(&self) -> usize {
        self.builder.acc.index.mem.intervals()
    }

    /// The split point: where the stitch stops parsing and adopts this
    /// range's work (`None`: the range must be indexed again sequentially).
    pub(crate) fn split_offset(&self) -> Option<u64> {
        let b = &self.builder;
        let seek = b.acc.split.as_ref()?;
        seek.parser_state?;
        if b.engine.split_info().is_none_or(|s| s.undetermined) {
            return None;
        }
        b.acc
            .index
            .checkpoints
            .first()
            .map(|c| c.offset)
            .filter(|c| (self.start..=self.end).contains(c))
    }
}

fn encode_mode(e: &mut Enc, mode: Option<super::Mode>) {
    e.b(mode.is_some());
    if let Some((bytes, n)) = mode {
        e.bytes(&bytes[..usize::from(n).min(16)]);
    }
}

fn decode_mode(d: &mut Dec<'_>) -> Option<Option<super::Mode>> {
    if !d.b()? {
        return Some(None);
    }
    let text = d.bytes()?;
    (text.len() <= 16).then(|| Some(super::mode_of(text)))
}

/// Feeds the lines in `[from, to)` to the sequential builder.
fn feed(source: &mut dyn TraceSource, g: &mut IndexBuilder, from: u64, to: u64) -> Result<()> {
    let mut reader = LineReader::with_range(SourceRef(source), from, to, g.next_line, 256 << 10);
    while let Some(line) = reader.next_line()? {
        g.line(&line);
    }
    Ok(())
}

/// Joins the ranges (in order, the first starting at 0, each ending where
/// the next starts) into the index of the whole trace of `total` bytes.
pub fn stitch(
    source: &mut dyn TraceSource,
    parts: Vec<RangeIndex>,
    total: u64,
) -> Result<(Index, StitchStats)> {
    let mut stats = StitchStats {
        ranges: parts.len(),
        ..StitchStats::default()
    };
    let mut it = parts.into_iter();
    let Some(first) = it.next() else {
        return Err(Error::Stitch("no ranges to stitch".into()));
    };
    if first.start != 0 {
        return Err(Error::Stitch(
            "the first range does not start the trace".into(),
        ));
    }
    let mut g = first.builder;
    let mut pos = first.end;
    for part in it {
        if part.start != pos {
            return Err(Error::Stitch(format!(
                "range at byte {} does not follow the one ending at {}",
                part.start, pos
            )));
        }
        pos = part.end;
        let split = part.split_offset();
        stats.no_split += usize::from(split.is_none());
        let c = split.unwrap_or(part.end);
        feed(source, &mut g, part.start, c)?;
        stats.replayed_bytes += c - part.start;
        // A range that does not join is dropped before its text is parsed
        // again: never two indexes of it at once.
        let joined = match split {
            Some(c) => join(&mut g, part.builder, c),
            None => {
                drop(part.builder);
                false
            }
        };
        if joined {
            stats.joined += 1;
        } else {
            feed(source, &mut g, c, part.end)?;
            stats.replayed_bytes += part.end - c;
        }
    }
    if pos != total {
        return Err(Error::Stitch(format!(
            "ranges end at byte {} but the trace has {}",
            pos, total
        )));
    }
    Ok((g.finish(total), stats))
}

/// Adopts range builder `w` into the sequential builder `g`, which has been
/// fed every line before `w`'s split point at byte `c`. Returns false
/// (leaving `g` untouched) when their states there differ.
pub(super) fn join(g: &mut IndexBuilder, mut w: IndexBuilder, c: u64) -> bool {
    let (Some(seek), Some(info)) = (w.acc.split.as_mut(), w.engine.split_info()) else {
        return false;
    };
    let Some(gc) = g.engine.control_closing() else {
        return false;
    };
    let wc = &info.control;
    let w_cp = &w.acc.index.checkpoints[0];
    let (Some(node_off), Some(instr_off), Some(line_off)) = (
        gc.next_node.checked_sub(wc.next_node),
        gc.instructions.checked_sub(wc.instructions),
        g.next_line.checked_sub(w_cp.line),
    ) else {
        return false;
    };
    // Time went backwards before the split: the sequential pass clamps to a
    // later time than the range did, which changes nothing but the times
    // while the range's nodes are those of the clamp (`ClampShadow`).
    let time_floor = match (wc.current_time, gc.current_time) {
        (t, m) if t == m => None,
        (Some(t), Some(m)) if t < m && info.clamped.diverge.is_none_or(|d| m < d) => Some(m),
        _ => return false,
    };
    let floor = time_floor.unwrap_or(0);
    if !g.engine.assumptions_hold(info) || !g.engine.sp_reads_hold(&w.engine) {
        return false;
    }
    let mut mapped = wc.clone();
    // An sp the range never saw written is the sequential one (gem5 traces
    // no sp writes, so after a trace that did, only the sequential pass
    // knows it): the stitch replays the range's transfers with it.
    mapped.fill_unknown_sp(&gc);
    mapped.current_time = mapped.current_time.map(|t| t.max(floor));
    mapped.last_node[3] = mapped.last_node[3].max(floor);
    mapped.last_node[0] += node_off;
    mapped.last_node[1] += line_off;
    mapped.next_node += node_off;
    mapped.instructions += instr_off;
    if mapped != gc
        || seek.parser_state != Some(g.parser.state())
        || w_cp.offset != c
        || seek.mode != g.acc.mode
    {
        return false;
    }
    let boundary_fills = std::mem::take(&mut seek.boundary_fills);

    // The sequential builder closes the node before the split, making the
    // checkpoint the range starts with.
    g.acc.parser_time_before = g.parser.current_time();
    g.acc.parser_state_before = g.parser.state();
    let line = Line {
        number: g.next_line,
        offset: c,
        text: b"",
        len: 0,
    };
    g.engine.close_before(&line, &mut g.acc);
    debug_assert_eq!(g.acc.index.checkpoints.last().map(|c| c.offset), Some(c));

    let map = |s: Site| Site {
        node: s.node + node_off,
        line: s.line + line_off,
        time: s.time.max(floor),
        ..s
    };
    let (log, max_sp) = w.engine.take_transfers();
    g.engine.replay_transfers(&log, max_sp, map, &mut g.acc);
    let gi = &mut g.acc.index;
    for (addr, value) in boundary_fills {
        match g.engine.memory().kind(addr) {
            ByteKind::Known => {}
            ByteKind::Never => gi.mem.fill(None, addr, value),
            ByteKind::Unknown(since) => gi.mem.fill(since, addr, value),
        }
    }

    let wi = &mut w.acc.index;
    // Exactly what the range adds (grown by doubling, each would take up
    // to twice that, moved).
    gi.checkpoints.reserve_exact(wi.checkpoints.len());
    gi.reg_groups.reserve_exact(wi.reg_groups.len());
    if let (Some(g), Some(w)) = (&mut gi.reg_reads, &wi.reg_reads) {
        g.reserve_exact(w.len());
    }
    gi.pc_blooms.reserve_exact(wi.pc_blooms.len());
    // Registers the range has not written since it started hold what they
    // held at the split.
    wi.snapshots.each_over(1, g.engine.regs(), |k, regs| {
        gi.snapshots.push(regs);
        let cp = &wi.checkpoints[k];
        let mut resume = cp.resume;
        resume.node_index += node_off;
        resume.instructions += instr_off;
        resume.current_time = resume.current_time.map(|t| t.max(floor));
        gi.checkpoints.push(Checkpoint {
            line: cp.line + line_off,
            offset: cp.offset,
            parser_time: cp.parser_time,
            resume,
        });
    });
    gi.reg_groups.extend_from_slice(&wi.reg_groups);
    match (&mut gi.reg_reads, &wi.reg_reads) {
        (Some(g), Some(w)) => g.extend_from_slice(w),
        (g, _) => *g = None,
    }
    gi.pc_blooms.extend_from_slice(&wi.pc_blooms);
    match (&mut gi.own_times, &wi.own_times) {
        (Some(g), Some(w)) => g.extend_from_slice(w),
        (g, _) => *g = None,
    }
    match (&mut gi.pc_counts, &wi.pc_counts) {
        (Some(g), Some(w)) => g.merge(w),
        (g, _) => *g = None,
    }
    gi.mem.append_shifted(&mut wi.mem, node_off);
    match (&mut gi.reads, &mut wi.reads) {
        (Some(g), Some(w)) => g.append(w),
        (g, _) => *g = None,
    }
    gi.calls.append_shifted(&wi.calls, node_off, line_off);
    gi.events.append_shifted(&wi.events, node_off, line_off);
    gi.summary.nodes = wi.summary.nodes + node_off;
    gi.summary.lines = wi.summary.lines + line_off;
    gi.summary.bytes = wi.summary.bytes;
    g.acc.groups = w.acc.groups;
    g.acc.read_groups = w.acc.read_groups;
    g.acc.bloom = w.acc.bloom;
    g.acc.own_times = w.acc.own_times;
    g.acc.parser_time_before = w.acc.parser_time_before;
    g.acc.parser_state_before = w.acc.parser_state_before;
    g.acc.mode = w.acc.mode;

    let base = std::mem::replace(&mut g.engine, w.engine);
    g.engine
        .rebase(base, node_off, line_off, instr_off, time_floor);
    g.parser = w.parser;
    g.next_line = w.next_line + line_off;
    true
}

/// The trace in memory as the stitch reads it, showing `progress` each span
/// read: a caller that releases indexed pages releases those too, so a
/// range parsed again does not stay resident.
#[cfg(not(target_arch = "wasm32"))]
struct Rereads<'a> {
    data: &'a [u8],
    done: u64,
    progress: &'a (dyn Fn(u64, std::ops::Range<u64>) + Sync),
}

#[cfg(not(target_arch = "wasm32"))]
impl TraceSource for Rereads<'_> {
    fn len(&self) -> u64 {
        self.data.len() as u64
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let n = crate::source::SliceSource(self.data).read_at(offset, buf)?;
        (self.progress)(self.done, offset..offset + n as u64);
        Ok(n)
    }
}

/// Indexes a trace in memory with `jobs` threads: ranges in parallel, then
/// the stitch. `progress` gets the bytes indexed so far and the span just
/// indexed (from any thread; then the spans the stitch reads again, so a
/// caller may drop each span from memory).
#[cfg(not(target_arch = "wasm32"))]
pub fn build_parallel_slice(
    data: &[u8],
    opts: IndexOptions,
    jobs: usize,
    progress: &(dyn Fn(u64, std::ops::Range<u64>) + Sync),
) -> (Index, StitchStats) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let started = std::time::Instant::now();
    let len = data.len() as u64;
    let sample = &data[..data.len().min(crate::source::SAMPLE_BYTES as usize)];
    let dialect = Parser::for_sample(opts.parse, sample).dialect();
    let starts = split_offsets(len, jobs);
    let done = AtomicU64::new(0);
    let parts: Vec<RangeIndex> = std::thread::scope(|s| {
        let handles: Vec<_> = starts
            .iter()
            .enumerate()
            .map(|(i, &from)| {
                let to = starts.get(i + 1).copied().unwrap_or(len);
                let done = &done;
                s.spawn(move || {
                    let mut last = 0;
                    let s = slice_line_start(data, from as usize) as u64;
                    RangeIndex::build_from_slice(data, opts, dialect, from, to, |d| {
                        let total = done.fetch_add(d - last, Ordering::Relaxed) + d - last;
                        progress(total, s + last..s + d);
                        last = d;
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("an indexing thread panicked"))
            .collect()
    });
    let ranges_seconds = started.elapsed().as_secs_f64();
    let mut source = Rereads {
        data,
        done: done.load(Ordering::Relaxed),
        progress,
    };
    let (index, mut stats) = stitch(&mut source, parts, len).expect("a slice source cannot fail");
    stats.ranges_seconds = ranges_seconds;
    stats.stitch_seconds = started.elapsed().as_secs_f64() - ranges_seconds;
    (index, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{InstructionForm, ParseOptions};

    /// A range that starts inside the trace reads its instruction lines in
    /// the form the trace's first lines show, as the sequential index does.
    #[test]
    fn a_range_takes_the_file_s_instruction_form() {
        let head = b"10 ns IT (10) 00008a10 2000 MOVS r0,#0\n11 ns IT (11) 00008a12 0 MOVS r0,r0\n";
        let opts = IndexOptions {
            parse: ParseOptions {
                implicit_thumb: true,
                ..ParseOptions::default()
            },
            checkpoint_bytes: 64,
        };
        for start in [0, 40] {
            let r = RangeIndex::new(opts, Dialect::Tarmac, head, start, head.len() as u64);
            assert_eq!(
                r.builder.parser.options().instruction_form,
                Some(InstructionForm::AddressAfter),
                "range from {start}"
            );
            assert_eq!(
                r.builder.acc.index.opts.parse.instruction_form,
                Some(InstructionForm::AddressAfter)
            );
        }
    }
}
