//! Text search over a trace, in steps: plain text or a regular expression,
//! optionally only in lines of some record kinds or in a line range.
//!
//! The trace is read in slices through a line buffer the caller drives
//! with a byte budget per step, so the browser's worker can interleave a
//! search with indexing and queries and stream results as they are found,
//! and the CLI can run it to the end. Nothing but the current slice is held.

use crate::{Error, Result};
use memchr::memmem;

use crate::lines::LineBuffer;
use crate::parse::{ParseOptions, Parser, RecordKind};
use crate::source::TraceSource;

/// Which lines a search looks at, by what the parser makes of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KindFilter {
    /// Instruction lines.
    Instructions,
    /// Register updates.
    Registers,
    /// Memory accesses.
    Memory,
    /// Exceptions, branches, bus/cache/TLB events, text events, unparsed lines.
    Events,
}

impl KindFilter {
    /// The filter a name (`instructions`, `registers`, `memory`, `events`,
    /// singular or first letter) asks for.
    pub fn from_name(name: &str) -> Option<KindFilter> {
        match name {
            "instructions" | "instruction" | "i" => Some(KindFilter::Instructions),
            "registers" | "register" | "r" => Some(KindFilter::Registers),
            "memory" | "m" => Some(KindFilter::Memory),
            "events" | "event" | "e" => Some(KindFilter::Events),
            _ => None,
        }
    }

    fn admits(self, kind: &RecordKind<'_>) -> bool {
        match self {
            KindFilter::Instructions => matches!(kind, RecordKind::Instruction(_)),
            KindFilter::Registers => {
                matches!(kind, RecordKind::Register(_) | RecordKind::RegisterList(_))
            }
            KindFilter::Memory => {
                matches!(kind, RecordKind::Memory(_) | RecordKind::CoprocTransfer(_))
            }
            KindFilter::Events => matches!(
                kind,
                RecordKind::Exception(_)
                    | RecordKind::Branch(_)
                    | RecordKind::Bus(_)
                    | RecordKind::Cache(_)
                    | RecordKind::CacheMaintenance(_)
                    | RecordKind::TableWalk(_)
                    | RecordKind::Tlb(_)
                    | RecordKind::SystemOp(_)
                    | RecordKind::EpTrace(_)
                    | RecordKind::Text(_)
                    | RecordKind::Unparsed(_)
            ),
        }
    }
}

/// What to look for, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSpec {
    /// Text or regular expression to find in a line.
    pub pattern: String,
    /// Whether `pattern` is a regular expression (bytes, ASCII classes).
    pub regex: bool,
    /// Whether letters match regardless of case (ASCII).
    pub ignore_case: bool,
    /// Only lines of these kinds (empty: every line).
    pub kinds: Vec<KindFilter>,
    /// Only lines `first..=last` (1-based), when given.
    pub lines: Option<(u64, u64)>,
}

/// One matching line: where, and the byte range of the first match in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchHit {
    /// Its number, 1-based.
    pub line: u64,
    pub(crate) offset: u64,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Bytes read at a time: each read has a fixed cost of milliseconds in the
/// browser, as for indexing.
const READ_CHUNK: usize = 4 << 20;

enum Matcher {
    Plain(memmem::Finder<'static>),
    /// Plain text, case-insensitively: the line is lower-cased into scratch.
    PlainFolded(memmem::Finder<'static>, Vec<u8>),
    Regex(regex::bytes::Regex),
}

impl Matcher {
    fn find(&mut self, text: &[u8]) -> Option<(usize, usize)> {
        match self {
            Matcher::Plain(f) => f.find(text).map(|i| (i, i + f.needle().len())),
            Matcher::PlainFolded(f, scratch) => {
                scratch.clear();
                scratch.extend(text.iter().map(u8::to_ascii_lowercase));
                f.find(scratch).map(|i| (i, i + f.needle().len()))
            }
            Matcher::Regex(re) => re.find(text).map(|m| (m.start(), m.end())),
        }
    }
}

/// A search in progress over one trace.
pub struct Search {
    matcher: Matcher,
    kinds: Vec<KindFilter>,
    lines: Option<(u64, u64)>,
    /// Parses lines only when kinds are asked for.
    parser: Option<Parser>,
    buffer: LineBuffer,
    total: u64,
    done: bool,
}

/// Progress after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProgress {
    pub(crate) done_bytes: u64,
    pub(crate) total_bytes: u64,
    /// Whether the whole trace has been searched.
    pub complete: bool,
}

impl Search {
    /// A search from the start of a trace of `total` bytes. `sample` (the
    /// trace's first bytes) picks the dialect when kinds are filtered.
    pub fn new(
        spec: &SearchSpec,
        total: u64,
        sample: &[u8],
        parse: ParseOptions,
    ) -> Result<Search> {
        if spec.pattern.is_empty() {
            return Err(Error::Search("the search pattern is empty".into()));
        }
        let matcher = if spec.regex {
            // ASCII semantics (`\w`, `\d` and `.` match bytes): no Unicode tables.
            let re = regex::bytes::RegexBuilder::new(&spec.pattern)
                .unicode(false)
                .case_insensitive(spec.ignore_case)
                .build()
                .map_err(|e| Error::Search(format!("bad regular expression: {e}")))?;
            Matcher::Regex(re)
        } else if spec.ignore_case {
            let needle = spec.pattern.to_ascii_lowercase().into_bytes();
            Matcher::PlainFolded(memmem::Finder::new(&needle).into_owned(), Vec::new())
        } else {
            Matcher::Plain(memmem::Finder::new(spec.pattern.as_bytes()).into_owned())
        };
        if let Some((first, last)) = spec.lines {
            if first == 0 || last < first {
                return Err(Error::Search(format!(
                    "bad line range {first}..{last} (lines count from 1)"
                )));
            }
        }
        Ok(Search {
            matcher,
            kinds: spec.kinds.clone(),
            lines: spec.lines,
            parser: (!spec.kinds.is_empty()).then(|| Parser::for_sample(parse, sample)),
            buffer: LineBuffer::new(0, total, 1, READ_CHUNK),
            total,
            done: false,
        })
    }

    /// Searches about `budget` more bytes (whole lines), calling `on_hit`
    /// for each matching line in order, with the line's text.
    pub fn step<S: TraceSource + ?Sized>(
        &mut self,
        source: &mut S,
        budget: u64,
        mut on_hit: impl FnMut(SearchHit, &[u8]),
    ) -> Result<SearchProgress> {
        let stop_at = self.buffer.position().saturating_add(budget.max(1));
        while !self.done {
            let Some(line) = self.buffer.next_line(source)? else {
                self.done = true;
                break;
            };
            let (number, offset) = (line.number, line.offset);
            let next = offset + line.text.len() as u64 + 1;
            let in_range = self.lines.is_none_or(|(a, b)| (a..=b).contains(&number));
            if self.lines.is_some_and(|(_, b)| number > b) {
                self.done = true;
                break;
            }
            let wanted = match &mut self.parser {
                // The parser sees every line: it carries state across them.
                Some(p) => {
                    let rec = p.parse_line(line.text);
                    self.kinds.iter().any(|k| k.admits(&rec.kind))
                }
                None => true,
            };
            if in_range && wanted {
                // A CRLF file's line ends are not text: `$` ends the line.
                let text = line.text.strip_suffix(b"\r").unwrap_or(line.text);
                if let Some((start, end)) = self.matcher.find(text) {
                    on_hit(
                        SearchHit {
                            line: number,
                            offset,
                            start: start as u32,
                            end: end as u32,
                        },
                        line.text,
                    );
                }
            }
            if next >= stop_at {
                break;
            }
        }
        Ok(SearchProgress {
            done_bytes: if self.done {
                self.total
            } else {
                self.buffer.position()
            },
            total_bytes: self.total,
            complete: self.done,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SliceSource;

    const TRACE: &[u8] = b"1 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0
1 clk R r0 00000000
2 clk IT (2) 00008004 e5801000 A svc_s : STR r1,[r0,#0]
2 clk MW4 00000000 00000000
3 clk E 00000000 00000001 UNDEF
4 clk IT (4) 00008008 eafffffe A svc_s : B {pc}
";

    fn run(spec: SearchSpec, budget: u64) -> Vec<u64> {
        let mut s = Search::new(&spec, TRACE.len() as u64, TRACE, ParseOptions::default())
            .expect("good pattern");
        let mut src = SliceSource(TRACE);
        let mut hits = Vec::new();
        let mut steps = 0;
        loop {
            steps += 1;
            let p = s.step(&mut src, budget, |h, _| hits.push(h.line)).unwrap();
            if p.complete {
                break;
            }
            assert!(steps < 1000, "a step must make progress");
        }
        hits
    }

    fn spec(pattern: &str) -> SearchSpec {
        SearchSpec {
            pattern: pattern.into(),
            regex: false,
            ignore_case: false,
            kinds: vec![],
            lines: None,
        }
    }

    #[test]
    fn plain_text_whatever_the_step_size() {
        for budget in [1, 7, 64, 1 << 20] {
            assert_eq!(run(spec("r0"), budget), vec![1, 2, 3], "budget {budget}");
        }
    }

    #[test]
    fn case_regex_kinds_and_ranges() {
        assert_eq!(run(spec("mov"), 64), Vec::<u64>::new());
        assert_eq!(
            run(
                SearchSpec {
                    ignore_case: true,
                    ..spec("mov")
                },
                64
            ),
            vec![1]
        );
        assert_eq!(
            run(
                SearchSpec {
                    regex: true,
                    ..spec(r"^\d+ clk I[TS] .*\[r0")
                },
                64
            ),
            vec![3]
        );
        assert_eq!(
            run(
                SearchSpec {
                    kinds: vec![KindFilter::Registers, KindFilter::Memory],
                    ..spec("0000")
                },
                64
            ),
            vec![2, 4]
        );
        assert_eq!(
            run(
                SearchSpec {
                    kinds: vec![KindFilter::Events],
                    ..spec("UNDEF")
                },
                64
            ),
            vec![5]
        );
        assert_eq!(
            run(
                SearchSpec {
                    lines: Some((2, 4)),
                    ..spec("clk")
                },
                64
            ),
            vec![2, 3, 4]
        );
    }

    #[test]
    fn crlf_line_ends_are_not_searched() {
        let crlf = String::from_utf8(TRACE.to_vec())
            .unwrap()
            .replace('\n', "\r\n");
        for (pattern, want) in [(r"#0$", 1), (r"UNDEF$", 5), (r"\{pc\}$", 6)] {
            let mut spec = spec(pattern);
            spec.regex = true;
            let mut search = Search::new(
                &spec,
                crlf.len() as u64,
                crlf.as_bytes(),
                ParseOptions::default(),
            )
            .unwrap();
            let mut hits = Vec::new();
            search
                .step(&mut SliceSource(crlf.as_bytes()), u64::MAX, |h, text| {
                    let line_end = text.strip_suffix(b"\r").unwrap_or(text).len();
                    hits.push((h.line, h.end as usize == line_end))
                })
                .unwrap();
            assert_eq!(hits, [(want, true)], "{pattern}");
        }
    }

    #[test]
    fn bad_patterns_are_reported() {
        let make = |s: SearchSpec| Search::new(&s, 1, b"", ParseOptions::default()).err();
        assert!(make(spec("")).is_some());
        let err = make(SearchSpec {
            regex: true,
            ..spec("(unclosed")
        })
        .unwrap();
        assert!(err.to_string().contains("regular expression"), "{err}");
        assert!(make(SearchSpec {
            lines: Some((0, 3)),
            ..spec("x")
        })
        .is_some());
    }

    #[test]
    fn the_match_position_is_reported() {
        let mut s = Search::new(
            &spec("STR"),
            TRACE.len() as u64,
            TRACE,
            ParseOptions::default(),
        )
        .unwrap();
        let mut hits = Vec::new();
        s.step(&mut SliceSource(TRACE), u64::MAX, |h, text| {
            hits.push((h, text.to_vec()))
        })
        .unwrap();
        assert_eq!(hits.len(), 1);
        let (hit, text) = &hits[0];
        let line = TRACE.split(|&b| b == b'\n').nth(2).unwrap();
        assert_eq!(text.as_slice(), line);
        assert_eq!(&line[hit.start as usize..hit.end as usize], b"STR");
        assert_eq!(
            hit.offset,
            TRACE.iter().position(|&b| b == b'2').unwrap() as u64
        );
    }
}
