//! The line shapes that fill Fast Models traces, read straight off the bytes:
//!
//! ```text
//! 494118 clk IT (494118) 00010328 b9400260 O EL3h_s : LDR      w0,[x19,#0]
//! 494118 clk R X0 00000000FFFFFAC3
//! 494118 clk MR4 000107e8:0000000107e8 fffffac3
//! ```
//!
//! Nine lines in ten of such a trace are one of these, and the general
//! grammar spends most of its time asking, token by token, which of its many
//! forms a line is. Here each field is taken where these shapes put it.
//! [`parse`] returns exactly the record (and leaves exactly the parser state)
//! the general grammar would, or, for anything it does not recognise, hands
//! the parser back with its state unchanged, and the general grammar then
//! reads the line. The tests hold the two to agreeing on every line of the
//! test data, and on each line cut short at every byte, respaced and altered.

use super::super::lex::{self, is_space, is_word};
use super::super::record::*;
use super::super::regs::{RegClass, RegId};
use super::super::Parser;
use super::memo::{Prefix, StateText, Window};
use super::{decode_hex_le, hex_with_namespace, iset_of, unit_of};

/// A cursor that cuts words exactly as [`lex::Lexer`] does.
struct Cursor<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline(always)]
    fn skip_spaces(&mut self) {
        while self.pos < self.line.len() && is_space(self.line[self.pos]) {
            self.pos += 1;
        }
    }

    /// The next token if it is a word.
    #[inline(always)]
    fn word(&mut self) -> Option<&'a [u8]> {
        self.skip_spaces();
        let start = self.pos;
        let mut p = start;
        while p < self.line.len() && is_word(self.line[p]) {
            p += 1;
        }
        if p == start {
            return None;
        }
        self.pos = p;
        Some(&self.line[start..p])
    }

    /// The next token if it is a word of hex digits whose value fits 64 bits:
    /// the value and the word. The usual widths, eight and sixteen digits,
    /// are read eight at a time before the word's end is looked for.
    #[inline(always)]
    fn hex(&mut self) -> Option<(u64, &'a [u8])> {
        self.skip_spaces();
        let rest = &self.line[self.pos..];
        let ends_at = |n: usize| rest.get(n).is_none_or(|&b| !is_word(b));
        if let Some(high) = rest.first_chunk::<8>().and_then(|d| lex::hex8(*d)) {
            if ends_at(8) {
                self.pos += 8;
                return Some((u64::from(high), &rest[..8]));
            }
            if let Some(low) = rest[8..].first_chunk::<8>().and_then(|d| lex::hex8(*d)) {
                if ends_at(16) {
                    self.pos += 16;
                    return Some((u64::from(high) << 32 | u64::from(low), &rest[..16]));
                }
            }
        }
        let word = self.word()?;
        Some((lex::parse_hex_strict(word)?, word))
    }

    /// As [`Cursor::hex`], and also `hhhhhhhh_llllllll`, as Fast Models
    /// writes 64-bit data.
    #[inline(always)]
    fn data(&mut self) -> Option<(u64, &'a [u8])> {
        self.skip_spaces();
        let rest = &self.line[self.pos..];
        if let (Some(high), Some(b'_'), Some(low)) = (
            rest.first_chunk::<8>(),
            rest.get(8),
            rest.get(9..).and_then(<[u8]>::first_chunk::<8>),
        ) {
            if let (Some(high), Some(low), true) = (
                lex::hex8(*high),
                lex::hex8(*low),
                rest.get(17).is_none_or(|&b| !is_word(b)),
            ) {
                self.pos += 17;
                return Some((u64::from(high) << 32 | u64::from(low), &rest[..17]));
            }
        }
        self.hex()
    }

    /// Consumes the next token if it is the punctuation `c`.
    #[inline(always)]
    fn punct(&mut self, c: u8) -> bool {
        self.skip_spaces();
        if self.line.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// The rest of the line from the next token on.
    #[inline(always)]
    fn rest(&mut self) -> &'a [u8] {
        self.skip_spaces();
        &self.line[self.pos..]
    }
}

/// A line of one of the common shapes, before the scratch buffers are lent.
enum Shape<'a> {
    Instruction(Instruction<'a>),
    /// Its bytes are in the scratch buffers.
    Register {
        name: &'a [u8],
        reg: RegId,
        size: usize,
        interpretation: &'a [u8],
    },
    /// Its bytes are in the scratch buffers.
    Memory {
        type_word: &'a [u8],
        addr: u64,
        phys: Option<u64>,
        size: usize,
        value_text: &'a [u8],
    },
}

/// The record for `line` if it has one of the common shapes; if not, the
/// parser back, untouched.
#[inline(always)]
pub(super) fn parse<'a>(p: &'a mut Parser, line: &'a [u8]) -> Result<Record<'a>, &'a mut Parser> {
    let Some((time, unit, cpu, shape)) = read(p, line) else {
        return Err(p);
    };
    p.prev_time = time;
    let s = &p.scratch;
    let kind = match shape {
        Shape::Instruction(i) => RecordKind::Instruction(i),
        Shape::Register {
            name,
            reg,
            size,
            interpretation,
        } => RecordKind::Register(RegisterWrite {
            name,
            reg: Some(reg),
            extra: None,
            bit_range: None,
            bytes: &s.bytes[..size],
            known: &s.known[..size],
            interpretation,
            short: false,
        }),
        Shape::Memory {
            type_word,
            addr,
            phys,
            size,
            value_text,
        } => RecordKind::Memory(MemoryAccess {
            direction: if type_word[1] == b'R' {
                MemDirection::Read
            } else {
                MemDirection::Write
            },
            form: MemForm::Contiguous,
            type_word,
            addr,
            phys,
            phys2: None,
            size: size as u8,
            exclusive: false,
            translated: false,
            locked: false,
            atomic: None,
            memory_order: false,
            bytes: &s.bytes[..size],
            accessed: &s.accessed[..size],
            known: &s.known[..size],
            value_text,
        }),
    };
    Ok(Record {
        time,
        has_time: true,
        unit,
        cpu,
        kind,
    })
}

/// Time, unit, cpu and the rest of a line of a common shape; `None`, with
/// the parser's state untouched, for any other line.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn read<'a>(
    p: &mut Parser,
    line: &'a [u8],
) -> Option<(u64, Option<TimeUnit>, Option<&'a [u8]>, Shape<'a>)> {
    // A pending LD/ST continuation changes how the first token reads.
    if p.cont.is_some() || !line.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut c = Cursor { line, pos: 0 };
    let (time, raw_time, digits, unit, cpu, mut w);
    if let Some(known) = p.memo.prefix.as_ref().filter(|k| k.text.starts(line)) {
        c.pos = known.text.len;
        (time, raw_time, digits, unit) = (known.time, known.raw_time, known.digits, known.unit);
        cpu = known.cpu.map(|(from, to)| &line[from..to]);
        w = c.word()?;
    } else {
        let time_word = c.word()?;
        digits = time_word.len();
        raw_time = lex::parse_dec_within(line, digits)?;
        let mut t = raw_time;
        let mut u = None;
        w = c.word()?;
        let unit_word = if w == b"clk" {
            Some(TimeUnit::Clk)
        } else {
            unit_of(w)
        };
        if let Some(unit_word) = unit_word {
            u = Some(unit_word);
            if unit_word == TimeUnit::Us {
                t = t.saturating_mul(1_000_000);
            }
            w = c.word()?;
        }
        let mut cpu_at = None;
        if super::super::cpu::is_cpu_field(w) {
            cpu_at = Some((c.pos - w.len(), c.pos));
            w = c.word()?;
        }
        cpu = cpu_at.map(|(from, to)| &line[from..to]);
        p.memo.prefix = Window::of(line, c.pos - w.len()).map(|text| Prefix {
            text,
            time: t,
            digits,
            raw_time,
            unit: u,
            cpu: cpu_at,
        });
        (time, unit) = (t, u);
    }
    let time_text = &line[..digits];
    let shape = match w {
        b"IT" => instruction(
            &mut c,
            InstrForm::Taken,
            Effect::Executed,
            (time_text, raw_time),
            &mut p.memo.state,
        )?,
        b"IS" => instruction(
            &mut c,
            InstrForm::Skipped,
            Effect::CondFail,
            (time_text, raw_time),
            &mut p.memo.state,
        )?,
        b"R" => register(&mut c, &mut p.scratch)?,
        [b'M', b'R' | b'W', b'1' | b'2' | b'4' | b'8'] => {
            memory(&mut c, w, p.opts.big_endian, &mut p.scratch)?
        }
        _ => return None,
    };
    Some((time, unit, cpu, shape))
}

/// `IT (id) address encoding state mode : disassembly` (or `IS`), the id
/// optional.
#[inline(always)]
fn instruction<'a>(
    c: &mut Cursor<'a>,
    form: InstrForm,
    effect: Effect,
    (time_text, time): (&[u8], u64),
    state: &mut Option<StateText>,
) -> Option<Shape<'a>> {
    let mut inst_id = None;
    if c.punct(b'(') {
        // Most often the id is the timestamp, digit for digit.
        let rest = &c.line[c.pos..];
        if rest.get(..time_text.len()) == Some(time_text)
            && rest.get(time_text.len()) == Some(&b')')
        {
            c.pos += time_text.len() + 1;
            inst_id = Some(time);
        } else {
            let id = c.word()?;
            // `(address:index)` and a bracketed address are the general
            // grammar's to sort out.
            if !lex::all_hex(id) || !c.punct(b')') {
                return None;
            }
            inst_id = lex::parse_dec(id);
        }
    }
    let (pc, _) = c.hex()?;
    let (encoding, encoding_word) = c.hex()?;
    if iset_of(encoding_word).is_some() {
        return None;
    }
    let at = c.pos;
    let (iset, mode);
    if let Some(known) = state.as_ref().filter(|k| k.text.starts(&c.line[at..])) {
        c.pos += known.text.len;
        iset = known.iset;
        mode = known.mode.map(|(from, to)| &c.line[at + from..at + to]);
    } else {
        (iset, _) = iset_of(c.word()?)?;
        let mut mode_at = None;
        mode = if c.punct(b':') {
            None
        } else {
            let mode = c.word()?;
            mode_at = Some((c.pos - mode.len() - at, c.pos - at));
            if !c.punct(b':') {
                return None;
            }
            Some(mode)
        };
        *state = Window::of(&c.line[at..], c.pos - at).map(|text| StateText {
            text,
            iset,
            mode: mode_at,
        });
    }
    Some(Shape::Instruction(Instruction {
        form,
        effect,
        pc,
        phys: None,
        iset,
        width: (encoding_word.len() * 4).min(255) as u8,
        encoding,
        mode,
        inst_id,
        capability: None,
        disassembly: c.rest(),
    }))
}

/// `R name value [: interpretation]`, the value one token of exactly the
/// register's digits (or eight for `cpsr`, with nothing after it).
#[inline(always)]
fn register<'a>(c: &mut Cursor<'a>, scratch: &mut super::super::Scratch) -> Option<Shape<'a>> {
    let name = c.word()?;
    if matches!(name, b"DC" | b"IC" | b"TLBI" | b"AT") {
        return None;
    }
    if name.eq_ignore_ascii_case(b"sp") || name.len() >= 3 && name[..3].eq_ignore_ascii_case(b"sp_")
    {
        // `sp` is r13 or the AArch64 SP by its width; what follows the
        // value the general grammar may read as more of it.
        let (value, text) = c.hex()?;
        let (reg, size) = match text.len() {
            8 => (RegId::new(RegClass::R, 13), 4),
            16 => (RegId::new(RegClass::Xsp, 0), 8),
            _ => return None,
        };
        if !c.rest().is_empty() {
            return None;
        }
        scratch.bytes[..8].copy_from_slice(&value.to_le_bytes());
        fill_known(&mut scratch.known, size);
        return Some(Shape::Register {
            name,
            reg,
            size,
            interpretation: b"",
        });
    }
    let reg = RegId::lookup(name)?;
    let cpsr = reg.class == RegClass::Psr && name == b"cpsr";
    let size = match reg.class {
        // Sized from the data by the general grammar.
        RegClass::Fpcr => return None,
        _ if reg.class.variable_length() => return None,
        _ if cpsr => 4,
        _ => reg.size(),
    };
    if size == 4 || size == 8 {
        let (value, text) = c.hex()?;
        if text.len() != 2 * size {
            return None;
        }
        scratch.bytes[..8].copy_from_slice(&value.to_le_bytes());
    } else {
        let text = c.word()?;
        if text.len() != 2 * size || !decode_hex_le(text, &mut scratch.bytes[..size]) {
            return None;
        }
    }
    // Producers append flag text to cpsr; the general grammar decides what
    // of it is value.
    if cpsr && !c.rest().is_empty() {
        return None;
    }
    fill_known(&mut scratch.known, size);
    // Past an optional ':' the rest is the producer's reading of the value.
    c.punct(b':');
    Some(Shape::Register {
        name,
        reg,
        size,
        interpretation: lex::trim(c.rest()),
    })
}

/// Marks the first `size` bytes of a scratch buffer set. Up to eight (every
/// memory access here, most registers) as one store of eight: the record
/// sees only the first `size`, and a fill of a variable length is a call to
/// `memset`, 1% of indexing.
#[inline(always)]
fn fill_known(flags: &mut [u8; 256], size: usize) {
    if size <= 8 {
        flags[..8].fill(1);
    } else {
        flags[..size].fill(1);
    }
}

/// `MR4 address[:physical] value` and the like, up to eight bytes: `type_word`
/// is `M`, `R` or `W`, then the size.
#[inline(always)]
fn memory<'a>(
    c: &mut Cursor<'a>,
    type_word: &'a [u8],
    big_endian: bool,
    scratch: &mut super::super::Scratch,
) -> Option<Shape<'a>> {
    // Not `X` (exclusive), `(` or `TRANSFER`: those are the general grammar's.
    let (addr, _) = c.hex()?;
    let phys = if c.punct(b':') {
        Some(hex_with_namespace(c.word()?)?)
    } else {
        None
    };
    // Unknown data (`xxxxxxxx`), `_` separators and values wider than 64
    // bits are the general grammar's.
    let (value, value_text) = c.data()?;
    let size = usize::from(type_word[2] - b'0');
    // The low `size` bytes of the value, in address order.
    if big_endian {
        scratch.bytes[..size].copy_from_slice(&value.to_be_bytes()[8 - size..]);
    } else {
        scratch.bytes[..size].copy_from_slice(&value.to_le_bytes()[..size]);
    }
    fill_known(&mut scratch.known, size);
    fill_known(&mut scratch.accessed, size);
    Some(Shape::Memory {
        type_word,
        addr,
        phys,
        size,
        value_text,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::{Dialect, ParseOptions, Parser};
    use std::path::{Path, PathBuf};

    /// Every Tarmac-dialect trace in tests/data.
    fn traces() -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for e in std::fs::read_dir(dir).expect("tests/data readable") {
                let p = e.expect("dir entry").path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p
                    .extension()
                    // Compressed traces (`farm/*.tarmac.gz`) are not lines.
                    .is_none_or(|x| x != "elf" && x != "ref" && x != "md" && x != "gz")
                {
                    out.push(p);
                }
            }
        }
        let mut v = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data"),
            &mut v,
        );
        v.sort();
        v
    }

    /// What a parser made of one line: the record and the state it left.
    fn outcome(p: &mut Parser, line: &[u8], general_only: bool) -> String {
        let rec = if general_only {
            format!("{:?}", super::super::parse_general(p, line))
        } else {
            format!("{:?}", p.parse_line(line))
        };
        format!("{rec} then {:?}", p.state())
    }

    /// Variants of a line that must not fool the fast path: cut short at
    /// every byte, spaces doubled or turned into tabs, letters' case
    /// flipped, one byte replaced by another class of byte.
    fn variants(line: &[u8]) -> Vec<Vec<u8>> {
        let mut v: Vec<Vec<u8>> = (0..line.len()).map(|n| line[..n].to_vec()).collect();
        v.push(
            line.iter()
                .flat_map(|&b| if b == b' ' { vec![b' ', b' '] } else { vec![b] })
                .collect(),
        );
        v.push(
            line.iter()
                .map(|&b| if b == b' ' { b'\t' } else { b })
                .collect(),
        );
        v.push(
            line.iter()
                .map(|b| {
                    if b.is_ascii_uppercase() {
                        b.to_ascii_lowercase()
                    } else {
                        b.to_ascii_uppercase()
                    }
                })
                .collect(),
        );
        for (i, &b) in line.iter().enumerate() {
            for r in [b'_', b':', b'x', b'(', b'.'] {
                if r != b {
                    let mut l = line.to_vec();
                    l[i] = r;
                    v.push(l);
                }
            }
        }
        v
    }

    /// Lines near the fast path's edges that the test data may lack.
    const EDGES: &str = "\
10 clk IT (10) 00008000 e3a00000 A svc_s : MOV      r0,#0
10 clk IS (11) 00008004 0a000001 A svc_s : BEQ      {pc}+0xc
10 clk IT (12) 8006 4770 T thread : BX lr
10 clk IT (ab) 00008000 e3a00000 A : MOV r0,#0
10 ns cpu3 IT (12) 00008000 e3a00000 A svc_s : MOV r0,#0
10 us IT (12) 00008000 e3a00000 A svc_s :
18446744073709551615 clk IT (99999999999999999999) ffffffffffffffff 00000000e3a00000 O EL1h_n :   x
18446744073709551616 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (00008000) e3a00000 A svc_s : MOV r0,#0
10 clk IT (00008000:17) 00008000 e3a00000 T16 : MOVS r0,#0
10 clk IT (12) 00008000:000000008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (12) 00008000 e3a00000 svc_s : MOV r0,#0
10 clk R X0 0000000000300000
10 clk R x30 0000000000300000 : text after
10 clk R W3 00300000
10 clk R r13_svc 0010fff8
10 clk R SP_EL3 000000000010fff8
10 clk R sp 0010fff8
10 clk R SP 000000000010fff8
10 clk R sp_el1 000000000010fff8 : x
10 clk R Sp_svc 0010fff8
10 clk R spsr 000003cd
10 clk R SP_EL3 0010fff8
10 clk R SP_EL3 00000000_0010fff8
10 clk MW8 003fff20:0000003fff20 00000000_003fff80
10 clk MW8 003fff20:0000003fff20 00000000_003fff80_
10 clk MW4 003fff20:0000003fff20 00000000_003fff80
10 clk MW8 003fff20:0000003fff20 0000000_0003fff80
10 clk MW8 003fff20:0000003fff20 00000000_003fff80 more
10 clk R cpsr 200003cd
10 clk R cpsr 600001d3 __C_
10 clk R CPSR 200003cd
10 clk R FPCR 0000000003000000
10 clk R X0 00000000_00300000
10 clk R X0 300000
10 clk R X0 --------00300000
10 clk R X0 (AARCH64) 0000000000300000
10 clk R X0<31:0> 00300000
10 clk R DC CIVAC 0000000080000000
10 clk R TPIDR_EL0 0000000000000001
10 clk R D0 3ff0000000000000
10 clk R Q0 00000000000000003ff0000000000000
10 clk R Z0 00000000000000000000000000000000
10 clk MR4 000107e8:0000000107e8 fffffac3
10 clk MW8 000107e8:0000000107e8_NS 00000000fffffac3
10 clk MR1 000107e8 c3
10 clk MR2 000107e8 c3
10 clk MW4 000107e8 00000000fffffac3
10 clk MR4 000107e8 xxxxxxxx
10 clk MR4 000107e8 ffff_fac3
10 clk MR4 X 000107e8 fffffac3
10 clk MR4 000107e8 (ABORTED)
10 clk MR4 TRANSFER 00000001
10 clk MR8 00000000:000000000000 0000000000000001 extra words
10 clk MR16 000107e0 00000000000000010000000000000002
10 clk MW4X 000107e8 00000001
10 clk LD 000107e0 ........ ........ ........ 00000001
          000107f0 ........ ........ ........ 00000002
10 clk R X0 0000000000000001
10 clk ST 000107e0 ........ ........ ........ 00000001
10 clk MR4 000107e8 fffffac3
10 clk IT (123456789) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (10) 00008004 e3a00000 A svc_s : MOV r0,#0
10 clk IT (100) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (10a) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk IT (10:1) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk cpu1 IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0
10 clk cpu1 R X0 0000000000300000
10 clk cpu1 cpu2 R X0 0000000000300000
10 clk cpu2 R X0 0000000000300000
10 clk  R X0 0000000000300000
10 clk   cpu3 R X0 0000000000300000
10 clk R X0 0000000000300000
10 clk cpu3 R X0 0000000000300000
10 clk ns R X0 0000000000300000
10 clkR X0 0000000000300000
10 us IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0
10 us IT (10) 00008004 e3a00000 A svc_s : MOV r0,#0
10 us R X0 0000000000300000
10 IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0
10 ns IT (10) 00008000 e3a00000 A svc_s : MOV r0,#0
123456789012345678 clk IT (123456789012345678) 00008000 e3a00000 A svc_s : MOV r0,#0
123456789012345678 clk IT (123456789012345678) 00008004 e3a00000 A svc_s : MOV r0,#0
# a comment
10 clk MR4 000107e8 fffffac3
10 clk MR8 00001000:00002000_NS,00003000_NS 0123456789abcdef
10 cyc MNR4___I 00008a18 bf004770
10 cyc BNR4O__I 00008a18 bf004770
10 cyc MNR4O__I 00008a18 bf004770
10 cyc BNR4___I 00008a18 bf004770
10 ns IT (00008a10) 4770 T16 BX lr
10 ns IT (00008a10:00000003) 4770 T16 BX lr
10 ns IT 00008a14 f1000101 T32 ADD r1,r0,#1
10 ns IT 00008000 e3a01000 A MOV r1,#0
IT 00008000 e3a01000 A svc: MOV r1,#0
10 clk R V0<63:0> 00000000
10 clk R X1 --------
";

    #[test]
    fn the_fast_path_agrees_with_the_general_grammar_on_every_line() {
        let mut fast_lines = 0usize;
        let mut variants_checked = 0usize;
        let mut inputs: Vec<(String, Vec<u8>)> = traces()
            .into_iter()
            .map(|p| {
                let data = std::fs::read(&p).expect("trace readable");
                (p.display().to_string(), data)
            })
            .collect();
        inputs.push(("EDGES".into(), EDGES.as_bytes().to_vec()));
        for (path, data) in inputs {
            for big_endian in [false, true] {
                let opts = ParseOptions {
                    big_endian,
                    dialect: Some(Dialect::Tarmac),
                    ..ParseOptions::default()
                };
                let mut fast = Parser::new(opts, Dialect::Tarmac);
                let mut general = Parser::new(opts, Dialect::Tarmac);
                for (n, line) in data.split(|&b| b == b'\n').enumerate() {
                    let before = general.state();
                    if super::parse(&mut fast, line).is_ok() {
                        fast_lines += 1;
                    }
                    fast.set_state(before);
                    assert_eq!(
                        outcome(&mut fast, line, false),
                        outcome(&mut general, line, true),
                        "{path}:{}",
                        n + 1
                    );
                    // Variants of the first lines of each shape in each file.
                    if !big_endian && (n < 100 || n % 2999 == 0 || path == "EDGES") {
                        let after = general.state();
                        for v in variants(line) {
                            fast.set_state(before);
                            general.set_state(before);
                            assert_eq!(
                                outcome(&mut fast, &v, false),
                                outcome(&mut general, &v, true),
                                "{path}:{} as {:?}",
                                n + 1,
                                String::from_utf8_lossy(&v)
                            );
                            variants_checked += 1;
                        }
                        fast.set_state(after);
                        general.set_state(after);
                    }
                }
            }
        }
        // The comparison means something only if the fast path took lines.
        assert!(fast_lines > 100_000, "fast path took {fast_lines} lines");
        assert!(variants_checked > 100_000, "{variants_checked} variants");
    }
}
