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
use super::{Continuation, Parser};

mod fast;

pub(super) use fast::Memo;

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

fn unit_of(word: &[u8]) -> Option<TimeUnit> {
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

/// The whole grammar, token by token.
fn parse_general<'a>(p: &'a mut Parser, line: &'a [u8]) -> Record<'a> {
    let prev_time = p.prev_time;
    let cont = p.cont.take();
    let implicit_thumb = p.opts.implicit_thumb;
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
    p.prev_time = rec.time;

    // Trace source identifier.
    if tok.is_word() && lx.text(tok).starts_with(b"cpu") {
        rec.cpu = Some(lx.text(tok));
        tok = lx.next();
    }

    if !tok.is_word() {
        rec.kind = RecordKind::Unparsed(fail("expected an event type", tok.start));
        return rec;
    }
    let type_word = lx.text(tok);
    let type_start = tok.start;

    let result: Result<RecordKind<'a>, Fail> = match type_word {
        b"IT" | b"IS" | b"IF" | b"ES" => instruction(&mut lx, type_word, implicit_thumb),
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
        _ => Err(fail("unknown event type", type_start)),
    };
    rec.kind = match result {
        Ok(k) => k,
        Err(u) => RecordKind::Unparsed(u),
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

fn instruction<'a>(
    lx: &mut Lexer<'a>,
    type_word: &'a [u8],
    implicit_thumb: bool,
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

    let pc: u64;
    let encoding: u64;
    let width: u8;
    let mut phys = None;
    let mut inst_id = None;
    let mut seen_colon_in_brackets = false;

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
        if tok.is_punct(b'(') {
            tok = lx.next();
            if !is_dec_or_hex_word(lx, tok) {
                return Err(fail("expected a hex or decimal number", tok.start));
            }
            bracketed = Some(tok);
            tok = lx.next();
            if tok.is_punct(b':') {
                // `(address:index)`, seen in RTL simulator output; the
                // address is repeated after the brackets.
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
        let addr_value = match hex_of(lx, tok) {
            Some(v) => v,
            None if is_dec_or_hex_word(lx, tok) => {
                return Err(fail("instruction address too large", tok.start))
            }
            None => return Err(fail("expected a hex value", tok.start)),
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
        if tok.is_word() && iset_of(lx.text(tok)).is_some() {
            let b = bracketed.ok_or(fail("expected an instruction encoding", tok.start))?;
            pc =
                lex::parse_hex(lx.text(b)).ok_or(fail("instruction address too large", b.start))?;
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
    }

    let iset;
    let mut mode = None;
    match tok.is_word().then(|| iset_of(lx.text(tok))).flatten() {
        None => {
            // Producers for single-state cores (Cortex-M0) omit the state and
            // mode; the person tells us with --implicit-thumb.
            if !implicit_thumb {
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
                } else if tok.is_word() {
                    mode = Some(lx.text(tok));
                    tok = lx.next();
                    if !tok.is_punct(b':') {
                        return Err(fail("expected ':' before instruction", tok.start));
                    }
                    tok = lx.next();
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
        disassembly: lx.rest_from(tok.start),
    }))
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

/// Register contents are gathered as hex-digit characters (with `-` for
/// bytes left unchanged) in `digits`, most significant first.
struct Digits<'s> {
    buf: &'s mut [u8; 256],
    known: &'s mut [u8; 256],
    accessed: &'s mut [u8; 256],
    /// Characters gathered so far, at most 512 (two per byte).
    chars: &'s mut [u8; 512],
    n: usize,
}

impl Digits<'_> {
    fn push_token(&mut self, t: &[u8]) -> bool {
        for &c in t {
            if c == b'_' {
                continue;
            }
            if self.n >= self.chars.len() {
                return false;
            }
            // Some RTL producers write x/X for indeterminate digits; the
            // reference tools read those as zero.
            self.chars[self.n] = if c == b'x' || c == b'X' { b'0' } else { c };
            self.n += 1;
        }
        true
    }

    fn push_fill(&mut self, c: u8, count: usize) -> bool {
        if self.n + count > self.chars.len() {
            return false;
        }
        self.chars[self.n..self.n + count].fill(c);
        self.n += count;
        true
    }

    fn all_from(&self, from: usize, c: u8) -> bool {
        self.chars[from.min(self.n)..self.n].iter().all(|&x| x == c)
    }
}

fn is_regvalue(s: &[u8]) -> bool {
    !s.is_empty()
        && s.iter()
            .all(|&b| lex::is_hex(b) || b == b'_' || b == b'-' || b == b'x' || b == b'X')
}

fn register<'a>(
    lx: &mut Lexer<'a>,
    scratch: &'a mut super::Scratch,
) -> Result<RecordKind<'a>, Fail> {
    let name_tok = lx.next();
    if !name_tok.is_word() {
        return Err(fail("expected register name", name_tok.start));
    }
    let name = lx.text(name_tok);
    if matches!(name, b"DC" | b"IC" | b"TLBI" | b"AT") {
        let next = lx.next();
        return Ok(RecordKind::SystemOp(SystemOp {
            op: name,
            args: lx.rest_from(next.start),
        }));
    }
    let mut tok = lx.next();

    let mut extra = None;
    if tok.is_punct(b'(') {
        tok = lx.next();
        if !tok.is_word() {
            return Err(fail(
                "expected extra register identification details",
                tok.start,
            ));
        }
        extra = Some(lx.text(tok));
        tok = lx.next();
        if !tok.is_punct(b')') {
            return Err(fail(
                "expected ')' after extra register identification details",
                tok.start,
            ));
        }
        tok = lx.next();
    }

    let mut reg = RegId::lookup(name);
    let is_fpcr = matches!(reg, Some(r) if r.class == RegClass::Fpcr);
    let is_cpsr = matches!(reg, Some(r) if r.class == RegClass::Psr) && name == b"cpsr";
    let is_sp = name.eq_ignore_ascii_case(b"sp")
        || (name.len() >= 3 && name[..3].eq_ignore_ascii_case(b"sp_"));
    // These can only be sized from the data: `sp` is r13 or the AArch64 SP by
    // width, FPCR appears with 64 bits, Fast Models' `cpsr` with extra bits.
    let special = is_fpcr || is_sp || is_cpsr;

    let mut bit_range = None;
    let mut skip_lo = 0usize;
    let mut skip_hi = 0usize;
    if tok.is_punct(b'<') {
        if special {
            return Err(fail(
                "cannot handle a bit range for this register",
                tok.start,
            ));
        }
        tok = lx.next();
        let hi = lex::parse_dec(lx.text(tok)).filter(|_| tok.is_word());
        let Some(hi) = hi else {
            return Err(fail("expected bit offset within register", tok.start));
        };
        if hi & 7 != 7 {
            return Err(fail(
                "expected high bit offset at the top of a byte",
                tok.start,
            ));
        }
        let top_byte = (hi >> 3) as usize;
        let size = reg.map_or(usize::MAX, |r| r.size());
        if top_byte >= size {
            return Err(fail(
                "high bit offset is larger than the register",
                tok.start,
            ));
        }
        tok = lx.next();
        if !tok.is_punct(b':') {
            return Err(fail("expected ':' separating bit offsets", tok.start));
        }
        tok = lx.next();
        let lo = lex::parse_dec(lx.text(tok)).filter(|_| tok.is_word());
        let Some(lo) = lo else {
            return Err(fail("expected bit offset within register", tok.start));
        };
        if lo & 7 != 0 {
            return Err(fail(
                "expected low bit offset at the bottom of a byte",
                tok.start,
            ));
        }
        let bot_byte = (lo >> 3) as usize;
        if bot_byte > top_byte {
            return Err(fail(
                "low bit offset is higher than high bit offset",
                tok.start,
            ));
        }
        tok = lx.next();
        if !tok.is_punct(b'>') {
            return Err(fail("expected '>' after register bit range", tok.start));
        }
        tok = lx.next();
        bit_range = Some((
            hi.min(u64::from(u16::MAX)) as u16,
            lo.min(u64::from(u16::MAX)) as u16,
        ));
        if let Some(r) = reg {
            skip_lo = bot_byte;
            skip_hi = r.size() - (top_byte + 1);
        }
    }

    let super::Scratch {
        bytes,
        known,
        accessed,
        chars,
        ..
    } = scratch;
    let mut d = Digits {
        buf: bytes,
        known,
        accessed,
        chars,
        n: 0,
    };

    // Fast path for the usual line: one token holding exactly the
    // register's digits (`R X0 0000000000300000`).
    if let (Some(r), false, None) = (reg, special, bit_range) {
        let t = lx.text(tok);
        let size = r.size();
        if tok.is_word()
            && t.len() == 2 * size
            && !r.class.variable_length()
            && decode_hex_le(t, &mut d.buf[..size])
        {
            d.known[..size].fill(1);
            tok = lx.next();
            if tok.is_punct(b':') {
                tok = lx.next();
            }
            let interpretation = lex::trim(lx.rest_from(tok.start));
            let Digits { buf, known, .. } = d;
            return Ok(RecordKind::Register(RegisterWrite {
                name,
                reg,
                extra,
                bit_range,
                bytes: &buf[..size],
                known: &known[..size],
                interpretation,
            }));
        }
    }

    match reg {
        Some(r) if !special && !r.class.variable_length() => {
            let mut expected = 2 * r.size();
            if bit_range.is_some() {
                d.push_fill(b'-', 2 * skip_hi);
                expected -= 2 * skip_lo;
            }
            let data_start = d.n;
            while d.n < expected {
                if tok.is_eol() && d.all_from(data_start, b'0') {
                    // A producer abbreviated a zero value (Neoverse-N1 RTL).
                    d.push_fill(b'0', expected - d.n);
                    break;
                }
                if tok.is_eol() && d.all_from(data_start, b'-') {
                    d.push_fill(b'-', expected - d.n);
                    break;
                }
                if tok.is_eol() && d.n > data_start && !d.chars[data_start..d.n].contains(&b'-') {
                    // A value written with fewer digits than the register
                    // holds (leading zeros dropped, as in one Fast Models
                    // guide example): zero-extend it.
                    let missing = expected - d.n;
                    d.chars.copy_within(data_start..d.n, data_start + missing);
                    d.chars[data_start..data_start + missing].fill(b'0');
                    d.n = expected;
                    break;
                }
                if !tok.is_word() || !is_regvalue(lx.text(tok)) {
                    return Err(fail("expected register contents", tok.start));
                }
                if !d.push_token(lx.text(tok)) {
                    return Err(fail("register value too long", tok.start));
                }
                tok = lx.next();
                if tok.is_punct(b':') {
                    tok = lx.next();
                }
            }
            if d.n > expected {
                return Err(fail("register value longer than the register", tok.start));
            }
            d.push_fill(b'-', 2 * skip_lo);
        }
        _ => {
            // Special registers, variable-length SVE registers and registers
            // no view models: one token of contents, plus a second after ':'
            // or a space (not for cpsr, whose producers append flag text such
            // as `__C_` that looks like hex). SVE values are written as one
            // `_`-separated token, or as several space-separated ones.
            if !tok.is_word() || !is_regvalue(lx.text(tok)) {
                return Err(fail("expected register contents", tok.start));
            }
            if !d.push_token(lx.text(tok)) {
                return Err(fail("register value too long", tok.start));
            }
            tok = lx.next();
            let variable = matches!(reg, Some(r) if r.class.variable_length());
            loop {
                if tok.is_punct(b':') {
                    tok = lx.next();
                    if !tok.is_word() || !is_regvalue(lx.text(tok)) {
                        return Err(fail("expected more register contents after ':'", tok.start));
                    }
                } else {
                    let t = lx.text(tok);
                    let more = tok.is_word() && is_regvalue(t) && (!is_cpsr || lex::all_hex(t));
                    if !more {
                        break;
                    }
                }
                if !d.push_token(lx.text(tok)) {
                    return Err(fail("register value too long", tok.start));
                }
                tok = lx.next();
                if !variable {
                    break;
                }
            }
            if is_sp {
                reg = match d.n {
                    8 => Some(RegId::new(RegClass::R, 13)),
                    16 => Some(RegId::new(RegClass::Xsp, 0)),
                    _ => None,
                };
            }
            if is_cpsr {
                // Normalise to the low 32 bits, whatever the producer printed.
                if d.n < 8 {
                    let pad = 8 - d.n;
                    d.chars.copy_within(0..d.n, pad);
                    d.chars[..pad].fill(b'0');
                    d.n = 8;
                } else if d.n > 8 {
                    let from = d.n - 8;
                    d.chars.copy_within(from..d.n, 0);
                    d.n = 8;
                }
            }
        }
    }

    if !d.n.is_multiple_of(2) {
        return Err(fail(
            "expected register contents to be a whole number of bytes",
            tok.start,
        ));
    }
    let mut nbytes = d.n / 2;
    if let Some(r) = reg {
        if nbytes > r.size() && !is_fpcr {
            return Err(fail("register value longer than the register", tok.start));
        }
    }
    // Digits are most significant first; bytes are stored least significant first.
    for i in 0..nbytes {
        let hi = d.chars[2 * i];
        let lo = d.chars[2 * i + 1];
        let out = nbytes - 1 - i;
        if hi == b'-' && lo == b'-' {
            d.buf[out] = 0;
            d.known[out] = 0;
        } else if lex::is_hex(hi) && lex::is_hex(lo) {
            d.buf[out] = (lex::hex_val(hi) << 4) | lex::hex_val(lo);
            d.known[out] = 1;
        } else {
            return Err(fail("register byte is neither hex nor '--'", tok.start));
        }
    }
    if is_fpcr {
        // FPCR is 32-bit; 64-bit updates keep the least significant half.
        nbytes = nbytes.min(4);
    }
    let _ = &d.accessed;

    let interpretation = lex::trim(lx.rest_from(tok.start));
    let Digits { buf, known, .. } = d;
    Ok(RecordKind::Register(RegisterWrite {
        name,
        reg,
        extra,
        bit_range,
        bytes: &buf[..nbytes],
        known: &known[..nbytes],
        interpretation,
    }))
}

/// Contiguous memory access: `M<rw><sz><attr>`, `R04`/`W08`, `MU<sz>_<op>`,
/// Cortex-M3/M4 `MNW4___D` forms.
fn memory<'a>(
    lx: &mut Lexer<'a>,
    type_tok: Tok,
    big_endian: bool,
    scratch: &'a mut super::Scratch,
) -> Result<RecordKind<'a>, Fail> {
    let line = lx.line;
    let w = lx.text(type_tok);
    let mut atomic = None;
    let mut direction = None;
    let mut size: Option<u64> = None;
    let mut memory_order = false;
    let (mut exclusive, mut translated, mut locked) = (false, false, false);

    if let Some(rest) = w.strip_prefix(b"MU") {
        // `MU<sz>_<op>`: atomic update.
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        size = lex::parse_dec(&rest[..digits]);
        let op = rest[digits..].strip_prefix(b"_").unwrap_or(b"");
        atomic = Some(match op {
            b"ADD" => AtomicOp::Add,
            b"BIC" => AtomicOp::Bic,
            b"CAS" => AtomicOp::Cas,
            b"EOR" => AtomicOp::Eor,
            b"ORR" => AtomicOp::Orr,
            b"SMAX" => AtomicOp::Smax,
            b"SMIN" => AtomicOp::Smin,
            b"SWP" => AtomicOp::Swp,
            b"UMAX" => AtomicOp::Umax,
            b"UMIN" => AtomicOp::Umin,
            _ => return Err(fail("unknown atomic operation", type_tok.start)),
        });
        direction = Some(MemDirection::Update);
    } else {
        let mut i = 0;
        let n = w.len();
        while i < n {
            let c = w[i];
            i += 1;
            if direction.is_none() && (c == b'R' || c == b'W') {
                direction = Some(if c == b'R' {
                    MemDirection::Read
                } else {
                    MemDirection::Write
                });
            } else if size.is_none() && c.is_ascii_digit() {
                let start = i - 1;
                while i < n && w[i].is_ascii_digit() {
                    i += 1;
                }
                size = lex::parse_dec(&w[start..i]);
            } else if i == 8 && n == 8 && (c == b'I' || c == b'A') {
                // Cortex-M4 RTL: instruction-side and peripheral-bus accesses
                // have confusing endianness; they are shown but not modelled.
                return Ok(RecordKind::Text(TextEvent {
                    type_word: w,
                    text: &line[type_tok.start..],
                }));
            } else if i == 8 && n == 8 && c == b'D' {
                memory_order = true;
            } else if i > 1 {
                match c {
                    b'X' => exclusive = true,
                    b'T' => translated = true,
                    b'L' => locked = true,
                    _ => {}
                }
            }
        }
    }
    let direction = direction.unwrap_or(MemDirection::Write);
    let size = match size {
        Some(s @ 1..=16) => s as usize,
        _ => return Err(fail("unsupported memory access size", type_tok.start)),
    };

    let mut tok = lx.next();
    if lx.is(tok, b"X") {
        exclusive = true;
        tok = lx.next();
    }
    let mut tag = None;
    if tok.is_punct(b'(') {
        // `(instruction address:serial)` tying the access to its instruction
        // (Cortex-R5 RTL).
        let a = lx.next();
        let colon = lx.next();
        let b = lx.next();
        let close = lx.next();
        let (Some(av), true, Some(bv), true) = (
            lex::parse_hex(lx.text(a)).filter(|_| a.is_word()),
            colon.is_punct(b':'),
            lex::parse_hex(lx.text(b)).filter(|_| b.is_word()),
            close.is_punct(b')'),
        ) else {
            return Err(fail(
                "expected (address:serial) before memory address",
                tok.start,
            ));
        };
        tag = Some((av, bv));
        tok = lx.next();
    }

    if lx.is(tok, b"TRANSFER") {
        let v = lx.next();
        let value = lex::parse_hex(lx.text(v))
            .filter(|_| v.is_word())
            .ok_or(fail("expected transferred value in hex", v.start))?;
        return Ok(RecordKind::CoprocTransfer(CoprocTransfer {
            type_word: w,
            read: direction == MemDirection::Read,
            size: size as u8,
            tag,
            value,
            value_text: lx.text(v),
        }));
    }

    if !tok.is_word() || !lex::all_hex(lx.text(tok)) {
        return Err(fail("expected memory address", tok.start));
    }
    let addr = lex::parse_hex(lx.text(tok)).ok_or(fail("memory address too large", tok.start))?;
    tok = lx.next();
    let mut phys = None;
    if tok.is_punct(b':') {
        tok = lx.next();
        phys = Some(
            hex_with_namespace(lx.text(tok))
                .filter(|_| tok.is_word())
                .ok_or(fail(
                    "expected physical memory address after ':'",
                    tok.start,
                ))?,
        );
        tok = lx.next();
    }
    if tok.is_punct(b'(') {
        let kw = lx.next();
        if lx.is(kw, b"ABORTED") {
            let close = lx.next();
            if !close.is_punct(b')') {
                return Err(fail("expected closing parenthesis", close.start));
            }
            return Ok(RecordKind::Text(TextEvent {
                type_word: lx.text(kw),
                text: &line[type_tok.start..],
            }));
        }
        return Err(fail("unrecognised parenthesised keyword", kw.start));
    }

    // The value: one token, or several (a 16-byte access written as two
    // 64-bit words), most significant first; `_` separators ignored; all `x`
    // means the data is not available.
    let value_start = tok.start;
    let mut chars = [0u8; 32];
    let mut nchars = 0usize;
    let mut unknown = false;
    let mut value_end;
    loop {
        if !tok.is_word() {
            return Err(fail("expected memory contents in hex", tok.start));
        }
        let t = lx.text(tok);
        if t.iter().all(|&b| b == b'x' || b == b'X' || b == b'_') && t.iter().any(|&b| b != b'_') {
            unknown = true;
        } else {
            for &c in t {
                if c == b'_' {
                    continue;
                }
                if !lex::is_hex(c) {
                    return Err(fail("expected memory contents in hex", tok.start));
                }
                if nchars == chars.len() {
                    return Err(fail("memory value longer than 16 bytes", tok.start));
                }
                chars[nchars] = c;
                nchars += 1;
            }
        }
        value_end = tok.end;
        if size <= 8 || nchars >= 2 * size || unknown {
            break;
        }
        let next = lx.peek();
        if !(next.is_word() && is_hex_with_separators(lx.text(next))) {
            break;
        }
        tok = lx.next();
    }

    let digits = (!unknown).then_some(&chars[..nchars]);
    let (bytes, accessed, known) = access_bytes(scratch, digits, size, memory_order || big_endian);
    let _ = value_end;
    Ok(RecordKind::Memory(MemoryAccess {
        direction,
        form: MemForm::Contiguous,
        type_word: w,
        addr,
        phys,
        size: size as u8,
        exclusive,
        translated,
        locked,
        atomic,
        memory_order,
        bytes,
        accessed,
        known,
        value_text: &line[value_start..value_end],
    }))
}

/// Fills the scratch buffers for a contiguous `size`-byte access, in address
/// order, from its value: hex `digits`, most significant first (`None` when
/// the trace shows the data as unknown). Shorter values are zero-extended;
/// longer ones keep their low `size` bytes (as the reference index does).
/// `as_written` keeps the digits' byte order (memory-order data, or a
/// big-endian CPU's logical value).
fn access_bytes<'s>(
    scratch: &'s mut super::Scratch,
    digits: Option<&[u8]>,
    size: usize,
    as_written: bool,
) -> (&'s [u8], &'s [u8], &'s [u8]) {
    let mut logical = [0u8; 16];
    if let Some(chars) = digits {
        let mut pos = chars.len();
        let mut k = 0;
        while pos > 0 && k < size {
            let lo = lex::hex_val(chars[pos - 1]);
            let hi = if pos >= 2 {
                lex::hex_val(chars[pos - 2])
            } else {
                0
            };
            logical[size - 1 - k] = (hi << 4) | lo;
            pos = pos.saturating_sub(2);
            k += 1;
        }
    }
    let super::Scratch {
        bytes,
        known,
        accessed,
        ..
    } = scratch;
    for i in 0..size {
        bytes[i] = if as_written {
            logical[i]
        } else {
            logical[size - 1 - i]
        };
        known[i] = u8::from(digits.is_some());
        accessed[i] = 1;
    }
    (&bytes[..size], &accessed[..size], &known[..size])
}

/// Hex digits with optional `_` separators, at least one digit.
fn is_hex_with_separators(s: &[u8]) -> bool {
    s.iter().all(|&b| lex::is_hex(b) || b == b'_') && s.iter().any(|&b| b != b'_')
}

/// LD/ST 16-byte diagram. `lx` is positioned after the type word (or at the
/// address of a continuation line). Returns the record and the continuation
/// state for the next line.
fn diagram<'a>(
    lx: &mut Lexer<'a>,
    store: bool,
    big_endian: bool,
    scratch: &'a mut super::Scratch,
    type_word: &'a [u8],
) -> (RecordKind<'a>, Option<Continuation>) {
    let addr_tok = lx.next();
    let cont = Some(Continuation {
        store,
        column: addr_tok.start,
    });
    match diagram_body(lx, addr_tok, store, big_endian, scratch, type_word) {
        Ok(k) => (k, cont),
        Err(u) => (RecordKind::Unparsed(u), cont),
    }
}

fn diagram_body<'a>(
    lx: &mut Lexer<'a>,
    addr_tok: Tok,
    store: bool,
    big_endian: bool,
    scratch: &'a mut super::Scratch,
    type_word: &'a [u8],
) -> Result<RecordKind<'a>, Fail> {
    let _ = big_endian; // diagrams are little-endian pictures of memory whatever the CPU
    if !addr_tok.is_word() || !lex::all_hex(lx.text(addr_tok)) {
        return Err(fail("expected load/store memory address", addr_tok.start));
    }
    let addr = lex::parse_hex(lx.text(addr_tok))
        .ok_or(fail("memory address too large", addr_tok.start))?;
    let bytes = &mut scratch.bytes;
    let known = &mut scratch.known;
    let accessed = &mut scratch.accessed;
    // Diagram position k (0 = leftmost) shows the byte at addr + 15 - k.
    let mut k = 0usize;
    while k < 16 {
        let t = lx.next();
        if !t.is_word() {
            return Err(fail("expected a word of data bytes, '.' and '#'", t.start));
        }
        let s = lx.text(t);
        if !s.len().is_multiple_of(2) {
            return Err(fail(
                "expected data word to cover a whole number of bytes",
                t.start,
            ));
        }
        for (j, pair) in s.chunks_exact(2).enumerate() {
            if k >= 16 {
                return Err(fail("expected exactly 16 data bytes", t.start + 2 * j));
            }
            let at = 15 - k;
            match pair {
                b".." => {
                    accessed[at] = 0;
                    known[at] = 0;
                    bytes[at] = 0;
                }
                b"##" => {
                    accessed[at] = 1;
                    known[at] = 0;
                    bytes[at] = 0;
                }
                [h, l] if lex::is_hex(*h) && lex::is_hex(*l) => {
                    accessed[at] = 1;
                    known[at] = 1;
                    bytes[at] = (lex::hex_val(*h) << 4) | lex::hex_val(*l);
                }
                _ => {
                    return Err(fail(
                        "expected each byte to be only one of '.', '#' and hex",
                        t.start + 2 * j,
                    ))
                }
            }
            k += 1;
        }
    }
    Ok(RecordKind::Memory(MemoryAccess {
        direction: if store {
            MemDirection::Write
        } else {
            MemDirection::Read
        },
        form: MemForm::Diagram,
        type_word,
        addr,
        phys: None,
        size: 16,
        exclusive: false,
        translated: false,
        locked: false,
        atomic: None,
        memory_order: false,
        bytes: &bytes[..16],
        accessed: &accessed[..16],
        known: &known[..16],
        value_text: b"",
    }))
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
