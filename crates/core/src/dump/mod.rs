//! `tarmac-lens dump`: records rendered in the reference tools' parser-test
//! format, so that dumping `parsertest.txt` diffs cleanly against
//! `parsertest.ref`.
//!
//! Per line: `--- Tarmac line: <text>`, then one `* <Kind>Event ...` line per
//! event the reference parser would emit. Blank lines and `#` comments print
//! nothing (the reference test harness skips them). Record kinds the
//! reference format has no event for are rendered as `dump/extra.rs`
//! documents; lines we cannot parse print
//! `Parse error: <reason> (column <n>)`.

mod extra;

use crate::{Error, Result};
use std::io::Write;

use crate::lines::LineReader;
use crate::parse::*;
use crate::source::TraceSource;

/// Renders records one line at a time. Holds the little state the format
/// needs: system-operation warnings are printed once per operation name.
pub struct Dumper {
    big_endian: bool,
    warned_sysops: Vec<Vec<u8>>,
}

fn hex(out: &mut Vec<u8>, v: u64) {
    let _ = write!(out, "{:x}", v);
}

impl Dumper {
    /// A dumper for a trace read with `opts` (its endianness shows in memory
    /// values).
    pub fn new(opts: &ParseOptions) -> Dumper {
        Dumper {
            big_endian: opts.big_endian,
            warned_sysops: Vec::new(),
        }
    }

    /// Appends the rendering of one line and its record to `out`.
    pub fn line(&mut self, text: &[u8], rec: &Record<'_>, out: &mut Vec<u8>) {
        if matches!(rec.kind, RecordKind::Blank | RecordKind::Comment) {
            return;
        }
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        out.extend_from_slice(b"--- Tarmac line: ");
        out.extend_from_slice(text);
        out.push(b'\n');
        let t = rec.time;
        match &rec.kind {
            RecordKind::Blank
            | RecordKind::Comment
            | RecordKind::Header(Header {
                kind: HeaderKind::TarmacText,
                ..
            })
            | RecordKind::CoprocTransfer(_) => {}
            RecordKind::Instruction(i) => {
                let _ = write!(
                    out,
                    "* InstructionEvent time={} effect={} pc={:x} iset={} width={} instruction={:x} disassembly=\"",
                    t,
                    match i.effect {
                        Effect::Executed => "executed",
                        Effect::CondFail => "ccfail",
                        Effect::FetchFail => "fetchfail",
                    },
                    i.pc,
                    match i.iset {
                        ISet::Arm => "ARM",
                        ISet::Thumb => "Thumb",
                        ISet::A64 => "A64",
                        ISet::ThumbEE => "ThumbEE",
                        ISet::C64 => "C64",
                    },
                    i.width,
                    i.encoding
                );
                out.extend_from_slice(i.disassembly);
                out.push(b'"');
                if let Some(c) = i.capability {
                    // Not in the reference format: a Morello FVP's address.
                    let (base, top) = c.bounds(i.pc);
                    let _ = write!(
                        out,
                        " capability_tag={} capability_meta={:x} base={base:x} top={top:x}",
                        u8::from(c.tag),
                        c.meta
                    );
                }
                out.push(b'\n');
            }
            RecordKind::Register(r) => {
                if let Some(reg) = r.reg {
                    register_events(out, t, reg, r.bytes, r.known);
                }
            }
            RecordKind::Memory(m) => self.memory_events(out, t, m),
            RecordKind::Exception(_) => {
                let _ = writeln!(out, "* ExceptionEvent time={}", t);
            }
            RecordKind::Text(e) => text_event(out, t, e.type_word, e.text),
            // An RTL logger's fetch (`MR4_I`), which the reference tools
            // read as a memory access: its value as written.
            RecordKind::Bus(b) if fetch_word(b.type_word).is_some() => {
                let known = !b.data.iter().all(|&c| c == b'x' || c == b'X');
                let contents = if known {
                    b.data
                        .iter()
                        .filter_map(|&c| (c as char).to_digit(16))
                        .fold(0u64, |v, d| (v << 4) | u64::from(d))
                } else {
                    0
                };
                let _ = write!(
                    out,
                    "* MemoryEvent time={} read={} known={} addr=",
                    t,
                    b.read == Some(true),
                    known
                );
                hex(out, b.addr.unwrap_or(0));
                let _ = write!(out, " size={} contents=", b.size.unwrap_or(0));
                hex(out, contents);
                out.push(b'\n');
            }
            // The reference tools show an instruction-side `M` transfer as
            // text; `parsertest.ref` holds the dump to that.
            RecordKind::Bus(b)
                if b.instruction_side == Some(true) && b.type_word.first() == Some(&b'M') =>
            {
                text_event(out, t, b.type_word, from_subslice(text, b.type_word));
            }
            RecordKind::Branch(b) if b.kind == BranchKind::Es => text_event(out, t, b"BR", b.text),
            RecordKind::SystemOp(s) => {
                if !self.warned_sysops.iter().any(|w| w == s.op) {
                    self.warned_sysops.push(s.op.to_vec());
                    out.extend_from_slice(b"Parse warning: unsupported system operation '");
                    out.extend_from_slice(s.op);
                    out.extend_from_slice(b"'\n");
                }
            }
            RecordKind::Unparsed(u) => {
                let _ = writeln!(out, "Parse error: {} (column {})", u.reason, u.column);
            }
            _ => {
                let mut s = String::new();
                if extra::render_extra(rec, &mut s) {
                    out.extend_from_slice(s.as_bytes());
                }
            }
        }
    }

    fn memory_events(&self, out: &mut Vec<u8>, t: u64, m: &MemoryAccess<'_>) {
        let read = m.direction == MemDirection::Read;
        let mut event = |addr: u64, size: usize, known: bool, contents: u64| {
            let _ = write!(
                out,
                "* MemoryEvent time={} read={} known={} addr=",
                t, read, known
            );
            hex(out, addr);
            let _ = write!(out, " size={} contents=", size);
            hex(out, contents);
            out.push(b'\n');
        };
        match m.form {
            MemForm::Contiguous if m.size <= 8 => {
                let size = m.size as usize;
                let known = m.known.iter().all(|&k| k != 0);
                // The reference event carries the value as written (even
                // digits beyond the access size), in logical order.
                let mut contents = 0u64;
                if known {
                    for &c in m.value_text {
                        if c.is_ascii_hexdigit() {
                            contents =
                                (contents << 4) | u64::from((c as char).to_digit(16).unwrap_or(0));
                        }
                    }
                    if m.memory_order && !self.big_endian {
                        let mut v = 0u64;
                        for i in 0..size {
                            let b = (contents >> (8 * i)) & 0xff;
                            v |= b << (8 * (size - 1 - i));
                        }
                        contents = v;
                    }
                }
                event(m.addr, size, known, contents);
            }
            MemForm::Contiguous => {
                // Wider than one event: split into 8-byte pieces, lowest
                // address first.
                let mut off = 0usize;
                while off < m.size as usize {
                    let n = (m.size as usize - off).min(8);
                    let piece = &m.bytes[off..off + n];
                    let known = m.known[off..off + n].iter().all(|&k| k != 0);
                    let v = if known {
                        crate::parse::bytes_value(piece, self.big_endian)
                    } else {
                        0
                    };
                    event(m.addr.wrapping_add(off as u64), n, known, v);
                    off += n;
                }
            }
            MemForm::Diagram => {
                // Walk the picture left to right (highest address first),
                // emitting unknown runs and known runs of at most 8 bytes.
                let at = |k: usize| 15 - k;
                let mut i = 0usize;
                while i < 16 {
                    if m.accessed[at(i)] == 0 {
                        i += 1;
                    } else if m.known[at(i)] == 0 {
                        let mut j = i;
                        while j < 16 && m.accessed[at(j)] != 0 && m.known[at(j)] == 0 {
                            j += 1;
                        }
                        event(m.addr.wrapping_add(16 - j as u64), j - i, false, 0);
                        i = j;
                    } else {
                        let mut j = i;
                        while j < 16 && j - i < 8 && m.accessed[at(j)] != 0 && m.known[at(j)] != 0 {
                            j += 1;
                        }
                        let lo = at(j - 1);
                        let v =
                            crate::parse::bytes_value(&m.bytes[lo..lo + (j - i)], self.big_endian);
                        event(m.addr.wrapping_add(16 - j as u64), j - i, true, v);
                        i = j;
                    }
                }
            }
        }
    }
}

/// `line` from where `part`, a slice of it, begins (all of `line` if `part`
/// is not one).
fn from_subslice<'l>(line: &'l [u8], part: &[u8]) -> &'l [u8] {
    let offset = (part.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    match line.get(offset..) {
        Some(rest) if rest.starts_with(part) => rest,
        _ => line,
    }
}

fn text_event(out: &mut Vec<u8>, t: u64, type_word: &[u8], text: &[u8]) {
    let _ = write!(out, "* TextOnlyEvent time={} type=\"", t);
    out.extend_from_slice(type_word);
    out.extend_from_slice(b"\" text=\"");
    out.extend_from_slice(text);
    out.extend_from_slice(b"\"\n");
}

/// One event per maximal run of known bytes, as the reference parser splits
/// partial updates. Offsets are byte offsets from the least significant end,
/// in hex; bytes print most significant first.
fn register_events(out: &mut Vec<u8>, t: u64, reg: RegId, bytes: &[u8], known: &[u8]) {
    let mut i = 0;
    while i < bytes.len() {
        if known[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && known[i] != 0 {
            i += 1;
        }
        let _ = write!(
            out,
            "* RegisterEvent time={} reg={} offset={:x} bytes=",
            t, reg, start
        );
        for (n, b) in bytes[start..i].iter().rev().enumerate() {
            if n > 0 {
                out.push(b':');
            }
            let _ = write!(out, "{:02x}", b);
        }
        out.push(b'\n');
    }
}

/// Dumps a whole source to `w`.
pub fn dump<S: TraceSource, W: Write>(mut source: S, opts: ParseOptions, w: &mut W) -> Result<()> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    let mut dumper = Dumper::new(&opts);
    let mut reader = LineReader::new(source);
    let mut out = Vec::with_capacity(1 << 16);
    while let Some(line) = reader.next_line()? {
        let rec = parser.parse_line(line.text);
        dumper.line(line.text, &rec, &mut out);
        if out.len() > (1 << 16) {
            w.write_all(&out).map_err(Error::Write)?;
            out.clear();
        }
    }
    w.write_all(&out).map_err(Error::Write)?;
    w.flush().map_err(Error::Write)?;
    Ok(())
}
