//! Record counts for a whole trace: what `tarmac-lens stats` prints and what
//! the web page shows after a file is dropped.

use crate::Result;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::lines::{Line, LineReader};
use crate::parse::{ParseOptions, Parser, Record, RecordKind};
use crate::source::TraceSource;

/// How many unparsed lines are listed individually.
pub const MAX_LISTED_UNPARSED: usize = 100;

/// One line the parser could not understand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnparsedLine {
    /// Its number, 1-based.
    pub line: u64,
    /// Byte column (0-based) where parsing stopped.
    pub column: usize,
    /// What the parser expected.
    pub reason: String,
    /// The line's text (lossy UTF-8, at most 200 bytes).
    pub text: String,
}

/// Counts per record kind and the unparsed lines: what [`compute`] finds
/// in one pass over a trace (no index needed), and what a
/// [`crate::Session`] gives once indexed ([`crate::Session::stats`]).
/// Serializes to the JSON `tarmac-lens stats --json` prints (which adds
/// its timing).
///
/// # Examples
///
/// ```
/// use tarmac_lens_core::{compute_stats, ParseOptions, SliceSource};
///
/// let trace = "\
/// 1 clk IT (1) 00008000 e3a00005 A svc_s : MOV r0,#5
/// 1 clk R r0 00000005
/// 2 clk MW4 00001000 00000005
/// what is this?
/// ";
/// let stats = compute_stats(SliceSource(trace.as_bytes()), ParseOptions::default(), |_| {})?;
/// assert_eq!(stats.dialect, "tarmac");
/// assert_eq!((stats.lines, stats.bytes), (4, trace.len() as u64));
/// assert_eq!(stats.count("instruction"), 1);
/// assert_eq!(stats.count("register"), 1);
/// assert_eq!(stats.count("memory"), 1);
/// assert_eq!(stats.unparsed_lines, [4]);
/// # Ok::<(), tarmac_lens_core::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// The dialect the trace was parsed as (`tarmac`, `armulator`, `ti-ep`).
    pub dialect: String,
    /// Trace length in bytes.
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Record kind name -> count (kinds that occur only).
    pub records: BTreeMap<String, u64>,
    /// Lines the parser did not understand.
    pub unparsed: u64,
    /// Line numbers of the first [`MAX_LISTED_UNPARSED`] unparsed lines.
    pub unparsed_lines: Vec<u64>,
    /// Details of those lines.
    pub unparsed_details: Vec<UnparsedLine>,
    /// The `<cpu>` names of a trace that has the field, in order of first
    /// appearance (at most 256): more than one is a multi-core
    /// trace, whose cores the page offers to pick.
    #[serde(default)]
    pub cores: Vec<String>,
    /// Unparsed lines per event word (the first word after the timestamp,
    /// its unit and the `<cpu>` field), so that thousands of lines of one
    /// unknown type read as one entry; at most [`MAX_UNPARSED_WORDS`] words,
    /// the rest counted under `""`.
    #[serde(default)]
    pub unparsed_words: BTreeMap<String, u64>,
    /// Register lines whose value had fewer digits than the register holds
    /// (read zero-extended, or as unchanged after dashes).
    #[serde(default)]
    pub short_register_values: ValueNote,
    /// Register lines that set no byte: the value is all dashes.
    #[serde(default)]
    pub unknown_register_values: ValueNote,
}

/// How many lines share a property, and the first of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueNote {
    /// Lines counted.
    pub count: u64,
    /// The first such line's number, 1-based (0 when there is none).
    pub first_line: u64,
}

impl ValueNote {
    fn add(&mut self, line: u64) {
        if self.count == 0 || line < self.first_line {
            self.first_line = line;
        }
        self.count += 1;
    }

    fn append(&mut self, part: ValueNote, line_offset: u64) {
        if part.count > 0 {
            let first = part.first_line + line_offset;
            if self.count == 0 || first < self.first_line {
                self.first_line = first;
            }
            self.count += part.count;
        }
    }
}

/// A register value that was short.
pub(crate) const NOTE_SHORT: u8 = 1;
/// A register value that set no byte.
pub(crate) const NOTE_UNKNOWN: u8 = 2;

/// What `stats` says about a record beyond its kind: the [`NOTE_SHORT`] and
/// [`NOTE_UNKNOWN`] bits of a register write.
#[inline(always)]
pub(crate) fn record_note(kind: &RecordKind<'_>) -> u8 {
    match kind {
        RecordKind::Register(r) => {
            let none_known = r.known.first() == Some(&0) && r.known.iter().all(|&k| k == 0);
            (u8::from(r.short) * NOTE_SHORT) | (u8::from(none_known) * NOTE_UNKNOWN)
        }
        _ => 0,
    }
}

/// Most distinct event words kept in [`Stats::unparsed_words`].
pub const MAX_UNPARSED_WORDS: usize = 64;

/// The event word of a line: the first word that is not a timestamp (digits,
/// with or without a unit glued on or following) or a `cpu` field; at most 40
/// bytes of it.
fn event_word(text: &[u8]) -> String {
    const UNITS: [&str; 7] = ["clk", "ns", "ps", "cs", "cyc", "tic", "us"];
    let mut words = text
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .peekable();
    if words.peek().is_some_and(|w| w[0].is_ascii_digit()) {
        words.next();
        if words
            .peek()
            .is_some_and(|w| UNITS.iter().any(|u| u.as_bytes() == *w))
        {
            words.next();
        }
    }
    if words.peek().is_some_and(|w| crate::parse::is_cpu_field(w)) {
        words.next();
    }
    let w = words.next().unwrap_or(b"");
    String::from_utf8_lossy(&w[..w.len().min(40)]).into_owned()
}

fn add_word(words: &mut BTreeMap<String, u64>, word: String, n: u64) {
    let key = if words.contains_key(&word) || words.len() < MAX_UNPARSED_WORDS {
        word
    } else {
        String::new()
    };
    *words.entry(key).or_insert(0) += n;
}

/// Most cores listed in [`Stats::cores`].
pub(crate) const MAX_CORES: usize = 256;

impl Stats {
    /// Lines of the record kind named `kind`
    /// ([`crate::parse::RecordKind::name`]).
    pub fn count(&self, kind: &str) -> u64 {
        self.records.get(kind).copied().unwrap_or(0)
    }
}

/// Accumulates [`Stats`] from records already parsed (the indexer parses
/// each line once and shares the record).
pub(crate) struct StatsAccumulator {
    counts: [u64; RecordKind::NAMES.len()],
    stats: Stats,
    /// Index in `stats.cores` of the last line's core.
    last_core: usize,
}

impl StatsAccumulator {
    pub(crate) fn new(dialect: &str) -> Self {
        StatsAccumulator {
            counts: [0; RecordKind::NAMES.len()],
            stats: Stats {
                dialect: dialect.to_string(),
                ..Stats::default()
            },
            last_core: 0,
        }
    }

    /// Counts a line (every line of an indexed trace passes here, so the
    /// common case is inlined and the rest kept out of the way).
    #[inline]
    pub(crate) fn add_record(&mut self, line: &Line<'_>, record: &Record<'_>) {
        if let Some(cpu) = record.cpu {
            self.add_core(cpu);
        }
        let unparsed = match &record.kind {
            RecordKind::Unparsed(u) => Some((u.column, u.reason)),
            _ => None,
        };
        self.add_kind(
            line,
            record.kind.index(),
            unparsed,
            record_note(&record.kind),
        );
    }

    /// Counts a line of kind `kind` (an index in [`RecordKind::NAMES`]);
    /// `unparsed`: the column and reason of a line not understood; `note`:
    /// [`record_note`]'s bits. For a
    /// caller that must look at the record before deciding to count it.
    #[inline]
    pub(crate) fn add_kind(
        &mut self,
        line: &Line<'_>,
        kind: usize,
        unparsed: Option<(usize, &str)>,
        note: u8,
    ) {
        self.stats.lines += 1;
        self.stats.bytes = line.offset + line.len;
        self.counts[kind] += 1;
        if let Some((column, reason)) = unparsed {
            self.add_unparsed(line, column, reason);
        }
        if note != 0 {
            self.add_note(line.number, note);
        }
    }

    #[cold]
    fn add_note(&mut self, line: u64, note: u8) {
        if note & NOTE_SHORT != 0 {
            self.stats.short_register_values.add(line);
        }
        if note & NOTE_UNKNOWN != 0 {
            self.stats.unknown_register_values.add(line);
        }
    }

    #[cold]
    fn add_unparsed(&mut self, line: &Line<'_>, column: usize, reason: &str) {
        self.stats.unparsed += 1;
        add_word(&mut self.stats.unparsed_words, event_word(line.text), 1);
        if self.stats.unparsed_lines.len() < MAX_LISTED_UNPARSED {
            self.stats.unparsed_lines.push(line.number);
            let shown = &line.text[..line.text.len().min(200)];
            self.stats.unparsed_details.push(UnparsedLine {
                line: line.number,
                column,
                reason: reason.to_string(),
                text: String::from_utf8_lossy(shown).trim_end().to_string(),
            });
        }
    }

    /// Notes a `<cpu>` name; the common case, the same core as the last
    /// line, is one comparison.
    #[inline]
    fn add_core(&mut self, cpu: &[u8]) {
        let cores = &mut self.stats.cores;
        if cores
            .get(self.last_core)
            .is_some_and(|c| c.as_bytes() == cpu)
        {
            return;
        }
        if let Some(i) = cores.iter().position(|c| c.as_bytes() == cpu) {
            self.last_core = i;
        } else if cores.len() < MAX_CORES {
            self.last_core = cores.len();
            cores.push(String::from_utf8_lossy(cpu).into_owned());
        }
    }

    /// Adds the counts of the lines that follow those counted so far,
    /// counted elsewhere (a range indexed by another worker) with line
    /// numbers short by `line_offset`.
    pub(crate) fn append(&mut self, part: &Stats, line_offset: u64) {
        self.stats.lines += part.lines;
        for (name, &n) in &part.records {
            if let Some(i) = RecordKind::NAMES.iter().position(|k| k == name) {
                self.counts[i] += n;
            }
        }
        self.stats.unparsed += part.unparsed;
        self.stats
            .short_register_values
            .append(part.short_register_values, line_offset);
        self.stats
            .unknown_register_values
            .append(part.unknown_register_values, line_offset);
        for (w, &n) in &part.unparsed_words {
            add_word(&mut self.stats.unparsed_words, w.clone(), n);
        }
        let room = MAX_LISTED_UNPARSED.saturating_sub(self.stats.unparsed_lines.len());
        self.stats.unparsed_lines.extend(
            part.unparsed_lines
                .iter()
                .take(room)
                .map(|l| l + line_offset),
        );
        self.stats
            .unparsed_details
            .extend(
                part.unparsed_details
                    .iter()
                    .take(room)
                    .map(|u| UnparsedLine {
                        line: u.line + line_offset,
                        ..u.clone()
                    }),
            );
        for core in &part.cores {
            if !self.stats.cores.contains(core) && self.stats.cores.len() < MAX_CORES {
                self.stats.cores.push(core.clone());
            }
        }
    }

    /// The statistics so far, for a trace of `total_bytes`.
    pub(crate) fn snapshot(&self, total_bytes: u64) -> Stats {
        let mut stats = self.stats.clone();
        stats.bytes = total_bytes;
        for (i, &n) in self.counts.iter().enumerate() {
            if n > 0 {
                stats.records.insert(RecordKind::NAMES[i].to_string(), n);
            }
        }
        stats
    }
}

/// Accumulates [`Stats`] line by line, so callers can drive it from any
/// reading loop (native file, browser `Blob` slices) and report progress.
pub struct StatsBuilder {
    parser: Parser,
    acc: StatsAccumulator,
}

impl StatsBuilder {
    /// `sample` is the first bytes of the trace, used to detect the dialect.
    pub fn new(opts: ParseOptions, sample: &[u8]) -> Self {
        let parser = Parser::for_sample(opts, sample);
        let acc = StatsAccumulator::new(parser.dialect().name());
        StatsBuilder { parser, acc }
    }

    /// Parses and counts the next line.
    pub fn add_line(&mut self, line: &Line<'_>) {
        let record = self.parser.parse_line(line.text);
        self.acc.add_record(line, &record);
    }

    /// Finishes with the total size of the trace in bytes.
    pub fn finish(self, total_bytes: u64) -> Stats {
        self.acc.snapshot(total_bytes)
    }
}

/// Computes statistics for a whole source, calling `progress` with the number
/// of bytes consumed every so often (every 4 MiB, and at the end). Reads the
/// source once, front to back, after its first [`crate::source::SAMPLE_BYTES`]
/// (which tell the dialect): a stream of [`crate::source::UNKNOWN_LEN`] will
/// do. See [`Stats`] for an example.
pub fn compute<S: TraceSource>(
    mut source: S,
    opts: ParseOptions,
    mut progress: impl FnMut(u64),
) -> Result<Stats> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut builder = StatsBuilder::new(opts, &sample);
    let mut reader = LineReader::new(source);
    let mut next_report = 0u64;
    while let Some(line) = reader.next_line()? {
        if line.offset >= next_report {
            progress(line.offset);
            next_report = line.offset + (4 << 20);
        }
        builder.add_line(&line);
    }
    // Where the lines end, not `len`: a stream's length is known only now.
    let total = reader.position();
    progress(total);
    Ok(builder.finish(total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    #[test]
    fn unparsed_lines_are_grouped_by_event_word() {
        let mut trace = String::from("10 clk IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0\n");
        for i in 0..130 {
            trace.push_str(&format!("{i} clk cpu0 XYZ 1 2 3\n"));
        }
        trace.push_str("11 ns QQQ\nWWW 5\n12 clk R X0 zz\n");
        let stats = compute(
            SliceSource(trace.as_bytes()),
            ParseOptions::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!(stats.unparsed, 133);
        let want: BTreeMap<String, u64> = [("XYZ", 130), ("QQQ", 1), ("WWW", 1), ("R", 1)]
            .into_iter()
            .map(|(w, n)| (w.to_string(), n))
            .collect();
        assert_eq!(stats.unparsed_words, want);
        // Only the first lines are listed one by one.
        assert_eq!(stats.unparsed_details.len(), MAX_LISTED_UNPARSED);
    }

    #[test]
    fn short_and_unknown_register_values_are_counted() {
        let trace = "1 clk R X0 0000000000000001\n\
                     2 clk R V0<63:0> 00000000\n\
                     3 clk R X1 --------\n\
                     4 clk R X2 12\n\
                     5 clk R X3 ----------------\n\
                     6 clk R X4 --------00300000\n";
        let stats = compute(
            SliceSource(trace.as_bytes()),
            ParseOptions::default(),
            |_| {},
        )
        .unwrap();
        assert_eq!(stats.unparsed, 0);
        assert_eq!(
            stats.short_register_values,
            ValueNote {
                count: 3,
                first_line: 2
            }
        );
        assert_eq!(
            stats.unknown_register_values,
            ValueNote {
                count: 2,
                first_line: 3
            }
        );
    }

    #[test]
    fn notes_of_a_later_range_keep_the_earliest_first_line() {
        let mut a = ValueNote::default();
        a.append(
            ValueNote {
                count: 2,
                first_line: 5,
            },
            100,
        );
        a.add(50);
        assert_eq!(
            a,
            ValueNote {
                count: 3,
                first_line: 50
            }
        );
    }

    #[test]
    fn words_beyond_the_limit_share_one_entry() {
        let mut words = BTreeMap::new();
        for i in 0..MAX_UNPARSED_WORDS + 5 {
            add_word(&mut words, format!("W{i}"), 2);
        }
        add_word(&mut words, "W0".into(), 1);
        assert_eq!(words.len(), MAX_UNPARSED_WORDS + 1);
        assert_eq!(words[""], 10);
        assert_eq!(words["W0"], 3);
    }
}
