//! Source lines from an ELF image's DWARF: a PC to its file, line, column,
//! function and chain of inlined frames, as GNU `addr2line -f -i` prints
//! them (`tests/source_lines.rs` compares every PC of the generated traces).
//!
//! The reading is gimli's, through `addr2line::Context`: DWARF 4 and 5,
//! one line table per compilation unit, inlined subroutines. Opening reads
//! only the unit headers and their address ranges; a unit's line table and
//! function tree are parsed on the first lookup that lands in it, so a
//! 50 MB image opens in a fraction of a second (`benches/dwarf.rs`) and a
//! caller that never asks pays nothing more.
//!
//! Addresses asked about are trace addresses: the load offset (TTU's
//! `--load-offset`, as for [`crate::SymbolTable`]) is taken off before the
//! lookup, and so is a Thumb address's low bit, which line tables never
//! carry.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use object::{Object, ObjectSection};

use crate::Error;

type Reader = gimli::EndianReader<gimli::RunTimeEndian, Arc<[u8]>>;

/// Where an instruction's code comes from in the source.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLocation {
    /// The file as the line table names it: the unit's directory joined
    /// with the file's own directory and name, as the compiler wrote them.
    pub file: String,
    /// 1-based line; `None` for code the compiler tied to no line (line 0).
    pub line: Option<u32>,
    /// 1-based column, when the compiler recorded one.
    pub column: Option<u32>,
}

impl std::fmt::Display for SourceLocation {
    /// `file:line` (`file:?` without a line), the form `addr2line` prints.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}", self.file, l),
            None => write!(f, "{}:?", self.file),
        }
    }
}

/// One frame at a PC: the function whose code it is and where in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The function's name as DWARF gives it (not demangled), `None` when
    /// the PC lies in no described function.
    pub function: Option<String>,
    /// For the innermost frame, the PC's own line; for an outer frame, the
    /// line of the call that was inlined into it.
    pub location: Option<SourceLocation>,
}

/// The DWARF of one ELF image, read on demand.
pub struct DebugInfo {
    context: addr2line::Context<Reader>,
    load_offset: i64,
    units: usize,
    /// The image's code sections, `[start, end)` in DWARF addresses: line
    /// rows elsewhere describe code the linker dropped (`--gc-sections`
    /// leaves their rows at address 0).
    code: Vec<(u64, u64)>,
}

impl std::fmt::Debug for DebugInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebugInfo")
            .field("load_offset", &self.load_offset)
            .field("units", &self.units)
            .finish_non_exhaustive()
    }
}

impl DebugInfo {
    /// Opens the DWARF of an ELF file held in `data`. `Ok(None)` when the
    /// image has no line information (built without `-g`, or stripped):
    /// symbols still work, source lines do not. `load_offset` is added to
    /// every DWARF address to get its address in the trace.
    pub fn from_elf_bytes(data: Arc<[u8]>, load_offset: i64) -> crate::Result<Option<Self>> {
        let file = object::File::parse(&*data)
            .map_err(|e| Error::Elf(format!("not a readable ELF file: {e}")))?;
        if file.section_by_name(".debug_line").is_none() {
            return Ok(None);
        }
        let endian = if file.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let whole = gimli::EndianReader::new(data.clone(), endian);
        let dwarf = gimli::Dwarf::load(|id| -> Result<Reader, Error> {
            let Some(section) = file.section_by_name(id.name()) else {
                return Ok(whole.range(0..0));
            };
            let range = section
                .compressed_file_range()
                .map_err(|e| Error::Elf(format!("section {}: {e}", id.name())))?;
            if range.format != object::CompressionFormat::None {
                // Decompressing would add zlib and zstd to the page for an
                // option few builds use; the fix is one command away.
                return Err(Error::Elf(format!(
                    "section {} is compressed; decompress it with \
                     `objcopy --decompress-debug-sections`",
                    id.name()
                )));
            }
            let start = usize::try_from(range.offset).ok();
            let end =
                start.and_then(|s| s.checked_add(usize::try_from(range.compressed_size).ok()?));
            match (start, end) {
                (Some(s), Some(e)) if e <= data.len() => Ok(whole.range(s..e)),
                // SHT_NOBITS sections have no bytes in the file.
                _ if section.kind() == object::SectionKind::UninitializedData => {
                    Ok(whole.range(0..0))
                }
                _ => Err(Error::Elf(format!(
                    "section {} runs past the end of the file",
                    id.name()
                ))),
            }
        })?;
        let code = file
            .sections()
            .filter(|s| s.kind() == object::SectionKind::Text && s.size() > 0)
            .map(|s| (s.address(), s.address().saturating_add(s.size())))
            .collect();
        let units = {
            let mut n = 0;
            let mut headers = dwarf.units();
            while let Ok(Some(_)) = headers.next() {
                n += 1;
            }
            n
        };
        let context = addr2line::Context::from_dwarf(dwarf)
            .map_err(|e| Error::Elf(format!("malformed DWARF: {e}")))?;
        Ok(Some(DebugInfo {
            context,
            load_offset,
            units,
            code,
        }))
    }

    /// How many compilation units the DWARF describes.
    pub fn units(&self) -> usize {
        self.units
    }

    /// The load offset given when opening.
    pub fn load_offset(&self) -> i64 {
        self.load_offset
    }

    /// The DWARF address of trace address `pc`. Bit 0 is dropped: Arm
    /// code is at least 2-byte aligned, and callers hand over Thumb
    /// function addresses with that bit set (symbol values, call targets).
    fn probe(&self, pc: u64) -> u64 {
        pc.wrapping_sub(self.load_offset as u64) & !1
    }

    /// The frames at trace address `pc`, innermost first: the function
    /// whose code the instruction is (perhaps inlined), then each function
    /// it was inlined into, ending with the one that holds the code. Empty
    /// when no unit covers the PC.
    pub fn frames(&self, pc: u64) -> crate::Result<Vec<Frame>> {
        let malformed = |e: gimli::Error| Error::Elf(format!("malformed DWARF at 0x{pc:x}: {e}"));
        let mut iter = self
            .context
            .find_frames(self.probe(pc))
            .skip_all_loads()
            .map_err(malformed)?;
        let mut out = Vec::new();
        while let Some(frame) = iter.next().map_err(malformed)? {
            let function = match &frame.function {
                Some(f) => Some(f.raw_name().map_err(malformed)?.into_owned()),
                None => None,
            };
            out.push(Frame {
                function,
                location: frame.location.as_ref().and_then(location),
            });
        }
        Ok(out)
    }

    /// Where the code at trace address `pc` comes from: the innermost
    /// frame's location (the line the instruction was compiled from).
    pub fn location(&self, pc: u64) -> crate::Result<Option<SourceLocation>> {
        let found = self
            .context
            .find_location(self.probe(pc))
            .map_err(|e| Error::Elf(format!("malformed DWARF at 0x{pc:x}: {e}")))?;
        Ok(found.as_ref().and_then(location))
    }
}

impl DebugInfo {
    /// Every source line that has code in the image, by file: what a
    /// line count shows as never run when the trace reached none of it.
    /// Reads every unit's line table.
    pub fn lines_with_code(&self) -> BTreeMap<String, BTreeSet<u32>> {
        // Keyed by the borrowed name while reading: rows run to millions.
        let mut found: std::collections::HashMap<&str, Vec<u32>> = Default::default();
        for &(start, end) in &self.code {
            let Ok(rows) = self.context.find_location_range(start, end) else {
                continue;
            };
            for (addr, _, loc) in rows {
                if addr < start || addr >= end {
                    continue;
                }
                if let (Some(file), Some(line)) = (loc.file, loc.line) {
                    found.entry(file).or_default().push(line);
                }
            }
        }
        found
            .into_iter()
            .map(|(file, lines)| (file.to_string(), lines.into_iter().collect()))
            .collect()
    }
}

fn location(l: &addr2line::Location<'_>) -> Option<SourceLocation> {
    Some(SourceLocation {
        file: l.file?.to_string(),
        line: l.line,
        column: l.column,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A64: &[u8] =
        include_bytes!("../../../tests/data/elf/quicksort-aarch64-O2-fastmodel-2M.elf");

    #[test]
    fn a_pc_maps_to_its_function_and_line() {
        let info = DebugInfo::from_elf_bytes(A64.into(), 0).unwrap().unwrap();
        let symbols = crate::SymbolTable::from_elf_bytes(A64, 0).unwrap();
        let start = symbols.address_of("tg_main").unwrap();
        let frames = info.frames(start).unwrap();
        let outer = frames.last().unwrap();
        assert_eq!(outer.function.as_deref(), Some("tg_main"));
        let loc = info.location(start).unwrap().unwrap();
        assert!(loc.file.ends_with("main.c"), "{loc}");
        // The same code moved by a load offset is found at its new address.
        let moved = DebugInfo::from_elf_bytes(A64.into(), 0x1000)
            .unwrap()
            .unwrap();
        assert_eq!(moved.frames(start + 0x1000).unwrap(), frames);
        assert!(info.frames(0xdead_0000).unwrap().is_empty());
    }

    #[test]
    fn bad_images_are_errors_and_no_dwarf_is_none() {
        let err = DebugInfo::from_elf_bytes(b"not an elf"[..].into(), 0).unwrap_err();
        assert!(err.to_string().contains("not a readable ELF"), "{err}");
        // Truncating the image cuts its debug sections short.
        let cut = DebugInfo::from_elf_bytes(A64[..A64.len() - 4096].into(), 0);
        assert!(cut.is_err());
        let stripped = strip_debug(A64);
        assert!(DebugInfo::from_elf_bytes(stripped.into(), 0)
            .unwrap()
            .is_none());
    }

    /// Renames every `.debug_*` section to `.nodbg_*` in the section-name
    /// string table: the image as if built without `-g`.
    fn strip_debug(elf: &[u8]) -> Vec<u8> {
        let mut out = elf.to_vec();
        let needle = b".debug_";
        let mut i = 0;
        while i + needle.len() <= out.len() {
            if &out[i..i + needle.len()] == needle {
                out[i..i + needle.len()].copy_from_slice(b".nodbg_");
            }
            i += 1;
        }
        out
    }
}
