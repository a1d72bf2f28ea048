//! Drives the engine over a whole source for reports that only need an
//! [`Observer`].

use crate::engine::{Engine, EngineOptions, Observer};
use crate::lines::LineReader;
use crate::parse::{ParseOptions, Parser};
use crate::source::{SourceError, TraceSource};

/// Feeds every line of `source` to a fresh engine, then finishes it.
pub fn run_engine<S: TraceSource, O: Observer>(
    mut source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    obs: &mut O,
) -> Result<(), SourceError> {
    let total = source.len();
    let mut sample = vec![0u8; 16384.min(total as usize)];
    let n = source.read_at(0, &mut sample)?;
    sample.truncate(n);
    let mut parser = Parser::for_sample(parse_opts, &sample);
    let mut engine = Engine::new(engine_opts);
    let mut reader = LineReader::new(source);
    let mut next_line = 1;
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        engine.feed(&line, &rec, obs);
        next_line = line.number + 1;
    }
    engine.finish(total, next_line, obs);
    Ok(())
}
