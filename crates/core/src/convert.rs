//! `tarmac-lens convert`: a trace rewritten in the other style, so that a
//! tool that reads only one style can read any trace.
//!
//! Fast Models style writes `IT`/`IS` instruction lines and `MR`/`MW`
//! memory lines; ES style writes `ES (address:encoding)` lines and `LD`/`ST`
//! 16-byte diagrams. Only what has an equivalent in the other style is
//! rewritten, so that the events (`dump`'s `*` lines) stay the same: a
//! memory access the other style cannot show as one event (across a 16-byte
//! window, or wider than 8 bytes and unknown), an instruction that failed
//! to fetch or whose address is a capability (which only the Fast Models
//! style writes), and every other line are copied as they are. A line's
//! timestamp, unit and core field are kept as written.

use std::io::Write;

use crate::lines::LineReader;
use crate::parse::*;
use crate::source::TraceSource;
use crate::{Error, Result};

/// The style to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `IT`/`IS` and `MR`/`MW` lines.
    FastModel,
    /// `ES` lines and `LD`/`ST` diagrams.
    Es,
}

impl Style {
    /// The style named as `--style` takes it (`fastmodel` or `es`).
    pub fn from_name(s: &str) -> Option<Style> {
        match s {
            "fastmodel" => Some(Style::FastModel),
            "es" => Some(Style::Es),
            _ => None,
        }
    }
}

/// Where `part`, a slice of `line`, begins in it.
fn offset_in(line: &[u8], part: &[u8]) -> Option<usize> {
    let offset = (part.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
    (!part.is_empty() && line.get(offset..)?.starts_with(part)).then_some(offset)
}

/// The text before an instruction line's type word (timestamp, unit, core).
fn instruction_prefix(line: &[u8]) -> Option<usize> {
    let mut pos = 0;
    while pos < line.len() {
        let start = pos
            + line[pos..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let end = start
            + line[start..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace())
                .count();
        let word = &line[start..end];
        if matches!(word, b"IT" | b"IS" | b"IF" | b"ES") || word.starts_with(b"ES(") {
            return Some(start);
        }
        if end == start {
            break;
        }
        pos = end;
    }
    None
}

fn iset_letter(i: &Instruction<'_>) -> &'static str {
    match i.iset {
        ISet::Arm => "A",
        ISet::Thumb if i.width == 16 => "T16",
        ISet::Thumb => "T32",
        ISet::A64 => "O",
        ISet::ThumbEE => "X",
        ISet::C64 => "C",
    }
}

fn address(v: u64) -> String {
    if v > u64::from(u32::MAX) {
        format!("{v:016x}")
    } else {
        format!("{v:08x}")
    }
}

/// The instruction in `style`, or `None` where it has no equivalent.
fn instruction_line(i: &Instruction<'_>, style: Style) -> Option<Vec<u8>> {
    if i.effect == Effect::FetchFail || i.capability.is_some() {
        return None;
    }
    let digits = usize::from(i.width / 4).max(1);
    let enc = format!("{:0digits$x}", i.encoding);
    let mode = i.mode.map(String::from_utf8_lossy).unwrap_or_default();
    let mut out = match style {
        Style::FastModel => {
            let ty = if i.effect == Effect::CondFail {
                "IS"
            } else {
                "IT"
            };
            let id = i.inst_id.map(|n| format!("({n}) ")).unwrap_or_default();
            format!(
                "{ty} {id}{} {enc} {} {mode} : ",
                address(i.pc),
                iset_letter(i)
            )
        }
        Style::Es => {
            let fail = if i.effect == Effect::CondFail {
                "CCFAIL "
            } else {
                ""
            };
            format!(
                "ES ({}:{enc}) {} {mode} : {fail}",
                address(i.pc),
                iset_letter(i)
            )
        }
    }
    .into_bytes();
    out.extend_from_slice(i.disassembly);
    Some(out)
}

/// `MR<n>`/`MW<n>` for bytes `bytes` (address order) at `addr`, or with
/// the value unknown.
fn mr_line(read: bool, addr: u64, bytes: &[u8], known: bool, big_endian: bool) -> Vec<u8> {
    let mut s = format!(
        "M{}{} {} ",
        if read { 'R' } else { 'W' },
        bytes.len(),
        address(addr)
    );
    if !known {
        s.push_str(&"x".repeat(2 * bytes.len()));
    } else if big_endian {
        bytes.iter().for_each(|b| s.push_str(&format!("{b:02x}")));
    } else {
        bytes
            .iter()
            .rev()
            .for_each(|b| s.push_str(&format!("{b:02x}")));
    }
    s.into_bytes()
}

/// One `LD`/`ST` diagram of the 16-byte window at `base`: `bytes[i]` is at
/// `addr + i`, shown as `##` when not `known`; then the window's physical
/// address, as ES traces write it after the bytes (`S:00000ffff0`).
fn diagram_line(
    read: bool,
    base: u64,
    addr: u64,
    bytes: &[u8],
    known: bool,
    phys: Option<(u64, &str)>,
) -> Vec<u8> {
    let mut s = format!("{} {}", if read { "LD" } else { "ST" }, address(base));
    for k in 0..16u64 {
        if k % 4 == 0 {
            s.push(' ');
        }
        let at = base + 15 - k;
        match at.checked_sub(addr).map(|i| i as usize) {
            Some(i) if i < bytes.len() && known => s.push_str(&format!("{:02x}", bytes[i])),
            Some(i) if i < bytes.len() => s.push_str("##"),
            _ => s.push_str(".."),
        }
    }
    if let Some((p, space)) = phys {
        s.push_str(&format!("    {space}:{p:010x}"));
    }
    s.into_bytes()
}

/// The access as the other style's lines, one per event `dump` shows for
/// it, or `None` where it cannot keep those events.
fn memory_lines(
    m: &MemoryAccess<'_>,
    line: &[u8],
    style: Style,
    big_endian: bool,
) -> Option<Vec<Vec<u8>>> {
    let read = match m.direction {
        MemDirection::Read => true,
        MemDirection::Write => false,
        MemDirection::Update => return None,
    };
    match (m.form, style) {
        (MemForm::Diagram, Style::FastModel) => {
            let mut out = Vec::new();
            for (lo, len, known) in m.diagram_runs() {
                if !known && len > 8 {
                    return None;
                }
                let addr = m.addr.wrapping_add(lo as u64);
                out.push(mr_line(
                    read,
                    addr,
                    &m.bytes[lo..lo + len],
                    known,
                    big_endian,
                ));
            }
            Some(out)
        }
        (MemForm::Contiguous, Style::Es) => {
            // A diagram has room for one physical address and no flags.
            let plain = !(m.exclusive || m.translated || m.locked || m.memory_order)
                && m.atomic.is_none()
                && m.phys2.is_none();
            let fields = match (offset_in(line, m.type_word), offset_in(line, m.value_text)) {
                (Some(from), Some(to)) if from <= to => &line[from..to],
                _ => line,
            };
            let space = if fields.windows(3).any(|w| w == b"_NS") {
                "NS"
            } else {
                "S"
            };
            let size = usize::from(m.size);
            let known = m.known.iter().all(|&k| k != 0);
            if !plain || (!known && m.known.iter().any(|&k| k != 0)) || (!known && size > 8) {
                return None;
            }
            // `dump` splits a wide access into 8-byte pieces, lowest first.
            let mut out = Vec::new();
            for off in (0..size).step_by(8) {
                let n = (size - off).min(8);
                let addr = m.addr.wrapping_add(off as u64);
                let base = addr & !15;
                if addr - base + n as u64 > 16 {
                    return None;
                }
                let phys = m
                    .phys
                    .map(|p| (p.wrapping_add(off as u64).wrapping_sub(addr - base), space));
                out.push(diagram_line(
                    read,
                    base,
                    addr,
                    &m.bytes[off..off + n],
                    known,
                    phys,
                ));
            }
            Some(out)
        }
        _ => None,
    }
}

/// Rewrites a whole source in `style` to `w`.
pub fn convert<S: TraceSource, W: Write>(
    mut source: S,
    opts: ParseOptions,
    style: Style,
    w: &mut W,
) -> Result<()> {
    let sample = crate::source::read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    if parser.dialect() != Dialect::Tarmac {
        return Err(Error::Convert(format!(
            "convert rewrites Tarmac traces only; this one reads as {}",
            parser.dialect().name()
        )));
    }
    let mut reader = LineReader::new(source);
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    // Continuation lines have no prefix of their own: they take their
    // diagram's.
    let mut last_prefix: Vec<u8> = Vec::new();
    while let Some(line) = reader.next_line()? {
        let text = line.text.strip_suffix(b"\r").unwrap_or(line.text);
        let rec = parser.parse_line(line.text);
        let mut lines: Option<Vec<Vec<u8>>> = None;
        let mut prefix_end = None;
        match &rec.kind {
            RecordKind::Instruction(i) => {
                prefix_end = instruction_prefix(text);
                let same = matches!(
                    (i.form, style),
                    (InstrForm::Es, Style::Es)
                        | (InstrForm::Taken | InstrForm::Skipped, Style::FastModel)
                );
                if !same && prefix_end.is_some() {
                    lines = instruction_line(i, style).map(|l| vec![l]);
                }
            }
            RecordKind::Memory(m) => {
                prefix_end = offset_in(text, m.type_word);
                let same = matches!(
                    (m.form, style),
                    (MemForm::Diagram, Style::Es) | (MemForm::Contiguous, Style::FastModel)
                );
                if !same {
                    lines = memory_lines(m, text, style, opts.big_endian);
                }
            }
            _ => {}
        }
        if let Some(end) = prefix_end {
            last_prefix = text[..end].to_vec();
        }
        match lines {
            Some(lines) => {
                let prefix = match prefix_end {
                    Some(end) => &text[..end],
                    None => &last_prefix[..],
                };
                for l in lines {
                    out.extend_from_slice(prefix);
                    out.extend_from_slice(&l);
                    out.push(b'\n');
                }
            }
            None => {
                out.extend_from_slice(text);
                out.push(b'\n');
            }
        }
        if out.len() > (1 << 16) {
            w.write_all(&out).map_err(Error::Write)?;
            out.clear();
        }
    }
    w.write_all(&out).map_err(Error::Write)?;
    w.flush().map_err(Error::Write)?;
    Ok(())
}
