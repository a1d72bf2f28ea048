//! The image's side of a coverage: every instruction its executable
//! sections hold (so code never reached counts as 0), each with its source
//! line and function.
//!
//! Sections are cut where a mapping symbol (`$a`, `$t`, `$x`, `$d`) or a
//! function starts, and each piece decoded in its instruction set: `$d`
//! pieces (literal pools, jump tables) are data and hold no instruction.
//! `tests/coverage.rs` counts the instructions `objdump -d` lists.

use std::sync::Arc;

use object::{Object, ObjectSection};

use super::blocks;
use super::classify::{self, Kind, ThumbDecoder};
use crate::debuginfo::DebugInfo;
use crate::parse::ISet;
use crate::symbols::{Contents, SymbolTable};
use crate::{Error, Result};

/// One instruction of the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInsn {
    /// Its address in the trace (load offset applied, no Thumb bit).
    pub addr: u64,
    /// Bytes: 2 or 4.
    pub size: u8,
    /// Its outcomes.
    pub kind: Kind,
}

/// Where an instruction's code comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// Source file and line, from the DWARF.
    pub(crate) line: Option<(String, u32)>,
    /// The innermost DWARF function, else the ELF symbol.
    pub(crate) function: Option<String>,
}

/// An ELF image read for coverage.
pub struct Image {
    pub(crate) name: String,
    pub(crate) digest: u64,
    pub(crate) load_offset: i64,
    pub(crate) code: Vec<CodeInsn>,
    pub(crate) dwarf: Option<DebugInfo>,
    pub(crate) symbols: SymbolTable,
    /// Function symbols by address: start (no Thumb bit), size, index
    /// into the symbol table.
    functions: Vec<(u64, u64, usize)>,
    /// Where the image's basic blocks start, ascending (`blocks`).
    pub(crate) leaders: Vec<u64>,
    /// The loaded image's first and end address and its entry point, in
    /// the trace's addresses: drcov's module table.
    pub(crate) span: (u64, u64, u64),
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("name", &self.name)
            .field("instructions", &self.code.len())
            .finish_non_exhaustive()
    }
}

/// FNV-1a, 64 bits: tells two parts' images apart (not a defence against
/// anyone: a part file is trusted as much as the ELF).
pub(crate) fn fnv1a64(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Image {
    /// Reads the ELF held in `data`, named `name` in the outputs.
    /// `load_offset` is added to every ELF address to get its address in
    /// the trace.
    pub fn from_elf_bytes(name: &str, data: Arc<[u8]>, load_offset: i64) -> Result<Image> {
        let symbols = SymbolTable::from_elf_bytes(&data, load_offset)?;
        let (code, leaders) = decode(&data, &symbols, load_offset)?;
        let span = span(&data, load_offset)?;
        let dwarf = DebugInfo::from_elf_bytes(data.clone(), load_offset)?;
        let mut functions: Vec<(u64, u64, usize)> = symbols
            .symbols()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_function())
            .map(|(i, s)| (s.addr & !1, s.size, i))
            .collect();
        // Of two functions at one address, the one with a size.
        functions.sort_by_key(|&(a, size, _)| (a, size));
        Ok(Image {
            leaders,
            span,
            functions,
            name: name.to_string(),
            digest: fnv1a64(&data),
            load_offset,
            code,
            dwarf,
            symbols,
        })
    }

    /// Every instruction of the executable sections, by address.
    pub fn code(&self) -> &[CodeInsn] {
        &self.code
    }

    /// Whether the image has DWARF line information.
    pub fn has_dwarf(&self) -> bool {
        self.dwarf.is_some()
    }

    /// The line and function of the code at `pc`, as `lines` attributes a
    /// PC (`report::source_lines::attribute`): the innermost frame's line
    /// and function, the ELF symbol for code DWARF does not describe.
    /// Outside the image's code, only a symbol holding `pc` names it: the
    /// nearest one below may be a program away.
    ///
    /// A function not inlined there is named by the ELF symbol holding
    /// `pc`, as the profile names it: a compiler's copy of a function
    /// (`fill.constprop.0`) is a symbol of its own where DWARF names the
    /// source function (`fill`), and the two named apart made one function
    /// at one address two, the symbol's never entered (its padding past
    /// the DWARF's end was all it held).
    pub(crate) fn place(&self, pc: u64, in_image: bool) -> Result<Place> {
        let mut place = Place::default();
        if let Some(dwarf) = &self.dwarf {
            let frames = dwarf.frames(pc)?;
            let location = match frames.first() {
                Some(f) => f.location.clone(),
                None => dwarf.location(pc)?,
            };
            place.line = location.and_then(|l| l.line.map(|n| (l.file, n)));
            place.function = match &frames[..] {
                [only] => self
                    .function_symbol(pc, false)
                    .map(str::to_string)
                    .or_else(|| only.function.clone()),
                _ => frames.first().and_then(|f| f.function.clone()),
            };
        }
        if place.function.is_none() {
            place.function = self.function_symbol(pc, in_image).map(str::to_string);
        }
        Ok(place)
    }

    /// The nearest function symbol (`STT_FUNC`) at or below `pc` (assembly
    /// often gives no size, so not only one holding it), else the nearest
    /// label; else (`nearest` false) only a function symbol whose size covers
    /// `pc`. Not the reports' lookup: that one follows the reference
    /// tools, which never name the image's lowest symbol (often `_start`).
    fn function_symbol(&self, pc: u64, nearest: bool) -> Option<&str> {
        let i = self.functions.partition_point(|&(a, _, _)| a <= pc);
        let name = |n: usize| self.symbols.symbols()[n].name.as_str();
        match i.checked_sub(1).map(|i| self.functions[i]) {
            Some((_, _, n)) if nearest => Some(name(n)),
            Some((a, size, n)) => (pc - a < size).then(|| name(n)),
            None if nearest => self
                .symbols
                .find_by_address(pc)
                .map(|(s, _)| s.name.as_str()),
            None => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Set {
    A64,
    A32,
    T32,
    Data,
}

/// Where the image lies when loaded (its `PT_LOAD` segments; its
/// allocated sections when it has none) and its entry point, moved by
/// the load offset.
fn span(data: &[u8], load_offset: i64) -> Result<(u64, u64, u64)> {
    use object::ObjectSegment;
    let file = object::File::parse(data)
        .map_err(|e| Error::Elf(format!("not a readable ELF file: {e}")))?;
    let mut ranges: Vec<(u64, u64)> = file
        .segments()
        .filter(|s| s.size() > 0)
        .map(|s| (s.address(), s.address().saturating_add(s.size())))
        .collect();
    if ranges.is_empty() {
        ranges = file
            .sections()
            .filter(|s| s.address() != 0 && s.size() > 0)
            .map(|s| (s.address(), s.address().saturating_add(s.size())))
            .collect();
    }
    let start = ranges.iter().map(|r| r.0).min().unwrap_or(0);
    let end = ranges.iter().map(|r| r.1).max().unwrap_or(0);
    let moved = |a: u64| a.wrapping_add(load_offset as u64);
    Ok((moved(start), moved(end), moved(file.entry())))
}

/// The instructions of every executable section of an A64 or A32/T32
/// image, and where its basic blocks start.
fn decode(
    data: &[u8],
    symbols: &SymbolTable,
    load_offset: i64,
) -> Result<(Vec<CodeInsn>, Vec<u64>)> {
    let file = object::File::parse(data)
        .map_err(|e| Error::Elf(format!("not a readable ELF file: {e}")))?;
    let machine = symbols.machine();
    let aarch64 = machine == object::elf::EM_AARCH64;
    if !aarch64 && machine != object::elf::EM_ARM {
        return Err(Error::Elf(format!(
            "coverage decodes Arm code only (AArch64 or AArch32 images), not ELF machine {machine}"
        )));
    }
    // Instructions are little-endian except in a big-endian Arm image
    // without BE8 (the BE-32 of old cores); AArch64 code always is.
    let be8 = match file.flags() {
        object::FileFlags::Elf { e_flags, .. } => e_flags & object::elf::EF_ARM_BE8 != 0,
        _ => false,
    };
    let big = !aarch64 && !file.is_little_endian() && !be8;
    let half = |b: &[u8], i: usize| -> Option<u16> {
        let b: [u8; 2] = b.get(i..i + 2)?.try_into().ok()?;
        Some(if big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        })
    };
    let word = |b: &[u8], i: usize| -> Option<u32> {
        let b: [u8; 4] = b.get(i..i + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let mut out = Vec::new();
    let mut leaders = Vec::new();
    for section in file.sections() {
        if section.kind() != object::SectionKind::Text || section.size() == 0 {
            continue;
        }
        let bytes = section.data().map_err(|e| {
            Error::Elf(format!(
                "section {}: {e}",
                section.name().unwrap_or("(unnamed)")
            ))
        })?;
        let start = section.address().wrapping_add(load_offset as u64);
        let Some(end) = start.checked_add(bytes.len() as u64) else {
            return Err(Error::Elf(format!(
                "section {} runs past the end of the address space",
                section.name().unwrap_or("(unnamed)")
            )));
        };
        let mut cuts = symbols.code_boundaries(start, end);
        cuts.push(end);
        let mut piece_start = start;
        for cut in cuts {
            if cut <= piece_start {
                continue;
            }
            let set = match symbols.contents_at(piece_start) {
                Some(Contents::A64) => Set::A64,
                Some(Contents::Arm) => Set::A32,
                Some(Contents::Thumb) => Set::T32,
                Some(Contents::Data) => Set::Data,
                None if aarch64 => Set::A64,
                None if symbols.code_address(piece_start) & 1 == 1 => Set::T32,
                None => Set::A32,
            };
            let from = (piece_start - start) as usize;
            let to = (cut - start) as usize;
            let mut thumb = ThumbDecoder::default();
            let mut i = from;
            if set != Set::Data {
                leaders.push(piece_start);
            }
            while i < to {
                let (size, kind) = match set {
                    Set::Data => break,
                    Set::A64 | Set::A32 => {
                        let Some(w) = word(bytes, i).filter(|_| i + 4 <= to) else {
                            break;
                        };
                        (
                            4,
                            if set == Set::A64 {
                                classify::a64(w)
                            } else {
                                classify::a32(w)
                            },
                        )
                    }
                    Set::T32 => {
                        let Some(h1) = half(bytes, i).filter(|_| i + 2 <= to) else {
                            break;
                        };
                        let size = classify::thumb_size(h1);
                        if i + usize::from(size) > to {
                            break;
                        }
                        let h2 = if size == 4 {
                            half(bytes, i + 2).unwrap_or(0)
                        } else {
                            0
                        };
                        (size, thumb.next(h1, h2))
                    }
                };
                let pc = start + i as u64;
                let (iset, encoding) = match set {
                    Set::A64 => (ISet::A64, word(bytes, i).unwrap_or(0)),
                    Set::A32 => (ISet::Arm, word(bytes, i).unwrap_or(0)),
                    _ => {
                        let h1 = u32::from(half(bytes, i).unwrap_or(0));
                        let h2 = u32::from(half(bytes, i + 2).unwrap_or(0));
                        (ISet::Thumb, if size == 4 { h1 << 16 | h2 } else { h1 })
                    }
                };
                let flow = blocks::flow(iset, encoding, size, pc);
                if flow.ends {
                    leaders.push(pc + u64::from(size));
                }
                leaders.extend(flow.target);
                out.push(CodeInsn {
                    addr: start + i as u64,
                    size,
                    kind,
                });
                i += usize::from(size);
            }
            piece_start = cut;
        }
    }
    out.sort_unstable_by_key(|c| c.addr);
    out.dedup_by_key(|c| c.addr);
    leaders.sort_unstable();
    leaders.dedup();
    Ok((out, leaders))
}
