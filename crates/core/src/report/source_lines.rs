//! `lines`: how many times each source line ran, over the whole trace.
//!
//! Two steps. [`count_pcs`] reads the trace once, parser only (no machine
//! model: a count needs each instruction's address and whether it passed
//! its condition, nothing else), and counts per PC the instructions that
//! executed and those that failed their condition. [`attribute`] then maps
//! each distinct PC once through [`DebugInfo`] to the innermost frame's
//! `file:line`, the line the instruction was compiled from (for inlined
//! code, the inlined function's line, as gcov and `addr2line` have it), and
//! adds the counts up per line, per file and per function.
//!
//! The index keeps the same per-PC counts ([`crate::Index::pc_counts`]):
//! the browser's source pane takes them from there; the CLI, which has no
//! index at hand, counts in this parse-only pass (`benches/dwarf.rs`
//! prints its cost).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::debuginfo::DebugInfo;
use crate::lines::LineReader;
use crate::parse::{CoreSelect, Effect, ParseOptions, Parser, RecordKind};
use crate::report::run::UnparsedLines;
use crate::source::TraceSource;
use crate::symbols::SymbolTable;
use crate::Result;

pub use crate::index::Counts;

/// Per instruction address, how often it ran: the result of [`count_pcs`].
#[derive(Clone, Debug, Default)]
pub struct PcCounts {
    by_pc: HashMap<u64, Counts>,
    /// Lines the parser did not understand (they count no instruction).
    pub unparsed: UnparsedLines,
}

impl PcCounts {
    /// Counts already made, by address (the index keeps them:
    /// [`crate::Index::pc_counts`]).
    pub fn from_counts(counts: impl IntoIterator<Item = (u64, Counts)>) -> PcCounts {
        PcCounts {
            by_pc: counts.into_iter().collect(),
            unparsed: UnparsedLines::default(),
        }
    }

    /// The counts at one address (zero for one never reached).
    pub fn get(&self, pc: u64) -> Counts {
        self.by_pc.get(&pc).copied().unwrap_or_default()
    }

    /// Distinct addresses reached.
    pub fn len(&self) -> usize {
        self.by_pc.len()
    }

    /// Whether the trace holds no instruction.
    pub fn is_empty(&self) -> bool {
        self.by_pc.is_empty()
    }

    /// Every address with its counts, in ascending address order.
    pub fn sorted(&self) -> Vec<(u64, Counts)> {
        let mut v: Vec<(u64, Counts)> = self.by_pc.iter().map(|(p, c)| (*p, *c)).collect();
        v.sort_unstable_by_key(|(p, _)| *p);
        v
    }
}

/// Counts every instruction of the trace by address. With
/// `ParseOptions::cpu`, only that core's. `progress` hears the byte offset
/// reached now and then.
pub fn count_pcs<S: TraceSource>(
    mut source: S,
    opts: ParseOptions,
    mut progress: impl FnMut(u64),
) -> Result<PcCounts> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    let mut core = opts.cpu.map(CoreSelect::new);
    let mut reader = LineReader::new(source);
    let mut out = PcCounts::default();
    let mut next_report = 0u64;
    while let Some(line) = reader.next_line()? {
        if line.offset >= next_report {
            progress(line.offset);
            next_report = line.offset + (4 << 20);
        }
        let rec = parser.parse_line(line.text);
        if let Some(core) = &mut core {
            if !core.line(rec.cpu) {
                continue;
            }
        }
        match &rec.kind {
            RecordKind::Instruction(i) => {
                let c = out.by_pc.entry(i.pc).or_default();
                match i.effect {
                    Effect::Executed => c.executed += 1,
                    Effect::CondFail => c.failed += 1,
                    // Nothing was decoded, so nothing ran or failed.
                    Effect::FetchFail => {}
                }
            }
            RecordKind::Unparsed(u) => {
                out.unparsed.note(line.number, u.reason);
            }
            _ => {}
        }
    }
    Ok(out)
}

/// One source line's counts and the instructions compiled from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineCount {
    /// 1-based line number.
    pub line: u32,
    /// The sum over its instructions.
    pub counts: Counts,
    /// Its instructions that the trace reached, by ascending address.
    pub instructions: Vec<(u64, Counts)>,
}

/// One source file's lines with code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCounts {
    /// The file as the DWARF line table names it.
    pub file: String,
    /// The sum over its lines.
    pub counts: Counts,
    /// Lines in ascending order: those with an instruction reached, and
    /// those with code never reached (zero counts, no instructions).
    pub lines: Vec<LineCount>,
}

/// One function's instructions reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionCounts {
    /// The innermost DWARF function at those PCs (an inlined function
    /// counts apart from its caller); where DWARF names none, the ELF
    /// symbol's name, or `??`.
    pub name: String,
    /// The sum over its instructions.
    pub counts: Counts,
}

/// Per-line execution counts over a whole trace: the result of [`attribute`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Files by name.
    pub files: Vec<FileCounts>,
    /// Functions with any instruction on a source line, by name.
    pub functions: Vec<FunctionCounts>,
    /// Instructions at PCs with no source line (code built without `-g`,
    /// such as libgcc, or outside the image), by ascending address.
    pub unmapped: Vec<(u64, Counts)>,
}

impl LineCounts {
    /// The sum of [`LineCounts::unmapped`].
    pub fn unmapped_total(&self) -> Counts {
        let mut t = Counts::default();
        for (_, c) in &self.unmapped {
            t.add(*c);
        }
        t
    }
}

/// Adds PC counts up by source line through the DWARF; `symbols` names
/// the functions DWARF does not describe (assembly, libraries).
pub fn attribute(
    pcs: &PcCounts,
    info: &DebugInfo,
    symbols: Option<&SymbolTable>,
) -> Result<LineCounts> {
    let mut files: BTreeMap<String, BTreeMap<u32, LineCount>> = BTreeMap::new();
    let mut functions: BTreeMap<String, Counts> = BTreeMap::new();
    let mut unmapped = Vec::new();
    for (pc, counts) in pcs.sorted() {
        let frames = info.frames(pc)?;
        let location = match frames.first() {
            Some(f) => f.location.clone(),
            None => info.location(pc)?,
        };
        let Some((loc, line)) = location.and_then(|l| l.line.map(|n| (l, n))) else {
            unmapped.push((pc, counts));
            continue;
        };
        let function = frames
            .first()
            .and_then(|f| f.function.clone())
            .or_else(|| symbols.and_then(|s| s.find_by_address(pc).map(|(s, _)| s.name.clone())))
            .unwrap_or_else(|| "??".to_string());
        functions.entry(function).or_default().add(counts);
        let entry = files
            .entry(loc.file)
            .or_default()
            .entry(line)
            .or_insert_with(|| LineCount {
                line,
                counts: Counts::default(),
                instructions: Vec::new(),
            });
        entry.counts.add(counts);
        entry.instructions.push((pc, counts));
    }
    // Lines whose code never ran, so they show as such (gcov's `#####`).
    for (file, lines) in info.lines_with_code() {
        let counted = files.entry(file).or_default();
        for line in lines {
            counted.entry(line).or_insert_with(|| LineCount {
                line,
                counts: Counts::default(),
                instructions: Vec::new(),
            });
        }
    }
    Ok(LineCounts {
        files: files
            .into_iter()
            .map(|(file, lines)| {
                let mut counts = Counts::default();
                for l in lines.values() {
                    counts.add(l.counts);
                }
                FileCounts {
                    file,
                    counts,
                    lines: lines.into_values().collect(),
                }
            })
            .collect(),
        functions: functions
            .into_iter()
            .map(|(name, counts)| FunctionCounts { name, counts })
            .collect(),
        unmapped,
    })
}

fn counts_json(c: Counts) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    m.insert("executed".into(), c.executed.into());
    m.insert("failed".into(), c.failed.into());
    m
}

fn instructions_json(v: &[(u64, Counts)]) -> serde_json::Value {
    v.iter()
        .map(|(pc, c)| {
            let mut m = counts_json(*c);
            // Hex text: a 64-bit address does not fit a JSON number exactly.
            m.insert("pc".into(), format!("0x{pc:x}").into());
            serde_json::Value::Object(m)
        })
        .collect()
}

/// The counts as one JSON object: `files` (each with `file`, `executed`,
/// `failed` and `lines`, each line with `line`, `executed`, `failed` and
/// `instructions` by `pc`), `functions` and `unmapped`.
pub fn render_json(counts: &LineCounts) -> String {
    let files: Vec<serde_json::Value> = counts
        .files
        .iter()
        .map(|f| {
            let mut m = counts_json(f.counts);
            m.insert("file".into(), f.file.clone().into());
            let lines: Vec<serde_json::Value> = f
                .lines
                .iter()
                .map(|l| {
                    let mut m = counts_json(l.counts);
                    m.insert("line".into(), l.line.into());
                    m.insert("instructions".into(), instructions_json(&l.instructions));
                    serde_json::Value::Object(m)
                })
                .collect();
            m.insert("lines".into(), lines.into());
            serde_json::Value::Object(m)
        })
        .collect();
    let functions: Vec<serde_json::Value> = counts
        .functions
        .iter()
        .map(|f| {
            let mut m = counts_json(f.counts);
            m.insert("name".into(), f.name.clone().into());
            serde_json::Value::Object(m)
        })
        .collect();
    let mut unmapped = counts_json(counts.unmapped_total());
    unmapped.insert("instructions".into(), instructions_json(&counts.unmapped));
    let mut top = serde_json::Map::new();
    top.insert("files".into(), files.into());
    top.insert("functions".into(), functions.into());
    top.insert("unmapped".into(), unmapped.into());
    format!("{}\n", serde_json::Value::Object(top))
}

/// `N` or `N (M failed)`.
fn counts_text(c: Counts) -> String {
    if c.failed == 0 {
        c.executed.to_string()
    } else {
        format!("{} ({} failed)", c.executed, c.failed)
    }
}

/// The count column of the annotated source: `N`, or `N/M` when M
/// failed their condition.
fn count_cell(c: Counts) -> String {
    if c.executed == 0 && c.failed == 0 {
        "#####".to_string()
    } else if c.failed == 0 {
        c.executed.to_string()
    } else {
        format!("{}/{}", c.executed, c.failed)
    }
}

fn instructions_text(out: &mut String, indent: &str, v: &[(u64, Counts)]) {
    for (pc, c) in v {
        let _ = writeln!(out, "{indent}0x{pc:08x} {}", counts_text(*c));
    }
}

/// The counts as text. For a file whose source `source(file)` returns, the
/// whole source in gcov's annotated form: `count:line:text`, the count
/// `N` or `N/M` (M failed their condition), `#####` for lines whose code
/// never ran, `-` for lines without code, each line that ran followed by
/// its instructions. Lines with code that never ran show as `file:line:0`. For other files, `file:line:count` per line that
/// ran, with its instructions below. Then the functions, busiest first,
/// and the instructions with no source line.
pub fn render_text(counts: &LineCounts, source: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    for f in &counts.files {
        match source(&f.file) {
            Some(text) => annotated(&mut out, f, &text),
            None => {
                for l in &f.lines {
                    let _ = writeln!(out, "{}:{}:{}", f.file, l.line, counts_text(l.counts));
                    instructions_text(&mut out, "  ", &l.instructions);
                }
            }
        }
    }
    let mut functions: Vec<&FunctionCounts> = counts.functions.iter().collect();
    functions.sort_by(|a, b| {
        (b.counts.executed + b.counts.failed)
            .cmp(&(a.counts.executed + a.counts.failed))
            .then_with(|| a.name.cmp(&b.name))
    });
    if !functions.is_empty() {
        out.push_str("\nFunctions (instructions):\n");
        for f in functions {
            let _ = writeln!(out, "{:>16} {}", counts_text(f.counts), f.name);
        }
    }
    if !counts.unmapped.is_empty() {
        let _ = writeln!(
            out,
            "\nNo source line: {} instructions",
            counts_text(counts.unmapped_total())
        );
        instructions_text(&mut out, "  ", &counts.unmapped);
    }
    out
}

fn annotated(out: &mut String, f: &FileCounts, text: &str) {
    let _ = writeln!(out, "{:>12}:{:>5}:Source:{}", "-", 0, f.file);
    let mut by_line = f.lines.iter().peekable();
    let indent = " ".repeat(20);
    let write_counted = |out: &mut String, l: &LineCount, text: &str| {
        let _ = writeln!(out, "{:>12}:{:>5}:{}", count_cell(l.counts), l.line, text);
        instructions_text(out, &indent, &l.instructions);
    };
    for (i, src) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match by_line.peek() {
            Some(l) if l.line == n => {
                write_counted(out, l, src);
                by_line.next();
            }
            _ => {
                let _ = writeln!(out, "{:>12}:{:>5}:{}", "-", n, src);
            }
        }
    }
    // Lines past the file's end: the source found is not the one built.
    for l in by_line {
        write_counted(out, l, "<past the end of the source file found>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    const TRACE: &[u8] =
        include_bytes!("../../../../tests/data/tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac");
    const ELF: &[u8] =
        include_bytes!("../../../../tests/data/elf/quicksort-thumb-O2-fastmodel-2M.elf");

    fn counts() -> (PcCounts, LineCounts) {
        let pcs = count_pcs(SliceSource(TRACE), ParseOptions::default(), |_| {}).unwrap();
        let info = DebugInfo::from_elf_bytes(ELF.into(), 0).unwrap().unwrap();
        let symbols = SymbolTable::from_elf_bytes(ELF, 0).unwrap();
        let lines = attribute(&pcs, &info, Some(&symbols)).unwrap();
        (pcs, lines)
    }

    #[test]
    fn every_instruction_lands_once() {
        let (pcs, lines) = counts();
        let mut all = Counts::default();
        for (_, c) in pcs.sorted() {
            all.add(c);
        }
        let mut by_file = lines.unmapped_total();
        for f in &lines.files {
            by_file.add(f.counts);
        }
        let mut by_function = lines.unmapped_total();
        for f in &lines.functions {
            by_function.add(f.counts);
        }
        assert_eq!(by_file, all);
        assert_eq!(by_function, all);
        // The Thumb start-up loop's IT block fails its condition.
        assert!(all.failed > 0);
        assert!(lines.functions.iter().any(|f| f.name == "quicksort"));
    }

    #[test]
    fn text_shows_the_source_when_found() {
        let (_, lines) = counts();
        let file = lines
            .files
            .iter()
            .find(|f| f.file.ends_with("quicksort.c"))
            .unwrap();
        let first = &file.lines[0];
        let plain = render_text(&lines, &|_| None);
        assert!(plain.contains(&format!(
            "{}:{}:{}",
            file.file,
            first.line,
            counts_text(first.counts)
        )));
        let source: String = (1..=first.line).map(|n| format!("text {n}\n")).collect();
        let annotated = render_text(&lines, &|f| {
            f.ends_with("quicksort.c").then(|| source.clone())
        });
        assert!(annotated.contains(&format!(
            "{:>12}:{:>5}:text {}\n",
            count_cell(first.counts),
            first.line,
            first.line
        )));
        assert!(annotated.contains(&format!("{:>12}:{:>5}:Source:{}\n", "-", 0, file.file)));
    }
}
