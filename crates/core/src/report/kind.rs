//! Which reports suit a trace: a TI C64x+ EP trace has cycles but no
//! calls; a branch-only trace (`FD`/`FI`/`FR` without `IT`/`IS`) has a
//! program flow but no instructions to find calls in; any other trace has
//! the call reports. Decided from the trace's first bytes, so the page
//! starts the right pass without reading the trace twice.

use serde::{Deserialize, Serialize};

use crate::parse::{Dialect, ParseOptions, Parser, RecordKind};

/// Which reports suit a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReportKind {
    /// Call tree, profile, flame graph and VCD: from instructions and
    /// registers.
    Calls,
    /// The EP cycle profile of a TI EP trace.
    Ep,
    /// The program-flow listing of a trace with branch records but no
    /// instructions.
    Flow,
}

/// The reports for the trace that starts with `sample`.
pub fn report_kind(sample: &[u8], parse: ParseOptions) -> ReportKind {
    let mut parser = Parser::for_sample(parse, sample);
    if parser.dialect() == Dialect::TiEp {
        return ReportKind::Ep;
    }
    let (mut branches, mut instructions) = (0u64, 0u64);
    // The sample's last line may be cut short: leave it out.
    let whole = match sample.iter().rposition(|&b| b == b'\n') {
        Some(end) if end + 1 < sample.len() => &sample[..end + 1],
        _ => sample,
    };
    for line in whole.split(|&b| b == b'\n') {
        match parser.parse_line(line).kind {
            RecordKind::Branch(b) if b.from.is_some() => branches += 1,
            RecordKind::Instruction(_) => instructions += 1,
            _ => {}
        }
    }
    if branches > 0 && instructions == 0 {
        ReportKind::Flow
    } else {
        ReportKind::Calls
    }
}
