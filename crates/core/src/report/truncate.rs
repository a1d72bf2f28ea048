//! `truncate`: cut a trace short where the traced program got stuck, so
//! that a runaway simulation's gigabytes of repetition can be dropped. The
//! trace is kept up to and including the first line that shows either
//!
//! - an instruction at an address seen among the last 16 instructions with
//!   no register changing value in between (a tight loop), or
//! - a text-only event completing a sequence of them that repeats exactly,
//!   timestamps aside, with no instruction or register write in between,
//!   over at least 16 events (e.g. a model escalating exceptions forever).

use crate::Result;
use std::collections::VecDeque;

use crate::lines::LineReader;
use crate::parse::{BranchKind, CoreSelect, ISet, ParseOptions, Parser, RecordKind, RegId};
use crate::source::TraceSource;
use crate::state::regfile;

const PC_LOOP_LIMIT: usize = 16;
const TEXT_EVENT_LOOP_LIMIT: usize = 32;

/// Where to cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// Bytes to keep from the start of the source (through the end of the
    /// last kept line and its newline, if it has one).
    pub keep_bytes: u64,
    /// Whether the last kept line lacks its newline: the reference tool
    /// writes every line with one.
    pub add_newline: bool,
    /// Whether a loop was found (otherwise the whole trace is kept).
    pub(crate) truncated: bool,
    /// Lines kept.
    pub lines: u64,
    /// A partial last line that was dropped, as `line N: message`.
    pub warnings: Vec<String>,
    /// An unparsable line before the end, as `line N: message`: the
    /// reference tool stops there with an error, having written the lines
    /// before it.
    pub error: Option<String>,
}

#[derive(Default)]
struct Detector {
    register_space: Vec<u8>,
    previous_pcs: VecDeque<u64>,
    /// (type word, text) of recent text-only events, oldest first.
    previous_text: VecDeque<(Vec<u8>, Vec<u8>)>,
    aarch64: bool,
    stuck: bool,
}

impl Detector {
    fn instruction(&mut self, pc: u64, iset: ISet) {
        if self.previous_pcs.contains(&pc) {
            self.stuck = true;
        }
        self.previous_pcs.push_back(pc);
        if self.previous_pcs.len() > PC_LOOP_LIMIT {
            self.previous_pcs.pop_front();
        }
        self.previous_text.clear();
        if iset.is_aarch64() {
            self.aarch64 = true;
        }
    }

    /// One contiguous run of written register bytes.
    fn register(&mut self, reg: RegId, offset: usize, bytes: &[u8]) {
        let start = regfile::location(reg, self.aarch64).0 + offset;
        let end = start + bytes.len();
        if end > self.register_space.len() {
            // Growing the space counts as no change, as in the reference.
            self.register_space.resize(end, 0);
        } else if self.register_space[start..end] != *bytes {
            self.previous_pcs.clear();
        }
        self.register_space[start..end].copy_from_slice(bytes);
        self.previous_text.clear();
    }

    fn text(&mut self, type_word: &[u8], text: &[u8]) {
        self.previous_text
            .push_back((type_word.to_vec(), text.to_vec()));
        if self.previous_text.len() > TEXT_EVENT_LOOP_LIMIT {
            self.previous_text.pop_front();
        }
        // Is the newest k events a copy of the k before them, for some k?
        // Floyd-style: the half-length k grows by one while 2k stays
        // strictly below the number of events held.
        let n = self.previous_text.len();
        let at = |i: usize| &self.previous_text[n - 1 - i];
        let mut k = 1;
        while 2 * k < n {
            if (0..k).all(|i| at(i) == at(k + i)) && 2 * k >= TEXT_EVENT_LOOP_LIMIT / 2 {
                self.stuck = true;
                return;
            }
            k += 1;
        }
    }
}

/// Finds the cut for `source`.
pub fn find_cut<S: TraceSource>(mut source: S, parse_opts: ParseOptions) -> Result<Cut> {
    let total = source.len();
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut det = Detector::default();
    let mut core = parse_opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut cut = Cut {
        keep_bytes: 0,
        add_newline: false,
        truncated: false,
        lines: 0,
        warnings: Vec::new(),
        error: None,
    };
    while let Some(line) = reader.next_line()? {
        let end = line.offset + line.len;
        let has_newline = end < total;
        let rec = parser.parse_line(line.text);
        // Only the chosen core's loop counts; the cut keeps every core's lines.
        let mine = core.as_mut().is_none_or(|c| c.line(rec.cpu));
        match &rec.kind {
            _ if !mine && !matches!(rec.kind, RecordKind::Unparsed(_)) => {}
            RecordKind::Instruction(i) => det.instruction(i.pc, i.iset),
            RecordKind::Register(r) => {
                if let Some(reg) = r.reg {
                    let mut i = 0;
                    while i < r.bytes.len() {
                        if r.known.get(i).copied().unwrap_or(0) == 0 {
                            i += 1;
                            continue;
                        }
                        let start = i;
                        while i < r.bytes.len() && r.known.get(i).copied().unwrap_or(0) != 0 {
                            i += 1;
                        }
                        det.register(reg, start, &r.bytes[start..i]);
                    }
                }
            }
            RecordKind::RegisterList(l) => {
                for e in l.entries {
                    if let Some(reg) = e.reg {
                        let size = (usize::from(e.digits) / 2).clamp(1, 8);
                        let bytes = e.value.to_le_bytes();
                        det.register(reg, 0, &bytes[..size]);
                    }
                }
            }
            RecordKind::Text(t) => det.text(t.type_word, t.text),
            RecordKind::Branch(b) if b.kind == BranchKind::Es => det.text(b"BR", b.text),
            RecordKind::Unparsed(u) => {
                if !has_newline {
                    // An unparsable last line without a newline is taken
                    // for a partial line, cut off mid-write: dropped.
                    cut.warnings.push(format!(
                        "line {}: {}; ignoring parse error on partial last line (trace truncated?)",
                        line.number, u.reason
                    ));
                    break;
                }
                cut.error = Some(format!("line {}: {}", line.number, u.reason));
                break;
            }
            _ => {}
        }
        cut.lines += 1;
        cut.keep_bytes = if has_newline { end + 1 } else { end };
        cut.add_newline = !has_newline;
        if det.stuck {
            cut.truncated = true;
            break;
        }
    }
    Ok(cut)
}
