//! Drives the engine over a whole source for reports that only need an
//! [`Observer`].

use crate::engine::{Engine, EngineOptions, Observer, Site};
use crate::lines::{Line, LineReader};
use crate::parse::{ParseOptions, Parser, Record, RecordKind};
use crate::source::TraceSource;
use crate::Result;

/// Lines a report's pass could not parse: they count as text and change no
/// state, so reports say so rather than lose them silently.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnparsedLines {
    /// How many.
    pub count: u64,
    /// The first few: line number and reason.
    pub first: Vec<(u64, &'static str)>,
}

impl UnparsedLines {
    /// How many lines `first` keeps: enough to show what went wrong without
    /// growing with the trace.
    const LISTED: usize = 5;

    /// Counts one unparsed line, keeping its number and reason if it is among
    /// the first few.
    pub fn note(&mut self, line: u64, reason: &'static str) {
        self.count += 1;
        if self.first.len() < Self::LISTED {
            self.first.push((line, reason));
        }
    }
}

/// Feeds every line of `source` to a fresh engine, then finishes it.
pub(crate) fn run_engine<S: TraceSource, O: Observer>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    obs: &mut O,
) -> Result<UnparsedLines> {
    run_engine_with(source, parse_opts, engine_opts, obs, |_, _, _| {}).map(|end| end.unparsed)
}

/// What a pass found at the trace's end besides what its observer saw.
pub(crate) struct RunEnd {
    pub(crate) unparsed: UnparsedLines,
    /// (call site, entry) of the calls still open at the end: their
    /// frames were live, no return seen.
    pub(crate) open_calls: Vec<(Site, Site)>,
}

/// [`run_engine`], also showing each line's record to `on_record` once the
/// engine has taken it (with the engine, whose open node holds the line).
pub(crate) fn run_engine_with<S, O, F>(
    mut source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    obs: &mut O,
    mut on_record: F,
) -> Result<RunEnd>
where
    S: TraceSource,
    O: Observer,
    F: FnMut(&Line<'_>, &Record<'_>, &Engine),
{
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut engine = Engine::new(engine_opts);
    let mut reader = LineReader::new(source);
    let mut next_line = 1;
    let mut unparsed = UnparsedLines::default();
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        if let RecordKind::Unparsed(u) = &rec.kind {
            unparsed.note(line.number, u.reason);
        }
        engine.feed(&line, &rec, obs);
        on_record(&line, &rec, &engine);
        next_line = line.number + 1;
    }
    // Where the lines end, not `len`: a stream's length is known only now.
    engine.finish(reader.position(), next_line, obs);
    let mut open_calls = engine.pending_calls_list();
    open_calls.sort_by_key(|(_, entry)| entry.line);
    Ok(RunEnd {
        unparsed,
        open_calls,
    })
}

#[cfg(test)]
mod tests {
    use super::UnparsedLines;

    #[test]
    fn note_counts_every_line_and_keeps_the_first_five() {
        let mut u = UnparsedLines::default();
        for n in 1..=7 {
            u.note(n * 10, if n % 2 == 0 { "even" } else { "odd" });
        }
        assert_eq!(u.count, 7);
        assert_eq!(
            u.first,
            vec![
                (10, "odd"),
                (20, "even"),
                (30, "odd"),
                (40, "even"),
                (50, "odd")
            ]
        );
    }
}
