//! TI C64x+ EP (execute packet) trace, text form as written by
//! `ep_trace_util -2txt`.
//!
//! A `#` banner naming the columns, `####Version:N`, then one record per line:
//! `cycle:pc:type:ep_cycles:addr:ep_size:stall`, e.g.
//! `531:0xe0001440:2:1:0xe0001440:4:0`. The field order follows the banner and
//! the sample records (the prose lists it differently). Records are
//! timestamped with the absolute CPU cycle, so they carry `has_time: true`
//! and the unit `cyc`.

use super::lex;
use super::record::*;
use super::Parser;

const FIELDS: usize = 7;

/// Whether `line` (already trimmed) is EP trace text: a `####` banner or
/// version line, or a well-formed record.
pub(super) fn looks_like_ep(line: &[u8]) -> bool {
    line.starts_with(b"####") || record(line).is_ok()
}

pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let text = lex::trim(line);
    let mut rec = Record {
        time: p.prev_time,
        has_time: false,
        unit: None,
        cpu: None,
        kind: RecordKind::Blank,
    };
    if text.is_empty() {
        return rec;
    }
    if let Some(v) = text.strip_prefix(b"####Version:") {
        rec.kind = match lex::parse_dec(lex::trim(v)).and_then(|v| u32::try_from(v).ok()) {
            Some(v) => RecordKind::Header(Header {
                kind: HeaderKind::EpVersion(v),
                text,
            }),
            None => RecordKind::Unparsed(Unparsed {
                reason: "EP version is not a decimal number",
                column: b"####Version:".len(),
            }),
        };
        return rec;
    }
    if text.starts_with(b"#") {
        rec.kind = RecordKind::Header(Header {
            kind: HeaderKind::EpBanner,
            text,
        });
        return rec;
    }
    let lead = line.len() - line.trim_ascii_start().len();
    match record(text) {
        Ok(r) => {
            p.prev_time = r.cycle;
            rec.time = r.cycle;
            rec.has_time = true;
            rec.unit = Some(TimeUnit::Cyc);
            rec.kind = RecordKind::EpTrace(r);
        }
        Err(mut u) => {
            u.column = u.column.saturating_add(lead);
            rec.kind = RecordKind::Unparsed(u);
        }
    }
    rec
}

fn record_type(n: u64) -> Option<EpRecordType> {
    Some(match n {
        0 => EpRecordType::Info,
        1 => EpRecordType::Discontinuity,
        2 => EpRecordType::Normal,
        3 => EpRecordType::SploopMemory,
        4 => EpRecordType::SploopBuffer,
        5 => EpRecordType::SploopMemoryDiscontinuity,
        _ => return None,
    })
}

/// Parses a trimmed record line; columns in the error are relative to it.
fn record(line: &[u8]) -> Result<EpRecord, Unparsed> {
    let mut fields: [(&[u8], usize); FIELDS] = [(b"", 0); FIELDS];
    let mut n = 0;
    let mut start = 0;
    for part in line.split(|&b| b == b':') {
        if n == FIELDS {
            return Err(Unparsed {
                reason: "EP record has more than 7 colon-separated fields",
                column: start,
            });
        }
        fields[n] = (part, start);
        n += 1;
        start += part.len() + 1;
    }
    if n < FIELDS {
        return Err(Unparsed {
            reason: "EP record has fewer than 7 colon-separated fields",
            column: line.len(),
        });
    }
    let dec = |i: usize, reason: &'static str| {
        let (f, col) = fields[i];
        lex::parse_dec(lex::trim(f)).ok_or(Unparsed {
            reason,
            column: col,
        })
    };
    let hex = |i: usize, reason: &'static str| {
        let (f, col) = fields[i];
        let f = lex::trim(f);
        // parse_hex skips `_`, which is not a separator in this format.
        lex::parse_hex_0x(f)
            .filter(|_| !f.contains(&b'_'))
            .ok_or(Unparsed {
                reason,
                column: col,
            })
    };
    let cycle = dec(0, "EP record: CPU cycle is not a decimal number")?;
    let pc = hex(1, "EP record: PC is not a hex address")?;
    let ty = dec(2, "EP record: record type is not a decimal number")?;
    let record_type = record_type(ty).ok_or(Unparsed {
        reason: "EP record: unknown record type (expected 0 to 5)",
        column: fields[2].1,
    })?;
    Ok(EpRecord {
        cycle,
        pc,
        record_type,
        ep_cycles: dec(3, "EP record: EP cycles is not a decimal number")?,
        addr: hex(4, "EP record: address is not a hex address")?,
        ep_size: dec(5, "EP record: EP size is not a decimal number")?,
        stall_cycles: dec(6, "EP record: stall cycles is not a decimal number")?,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{detect_dialect, Dialect, ParseOptions};
    use super::*;

    const EXAMPLE: &[u8] = b"###############################################################################################
#### Absolute CPU Cycle: PC\xc2\xa0 : Record Type\xc2\xa0 : EP cycles\xc2\xa0 : Address\xc2\xa0 : EP Size\xc2\xa0 : CPU Stall Cycle####
###############################################################################################
####Version:3
531:0xe0001440:0:0:0xe0001440:110:0
531:0xe0001440:2:1:0xe0001440:4:0
532:0xe0001444:2:1:0xe0001440:4:0
533:0xe0001448:2:2:0xe0001440:2:0
";

    fn parser() -> Parser {
        Parser::new(ParseOptions::default(), Dialect::TiEp)
    }

    #[test]
    fn example_parses() {
        assert_eq!(detect_dialect(EXAMPLE), Dialect::TiEp);
        let mut p = parser();
        let kinds: Vec<String> = EXAMPLE
            .split(|&b| b == b'\n')
            .map(|l| format!("{:?}", p.parse_line(l).kind))
            .collect();
        assert!(kinds[0].contains("EpBanner"));
        assert!(kinds[1].contains("EpBanner"));
        assert!(kinds[3].contains("EpVersion(3)"));

        let r = p.parse_line(b"531:0xe0001440:0:0:0xe0001440:110:0");
        let RecordKind::EpTrace(e) = r.kind else {
            panic!()
        };
        assert_eq!(e.record_type, EpRecordType::Info);
        assert_eq!(
            (e.cycle, e.pc, e.addr, e.ep_size),
            (531, 0xe0001440, 0xe0001440, 110)
        );

        let r = p.parse_line(b"533:0xe0001448:2:2:0xe0001440:2:0\r");
        assert_eq!(
            (r.time, r.has_time, r.unit),
            (533, true, Some(TimeUnit::Cyc))
        );
        let RecordKind::EpTrace(e) = r.kind else {
            panic!()
        };
        assert_eq!(e.record_type, EpRecordType::Normal);
        assert_eq!(
            (e.pc, e.ep_cycles, e.addr, e.ep_size, e.stall_cycles),
            (0xe0001448, 2, 0xe0001440, 2, 0)
        );
        assert_eq!(p.current_time(), 533);

        // Banners keep the previous record's time.
        let r = p.parse_line(b"#### note");
        assert_eq!((r.time, r.has_time), (533, false));
    }

    #[test]
    fn example_file_if_present() {
        let Ok(text) = std::fs::read("/work/shared/spec/examples/ep-trace.txt") else {
            return;
        };
        assert_eq!(detect_dialect(&text), Dialect::TiEp);
        let mut p = parser();
        for line in text.split(|&b| b == b'\n') {
            let kind = p.parse_line(line).kind;
            assert!(!matches!(kind, RecordKind::Unparsed(_)), "{kind:?}");
        }
    }

    #[test]
    fn all_record_types() {
        let mut p = parser();
        let want = [
            EpRecordType::Info,
            EpRecordType::Discontinuity,
            EpRecordType::Normal,
            EpRecordType::SploopMemory,
            EpRecordType::SploopBuffer,
            EpRecordType::SploopMemoryDiscontinuity,
        ];
        for (i, t) in want.iter().enumerate() {
            let line = format!("{}:0x10:{i}:3:0x20:4:1", 100 + i);
            let RecordKind::EpTrace(e) = p.parse_line(line.as_bytes()).kind else {
                panic!("{line}")
            };
            assert_eq!(e.record_type, *t);
        }
    }

    #[test]
    fn bad_records() {
        let mut p = parser();
        for line in [
            "531:0xe0001440:6:0:0xe0001440:110:0",
            "531:0xe0001440:2:1:0xe0001440:4",
            "531:0xe0001440:2:1:0xe0001440:4:0:9",
            "531:0xe0001440:2:1:0xe0001440:4:x",
            "x:0xe0001440:2:1:0xe0001440:4:0",
            "531:0xzz:2:1:0xe0001440:4:0",
            "531:0x:2:1:0xe0001440:4:0",
            "531:0xe000_1440:2:1:0xe0001440:4:0",
            "99999999999999999999:0x0:2:1:0x0:4:0",
            "531:0x1ffffffffffffffff:2:1:0x0:4:0",
            "531:0x0:99999999999999999999:1:0x0:4:0",
            "::::::",
            ":",
            "garbage",
            "####Version:",
            "####Version:99999999999",
            "\u{a0}",
        ] {
            match p.parse_line(line.as_bytes()).kind {
                RecordKind::Unparsed(u) => assert!(u.column <= line.len(), "{line}"),
                k => panic!("{line}: {k:?}"),
            }
        }
        let _ = p.parse_line(b"\xff\xfe:\xc2\xa0");
    }

    #[test]
    fn detection() {
        assert!(looks_like_ep(b"####Version:3"));
        assert!(looks_like_ep(b"531:0xe0001440:2:1:0xe0001440:4:0"));
        assert!(!looks_like_ep(b"# Copyright 2016-2021 Arm Limited."));
        assert!(!looks_like_ep(
            b"0 clk cpu0 IT (1) 00008000:00008000 e28f8090 A svc : ADD"
        ));
        assert!(!looks_like_ep(b"R r14=20000060, cpsr=200000d3"));
    }
}
