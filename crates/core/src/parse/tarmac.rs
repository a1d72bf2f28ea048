//! The general Tarmac grammar: Fast Models (with or without the cpu field),
//! ES/LD/ST style, gem5 and the RTL-simulator variants, all in one, as the
//! reference tools parse them.
//!
//! Line structure: `[timestamp [unit]] [cpuN] type fields...`. The decisions
//! that must match the reference tools exactly (which token is the address,
//! when a CPU mode is expected, how register bytes are counted) follow their
//! parser; everything it merely tolerated or ignored we keep as structure.

use super::extra;
use super::lex::{self, Lexer, Tok, TokKind};
use super::record::*;
use super::regs::{RegClass, RegId};
use super::{Continuation, Dialect, InstructionForm, ParseOptions, Parser};

mod fast;
mod memo;
mod memory;
mod register;

pub(crate) use memory::fetch_word;
use memory::{diagram, memory};
use register::register;

pub(super) use memo::Memo;

/// Parse failure: a static reason and the byte column where it happened.
type Fail = Unparsed;

fn fail(reason: &'static str, column: usize) -> Fail {
    Unparsed { reason, column }
}

const UNITS: [(&[u8], TimeUnit); 7] = [
    (b"clk", TimeUnit::Clk),
    (b"ns", TimeUnit::Ns),
    (b"ps", TimeUnit::Ps),
    (b"cs", TimeUnit::Cs),
    (b"cyc", TimeUnit::Cyc),
    (b"tic", TimeUnit::Tic),
    (b"us", TimeUnit::Us),
];

pub(super) fn unit_of(word: &[u8]) -> Option<TimeUnit> {
    UNITS.iter().find(|(w, _)| *w == word).map(|&(_, u)| u)
}

/// `12.5` with unit `us` (or `ns`) -> picoseconds, the finest unit in use.
/// Returns `None` if the number is not `digits[.digits]` or overflows.
fn fractional_to_ps(number: &[u8], unit: TimeUnit) -> Option<u64> {
    let (int, frac) = match number.iter().position(|&b| b == b'.') {
        Some(i) => (&number[..i], &number[i + 1..]),
        None => (number, &b""[..]),
    };
    let scale_digits = match unit {
        TimeUnit::Us => 6,
        TimeUnit::Ns => 3,
        _ => return None,
    };
    if !lex::all_dec(int) || (!frac.is_empty() && !lex::all_dec(frac)) || frac.len() > scale_digits
    {
        return None;
    }
    let mut v = lex::parse_dec(int)?;
    for i in 0..scale_digits {
        let d = frac.get(i).map_or(0, |&b| b - b'0');
        v = lex::mul10_add(v, d)?;
    }
    Some(v)
}

#[inline(always)]
pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    match fast::parse(p, line) {
        Ok(rec) => rec,
        Err(p) => parse_general(p, line),
    }
}

/// The form of the instruction lines in `sample`'s first lines that have a
/// bracketed value, as most of them show it by their fields' count and
/// widths; `None` when no line has one.
pub(super) fn detect_form(opts: ParseOptions, sample: &[u8]) -> Option<InstructionForm> {
    let mut p = Parser::new(
        ParseOptions {
            instruction_form: None,
            ..opts
        },
        Dialect::Tarmac,
    );
    let (mut after, mut in_brackets) = (0u32, 0u32);
    for line in sample.split(|&b| b == b'\n').take(4000) {
        p.line_form = None;
        if let RecordKind::Instruction(_) = parse_general(&mut p, line).kind {
            match p.line_form {
                Some(InstructionForm::AddressAfter) => after += 1,
                Some(InstructionForm::AddressInBrackets) => in_brackets += 1,
                None => {}
            }
        }
    }
    match (after, in_brackets) {
        (0, 0) => None,
        (a, b) if b > a => Some(InstructionForm::AddressInBrackets),
        _ => Some(InstructionForm::AddressAfter),
    }
}

/// The whole grammar, token by token.
fn parse_general<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let prev_time = p.prev_time;
    let cont = p.cont.take();
    let implicit_thumb = p.opts.implicit_thumb;
    let file_form = p.opts.instruction_form;
    let big_endian = p.opts.big_endian;

    let mut lx = Lexer::new(line);
    let first = lx.next();
    let mut rec = Record {
        time: prev_time,
        has_time: false,
        unit: None,
        cpu: None,
        kind: RecordKind::Blank,
    };
    if first.is_eol() {
        return rec;
    }
    if first.kind == TokKind::Other(b'#') || (first.is_word() && line[first.start] == b'#') {
        // Comments are transparent: they keep the LD/ST continuation alive.
        p.cont = cont;
        rec.kind = RecordKind::Comment;
        return rec;
    }

    let scratch = &mut p.scratch;
    let mut tok = first;

    // An LD/ST continuation line repeats the previous type implicitly; spot it
    // before looking for a timestamp, or an address made only of decimal
    // digits would be taken for one.
    if let Some(c) = cont {
        if first.start == c.column {
            lx.rewind(first.start);
            let (kind, next_cont) = diagram(&mut lx, c.store, big_endian, scratch, b"");
            p.cont = next_cont;
            rec.kind = kind;
            return rec;
        }
    }

    // Timestamp and unit.
    if tok.is_word() {
        let w = lx.text(tok);
        let decimal = lex::parse_dec(w);
        if decimal.is_some() || lex::all_dec(w) {
            match decimal {
                Some(t) => {
                    rec.time = t;
                    rec.has_time = true;
                }
                None => {
                    rec.kind = RecordKind::Unparsed(fail("timestamp too large", tok.start));
                    return rec;
                }
            }
            tok = lx.next();
            if tok.is_word() {
                if let Some(u) = unit_of(lx.text(tok)) {
                    rec.unit = Some(u);
                    if u == TimeUnit::Us {
                        rec.time = rec.time.saturating_mul(1_000_000);
                    }
                    tok = lx.next();
                }
            }
        } else if w[0].is_ascii_digit() {
            // `271ns`, or a fractional `10.356000us`; also `10.5 us`.
            let digits_end = w
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b'.'))
                .unwrap_or(w.len());
            let (number, suffix) = w.split_at(digits_end);
            let mut parsed = None;
            if let Some(u) = unit_of(suffix) {
                parsed = if number.contains(&b'.') || u == TimeUnit::Us {
                    fractional_to_ps(number, u).map(|t| (t, u))
                } else {
                    lex::parse_dec(number).map(|t| (t, u))
                };
            } else if suffix.is_empty() {
                let next = lx.peek();
                if let Some(u) = next.is_word().then(|| unit_of(lx.text(next))).flatten() {
                    if let Some(t) = fractional_to_ps(number, u) {
                        lx.next();
                        parsed = Some((t, u));
                    }
                }
            }
            if let Some((t, u)) = parsed {
                rec.time = t;
                rec.has_time = true;
                rec.unit = Some(u);
                tok = lx.next();
            }
        }
    }
    // A line not understood keeps its own time but lends it to no later
    // line (see the end).
    p.prev_time = rec.time;

    // Trace source identifier.
    if tok.is_word() && super::cpu::is_cpu_field(lx.text(tok)) {
        rec.cpu = Some(lx.text(tok));
        tok = lx.next();
    }

    if !tok.is_word() {
        p.prev_time = prev_time;
        rec.kind = RecordKind::Unparsed(fail("expected an event type", tok.start));
        return rec;
    }
    let type_word = lx.text(tok);
    let type_start = tok.start;

    let result: Result<RecordKind<'a>, Fail> = match type_word {
        b"IT" | b"IS" | b"IF" | b"ES" => instruction(
            &mut lx,
            type_word,
            implicit_thumb,
            file_form,
            &mut p.line_form,
        ),
        b"R" => register(&mut lx, scratch),
        b"LD" | b"ST" => {
            let (kind, next_cont) =
                diagram(&mut lx, type_word == b"ST", big_endian, scratch, type_word);
            p.cont = next_cont;
            Ok(kind)
        }
        b"EXC" => Ok(exc(&mut lx)),
        b"E" => Ok(event(&mut lx)),
        b"Tarmac" => Ok(RecordKind::Header(Header {
            kind: HeaderKind::TarmacText,
            text: &line[type_start..],
        })),
        b"CACHE" => extra::cache(&mut lx),
        b"TTW" => extra::table_walk(&mut lx, false),
        b"TTU" => extra::table_walk(&mut lx, true),
        b"TLB" => extra::tlb(&mut lx, false),
        b"WALKCACHE" => extra::tlb(&mut lx, true),
        b"FD" => extra::flow(&mut lx, BranchKind::Direct),
        b"FI" => extra::flow(&mut lx, BranchKind::Indirect),
        b"FR" => extra::flow(&mut lx, BranchKind::ExceptionReturn),
        b"BR" => extra::es_branch(&mut lx),
        b"CADI" | b"P" | b"SIGNAL" | b"INFO_EXCEPTION_REASON" => {
            let next = lx.next();
            Ok(RecordKind::Text(TextEvent {
                type_word,
                text: &line[next.start..],
            }))
        }
        b"R01" | b"R02" | b"R04" | b"R08" | b"W01" | b"W02" | b"W04" | b"W08" => {
            memory(&mut lx, tok, big_endian, scratch)
        }
        w if w[0] == b'M' => memory(&mut lx, tok, big_endian, scratch),
        w if w[0] == b'B' && extra::is_bus_type(w) => extra::bus(&mut lx, type_word),
        w if w[0] == b'B' && memory::side_word(w).is_some() => {
            memory::side_cycle(&mut lx, type_word, type_start)
        }
        _ => Err(fail("unknown event type", type_start)),
    };
    rec.kind = match result {
        Ok(k) => k,
        Err(u) => {
            // Garbage that happens to start with digits must not date the
            // lines after it.
            p.prev_time = prev_time;
            RecordKind::Unparsed(u)
        }
    };
    rec
}

fn iset_of(word: &[u8]) -> Option<(ISet, bool)> {
    match word {
        b"A" => Some((ISet::Arm, false)),
        b"T" => Some((ISet::Thumb, false)),
        b"T16" | b"T32" => Some((ISet::Thumb, true)),
        b"O" => Some((ISet::A64, false)),
        b"X" => Some((ISet::ThumbEE, false)),
        b"C" => Some((ISet::C64, false)),
        _ => None,
    }
}

fn is_dec_or_hex_word(lx: &Lexer<'_>, t: Tok) -> bool {
    t.is_word() && lex::all_hex(lx.text(t))
}

/// Value of a hex word token in one pass; `None` if it is not one (or is
/// wider than 64 bits).
#[inline]
fn hex_of(lx: &Lexer<'_>, t: Tok) -> Option<u64> {
    if t.is_word() {
        lex::parse_hex_strict(lx.text(t))
    } else {
        None
    }
}

/// `hex`, `hex_S` or `hex_NS`: a physical address with its security suffix.
fn hex_with_namespace(s: &[u8]) -> Option<u64> {
    let digits = s
        .strip_suffix(b"_NS")
        .or_else(|| s.strip_suffix(b"_S"))
        .unwrap_or(s);
    lex::parse_hex_strict(digits)
}

/// `file_form`: the file's instruction form, if known; `line_form` is set to
/// the form this line was read in when it has a bracketed value.
fn instruction<'a>(
    lx: &mut Lexer<'a>,
    type_word: &'a [u8],
    implicit_thumb: bool,
    file_form: Option<InstructionForm>,
    line_form: &mut Option<InstructionForm>,
) -> Result<RecordKind<'a>, Fail> {
    let form = match type_word {
        b"IS" => InstrForm::Skipped,
        b"IF" => InstrForm::Folded,
        b"ES" => InstrForm::Es,
        _ => InstrForm::Taken,
    };
    let is_es = form == InstrForm::Es;
    let mut effect = if form == InstrForm::Skipped {
        Effect::CondFail
    } else {
        Effect::Executed
    };

    let mut tok = lx.next();
    if lx.is(tok, b"EXC") || lx.is(tok, b"Reset") {
        // An exception reported in instruction syntax (`ES EXC [0x00] Reset`,
        // `ES Reset`).
        let reset = lx.is(tok, b"Reset");
        let text_start = tok.start;
        return Ok(exc_fields(lx, text_start, reset));
    }
    if is_es && tok.is_word() && !lex::all_hex(lx.text(tok)) {
        // An exception announced by its class (`ES  System Error (Abort)`),
        // its vector and description on the `EXC` line after it.
        let text = lx.rest_from(tok.start);
        return Ok(RecordKind::Exception(Exception {
            form: ExceptionForm::Exc,
            value: None,
            value2: None,
            number: None,
            name: lex::trim(text),
            mode: None,
            text,
        }));
    }

    let pc: u64;
    let encoding: u64;
    let width: u8;
    let mut phys = None;
    let mut inst_id = None;
    let mut seen_colon_in_brackets = false;
    let mut capability = None;
    // No bracketed value, no state: `IT 00001a30 b538 PUSH {r3-r5,lr}`.
    let mut bare = false;

    if is_es {
        if !tok.is_punct(b'(') {
            return Err(fail(
                "expected '(' before instruction address and encoding",
                tok.start,
            ));
        }
        tok = lx.next();
        // One pass over the digits in the common case; the checks that name
        // the error only run when that fails.
        pc = match hex_of(lx, tok) {
            Some(v) => v,
            None if is_dec_or_hex_word(lx, tok) => {
                return Err(fail("instruction address too large", tok.start))
            }
            None => return Err(fail("expected a hex instruction address", tok.start)),
        };
        tok = lx.next();
        if !tok.is_punct(b':') {
            return Err(fail(
                "expected ':' between instruction address and encoding",
                tok.start,
            ));
        }
        tok = lx.next();
        let enc = lx.text(tok);
        if let Some(v) = hex_of(lx, tok) {
            encoding = v;
        } else if tok.is_word() && lex::all_hex(enc) {
            return Err(fail("instruction encoding too large", tok.start));
        } else if tok.is_word() && enc.iter().all(|&b| b == b'-') {
            effect = Effect::FetchFail;
            encoding = 0;
        } else {
            return Err(fail("expected a hex instruction encoding", tok.start));
        }
        width = (tok.len() * 4).min(255) as u8;
        tok = lx.next();
        if !tok.is_punct(b')') {
            return Err(fail(
                "expected ')' after instruction address and encoding",
                tok.start,
            ));
        }
        tok = lx.next();
    } else {
        // `IT (xxxx) yyyy zzzz S M : disasm`, where producers disagree on the
        // fields: the bracketed value may be the tick count (then yyyy is the
        // address) or the address (then yyyy is the encoding). The token after
        // decides: if it is already the instruction-set state, the bracketed
        // value was the address.
        let mut bracketed: Option<Tok> = None;
        // The address of `(address:index)`, for when it is not repeated.
        let mut bracketed_addr: Option<Tok> = None;
        if tok.is_punct(b'(') {
            tok = lx.next();
            if !is_dec_or_hex_word(lx, tok) {
                return Err(fail("expected a hex or decimal number", tok.start));
            }
            bracketed = Some(tok);
            tok = lx.next();
            if tok.is_punct(b':') {
                // `(address:index)`, seen in RTL simulator output; the
                // address is usually repeated after the brackets.
                bracketed_addr = bracketed;
                tok = lx.next();
                if !is_dec_or_hex_word(lx, tok) {
                    return Err(fail("expected a hex or decimal number", tok.start));
                }
                bracketed = Some(tok);
                tok = lx.next();
                seen_colon_in_brackets = true;
            }
            if !tok.is_punct(b')') {
                return Err(fail("expected ')' after bracketed value", tok.start));
            }
            tok = lx.next();
        }

        let postbracket = tok;
        let addr_value = if tok.is_punct(b'(') && bracketed.is_some() {
            // A capability, `(tag|metadata|value)`: its value is the address.
            let (c, value) = capability_fields(lx)?;
            capability = Some(c);
            value
        } else {
            match hex_of(lx, tok) {
                Some(v) => v,
                None if is_dec_or_hex_word(lx, tok) => {
                    return Err(fail("instruction address too large", tok.start))
                }
                None => return Err(fail("expected a hex value", tok.start)),
            }
        };
        tok = lx.next();
        if tok.is_punct(b':') {
            tok = lx.next();
            if !tok.is_word() {
                return Err(fail("expected a hex address after ':'", tok.start));
            }
            phys = Some(
                hex_with_namespace(lx.text(tok))
                    .ok_or(fail("expected a hex address after ':'", tok.start))?,
            );
            tok = lx.next();
            if tok.is_punct(b',') {
                tok = lx.next();
                if !tok.is_word() || hex_with_namespace(lx.text(tok)).is_none() {
                    return Err(fail("expected a hex address after ','", tok.start));
                }
                tok = lx.next();
            }
        }

        let instr_tok;
        let state_next = tok.is_word() && iset_of(lx.text(tok)).is_some();
        // With no state to count up to, the file's form tells; before it is
        // known, widths: an encoding is four or eight digits, so a word of
        // other width (`ADD`, `B`) or nothing after the first number means
        // that number was the encoding.
        let stateless_one_number = implicit_thumb
            && bracketed.is_some()
            && phys.is_none()
            && !state_next
            && match file_form {
                Some(f) => f == InstructionForm::AddressInBrackets,
                None => {
                    !(tok.is_word() && lex::all_hex(lx.text(tok)) && matches!(tok.len(), 4 | 8))
                }
            };
        *line_form = bracketed.map(|_| {
            if state_next || stateless_one_number {
                InstructionForm::AddressInBrackets
            } else {
                InstructionForm::AddressAfter
            }
        });
        if state_next || stateless_one_number {
            // One number before the state: the address is the bracketed one
            // (the first of `(address:index)`, the index then being the id).
            let b = bracketed.ok_or(fail("expected an instruction encoding", tok.start))?;
            let a = bracketed_addr.unwrap_or(b);
            pc =
                lex::parse_hex(lx.text(a)).ok_or(fail("instruction address too large", a.start))?;
            if bracketed_addr.is_some() {
                inst_id = lex::parse_dec(lx.text(b));
            }
            instr_tok = postbracket;
            encoding = addr_value;
        } else {
            encoding = match hex_of(lx, tok) {
                Some(v) => v,
                None if is_dec_or_hex_word(lx, tok) => {
                    return Err(fail("instruction encoding too large", tok.start))
                }
                None => return Err(fail("expected a hex instruction encoding", tok.start)),
            };
            pc = addr_value;
            if let Some(b) = bracketed {
                inst_id = lex::parse_dec(lx.text(b));
            }
            instr_tok = tok;
            tok = lx.next();
        }
        width = (instr_tok.len() * 4).min(255) as u8;
        bare = bracketed.is_none() && capability.is_none() && matches!(width, 16 | 32);
    }

    let iset;
    let mut mode = None;
    match tok.is_word().then(|| iset_of(lx.text(tok))).flatten() {
        None => {
            // Producers for single-state cores (Cortex-M RTL loggers) omit
            // the state and mode: with nothing bracketed, an address and a
            // 16- or 32-bit encoding are Thumb's; otherwise the person
            // tells us with --implicit-thumb.
            if !implicit_thumb && !bare {
                return Err(fail("expected instruction-set state", tok.start));
            }
            iset = ISet::Thumb;
        }
        Some((s, t16_t32)) => {
            iset = s;
            tok = lx.next();
            // Cortex-M4 RTL omits the mode; it alone combines `(addr:index)`
            // with T16/T32 states, so that pair is the tell.
            let expect_mode = !(!is_es && seen_colon_in_brackets && t16_t32);
            if expect_mode {
                if tok.is_punct(b':') {
                    // Mode missing but colon present (Cortex-R5 RTL).
                    tok = lx.next();
                } else if tok.is_word() && lx.peek().is_punct(b':') {
                    mode = Some(lx.text(tok));
                    lx.next();
                    tok = lx.next();
                } else if tok.is_word() {
                    // No mode and no colon (`T32 ADD r1,r0,#1`): a mode is a
                    // word that a colon follows, and this one has none, so the
                    // disassembly starts here.
                } else {
                    return Err(fail("expected CPU mode", tok.start));
                }
            }
            if is_es && lx.is(tok, b"CCFAIL") {
                effect = Effect::CondFail;
                tok = lx.next();
            }
        }
    }

    Ok(RecordKind::Instruction(Instruction {
        form,
        effect,
        pc,
        phys,
        iset,
        width,
        encoding,
        mode,
        inst_id,
        capability,
        disassembly: lx.rest_from(tok.start),
    }))
}

/// `tag|metadata|value)` after the `(` of a capability; the value.
fn capability_fields(lx: &mut Lexer<'_>) -> Result<(Capability, u64), Fail> {
    let mut fields = [0u64; 3];
    let tag_at = lx.peek().start;
    for (i, f) in fields.iter_mut().enumerate() {
        let t = lx.next();
        *f = match hex_of(lx, t) {
            Some(v) => v,
            None => return Err(fail("expected a hex field of a capability", t.start)),
        };
        let sep = lx.next();
        let want = if i == 2 {
            TokKind::Punct(b')')
        } else {
            TokKind::Other(b'|')
        };
        if sep.kind != want {
            return Err(fail(
                if i == 2 {
                    "expected ')' after a capability"
                } else {
                    "expected '|' between a capability's fields"
                },
                sep.start,
            ));
        }
    }
    let [tag, meta, value] = fields;
    if tag > 1 {
        return Err(fail("a capability's tag is 0 or 1", tag_at));
    }
    Ok((
        Capability {
            tag: tag == 1,
            meta,
        },
        value,
    ))
}

/// Decodes `2 * out.len()` hex digits (most significant first) into `out`,
/// least significant byte first. False, with `out` garbage, on a non-hex digit.
#[inline]
fn decode_hex_le(digits: &[u8], out: &mut [u8]) -> bool {
    let n = out.len();
    let mut ok = true;
    for (i, pair) in digits.chunks_exact(2).enumerate() {
        ok &= lex::is_hex(pair[0]) & lex::is_hex(pair[1]);
        out[n - 1 - i] = (lex::hex_val(pair[0]) << 4) | lex::hex_val(pair[1]);
    }
    ok
}

/// `EXC [0x200] Synchronous ...`, `EXC Reset`.
fn exc<'a>(lx: &mut Lexer<'a>) -> RecordKind<'a> {
    let start = lx.peek().start;
    exc_fields(lx, start, false)
}

/// Fields of an ES-style exception; `text_start` is where the displayed text
/// begins. `reset` is set for the bare `ES Reset` form.
fn exc_fields<'a>(lx: &mut Lexer<'a>, text_start: usize, reset: bool) -> RecordKind<'a> {
    let text = lx.rest_from(text_start);
    if reset {
        return RecordKind::Exception(Exception {
            form: ExceptionForm::Exc,
            value: None,
            value2: None,
            number: None,
            name: b"Reset",
            mode: None,
            text,
        });
    }
    let mut number = None;
    let mut t = lx.next();
    if t.is_punct(b'[') {
        let n = lx.next();
        number = lex::parse_hex_0x(lx.text(n)).filter(|_| n.is_word());
        let close = lx.next();
        t = if close.is_punct(b']') {
            lx.next()
        } else {
            close
        };
    }
    RecordKind::Exception(Exception {
        form: ExceptionForm::Exc,
        value: None,
        value2: None,
        number,
        name: lex::trim(lx.rest_from(t.start)),
        mode: None,
        text,
    })
}

/// Fast Models `E` lines: `E <value> [mode] [value1] <number> <desc>`, or a
/// debug event, or an RTL signal (`E HRESETn 0`).
fn event<'a>(lx: &mut Lexer<'a>) -> RecordKind<'a> {
    let first = lx.next();
    let text = lx.rest_from(first.start);
    if first.is_word() && lx.text(first).starts_with(b"DebugEvent_") {
        return RecordKind::Text(TextEvent {
            type_word: b"E",
            text,
        });
    }
    // Collect up to 8 words; the event name, when it is a CoreEvent, is last.
    let mut words: [Tok; 8] = [first; 8];
    let mut n = 0;
    let mut t = first;
    while !t.is_eol() && n < 8 {
        words[n] = t;
        n += 1;
        t = lx.next();
    }
    let core = n >= 2
        && lx.text(words[n - 1]).starts_with(b"CoreEvent_")
        && lex::all_hex(lx.text(words[n - 2]));
    if core {
        // `E <number> <desc>` has no value; otherwise the first word is it.
        let value = if n >= 3 {
            let value_word = lx.text(words[0]);
            hex_with_namespace(value_word)
                .or_else(|| lex::parse_hex(value_word.split(|&b| b == b':').next().unwrap_or(b"")))
        } else {
            None
        };
        let mut mode = None;
        let mut value2 = None;
        for w in &words[1.min(n - 2)..n - 2] {
            let s = lx.text(*w);
            if w.is_word() && lex::all_hex(s) {
                value2 = lex::parse_hex(s);
            } else if w.is_word() {
                mode = Some(s);
            }
        }
        return RecordKind::Exception(Exception {
            form: ExceptionForm::CoreEvent,
            value,
            value2,
            number: lex::parse_hex(lx.text(words[n - 2])),
            name: lx.text(words[n - 1]),
            mode,
            text,
        });
    }
    let name = if first.is_word() { lx.text(first) } else { b"" };
    let value = if n >= 2 {
        lex::parse_hex(lx.text(words[1])).filter(|_| words[1].is_word())
    } else {
        None
    };
    RecordKind::Exception(Exception {
        form: ExceptionForm::Signal,
        value,
        value2: None,
        number: None,
        name,
        mode: None,
        text,
    })
}
