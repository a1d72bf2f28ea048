//! `memory`: one row per memory access line.

use tarmac_lens_core::{Line, MemDirection, Record, RecordKind};

use super::At;
use crate::builders::Rows;

const LINE: usize = 0;
const TIME: usize = 1;
const CPU: usize = 2;
const ADDRESS: usize = 3;
const PHYSICAL: usize = 4;
const SIZE: usize = 5;
const ACCESS: usize = 6;
const VALUE: usize = 7;
const VALUE_HEX: usize = 8;

pub(super) fn add(rows: &mut Rows, at: &mut At<'_>, line: &Line<'_>, rec: &Record<'_>) {
    let RecordKind::Memory(m) = &rec.kind else {
        return;
    };
    // The bytes accessed: a diagram's first to last accessed byte.
    let first = m.accessed.iter().position(|&a| a != 0);
    let last = m.accessed.iter().rposition(|&a| a != 0);
    let (Some(first), Some(last)) = (first, last) else {
        return;
    };
    let bytes = &m.bytes[first..=last.min(m.bytes.len().saturating_sub(1))];
    let known = &m.known[first..=last.min(m.known.len().saturating_sub(1))];
    let time = at.now;
    rows.u64(LINE, Some(line.number));
    rows.u64(TIME, Some(time));
    rows.bytes(CPU, rec.cpu);
    rows.u64(ADDRESS, Some(m.addr.wrapping_add(first as u64)));
    rows.u64(PHYSICAL, m.phys.map(|p| p.wrapping_add(first as u64)));
    rows.u32(SIZE, Some(bytes.len() as u32));
    rows.text(
        ACCESS,
        Some(match m.direction {
            MemDirection::Read => "read",
            MemDirection::Write => "write",
            MemDirection::Update => "update",
        }),
    );
    // Bytes are in address order; the value reads them in the CPU's order.
    let all_known = known.len() == bytes.len() && known.iter().all(|&k| k != 0);
    let ordered: Vec<(u8, bool)> = if at.trace.big_endian {
        bytes
            .iter()
            .zip(known)
            .map(|(&b, &k)| (b, k != 0))
            .collect()
    } else {
        bytes
            .iter()
            .zip(known)
            .rev()
            .map(|(&b, &k)| (b, k != 0))
            .collect()
    };
    rows.u64(
        VALUE,
        (all_known && bytes.len() <= 8).then(|| {
            ordered
                .iter()
                .fold(0u64, |v, &(b, _)| (v << 8) | u64::from(b))
        }),
    );
    if rows.wants(VALUE_HEX) {
        let mut s = String::with_capacity(ordered.len() * 2);
        for (b, k) in ordered {
            if k {
                super::push_hex(&mut s, b);
            } else {
                s.push_str("##");
            }
        }
        rows.text(VALUE_HEX, Some(&s));
    }
    rows.end_row();
}
