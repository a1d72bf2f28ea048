//! `instructions`: one row per instruction line.

use std::borrow::Cow;

use tarmac_lens_core::{Effect, ISet, Line, Record, RecordKind};

use super::At;
use crate::builders::Rows;

// Column numbers, as in `schema::INSTRUCTIONS`.
const LINE: usize = 0;
const TIME: usize = 1;
const CPU: usize = 2;
const PC: usize = 3;
const PHYSICAL: usize = 4;
const OPCODE: usize = 5;
const WIDTH: usize = 6;
const ISA: usize = 7;
const MODE: usize = 8;
const EL: usize = 9;
const SECURITY: usize = 10;
const COND_FAILED: usize = 11;
const MNEMONIC: usize = 12;
const OPERANDS: usize = 13;
const FUNCTION: usize = 14;
const SOURCE_FILE: usize = 15;
const SOURCE_LINE: usize = 16;
pub(crate) const DEPTH: usize = 17;

pub(super) fn add(rows: &mut Rows, at: &mut At<'_>, line: &Line<'_>, rec: &Record<'_>) {
    let RecordKind::Instruction(ins) = &rec.kind else {
        return;
    };
    let time = at.now;
    rows.u64(LINE, Some(line.number));
    rows.u64(TIME, Some(time));
    rows.bytes(CPU, rec.cpu);
    rows.u64(PC, Some(ins.pc));
    rows.u64(PHYSICAL, ins.phys);
    rows.u64(OPCODE, Some(ins.encoding));
    rows.u8(WIDTH, Some(ins.width));
    rows.text(
        ISA,
        Some(match ins.iset {
            ISet::A64 => "A64",
            ISet::Arm => "A32",
            ISet::Thumb => "T32",
            ISet::ThumbEE => "ThumbEE",
            ISet::C64 => "C64",
        }),
    );
    rows.bytes(MODE, ins.mode);
    if rows.wants(EL) || rows.wants(SECURITY) {
        let (el, security) = ins.mode.map_or((None, None), mode_facts);
        rows.u8(EL, el);
        rows.text(SECURITY, security);
    }
    rows.bool(COND_FAILED, ins.effect == Effect::CondFail);
    if rows.wants(MNEMONIC) {
        rows.bytes(MNEMONIC, Some(&mnemonic(ins.disassembly)));
    }
    if rows.wants(OPERANDS) {
        rows.bytes(OPERANDS, Some(split_disassembly(ins.disassembly).1));
    }
    if rows.wants(FUNCTION) || rows.wants(SOURCE_FILE) || rows.wants(SOURCE_LINE) {
        let source = rows.wants(SOURCE_FILE) || rows.wants(SOURCE_LINE);
        let place = at.places.get(at.trace, ins.pc, source);
        rows.text(FUNCTION, place.function.as_deref());
        rows.text(SOURCE_FILE, place.file.as_deref());
        rows.u32(SOURCE_LINE, place.line);
    }
    if rows.wants(DEPTH) {
        let d = at.depth.as_mut().map_or(0, |d| d.at(line.number));
        rows.u32(DEPTH, Some(d));
    }
    rows.end_row();
}

/// The `mnemonic` column of a disassembly: its first word, upper-case.
pub(crate) fn mnemonic(disassembly: &[u8]) -> Cow<'_, [u8]> {
    let m = split_disassembly(disassembly).0;
    if m.iter().any(u8::is_ascii_lowercase) {
        Cow::Owned(m.to_ascii_uppercase())
    } else {
        Cow::Borrowed(m)
    }
}

/// The mnemonic and the operands of a disassembly (`CCFAIL`, which ES
/// traces write before a failed instruction, is not the mnemonic).
pub(crate) fn split_disassembly(d: &[u8]) -> (&[u8], &[u8]) {
    let d = d.trim_ascii();
    let d = d.strip_prefix(b":").unwrap_or(d).trim_ascii_start();
    let d = match d.strip_prefix(b"CCFAIL") {
        Some(rest) if rest.first().is_none_or(u8::is_ascii_whitespace) => rest.trim_ascii_start(),
        _ => d,
    };
    let end = d
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(d.len());
    (&d[..end], d[end..].trim_ascii())
}

/// The exception level and security state a mode name says: AArch64
/// `EL2h_ns`, AArch32 `svc_s`, `usr`, `mon_s`.
pub(crate) fn mode_facts(mode: &[u8]) -> (Option<u8>, Option<&'static str>) {
    let lower = mode.to_ascii_lowercase();
    let (name, security) = if let Some(n) = lower.strip_suffix(b"_ns") {
        (n, Some("non-secure"))
    } else if let Some(n) = lower.strip_suffix(b"_s") {
        (n, Some("secure"))
    } else {
        (&lower[..], None)
    };
    let el = match name {
        [b'e', b'l', d, ..] if d.is_ascii_digit() && *d <= b'3' => Some(d - b'0'),
        b"usr" | b"user" => Some(0),
        b"hyp" => Some(2),
        b"mon" => Some(3),
        b"svc" | b"irq" | b"fiq" | b"abt" | b"und" | b"sys" => Some(1),
        _ => None,
    };
    (el, security)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_say_their_level_and_security() {
        assert_eq!(mode_facts(b"EL3h_s"), (Some(3), Some("secure")));
        assert_eq!(mode_facts(b"EL0t_ns"), (Some(0), Some("non-secure")));
        assert_eq!(mode_facts(b"svc_s"), (Some(1), Some("secure")));
        assert_eq!(mode_facts(b"usr"), (Some(0), None));
        assert_eq!(mode_facts(b"mon_s"), (Some(3), Some("secure")));
        assert_eq!(mode_facts(b"weird"), (None, None));
    }

    #[test]
    fn the_mnemonic_is_the_first_word_after_ccfail() {
        assert_eq!(
            split_disassembly(b"  BL       0x1000 ; foo "),
            (&b"BL"[..], &b"0x1000 ; foo"[..])
        );
        assert_eq!(
            split_disassembly(b"CCFAIL STRLO    r0,[r1],#4"),
            (&b"STRLO"[..], &b"r0,[r1],#4"[..])
        );
        assert_eq!(split_disassembly(b""), (&b""[..], &b""[..]));
    }
}
