//! Register updates (`R name value`): names, bit ranges, values with
//! unchanged bytes (`-`), and their interpretation text.

use super::*;

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

pub(super) fn register<'a>(
    lx: &mut Lexer<'a>,
    scratch: &'a mut crate::parse::Scratch,
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

    let crate::parse::Scratch {
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
                short: false,
            }));
        }
    }

    let mut short = false;
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
                    short = true;
                    break;
                }
                if tok.is_eol() && d.all_from(data_start, b'-') {
                    d.push_fill(b'-', expected - d.n);
                    short = true;
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
                    short = true;
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
        short,
    }))
}
