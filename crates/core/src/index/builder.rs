//! Building the index in one streaming pass: [`IndexBuilder`] runs the
//! [`Engine`] and keeps checkpoints, register groups, PC filters, the
//! memory history, events and calls.

use super::*;
use crate::parse::Effect;
use crate::Result;

/// Builds an index while the trace streams past. Feed it every line with
/// [`IndexBuilder::line`]; queries work on the part indexed so far through
/// [`IndexBuilder::index`].
pub struct IndexBuilder {
    pub(super) parser: Parser,
    pub(super) engine: Engine,
    pub(super) acc: Accumulator,
    pub(super) next_line: u64,
    /// The calls' encoding, once [`IndexBuilder::finish_step`] began.
    pub(super) finishing: Option<calls::CallsFinish>,
}

/// The observer half of the builder: what the engine reports lands here.
pub(super) struct Accumulator {
    pub(super) index: Index,
    /// Parser time before the line being fed (for checkpoints).
    pub(super) parser_time_before: u64,
    pub(super) groups: [u64; 2],
    /// Register groups read in the open interval.
    pub(super) read_groups: [u64; 2],
    pub(super) read_decoder: super::reg_reads::ReadDecoder,
    pub(super) bloom: [u64; 4],
    /// The least and the greatest own time ([`Node::own_time`]) of the open
    /// interval's nodes.
    pub(super) own_times: [u64; 2],
    /// Parser state before the line being fed.
    pub(super) parser_state_before: ParserState,
    /// Set for a builder that starts inside a trace: it looks for a split
    /// point ([`parallel`]).
    pub(super) split: Option<SplitSeek>,
    /// The mode field of the last instruction that had one: a change is an
    /// event.
    pub(super) mode: Option<Mode>,
}

/// An instruction's mode field (`EL3h_s`, `svc_s`), as written; longer
/// ones are cut, which only merges modes no trace has.
pub(crate) type Mode = ([u8; 16], u8);

/// Whether `text` is the mode `(m, n)` (as [`mode_of`] would make it).
pub(super) fn same_mode(m: &[u8; 16], n: u8, text: &[u8]) -> bool {
    let n = usize::from(n);
    text.len().min(16) == n && m[..n] == text[..n]
}

pub(super) fn mode_of(text: &[u8]) -> Mode {
    let n = text.len().min(16);
    let mut m = [0u8; 16];
    m[..n].copy_from_slice(&text[..n]);
    (m, n as u8)
}

/// The own-time bounds of an interval with no node yet.
pub(super) const NO_TIMES: [u64; 2] = [u64::MAX, 0];

/// A range builder's split point and what it saw after it.
#[derive(Default)]
pub(crate) struct SplitSeek {
    /// Parser state before the first line after the split.
    pub(super) parser_state: Option<ParserState>,
    /// Reads since the split of bytes it had not seen, in order: the stitch
    /// decides what they fill from the memory before the split.
    pub(super) boundary_fills: Vec<(u64, u8)>,
    /// The split was just made: the engine is to start afresh.
    pub(super) just_split: bool,
    /// The split was made without knowing sp: made again once it is known.
    pub(super) tentative: bool,
    /// The instruction mode at the split: the stitch joins only if the
    /// sequential pass had the same (a mode change is an event).
    pub(super) mode: Option<Mode>,
}

/// The two bit positions of a PC in a 256-bit Bloom filter.
pub(super) fn bloom_bits(pc: u64) -> [usize; 2] {
    let h = (pc & !1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    [(h >> 56) as usize, ((h >> 48) & 0xff) as usize]
}

pub(super) fn bloom_has(b: &[u64; 4], pc: u64) -> bool {
    bloom_bits(pc)
        .iter()
        .all(|&i| b[i / 64] & (1 << (i % 64)) != 0)
}

impl Observer for Accumulator {
    fn node(&mut self, node: &Node, engine: &Engine) {
        let idx = &mut self.index;
        if idx.first_event_line.is_none() {
            idx.first_event_line = Some(node.at.line);
        }
        idx.summary.nodes = node.at.node + 1;
        if node.at.pc != crate::engine::INVALID_PC {
            for i in bloom_bits(node.at.pc) {
                self.bloom[i / 64] |= 1 << (i % 64);
            }
        }
        self.own_times[0] = self.own_times[0].min(node.own_time);
        self.own_times[1] = self.own_times[1].max(node.own_time);
        if idx.opts.ends_interval(node) {
            // The node that ends an interval: close it and start the next.
            idx.reg_groups.push(self.groups);
            self.groups = [0; 2];
            if let Some(t) = &mut idx.own_times {
                t.push(self.own_times);
            }
            self.own_times = NO_TIMES;
            if let Some(r) = &mut idx.reg_reads {
                r.push(self.read_groups);
            }
            self.read_groups = [0; 2];
            idx.pc_blooms.push(self.bloom);
            self.bloom = [0; 4];
            idx.mem.close_interval();
            if let Some(r) = &mut idx.reads {
                r.close_interval();
            }
            idx.snapshots.push(engine.regs());
            idx.checkpoints.push(Checkpoint {
                line: node.at.line + node.lines,
                offset: node.at.offset + node.len,
                parser_time: self.parser_time_before,
                resume: engine.resume_state(),
            });
            if let Some(seek) = &mut self.split {
                let ready = engine.split_ready();
                let split = match ready {
                    Some(sp_known) => {
                        seek.parser_state.is_none()
                            || (seek.tentative && sp_known)
                            || engine.wants_resplit()
                    }
                    None => false,
                };
                if split {
                    seek.tentative = ready == Some(false);
                    seek.mode = self.mode;
                    seek.boundary_fills.clear();
                    seek.parser_state = Some(self.parser_state_before);
                    // Only what follows the split is kept; the stitch redoes
                    // the rest sequentially.
                    let cp = idx.checkpoints.pop().unwrap_or_default();
                    let mut fresh = Index::empty(idx.opts, idx.dialect);
                    fresh.snapshots.push(engine.regs());
                    fresh.checkpoints.push(cp);
                    fresh.summary = idx.summary;
                    *idx = fresh;
                    seek.just_split = true;
                }
            }
        }
    }
    fn instruction(&mut self, pc: u64, effect: Effect) {
        if let Some(c) = &mut self.index.pc_counts {
            c.note(pc, effect);
        }
    }
    fn instruction_record(&mut self, _node: u64, ins: &crate::parse::Instruction<'_>) {
        let g = self.read_decoder.groups(ins);
        self.read_groups[0] |= g[0];
        self.read_groups[1] |= g[1];
    }
    fn split_here(&mut self) -> bool {
        self.split
            .as_mut()
            .is_some_and(|s| std::mem::take(&mut s.just_split))
    }
    fn reg_write(&mut self, _node: u64, offset: usize, bytes: &[u8], _known: &[u8]) {
        // Groups are contiguous byte ranges, so the first and last byte
        // bound the groups touched; the bitmap is a filter, so counting
        // unknown bytes in between does no harm.
        let first = regfile::group_of(offset);
        let last = regfile::group_of(offset + bytes.len().max(1) - 1);
        for g in first..=last {
            self.groups[g / 64] |= 1 << (g % 64);
        }
    }
    fn mem_write(&mut self, _node: u64, addr: u64, bytes: &[u8]) {
        self.index.mem.write_run(addr, bytes);
    }
    fn mem_unknown(&mut self, node: u64, addr: u64, len: u64) {
        self.index.mem.unknown(addr, len, node);
    }
    fn mem_read(&mut self, _node: u64, addr: u64, bytes: &[u8], _known: &[u8]) {
        if let Some(r) = &mut self.index.reads {
            r.note(addr, bytes.len() as u64);
        }
    }
    fn mem_fill(&mut self, _node: u64, fill: Fill) {
        if let Some(seek) = &mut self.split {
            if fill.since.is_none() && seek.parser_state.is_some() {
                seek.boundary_fills.push((fill.addr, fill.value));
                return;
            }
        }
        self.index.mem.fill(fill.since, fill.addr, fill.value);
    }
    fn call(&mut self, call: &Call) {
        self.index.calls.push(call);
    }
}

/// Records the line as an event if it is one. Every event line opens
/// or joins a node (the engine counts it as an event), so the node
/// holding it is the one open now.
pub(super) fn note_event(
    acc: &mut Accumulator,
    engine: &Engine,
    line: &Line<'_>,
    rec: &crate::parse::Record<'_>,
) {
    let mut kind = EventKind::of(&rec.kind);
    if let crate::parse::RecordKind::Instruction(i) = &rec.kind {
        // Compared in place: the mode is the same on almost every line, and
        // building a `Mode` per instruction cost 4% of indexing in wasm.
        if let Some(text) = i.mode {
            match &acc.mode {
                Some((m, n)) if same_mode(m, *n, text) => {}
                old => {
                    if old.is_some() {
                        kind = Some(EventKind::ModeChange);
                    }
                    acc.mode = Some(mode_of(text));
                }
            }
        }
    }
    if let Some(kind) = kind {
        acc.index.events.push(Event {
            line: line.number,
            node: engine.next_node_index().saturating_sub(1),
            offset: line.offset,
            kind,
        });
    }
}

impl IndexBuilder {
    /// `sample`: the first bytes of the trace, for dialect detection.
    pub fn new(opts: IndexOptions, sample: &[u8]) -> IndexBuilder {
        let parser = Parser::for_sample(opts.parse, sample);
        // With the form the sample showed: the index's later parsers (rows,
        // replays) read the lines as this one did.
        let opts = IndexOptions {
            parse: *parser.options(),
            ..opts
        };
        let engine = Engine::new(opts.engine());
        let mut index = Index::empty(opts, parser.dialect());
        // Checkpoint 0: the trace start.
        index.snapshots.push(&RegFile::default());
        index.checkpoints.push(Checkpoint {
            line: 1,
            ..Checkpoint::default()
        });
        IndexBuilder {
            parser,
            engine,
            acc: Accumulator {
                index,
                parser_time_before: 0,
                groups: [0; 2],
                read_groups: [0; 2],
                read_decoder: Default::default(),
                bloom: [0; 4],
                own_times: NO_TIMES,
                parser_state_before: ParserState::default(),
                split: None,
                mode: None,
            },
            next_line: 1,
            finishing: None,
        }
    }

    /// Feeds the next line of the trace.
    pub fn line(&mut self, line: &Line<'_>) {
        self.line_then(line, |_| {});
    }

    /// Feeds the next line, then shows its record to `f` (so other
    /// consumers need not parse it again).
    pub(crate) fn line_then(&mut self, line: &Line<'_>, f: impl FnOnce(&crate::parse::Record<'_>)) {
        self.acc.parser_time_before = self.parser.current_time();
        self.acc.parser_state_before = self.parser.state();
        let rec = self.parser.parse_line(line.text);
        self.engine.feed(line, &rec, &mut self.acc);
        note_event(&mut self.acc, &self.engine, line, &rec);
        f(&rec);
        self.next_line = line.number + 1;
        let s = &mut self.acc.index.summary;
        s.lines = line.number;
        s.bytes = line.offset + line.len + 1;
    }

    pub(crate) fn dialect(&self) -> Dialect {
        self.parser.dialect()
    }

    /// Whether any AArch64 instruction has been seen so far.
    pub(crate) fn aarch64_used(&self) -> bool {
        self.engine.aarch64_used()
    }

    /// The index so far (complete up to the last finished interval).
    pub fn index(&self) -> &Index {
        &self.acc.index
    }

    /// Ends the trace at `total_bytes` and returns the finished index.
    pub(crate) fn finish(mut self, total_bytes: u64) -> Index {
        while !self.finish_step(total_bytes, usize::MAX) {}
        self.into_index()
    }

    /// Finishes the index in steps, for a thread that answers
    /// questions between them: the first call closes the trace at
    /// `total_bytes` and sorts the calls, each call encodes up to `calls`
    /// of them; true when [`IndexBuilder::into_index`] may be called.
    /// Meanwhile [`IndexBuilder::index`] shows every node, and no calls.
    pub fn finish_step(&mut self, total_bytes: u64, calls: usize) -> bool {
        if self.finishing.is_none() {
            self.engine
                .finish(total_bytes, self.next_line, &mut self.acc);
            let index = &mut self.acc.index;
            // The final partial interval gets its diff and register groups
            // too, so every node belongs to a closed interval.
            index.reg_groups.push(self.acc.groups);
            if let Some(r) = &mut index.reg_reads {
                r.push(self.acc.read_groups);
            }
            index.pc_blooms.push(self.acc.bloom);
            if let Some(t) = &mut index.own_times {
                t.push(self.acc.own_times);
            }
            index.mem.close_interval();
            if let Some(r) = &mut index.reads {
                r.close_interval();
            }
            index.summary.bytes = total_bytes;
            index.summary.instructions = self.engine.instructions();
            index.aarch64_used = self.engine.aarch64_used();
            index.events.shrink();
            let timeline = depth::bucket_bounds(TIMELINE_BUCKETS, index.summary.nodes);
            self.finishing = Some(
                index
                    .calls
                    .begin_finish(self.engine.pending_calls_list(), timeline),
            );
        }
        self.finishing
            .as_mut()
            .is_some_and(|job| job.step(calls.max(1)))
    }

    /// The finished index, once [`IndexBuilder::finish_step`] said so.
    pub fn into_index(mut self) -> Index {
        debug_assert!(self.finishing.is_some(), "into_index before finish_step");
        let mut index = self.acc.index;
        if let Some(job) = self.finishing.take() {
            job.install(&mut index.calls);
        }
        index.summary.calls = index.calls.len() as u64;
        index.complete = true;
        index.shrink_to_fit();
        index
    }
}

impl Index {
    pub(super) fn empty(opts: IndexOptions, dialect: Dialect) -> Index {
        Index {
            opts,
            dialect,
            checkpoints: Vec::new(),
            snapshots: Snapshots::default(),
            reg_groups: Vec::new(),
            reg_reads: Some(Vec::new()),
            pc_blooms: Vec::new(),
            own_times: Some(Vec::new()),
            pc_counts: Some(PcCountMap::default()),
            mem: MemHistory::default(),
            reads: Some(ReadHistory::default()),
            calls: CallTable::default(),
            events: EventList::default(),
            summary: IndexSummary::default(),
            complete: false,
            aarch64_used: false,
            first_event_line: None,
        }
    }

    /// Indexes a whole source, reporting progress in bytes.
    pub fn build<S: TraceSource>(
        source: &mut S,
        opts: IndexOptions,
        mut progress: impl FnMut(u64),
    ) -> Result<Index> {
        let total = source.len();
        let sample = crate::source::read_sample(source)?;
        let mut builder = IndexBuilder::new(opts, &sample);
        let mut reader = LineReader::new(SourceRef(source));
        let mut next_report = 0;
        while let Some(line) = reader.next_line()? {
            if line.offset >= next_report {
                progress(line.offset);
                next_report = line.offset + (8 << 20);
            }
            builder.line(&line);
        }
        // A source whose length is known only at its end (a compressed
        // trace, `crate::compressed`) knows it now; a stream that never
        // says ends where its last line does.
        let total = match total {
            crate::source::UNKNOWN_LEN => match reader.source().0.len() {
                crate::source::UNKNOWN_LEN => reader.position(),
                len => len,
            },
            total => total,
        };
        progress(total);
        Ok(builder.finish(total))
    }

    /// Indexes a trace held in memory (or memory-mapped), without copying
    /// its lines.
    pub fn build_from_slice(
        data: &[u8],
        opts: IndexOptions,
        mut progress: impl FnMut(u64),
    ) -> Index {
        let sample = &data[..data.len().min(crate::source::SAMPLE_BYTES as usize)];
        let mut builder = IndexBuilder::new(opts, sample);
        let mut next_report = 0;
        for line in crate::lines::SliceLines::new(data) {
            if line.offset >= next_report {
                progress(line.offset);
                next_report = line.offset + (8 << 20);
            }
            builder.line(&line);
        }
        progress(data.len() as u64);
        builder.finish(data.len() as u64)
    }
}
