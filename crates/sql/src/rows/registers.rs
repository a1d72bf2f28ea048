//! `registers`: one row per register written.

use tarmac_lens_core::{Line, Record, RecordKind};

use super::{hex_le, value_le, At};
use crate::builders::Rows;

const LINE: usize = 0;
const TIME: usize = 1;
const CPU: usize = 2;
const REGISTER: usize = 3;
const VALUE: usize = 4;
const VALUE_HEX: usize = 5;
const WIDTH: usize = 6;

pub(super) fn add(rows: &mut Rows, at: &mut At<'_>, line: &Line<'_>, rec: &Record<'_>) {
    match &rec.kind {
        RecordKind::Register(r) => {
            let time = at.now;
            row(rows, line.number, time, rec.cpu, r.name, |rows| {
                rows.u64(VALUE, value_le(r.bytes, r.known));
                if rows.wants(VALUE_HEX) {
                    rows.text(VALUE_HEX, Some(&hex_le(r.bytes, r.known, "--")));
                }
                rows.u32(WIDTH, Some(r.bytes.len() as u32));
            });
        }
        RecordKind::RegisterList(list) => {
            let time = at.now;
            for e in list.entries {
                row(rows, line.number, time, rec.cpu, list.name(e), |rows| {
                    let bytes = u32::from(e.digits).div_ceil(2);
                    rows.u64(VALUE, (bytes <= 8).then_some(e.value));
                    if rows.wants(VALUE_HEX) {
                        let hex = format!("{:0w$x}", e.value, w = usize::from(e.digits));
                        rows.text(VALUE_HEX, Some(&hex));
                    }
                    rows.u32(WIDTH, Some(bytes));
                });
            }
        }
        _ => {}
    }
}

fn row(
    rows: &mut Rows,
    line: u64,
    time: u64,
    cpu: Option<&[u8]>,
    name: &[u8],
    value: impl FnOnce(&mut Rows),
) {
    rows.u64(LINE, Some(line));
    rows.u64(TIME, Some(time));
    rows.bytes(CPU, cpu);
    if rows.wants(REGISTER) {
        rows.bytes(REGISTER, Some(&name.to_ascii_lowercase()));
    }
    value(rows);
    rows.end_row();
}
