//! The tables read from the trace's lines: what rows each line gives, with
//! the state a scan carries through an interval ([`At`]).

mod events;
pub(crate) mod instructions;
mod memory;
mod registers;

use tarmac_lens_core::{Line, Record, RecordKind};

use crate::builders::Rows;
use crate::depth::Depth;
use crate::places::Places;
use crate::schema::Table;
use crate::trace::Trace;

/// What a scan knows as it walks an interval's lines.
pub(crate) struct At<'t> {
    pub(crate) trace: &'t Trace,
    /// The latest node time so far: rows' times never go back.
    pub(crate) time: u64,
    /// The time of the line being read.
    pub(crate) now: u64,
    pub(crate) depth: Option<Depth>,
    pub(crate) places: &'t mut Places,
    /// The events of the index to give rows for, by line (`events`,
    /// `unparsed`): line and kind.
    pub(crate) events: &'t [(u64, tarmac_lens_core::EventKind)],
}

impl At<'_> {
    /// The line's time: its record's, held at the latest node time; a
    /// record that starts nodes moves that on.
    pub(crate) fn advance(&mut self, rec: &Record<'_>) {
        let t = rec.time.max(self.time);
        let moves = match &rec.kind {
            RecordKind::Instruction(_)
            | RecordKind::Memory(_)
            | RecordKind::RegisterList(_)
            | RecordKind::Exception(_) => true,
            RecordKind::Register(r) => r.reg.is_some(),
            _ => false,
        };
        if moves {
            self.time = t;
        }
        self.now = t;
    }
}

/// Adds the rows `line` gives in `table`.
pub(crate) fn add(
    table: Table,
    rows: &mut Rows,
    at: &mut At<'_>,
    line: &Line<'_>,
    rec: &Record<'_>,
) {
    at.advance(rec);
    match table {
        Table::Instructions => instructions::add(rows, at, line, rec),
        Table::Registers => registers::add(rows, at, line, rec),
        Table::Memory => memory::add(rows, at, line, rec),
        Table::Events => events::add_event(rows, at, line, rec),
        Table::Unparsed => events::add_unparsed(rows, at, line, rec),
        _ => {}
    }
}

/// `bytes` as hex, most significant first; `unknown` for a byte whose
/// `known` is 0. Bytes are in little-endian order (least significant first).
pub(crate) fn hex_le(bytes: &[u8], known: &[u8], unknown: &str) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for (i, b) in bytes.iter().enumerate().rev() {
        if known.get(i).is_some_and(|&k| k != 0) {
            push_hex(&mut s, *b);
        } else {
            s.push_str(unknown);
        }
    }
    s
}

/// `b` as two lowercase hex digits: `format!` per byte was 7% of a
/// Parquet export's CPU.
pub(crate) fn push_hex(s: &mut String, b: u8) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    s.push(char::from(DIGITS[usize::from(b >> 4)]));
    s.push(char::from(DIGITS[usize::from(b & 15)]));
}

/// The value of little-endian `bytes` if at most 8 and all known.
pub(crate) fn value_le(bytes: &[u8], known: &[u8]) -> Option<u64> {
    if bytes.len() > 8
        || bytes.is_empty()
        || known.len() < bytes.len()
        || known.iter().take(bytes.len()).any(|&k| k == 0)
    {
        return None;
    }
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_most_significant_first_with_unknown_bytes_marked() {
        assert_eq!(hex_le(&[0x0a, 0xff, 0x30], &[1, 1, 1], "--"), "30ff0a");
        assert_eq!(hex_le(&[0x0a, 0xff], &[1, 0], "--"), "--0a");
        let all: String = (0..=255u8).fold(String::new(), |mut s, b| {
            push_hex(&mut s, b);
            s
        });
        let want: String = (0..=255u8).map(|b| format!("{b:02x}")).collect();
        assert_eq!(all, want);
    }
}
