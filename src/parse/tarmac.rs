//! The general Tarmac grammar (placeholder while being written).
use super::record::*;
use super::Parser;

pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let _ = line;
    Record { time: p.prev_time, has_time: false, unit: None, cpu: None, kind: RecordKind::Blank }
}
