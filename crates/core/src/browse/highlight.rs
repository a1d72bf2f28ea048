//! Syntax-highlighting spans for a trace line, from its parsed record: the
//! record says what the line is, the lexer says where its tokens are.

use super::protocol::{Hl, Span};
use crate::parse::lex::{self, Lexer, TokKind};
use crate::parse::*;

fn offset_in(line: &[u8], part: &[u8]) -> Option<usize> {
    let start = part.as_ptr() as usize;
    let base = line.as_ptr() as usize;
    (start >= base && start <= base + line.len()).then(|| start - base)
}

/// Spans for `line` (byte offsets), given its record.
pub(crate) fn spans(line: &[u8], rec: &Record<'_>) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut push = |start: usize, end: usize, hl: Hl| {
        if start >= end {
            return;
        }
        if let Some(last) = out.last_mut() {
            if last.hl == hl && last.end as usize == start {
                last.end = end as u32;
                return;
            }
        }
        out.push(Span {
            start: start as u32,
            end: end as u32,
            hl,
        });
    };
    if let RecordKind::Unparsed(_) = rec.kind {
        push(0, line.len(), Hl::Error);
        return out;
    }
    // Where free text starts (disassembly, interpretation, event text).
    let (free_start, free_hl) = match &rec.kind {
        RecordKind::Instruction(i) => (
            offset_in(line, i.disassembly).unwrap_or(line.len()),
            if i.effect == Effect::Executed {
                Hl::Disassembly
            } else {
                Hl::NotExecuted
            },
        ),
        RecordKind::Register(r) if !r.interpretation.is_empty() => (
            offset_in(line, r.interpretation).unwrap_or(line.len()),
            Hl::Text,
        ),
        RecordKind::Text(t) => (offset_in(line, t.text).unwrap_or(line.len()), Hl::Text),
        RecordKind::Exception(e) => (offset_in(line, e.text).unwrap_or(line.len()), Hl::Text),
        RecordKind::Comment | RecordKind::Header(_) => (0, Hl::Text),
        _ => (line.len(), Hl::Text),
    };
    let mut lx = Lexer::new(line);
    let mut seen_event = false;
    let mut after_iset = false;
    let mut words_after_event = 0;
    loop {
        let t = lx.next();
        if t.is_eol() || t.start >= free_start {
            break;
        }
        let text = lx.text(t);
        let hl = match t.kind {
            TokKind::Punct(_) | TokKind::Other(_) => Hl::Punct,
            TokKind::Eol => break,
            TokKind::Word => {
                if seen_event {
                    words_after_event += 1;
                }
                if !seen_event {
                    let unit = matches!(
                        text,
                        b"clk" | b"ns" | b"ps" | b"cs" | b"cyc" | b"tic" | b"us"
                    );
                    if unit || (rec.has_time && text[0].is_ascii_digit()) {
                        Hl::Time
                    } else if rec.cpu == Some(text) {
                        Hl::Text
                    } else {
                        seen_event = true;
                        Hl::Event
                    }
                } else {
                    match &rec.kind {
                        RecordKind::Instruction(i) => {
                            let v = lex::parse_hex(text);
                            if after_iset {
                                after_iset = false;
                                Hl::Mode
                            } else if matches!(
                                text,
                                b"A" | b"T" | b"O" | b"X" | b"C" | b"T16" | b"T32"
                            ) {
                                after_iset = true;
                                Hl::ISet
                            } else if text == b"CCFAIL" {
                                Hl::NotExecuted
                            } else if v == Some(i.pc) {
                                Hl::Pc
                            } else if v == Some(i.encoding) || text.iter().all(|&b| b == b'-') {
                                Hl::Encoding
                            } else {
                                Hl::Text
                            }
                        }
                        RecordKind::Register(_) | RecordKind::RegisterList(_) => {
                            if words_after_event == 1 {
                                Hl::Register
                            } else {
                                Hl::Value
                            }
                        }
                        RecordKind::Memory(m) => {
                            let v = lex::parse_hex(text);
                            if v == Some(m.addr) || m.phys.is_some_and(|p| Some(p) == v) {
                                Hl::Address
                            } else {
                                Hl::Value
                            }
                        }
                        _ => Hl::Text,
                    }
                }
            }
        };
        push(t.start, t.end, hl);
    }
    push(free_start, line.len(), free_hl);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hl(line: &str) -> Vec<(String, Hl)> {
        let mut p = Parser::new(ParseOptions::default(), Dialect::Tarmac);
        let rec = p.parse_line(line.as_bytes());
        spans(line.as_bytes(), &rec)
            .into_iter()
            .map(|s| (line[s.start as usize..s.end as usize].to_string(), s.hl))
            .collect()
    }

    #[test]
    fn instruction_fields() {
        let v = hl("53 clk IT (53) 002109f0 f94003e1 O EL3h_s : LDR      x1,[sp,#0]");
        assert!(v.contains(&("002109f0".into(), Hl::Pc)));
        assert!(v.contains(&("f94003e1".into(), Hl::Encoding)));
        assert!(v.contains(&("O".into(), Hl::ISet)));
        assert!(v.contains(&("EL3h_s".into(), Hl::Mode)));
        assert!(v.contains(&("LDR      x1,[sp,#0]".into(), Hl::Disassembly)));
        assert_eq!(v[0], ("53".into(), Hl::Time));
        let v = hl("12 clk IS (12) 0000802c 1afb T svc_s : SUBNE    r3,r7,r3");
        assert!(v.contains(&("SUBNE    r3,r7,r3".into(), Hl::NotExecuted)));
    }

    #[test]
    fn registers_and_memory() {
        let v = hl("53 clk R X1 00000000000FFBB8");
        assert!(v.contains(&("X1".into(), Hl::Register)));
        assert!(v.contains(&("00000000000FFBB8".into(), Hl::Value)));
        let v = hl("53 clk MR8 000ffb80:0000000ffb80 00000000_000ffbb8");
        assert!(v.contains(&("000ffb80".into(), Hl::Address)));
        assert!(v.contains(&("00000000_000ffbb8".into(), Hl::Value)));
        let v = hl("garbage ( line");
        assert_eq!(v, vec![("garbage ( line".to_string(), Hl::Error)]);
    }
}
