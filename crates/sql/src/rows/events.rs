//! `events` and `unparsed`: rows for the lines the index lists as events,
//! found in the intervals that hold them.

use tarmac_lens_core::{EventKind, Line, Record, RecordKind};

use super::At;
use crate::builders::Rows;

/// The kind's name in the `events` table.
pub(crate) fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Exception => "exception",
        EventKind::Interrupt => "interrupt",
        EventKind::ModeChange => "mode_change",
        EventKind::Aborted => "aborted",
        EventKind::Unparsed => "unparsed",
    }
}

fn listed(at: &At<'_>, line: u64) -> Option<EventKind> {
    let i = at.events.binary_search_by_key(&line, |e| e.0).ok()?;
    Some(at.events[i].1)
}

pub(super) fn add_event(rows: &mut Rows, at: &mut At<'_>, line: &Line<'_>, rec: &Record<'_>) {
    let time = at.now;
    let Some(kind) = listed(at, line.number).filter(|&k| k != EventKind::Unparsed) else {
        return;
    };
    rows.u64(0, Some(line.number));
    rows.u64(1, Some(time));
    rows.bytes(2, rec.cpu);
    rows.text(3, Some(kind_name(kind)));
    rows.bytes(4, Some(line.text.trim_ascii()));
    rows.end_row();
}

pub(super) fn add_unparsed(rows: &mut Rows, _at: &mut At<'_>, line: &Line<'_>, rec: &Record<'_>) {
    let RecordKind::Unparsed(u) = &rec.kind else {
        return;
    };
    rows.u64(0, Some(line.number));
    rows.bytes(1, Some(line.text.trim_ascii_end()));
    rows.text(2, Some(u.reason));
    rows.u32(3, Some(u.column as u32));
    rows.end_row();
}
