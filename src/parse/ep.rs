//! TI C64x+ EP trace, text form. (Placeholder; implemented by the dialects work.)

use super::record::*;
use super::Parser;

pub(super) fn looks_like_ep(line: &[u8]) -> bool {
    line.starts_with(b"####Version:")
}

pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let _ = line;
    Record {
        time: p.prev_time,
        has_time: false,
        unit: None,
        cpu: None,
        kind: RecordKind::Unparsed(Unparsed {
            reason: "EP traces not yet supported",
            column: 0,
        }),
    }
}
