//! ARMulator's older tracer format (RealView ARMulator ISS `Tracer`).
//!
//! Lines carry no timestamps. Records keep the parser's `prev_time` (0 unless
//! the caller reset it) and `has_time: false` rather than inventing a running
//! counter: ARMulator interleaves bus, memory, instruction and register lines
//! with no documented clock, and any counter we chose (lines, instructions,
//! cycles) would read as a real time in views that show one.
//!
//! Line kinds: `Date:`/`Source:`/`Options:` headers; `M...`/`B...` memory and
//! bus cycles (`MNR4O___ 00008000 E28F8090`, `MI`, `MC`, `MIO`); `IT`/`IS`
//! instructions; `E <word1> <word2> <event>`; `R <reg>=<value>, ...`.

use super::extra::field;
use super::lex::{self, Lexer};
use super::record::*;
use super::regs::RegId;
use super::Parser;

const HEADERS: [&[u8]; 3] = [b"Date:", b"Source:", b"Options:"];

/// Whether `line` (already trimmed) can only be an ARMulator trace line.
/// Fast Models, ES and gem5 lines all start with a timestamp or use other
/// shapes for the same letters (`R X0 0000...`, `BR (...)`, `IT (id) ...`),
/// so each test here is exact.
pub(super) fn looks_like_armulator(line: &[u8]) -> bool {
    if line.starts_with(b"Date:") || line.starts_with(b"Options:") {
        return true;
    }
    if line.starts_with(b"Source:") {
        return lex::trim(&line[b"Source:".len()..]).starts_with(b"Armul");
    }
    let mut lx = Lexer::new(line);
    let Some(t) = field(&mut lx) else {
        return false;
    };
    let word = lx.text(t);
    match word {
        b"IT" | b"IS" => {
            let addr = field(&mut lx).map(|t| lx.text(t));
            let op = field(&mut lx).map(|t| lx.text(t));
            let next = field(&mut lx).map(|t| lx.text(t));
            let (Some(addr), Some(op)) = (addr, op) else {
                return false;
            };
            // A Tarmac instruction line without a timestamp would go on with
            // an instruction-set letter or a `:`; ARMulator's with a mnemonic.
            let state_like = matches!(next, Some(b"A" | b"T" | b"X" | b"O" | b":"));
            addr.len() == 8
                && lex::all_hex(addr)
                && matches!(op.len(), 4 | 8)
                && lex::all_hex(op)
                && !state_like
        }
        b"E" => {
            let mut n = 0;
            let mut ok = true;
            while let Some(t) = field(&mut lx) {
                n += 1;
                let f = lx.text(t);
                ok &= if n <= 2 {
                    f.len() == 8 && lex::all_hex(f)
                } else {
                    lex::parse_hex_0x(f).is_some()
                };
            }
            ok && n == 3
        }
        b"R" => register_list_ok(line, lx.pos),
        _ => match cycle_type(word) {
            Some(c) if c.idle || c.coprocessor => field(&mut lx).is_none(),
            Some(_) => {
                let addr = field(&mut lx).map(|t| lx.text(t));
                matches!(addr, Some(a) if a.len() == 8 && lex::all_hex(a))
            }
            None => false,
        },
    }
}

fn register_list_ok(line: &[u8], from: usize) -> bool {
    parse_register_list(line, from, |_| {}).is_ok()
}

/// Decoded `M`/`B` cycle type word.
#[derive(Default)]
pub(super) struct CycleType {
    pub(super) read: Option<bool>,
    pub(super) size: Option<u8>,
    pub(super) sequential: Option<bool>,
    pub(super) opcode_fetch: bool,
    pub(super) locked: bool,
    pub(super) speculative: bool,
    pub(super) idle: bool,
    pub(super) coprocessor: bool,
}

/// `M<type><rw><size>[O][L][S]` padded with `_` (`MNR4O___`), or `MI`, `MC`,
/// `MIO`; the same with `B` for off-chip cycles.
pub(super) fn cycle_type(word: &[u8]) -> Option<CycleType> {
    let (&first, rest) = word.split_first()?;
    if first != b'M' && first != b'B' {
        return None;
    }
    match rest {
        b"I" => {
            return Some(CycleType {
                idle: true,
                ..CycleType::default()
            })
        }
        b"IO" => {
            return Some(CycleType {
                idle: true,
                opcode_fetch: true,
                ..CycleType::default()
            })
        }
        b"C" => {
            return Some(CycleType {
                coprocessor: true,
                ..CycleType::default()
            })
        }
        _ => {}
    }
    let [seq, rw, size, flags @ ..] = rest else {
        return None;
    };
    let mut c = CycleType {
        sequential: Some(match seq {
            b'S' => true,
            b'N' => false,
            _ => return None,
        }),
        read: Some(match rw {
            b'R' => true,
            b'W' => false,
            _ => return None,
        }),
        size: Some(match size {
            b'1' => 1,
            b'2' => 2,
            b'4' => 4,
            b'8' => 8,
            _ => return None,
        }),
        ..CycleType::default()
    };
    for &f in flags {
        match f {
            b'O' => c.opcode_fetch = true,
            b'L' => c.locked = true,
            b'S' => c.speculative = true,
            b'_' => {}
            _ => return None,
        }
    }
    Some(c)
}

pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let kind = parse_kind(&mut p.scratch.reglist, line);
    Record {
        time: p.prev_time,
        has_time: false,
        unit: None,
        cpu: None,
        kind,
    }
}

fn parse_kind<'a>(reglist: &'a mut Vec<RegListEntry>, line: &'a [u8]) -> RecordKind<'a> {
    let text = lex::trim(line);
    if text.is_empty() {
        return RecordKind::Blank;
    }
    if HEADERS.iter().any(|h| text.starts_with(h)) {
        return RecordKind::Header(Header {
            kind: HeaderKind::Armulator,
            text,
        });
    }
    let mut lx = Lexer::new(line);
    let Some(t) = field(&mut lx) else {
        return RecordKind::Blank;
    };
    let word = lx.text(t);
    let result = match word {
        b"IT" | b"IS" => instruction(&mut lx, word == b"IT"),
        b"E" => event(&mut lx),
        b"R" => {
            reglist.clear();
            parse_register_list(line, lx.pos, |e| reglist.push(e)).map(|()| {
                RecordKind::RegisterList(RegisterList {
                    line,
                    entries: reglist,
                })
            })
        }
        _ => match cycle_type(word) {
            Some(c) => cycle(&mut lx, word, c),
            None => Err(Unparsed {
                reason: "unrecognised ARMulator line type",
                column: t.start,
            }),
        },
    };
    result.unwrap_or_else(RecordKind::Unparsed)
}

fn hex_field(
    lx: &mut Lexer<'_>,
    missing: &'static str,
    bad: &'static str,
) -> Result<(u64, usize), Unparsed> {
    let Some(t) = field(lx) else {
        return Err(Unparsed {
            reason: missing,
            column: lx.pos,
        });
    };
    let v = lex::parse_hex_0x(lx.text(t)).ok_or(Unparsed {
        reason: bad,
        column: t.start,
    })?;
    Ok((v, t.len()))
}

/// `<addr> <opcode> [<disassembly>]` after `IT`/`IS`.
fn instruction<'a>(lx: &mut Lexer<'a>, taken: bool) -> Result<RecordKind<'a>, Unparsed> {
    let (pc, _) = hex_field(
        lx,
        "instruction without an address",
        "instruction address is not hexadecimal",
    )?;
    let t = field(lx).ok_or(Unparsed {
        reason: "instruction without an opcode",
        column: lx.pos,
    })?;
    let op = lx.text(t);
    // No state field: the opcode width tells ARM from Thumb.
    let (iset, width) = match op.len() {
        8 => (ISet::Arm, 32),
        4 => (ISet::Thumb, 16),
        _ => {
            return Err(Unparsed {
                reason: "instruction opcode must have 4 or 8 hex digits",
                column: t.start,
            })
        }
    };
    let encoding = lex::parse_hex(op)
        .filter(|_| lex::all_hex(op))
        .ok_or(Unparsed {
            reason: "instruction opcode is not hexadecimal",
            column: t.start,
        })?;
    let rest = lx.rest();
    Ok(RecordKind::Instruction(Instruction {
        form: if taken {
            InstrForm::Taken
        } else {
            InstrForm::Skipped
        },
        effect: if taken {
            Effect::Executed
        } else {
            Effect::CondFail
        },
        pc,
        phys: None,
        iset,
        width,
        encoding,
        mode: None,
        inst_id: None,
        capability: None,
        disassembly: rest,
    }))
}

/// `<word1> <word2> <event_number>` after `E`.
fn event<'a>(lx: &mut Lexer<'a>) -> Result<RecordKind<'a>, Unparsed> {
    let text = lex::trim(lx.rest());
    let (value, _) = hex_field(
        lx,
        "event without a first word",
        "event word is not hexadecimal",
    )?;
    let (value2, _) = hex_field(
        lx,
        "event without a second word",
        "event word is not hexadecimal",
    )?;
    let (number, _) = hex_field(
        lx,
        "event without an event number",
        "event number is not hexadecimal",
    )?;
    Ok(RecordKind::Exception(Exception {
        form: ExceptionForm::Armulator,
        value: Some(value),
        value2: Some(value2),
        number: Some(number),
        name: lex::trim(lx.rest()),
        mode: None,
        text,
    }))
}

/// `<reg>=<value>[, <reg>=<value>...]` starting at byte `from` of `line`.
fn parse_register_list(
    line: &[u8],
    from: usize,
    mut out: impl FnMut(RegListEntry),
) -> Result<(), Unparsed> {
    let mut pos = from.min(line.len());
    loop {
        // One `name=value` item, up to the next comma.
        let end = line[pos..]
            .iter()
            .position(|&b| b == b',')
            .map_or(line.len(), |i| pos + i);
        let item = &line[pos..end];
        let lead = item.iter().take_while(|&&b| lex::is_space(b)).count();
        let item_start = pos + lead;
        let item = lex::trim(item);
        let Some(eq) = item.iter().position(|&b| b == b'=') else {
            return Err(Unparsed {
                reason: "register list entry is not <reg>=<value>",
                column: item_start,
            });
        };
        let name = &item[..eq];
        let value = &item[eq + 1..];
        if name.is_empty() || !name.iter().all(|&b| lex::is_word(b)) {
            return Err(Unparsed {
                reason: "bad register name in register list",
                column: item_start,
            });
        }
        let digits = value.iter().filter(|&&b| b != b'_').count();
        let parsed = lex::parse_hex(value).filter(|_| digits <= 16);
        let (Some(v), Ok(digits)) = (parsed, u8::try_from(digits)) else {
            return Err(Unparsed {
                reason: "register value is not a hex number of at most 64 bits",
                column: item_start + eq + 1,
            });
        };
        // Line offsets beyond u32 cannot be represented in an entry.
        let (Ok(name_start), Ok(name_end)) =
            (u32::try_from(item_start), u32::try_from(item_start + eq))
        else {
            return Err(Unparsed {
                reason: "register list line too long",
                column: item_start,
            });
        };
        out(RegListEntry {
            name_start,
            name_end,
            reg: RegId::lookup(name),
            value: v,
            digits,
        });
        if end >= line.len() {
            return Ok(());
        }
        pos = end + 1;
    }
}

/// The address and data of an `M`/`B` cycle, or nothing for idle and
/// coprocessor cycles.
fn cycle<'a>(
    lx: &mut Lexer<'a>,
    type_word: &'a [u8],
    c: CycleType,
) -> Result<RecordKind<'a>, Unparsed> {
    let mut bus = BusCycle {
        type_word,
        read: c.read,
        size: c.size,
        sequential: c.sequential,
        opcode_fetch: c.opcode_fetch,
        locked: c.locked,
        exclusive: false,
        privileged: false,
        secure: None,
        speculative: c.speculative,
        idle: c.idle,
        coprocessor: c.coprocessor,
        inner_attrs: None,
        outer_attrs: None,
        master_id: None,
        addr: None,
        data: b"",
        wait: false,
        abort: false,
        instruction_side: None,
    };
    if c.idle || c.coprocessor {
        // The format gives these no operands; keep anything a variant adds.
        bus.data = lex::trim(lx.rest());
        return Ok(RecordKind::Bus(bus));
    }
    let (addr, _) = hex_field(
        lx,
        "memory cycle without an address",
        "memory cycle address is not hexadecimal",
    )?;
    bus.addr = Some(addr);
    let data = lex::trim(lx.rest());
    let mut words = Lexer::new(data);
    let mut n = 0;
    while let Some(t) = field(&mut words) {
        n += 1;
        match words.text(t) {
            b"(wait)" => bus.wait = true,
            b"(abort)" => bus.abort = true,
            w if lex::all_hex(w) => {}
            _ => {
                let column = lx.line.len() - data.len() + t.start;
                return Err(Unparsed {
                    reason: "memory cycle data must be hex words, (wait) or (abort)",
                    column,
                });
            }
        }
    }
    if n == 0 {
        return Err(Unparsed {
            reason: "memory cycle without data",
            column: lx.line.len(),
        });
    }
    bus.data = if bus.wait || bus.abort { b"" } else { data };
    Ok(RecordKind::Bus(bus))
}

#[cfg(test)]
mod tests {
    use super::super::{detect_dialect, Dialect, ParseOptions};
    use super::*;

    const EXAMPLE: &str = "Date: Thu Aug  9 16:41:36 2001
Source: Armul
Options: Trace Instructions  (Disassemble)  Trace Memory Cycles  
BNR4O___ A0000000 00000C1E
BNR8O___ 00008000 E28F8090 E898000F
BSR8O___ 00008008 E0800008 E0811008
MNR4O___ 00008000 E28F8090
IT 00008000 e28f8090 ADD      r8,pc,#0x90 ; #0x8098
MNR4O___ 00008004 E898000F
IT 00008004 e898000f LDMIA    r8,{r0-r3}
MNR8____ 00008098 00007804 00007828
MNR4O___ 0000800C E0811008
";

    fn parser() -> Parser {
        Parser::new(ParseOptions::default(), Dialect::Armulator)
    }

    fn reason(p: &mut Parser, line: &str) -> &'static str {
        match p.parse_line(line.as_bytes()).kind {
            RecordKind::Unparsed(u) => {
                assert!(u.column <= line.len());
                u.reason
            }
            k => panic!("{line:?} parsed as {k:?}"),
        }
    }

    #[test]
    fn spec_example_parses_completely() {
        let mut p = parser();
        for line in EXAMPLE.lines() {
            let r = p.parse_line(line.as_bytes());
            assert!(!r.has_time);
            assert!(
                !matches!(r.kind, RecordKind::Unparsed(_) | RecordKind::Blank),
                "{line:?}: {:?}",
                r.kind
            );
        }
        assert_eq!(detect_dialect(EXAMPLE.as_bytes()), Dialect::Armulator);
    }

    #[test]
    fn example_file_if_present() {
        let Ok(text) = std::fs::read("/work/shared/spec/examples/armulator.trc") else {
            return;
        };
        assert_eq!(detect_dialect(&text), Dialect::Armulator);
        let mut p = parser();
        for line in text.split(|&b| b == b'\n') {
            if lex::trim(line).is_empty() {
                continue;
            }
            let kind = p.parse_line(line).kind;
            assert!(!matches!(kind, RecordKind::Unparsed(_)), "{kind:?}");
        }
    }

    #[test]
    fn headers() {
        let mut p = parser();
        let r = p.parse_line(b"Options: Trace Instructions  (Disassemble)  \r");
        let RecordKind::Header(h) = r.kind else {
            panic!()
        };
        assert_eq!(h.kind, HeaderKind::Armulator);
        assert_eq!(h.text, b"Options: Trace Instructions  (Disassemble)");
        assert!(matches!(p.parse_line(b"   ").kind, RecordKind::Blank));
    }

    #[test]
    fn memory_and_bus_cycles() {
        let mut p = parser();
        let RecordKind::Bus(b) = p.parse_line(b"MNR4O___ 00008000 E28F8090").kind else {
            panic!()
        };
        assert_eq!(b.type_word, b"MNR4O___");
        assert_eq!(
            (b.sequential, b.read, b.size),
            (Some(false), Some(true), Some(4))
        );
        assert!(b.opcode_fetch && !b.locked && !b.speculative && !b.idle);
        assert_eq!((b.addr, b.data), (Some(0x8000), &b"E28F8090"[..]));

        let RecordKind::Bus(b) = p.parse_line(b"BSR8O___ 00008008 E0800008 E0811008").kind else {
            panic!()
        };
        assert_eq!((b.sequential, b.size), (Some(true), Some(8)));
        assert_eq!(b.data, b"E0800008 E0811008");

        let RecordKind::Bus(b) = p.parse_line(b"MSW1_L_S 00001000 (wait)").kind else {
            panic!()
        };
        assert_eq!(b.read, Some(false));
        assert!(b.locked && b.speculative && b.wait && !b.abort && !b.opcode_fetch);
        assert_eq!(b.data, b"");

        let RecordKind::Bus(b) = p.parse_line(b"MNR2____ 00001002 (abort)").kind else {
            panic!()
        };
        assert!(b.abort && !b.wait);

        for (line, idle, cp, fetch) in [
            ("MI", true, false, false),
            ("MC", false, true, false),
            ("MIO", true, false, true),
            ("BI", true, false, false),
        ] {
            let RecordKind::Bus(b) = p.parse_line(line.as_bytes()).kind else {
                panic!("{line}")
            };
            assert_eq!((b.idle, b.coprocessor, b.opcode_fetch), (idle, cp, fetch));
            assert_eq!((b.read, b.addr), (None, None));
        }
    }

    #[test]
    fn instructions() {
        let mut p = parser();
        let line = b"IT 00008000 e28f8090 ADD      r8,pc,#0x90 ; #0x8098";
        let RecordKind::Instruction(i) = p.parse_line(line).kind else {
            panic!()
        };
        assert_eq!((i.form, i.effect), (InstrForm::Taken, Effect::Executed));
        assert_eq!(
            (i.pc, i.iset, i.width, i.encoding),
            (0x8000, ISet::Arm, 32, 0xe28f8090)
        );
        assert_eq!(i.mode, None);
        assert_eq!(i.disassembly, b"ADD      r8,pc,#0x90 ; #0x8098");

        let RecordKind::Instruction(i) = p.parse_line(b"IS 0000800C 1afb subne r3,r7,r3").kind
        else {
            panic!()
        };
        assert_eq!((i.form, i.effect), (InstrForm::Skipped, Effect::CondFail));
        assert_eq!((i.iset, i.width, i.encoding), (ISet::Thumb, 16, 0x1afb));

        // Thumb BL pairs: both halves are instructions, the first annotated.
        let RecordKind::Instruction(i) =
            p.parse_line(b"IT 00008010 f000 1st instr of BL pair").kind
        else {
            panic!()
        };
        assert_eq!(i.disassembly, b"1st instr of BL pair");
        let RecordKind::Instruction(i) = p.parse_line(b"IT 00008012 f802 BL 0x8018").kind else {
            panic!()
        };
        assert_eq!(i.encoding, 0xf802);

        let RecordKind::Instruction(i) = p.parse_line(b"IT 00008014 e1a00000").kind else {
            panic!()
        };
        assert_eq!(i.disassembly, b"");
    }

    #[test]
    fn events_and_registers() {
        let mut p = parser();
        let RecordKind::Exception(e) = p.parse_line(b"E 00000048 00000000 10005").kind else {
            panic!()
        };
        assert_eq!(e.form, ExceptionForm::Armulator);
        assert_eq!(
            (e.value, e.value2, e.number),
            (Some(0x48), Some(0), Some(0x10005))
        );
        assert_eq!(e.text, b"00000048 00000000 10005");

        let line = b"R r14=20000060, cpsr=200000d3";
        let RecordKind::RegisterList(l) = p.parse_line(line).kind else {
            panic!()
        };
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.name(&l.entries[0]), b"r14");
        assert_eq!(l.entries[0].reg, RegId::lookup(b"r14"));
        assert_eq!((l.entries[0].value, l.entries[0].digits), (0x20000060, 8));
        assert_eq!(l.name(&l.entries[1]), b"cpsr");
        assert_eq!(
            l.entries[1].reg.map(|r| r.to_string()).as_deref(),
            Some("psr")
        );
        assert_eq!(l.entries[1].value, 0x200000d3);

        let RecordKind::RegisterList(l) = p.parse_line(b"R r0=1").kind else {
            panic!()
        };
        assert_eq!((l.entries.len(), l.entries[0].digits), (1, 1));

        let RecordKind::RegisterList(l) = p.parse_line(b"R spsr_svc=d3").kind else {
            panic!()
        };
        assert_eq!(l.entries[0].reg, None);
    }

    #[test]
    fn bad_lines_are_unparsed() {
        let mut p = parser();
        for line in [
            "IT",
            "IT 00008000",
            "IT 00008000 e28f80",
            "IT zz008000 e28f8090 ADD",
            "IT 00008000 e28f809g ADD",
            "IT 1ffffffffffffffff e28f8090",
            "E 00000048 00000000",
            "E 00000048 zz 1",
            "R",
            "R r0",
            "R r0=",
            "R r0=1,",
            "R =5",
            "R r0=12345678123456781",
            "R r0 r1=5",
            "MNR4O___",
            "MNR4O___ 00008000",
            "MNR4O___ 00008000 zz",
            "MNR3O___ 00008000 00",
            "MXR4O___ 00008000 00",
            "MNR4OD__ 00008000 00",
            "Q what",
            "\u{a0}\u{a0}",
            "12 clk IT (1) 00008000 e28f8090 A svc : ADD r8,pc,#0x90",
        ] {
            reason(&mut p, line);
        }
        let _ = p.parse_line(b"\xff\xfe R\xc2\xa0");
        let _ = p.parse_line(b"R \xff=1, \xc2\xa0=2");
    }

    #[test]
    fn detection_rejects_tarmac_lines() {
        for line in [
            &b"R R0 00100000"[..],
            b"R X0 0000000000100000",
            b"R CONTROL 00000000 (nPRIV=0 SPSEL=0)",
            b"BR (00000000) A",
            b"LD 00010020 ........ 00400000 ........ ........    S:0000010020    nGnRnE OSH",
            b"Tarmac Text Rev 3t",
            b"IT (1) 00008000 e28f8090 A svc_s : ADD",
            b"IT 00008000 e28f8090 A svc_s : ADD",
            b"IT 00008000 e28f8090 : ADD",
            b"E 10001848 00000001 CoreEvent_RESET",
            b"MNW4___D 2002fa00 efbeefbe",
            b"MNR4O__I 00022ae4 f7ffffcb",
            b"MR4 00001000 00000000",
            b"Source: gem5",
            b"0 clk cpu0 E 10001848 00000001 CoreEvent_RESET",
            b"# comment",
        ] {
            assert!(
                !looks_like_armulator(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        for line in [
            &b"Date: Thu Aug  9 16:41:36 2001"[..],
            b"Source: Armul",
            b"Options: Trace Instructions",
            b"MNR4O___ 00008000 E28F8090",
            b"BSR8O___ 00008008 E0800008 E0811008",
            b"MI",
            b"MIO",
            b"IT 00008000 e28f8090 ADD      r8,pc,#0x90",
            b"IS 00008000 1afb",
            b"E 00000048 00000000 10005",
            b"R r14=20000060, cpsr=200000d3",
        ] {
            assert!(
                looks_like_armulator(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
