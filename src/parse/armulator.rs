//! ARMulator's older tracer format. (Placeholder; implemented by the
//! dialects work.)

use super::record::*;
use super::Parser;

pub(super) fn looks_like_armulator(line: &[u8]) -> bool {
    line.starts_with(b"Source: Armul")
}

pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    Record {
        time: p.prev_time,
        has_time: false,
        unit: None,
        cpu: None,
        kind: RecordKind::Unparsed(Unparsed {
            reason: "ARMulator traces not yet supported",
            column: 0,
        }),
    }
    .with_line(line)
}

trait WithLine {
    fn with_line(self, line: &[u8]) -> Self;
}
impl WithLine for Record<'_> {
    fn with_line(self, _line: &[u8]) -> Self {
        self
    }
}
