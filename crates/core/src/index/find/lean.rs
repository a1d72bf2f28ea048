//! The lean scan of an interval a condition search would replay. Why: a
//! replay parses every line and runs the engine (about 300 MB/s), yet only
//! the few lines that write what the condition reads can change its value;
//! cutting lines with `memchr` and parsing only those scans several times
//! faster (1 GB trace, `x0 == 0x12345`: 3.5-5.0 CPU s replayed, 1.5-1.8 scanned).
//!
//! The scan starts from the interval's checkpoint registers and the memory
//! before it, applies exactly the register and memory writes the engine
//! would that touch the condition's operands, and evaluates the condition
//! after each. If the value never moves, the interval's answer is its first
//! node (found by replaying that node alone) with that value; anything else
//! (the value changes, a line it cannot read alone, a write of unknown
//! memory, a possible semihosting call, a change of execution state, a
//! chosen core) declines, and the caller replays the interval in full.
//!
//! A line is read as the general grammar reads its first words
//! (`[time [unit]] [cpuN] TYPE`): instruction lines change nothing the
//! condition reads (their execution state is the interval's, by its
//! register-group bitmap) unless they may be semihosting calls, register
//! lines only by the register they name, memory reads never; every other
//! line, and every line while an `LD`/`ST` continuation is pending, goes
//! through the trace's own [`Parser`].

use super::*;
use crate::parse::{is_time_unit, lex, MemDirection, RecordKind, RegClass, RegId};

/// An interval longer than this is replayed (a line over a MiB is cut by
/// the line reader, which the scan does not imitate).
const MAX_INTERVAL: u64 = 1 << 20;

/// Whether an instruction encoding may be a semihosting call in some
/// instruction set (the engine's test, for any state).
fn may_be_semihosting(e: u64) -> bool {
    e == 0xd45e_0000
        || e == 0xbeab
        || e == 0xdfab
        || e == 0xbabc
        || (e & 0x0fff_ffff) == 0x0f12_3456
        || (e & 0x0fff_ffff) == 0x010f_0070
}

/// The word starting at or after `pos` (after spaces), as the lexer cuts
/// words: `(start, end)`, empty when the next token is not a word.
fn word(line: &[u8], pos: usize) -> (usize, usize) {
    let mut s = pos;
    while s < line.len() && lex::is_space(line[s]) {
        s += 1;
    }
    let mut e = s;
    while e < line.len() && lex::is_word(line[e]) {
        e += 1;
    }
    (s, e)
}

/// What a line is, from its first words.
enum Shape<'a> {
    /// An instruction: the text after its type word.
    Instruction(&'a [u8]),
    /// A register update naming this register.
    Register(&'a [u8]),
    /// A memory read of one size (`MR4`): changes no state a condition reads.
    Read,
    /// Another memory access.
    Memory,
    /// Anything else: the parser reads it.
    Other,
}

/// [`shape`], first trying the way most lines of Fast Models traces start
/// (`TIME clk TYPE `, one space apart).
#[inline(always)]
fn quick_shape(line: &[u8]) -> Shape<'_> {
    let digits = line.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && line.get(digits..digits + 5) == Some(b" clk ") {
        let t = digits + 5;
        match line.get(t..t + 4) {
            Some([b'I', b'T' | b'S', b' ', _]) => return Shape::Instruction(&line[t + 2..]),
            Some([b'R', b' ', ..]) => {
                let (s, e) = word(line, t + 2);
                if s < e {
                    return Shape::Register(&line[s..e]);
                }
            }
            Some([b'M', b'R', d, b' ']) if d.is_ascii_digit() => return Shape::Read,
            Some([b'M', b'W', d, b' ']) if d.is_ascii_digit() => return Shape::Memory,
            _ => {}
        }
    }
    shape(line)
}

fn shape(line: &[u8]) -> Shape<'_> {
    let (s, mut e) = word(line, 0);
    if s == e {
        return Shape::Other;
    }
    let mut w = &line[s..e];
    if w[0].is_ascii_digit() {
        // A fractional or suffixed time (`10.5us`, `271ns`) is the
        // parser's.
        if !w.iter().all(u8::is_ascii_digit) {
            return Shape::Other;
        }
        let (s2, e2) = word(line, e);
        (w, e) = (&line[s2..e2], e2);
        if is_time_unit(w) {
            let (s3, e3) = word(line, e);
            (w, e) = (&line[s3..e3], e3);
        }
    }
    if crate::parse::is_cpu_field(w) {
        let (s4, e4) = word(line, e);
        (w, e) = (&line[s4..e4], e4);
    }
    match w {
        b"IT" | b"IS" | b"IF" | b"ES" => Shape::Instruction(&line[e..]),
        b"R" => {
            let (ns, ne) = word(line, e);
            if ns == ne {
                Shape::Other
            } else {
                Shape::Register(&line[ns..ne])
            }
        }
        [b'M', b'R', digits @ ..]
            if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) =>
        {
            Shape::Read
        }
        [b'M', ..] | b"R01" | b"R02" | b"R04" | b"R08" | b"W01" | b"W02" | b"W04" | b"W08" => {
            Shape::Memory
        }
        _ => Shape::Other,
    }
}

/// Whether text may hold the A64 semihosting call `HLT #0xf000`
/// (`d45e0000`, in either case).
fn a64_semihosting_text(bytes: &[u8]) -> bool {
    [&b"45e0000"[..], b"45E0000"].iter().any(|needle| {
        memchr::memmem::find_iter(bytes, needle)
            .any(|i| i > 0 && bytes[i - 1].eq_ignore_ascii_case(&b'd'))
    })
}

/// Whether an instruction line's first words (address, encoding) may hold
/// a semihosting encoding.
fn may_call_semihosting(rest: &[u8]) -> bool {
    let mut pos = 0;
    for _ in 0..4 {
        // Skip to the next word, past punctuation.
        while pos < rest.len() && !lex::is_word(rest[pos]) {
            pos += 1;
        }
        let (s, e) = word(rest, pos);
        if s == e {
            return false;
        }
        if lex::parse_hex_strict(&rest[s..e]).is_some_and(may_be_semihosting) {
            return true;
        }
        pos = e;
    }
    false
}

/// The condition's state through a lean scan.
struct Scan<'a> {
    cond: &'a Condition,
    watched: &'a [(usize, usize)],
    regs: RegFile,
    mem: IntervalMemory<'a>,
    aarch64: bool,
    aarch64_hint: bool,
    big_endian: bool,
    memory: bool,
    /// Memory ranges read at the last evaluation.
    ranges: Vec<(u64, u64)>,
    /// The value all through so far.
    value: bool,
}

impl Scan<'_> {
    fn eval(&mut self) -> bool {
        let mem = &self.mem;
        let byte = |a: u64| mem.byte(a);
        let values = StateValues {
            regs: &self.regs,
            aarch64_hint: self.aarch64_hint,
            pc: None,
            big_endian: self.big_endian,
            byte: &byte,
        };
        self.ranges.clear();
        let ranges = &mut self.ranges;
        self.cond
            .eval_ranges(&values, &mut |a, l| ranges.push((a, l)))
            .is_some_and(|x| x != 0)
    }

    /// Whether a register update of `reg` may touch an operand.
    fn watches(&self, reg: RegId) -> bool {
        let (o, s) = regfile::location(reg, self.aarch64);
        self.watched.iter().any(|&(w, n)| o < w + n && w < o + s)
    }

    /// Whether a register line naming `name` may touch an operand (the
    /// name resolved as the grammar resolves it: `sp…` by the value's
    /// width, one of two registers).
    fn name_watched(&self, name: &[u8]) -> bool {
        if matches!(name, b"DC" | b"IC" | b"TLBI" | b"AT") {
            return false;
        }
        if name.eq_ignore_ascii_case(b"sp")
            || name.len() >= 3 && name[..3].eq_ignore_ascii_case(b"sp_")
        {
            return self.watches(RegId::new(RegClass::R, 13))
                || self.watches(RegId::new(RegClass::Xsp, 0));
        }
        RegId::lookup(name).is_some_and(|r| self.watches(r))
    }

    /// Applies what the parser made of a line as the engine would. `None`:
    /// the scan cannot follow it; else whether the value may have changed.
    fn apply(&mut self, kind: &RecordKind<'_>) -> Option<bool> {
        match kind {
            RecordKind::Instruction(i) => {
                (!(self.memory && may_be_semihosting(i.encoding))).then_some(false)
            }
            RecordKind::Register(r) => {
                let Some(reg) = r.reg else {
                    return Some(false);
                };
                let (offset, _) = regfile::location(reg, self.aarch64);
                if !self.regs.write(offset, r.bytes, r.known) {
                    return Some(false);
                }
                let end = offset + r.bytes.len();
                Some(self.watched.iter().any(|&(w, n)| offset < w + n && w < end))
            }
            RecordKind::RegisterList(_) => None,
            RecordKind::Memory(m) if m.direction != MemDirection::Read && self.memory => {
                // Runs of the bytes accessed, as the engine writes them.
                let n = m.bytes.len();
                let mut touched = false;
                let mut i = 0;
                while i < n {
                    if m.accessed[i] == 0 {
                        i += 1;
                        continue;
                    }
                    if m.known[i] == 0 {
                        // Unknown since a node the scan does not count.
                        return None;
                    }
                    let s = i;
                    while i < n && m.accessed[i] != 0 && m.known[i] != 0 {
                        i += 1;
                    }
                    let addr = m.addr.wrapping_add(s as u64);
                    for (j, &b) in m.bytes[s..i].iter().enumerate() {
                        self.mem
                            .written
                            .insert(addr.wrapping_add(j as u64), Some(Ok(b)));
                    }
                    let end = addr.saturating_add((i - s) as u64);
                    touched |= self
                        .ranges
                        .iter()
                        .any(|&(a, l)| addr < a.saturating_add(l) && a < end);
                }
                Some(touched)
            }
            _ => Some(false),
        }
    }
}

/// The interval's bytes in front of the source, so that replaying its first
/// node reads no byte twice.
struct Buffered<'a> {
    base: u64,
    bytes: &'a [u8],
    source: &'a mut dyn TraceSource,
}

impl TraceSource for Buffered<'_> {
    fn len(&self) -> u64 {
        self.source.len()
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> Result<usize> {
        let start = offset.wrapping_sub(self.base);
        let end = start.saturating_add(buf.len() as u64);
        if offset >= self.base && end <= self.bytes.len() as u64 {
            buf.copy_from_slice(&self.bytes[start as usize..end as usize]);
            return Ok(buf.len());
        }
        self.source.read_at(offset, buf)
    }
}

thread_local! {
    /// Each thread's buffer for an interval's bytes, kept from one
    /// interval to the next: zeroing a fresh one cost 5% of a scan.
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Keeps the first node a replay closes.
struct FirstNode(Option<Node>);

impl Observer for FirstNode {
    fn node(&mut self, n: &Node, _: &Engine) {
        self.0.get_or_insert(*n);
    }
    fn done(&self) -> bool {
        self.0.is_some()
    }
}

impl Index {
    /// Whether a lean scan may stand for replays of `cond` at all.
    pub(super) fn lean_fits(&self, cond: &Condition) -> bool {
        self.dialect == Dialect::Tarmac && self.opts.parse.cpu.is_none() && !cond.uses_pc()
    }

    /// Interval `k`'s changes ([`Index::eval_interval`]) when the condition
    /// keeps one value all through it, by a lean scan; `None` when it may
    /// not, or the scan cannot tell: then the interval is to be replayed.
    pub(super) fn lean_changes(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        watched: &[(usize, usize)],
        k: usize,
    ) -> Result<Option<Changes>> {
        let iflags = regfile::group_of(regfile::IFLAGS);
        let execution_state_kept = self
            .reg_groups
            .get(k)
            .is_some_and(|g| g[iflags / 64] & (1 << (iflags % 64)) == 0);
        if !self.lean_fits(cond) || !execution_state_kept {
            return Ok(None);
        }
        let cp = &self.checkpoints[k];
        let end = match self.checkpoints.get(k + 1) {
            Some(next) => next.offset,
            None => self.summary.bytes.min(source.len()),
        };
        let len = end.saturating_sub(cp.offset);
        if len == 0 || len > MAX_INTERVAL {
            return Ok(None);
        }
        BUFFER.with(|buffer| {
            let mut bytes = buffer.take();
            bytes.resize(len as usize, 0);
            let changes = self.lean_scan(source, cond, watched, k, &mut bytes);
            buffer.replace(bytes);
            changes
        })
    }

    /// [`Index::lean_changes`] with a buffer for the interval's bytes.
    fn lean_scan(
        &self,
        source: &mut dyn TraceSource,
        cond: &Condition,
        watched: &[(usize, usize)],
        k: usize,
        bytes: &mut [u8],
    ) -> Result<Option<Changes>> {
        let cp = &self.checkpoints[k];
        if source.read_at(cp.offset, bytes)? != bytes.len() {
            // The replay says what went wrong.
            return Ok(None);
        }
        let regs = self.snapshots.get(k);
        let mut scan = Scan {
            cond,
            watched,
            aarch64: regs.iflags() & regfile::IFLAG_AARCH64 != 0,
            regs,
            mem: IntervalMemory {
                index: self,
                k,
                written: Default::default(),
                blocks: Default::default(),
            },
            aarch64_hint: self.aarch64_used,
            big_endian: self.opts.parse.big_endian,
            memory: !cond.memory.is_empty(),
            ranges: Vec::new(),
            value: false,
        };
        scan.value = scan.eval();
        // In AArch64 state (all through: the execution state is kept) the
        // one semihosting encoding is found in the whole text at once.
        let per_line_semihosting = scan.memory && !scan.aarch64;
        if scan.memory && scan.aarch64 && a64_semihosting_text(bytes) {
            return Ok(None);
        }
        let mut parser = Parser::new(self.opts.parse, self.dialect);
        parser.reset(cp.parser_time);
        let mut start = 0;
        let ends = memchr::memchr_iter(b'\n', bytes).chain(
            // A last line without its `\n` (the end of the trace).
            (bytes.last() != Some(&b'\n')).then_some(bytes.len()),
        );
        for n in ends {
            let line = &bytes[start..n];
            start = n + 1;
            let parse = parser.in_continuation()
                || match quick_shape(line) {
                    Shape::Instruction(fields) => {
                        per_line_semihosting && may_call_semihosting(fields)
                    }
                    Shape::Register(name) => scan.name_watched(name),
                    Shape::Read => false,
                    Shape::Memory => scan.memory,
                    Shape::Other => true,
                };
            if !parse {
                continue;
            }
            let rec = parser.parse_line(line);
            let Some(changed) = scan.apply(&rec.kind) else {
                return Ok(None);
            };
            if changed && scan.eval() != scan.value {
                return Ok(None);
            }
        }
        let mut first = FirstNode(None);
        let mut buffered = Buffered {
            base: cp.offset,
            bytes,
            source,
        };
        self.replay(&mut buffered, k, &mut first)?;
        Ok(first.0.map(|node| vec![(node, scan.value)]))
    }
}

#[cfg(test)]
mod tests;
