//! ELF symbol tables (TTU's `--image`), loaded from bytes so the same code
//! works in the browser.
//!
//! Which symbols are kept, how they are named and which one an address
//! resolves to follow Tarmac Trace Utilities' `lib/image.cpp`, because the
//! calltree, profile and flamegraph reports print function names exactly
//! where TTU does:
//!
//! - Every `SHT_SYMTAB` section whose `sh_link` is an `SHT_STRTAB` is read
//!   (not `.dynsym`). Symbols of binding LOCAL, GLOBAL or WEAK and type
//!   NOTYPE, OBJECT or FUNC are kept, unless the name is empty or is an Arm
//!   mapping symbol (`$a`, `$t`, `$x`, `$d`, with or without a suffix).
//!   Section, file and absolute-ness are not considered: `__stack_top`
//!   (NOTYPE, ABS) is a symbol like any other.
//! - Addresses are `st_value` unchanged: a Thumb function keeps its low bit
//!   set (`_start` at `0x10001`). TTU does the same and its index records
//!   Thumb branch targets with the low bit set too, so exact matches still
//!   work; callers must pass addresses in that same convention.
//! - Names that occur more than once are told apart as `name#1`, `name#2`,
//!   ... in symbol table order; the first keeps its bare name.
//! - See [`SymbolTable::find_by_address`] for the address rule.

use std::collections::{BTreeMap, HashMap};

use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::{Endianness, SectionIndex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// STT_NOTYPE: labels and linker-defined symbols.
    Any,
    Object,
    Function,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolBinding {
    Local,
    /// STB_GLOBAL or STB_WEAK.
    Global,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfClass {
    Elf32,
    Elf64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Address in the trace: `elf_addr` plus the load offset.
    pub addr: u64,
    /// `st_value` as in the ELF file.
    pub elf_addr: u64,
    pub size: u64,
    pub kind: SymbolKind,
    pub binding: SymbolBinding,
    /// Raw name from the string table.
    pub name: String,
    /// 0 for the first symbol of this name, 1 for the second, ...
    pub duplicate_nr: usize,
}

impl Symbol {
    /// The name as TTU prints it: `name`, or `name#N` for the N-th duplicate.
    pub fn display_name(&self) -> String {
        if self.duplicate_nr == 0 {
            self.name.clone()
        } else {
            format!("{}#{}", self.name, self.duplicate_nr)
        }
    }
}

/// Symbols of one ELF image. TTU calls this an `Image`.
#[derive(Clone, Debug)]
pub struct SymbolTable {
    symbols: Vec<Symbol>,
    /// Address -> indices into `symbols`, in symbol table order.
    by_addr: BTreeMap<u64, Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
    big_endian: bool,
    class: ElfClass,
    machine: u16,
    load_offset: i64,
}

pub type Image = SymbolTable;

impl SymbolTable {
    /// Reads the symbol tables of an ELF file. `load_offset` is TTU's
    /// `--load-offset`: added to every symbol's ELF address to get its
    /// address in the trace.
    pub fn from_elf_bytes(data: &[u8], load_offset: i64) -> Result<Self, String> {
        // e_ident: magic, then class at byte 4 and data encoding at byte 5.
        if data.len() < 16 || &data[..4] != b"\x7fELF" {
            return Err("not an ELF file (no ELF magic number at its start)".into());
        }
        let class = match data[4] {
            elf::ELFCLASS32 => ElfClass::Elf32,
            elf::ELFCLASS64 => ElfClass::Elf64,
            other => {
                return Err(format!(
                    "unsupported ELF class {other} (expected 32- or 64-bit)"
                ))
            }
        };
        let big_endian = match data[5] {
            elf::ELFDATA2LSB => false,
            elf::ELFDATA2MSB => true,
            other => {
                return Err(format!(
                    "unsupported ELF data encoding {other} (expected little- or big-endian)"
                ))
            }
        };
        let mut table = SymbolTable {
            symbols: Vec::new(),
            by_addr: BTreeMap::new(),
            by_name: HashMap::new(),
            big_endian,
            class,
            machine: 0,
            load_offset,
        };
        // `object` reads headers in place and refuses misaligned ones; bytes
        // from `include_bytes!` or a JS ArrayBuffer copy carry no alignment
        // guarantee, so parse from an 8-byte-aligned copy.
        let words: Vec<u64> = data
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_ne_bytes(w)
            })
            .collect();
        let aligned = &object::pod::bytes_of_slice(&words)[..data.len()];
        match class {
            ElfClass::Elf32 => table.load::<elf::FileHeader32<Endianness>>(aligned)?,
            ElfClass::Elf64 => table.load::<elf::FileHeader64<Endianness>>(aligned)?,
        }
        Ok(table)
    }

    fn load<H: FileHeader<Endian = Endianness>>(&mut self, data: &[u8]) -> Result<(), String> {
        let header = H::parse(data).map_err(|e| format!("malformed ELF header: {e}"))?;
        let endian = header
            .endian()
            .map_err(|e| format!("malformed ELF header: {e}"))?;
        self.machine = header.e_machine(endian);
        let sections = header
            .sections(endian, data)
            .map_err(|e| format!("malformed ELF section headers (truncated file?): {e}"))?;
        let mut tables = 0;
        let mut last_error = None;
        for (index, section) in sections.iter().enumerate() {
            if section.sh_type(endian) != elf::SHT_SYMTAB {
                continue;
            }
            // A table TTU cannot read is skipped silently there; we do the
            // same, but remember why in case nothing else loads.
            let symtab = match object::read::elf::SymbolTable::parse(
                endian,
                data,
                &sections,
                SectionIndex(index),
                section,
            ) {
                Ok(t) => t,
                Err(e) => {
                    last_error = Some(e.to_string());
                    continue;
                }
            };
            tables += 1;
            for sym in symtab.iter() {
                let binding = match sym.st_bind() {
                    elf::STB_LOCAL => SymbolBinding::Local,
                    elf::STB_GLOBAL | elf::STB_WEAK => SymbolBinding::Global,
                    _ => continue,
                };
                let kind = match sym.st_type() {
                    elf::STT_NOTYPE => SymbolKind::Any,
                    elf::STT_OBJECT => SymbolKind::Object,
                    elf::STT_FUNC => SymbolKind::Function,
                    _ => continue,
                };
                // An out-of-range name offset reads as an empty name in TTU,
                // which then drops the symbol.
                let name = symtab.strings().get(sym.st_name(endian)).unwrap_or(&[]);
                if !want_symbol(name) {
                    continue;
                }
                let elf_addr: u64 = sym.st_value(endian).into();
                self.add(Symbol {
                    addr: elf_addr.wrapping_add(self.load_offset as u64),
                    elf_addr,
                    size: sym.st_size(endian).into(),
                    kind,
                    binding,
                    name: String::from_utf8_lossy(name).into_owned(),
                    duplicate_nr: 0,
                });
            }
        }
        if tables == 0 {
            return Err(match last_error {
                Some(e) => format!("ELF symbol table is malformed (truncated file?): {e}"),
                None => "ELF file has no symbol table (was it stripped?)".into(),
            });
        }
        Ok(())
    }

    fn add(&mut self, mut sym: Symbol) {
        let index = self.symbols.len();
        let dups = self.by_name.entry(sym.name.clone()).or_default();
        sym.duplicate_nr = dups.len();
        dups.push(index);
        self.by_addr.entry(sym.addr).or_default().push(index);
        self.symbols.push(sym);
    }

    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }

    pub fn class(&self) -> ElfClass {
        self.class
    }

    /// `e_machine` (`object::elf::EM_AARCH64`, `EM_ARM`, ...).
    pub fn machine(&self) -> u16 {
        self.machine
    }

    pub fn load_offset(&self) -> i64 {
        self.load_offset
    }

    /// Fails if the trace is being read with the other endianness than the
    /// image's (`--li`/`--bi`). TTU only warns; the message is its wording
    /// with the two sides spelled out.
    pub fn check_endianness(&self, big_endian: bool) -> Result<(), String> {
        if big_endian == self.big_endian {
            return Ok(());
        }
        let word = |b: bool| if b { "big-endian" } else { "little-endian" };
        Err(format!(
            "Endianness mismatch between image and provided endianness: the ELF image is {}, but the trace is being read as {}",
            word(self.big_endian),
            word(big_endian)
        ))
    }

    /// All kept symbols, in symbol table order.
    pub fn symbols(&self) -> &[Symbol] {
        &self.symbols
    }

    /// Every symbol with exactly this raw name, in symbol table order.
    pub fn find_all_by_name(&self, name: &str) -> Vec<&Symbol> {
        self.by_name
            .get(name)
            .map(|v| v.iter().map(|&i| &self.symbols[i]).collect())
            .unwrap_or_default()
    }

    /// Looks up `name` or `name#N` (the N-th duplicate), as TTU does. As in
    /// TTU, anything after the last `#` is taken as the duplicate number, so a
    /// symbol whose own name contains `#` cannot be found this way.
    pub fn find_by_name(&self, name: &str) -> Option<&Symbol> {
        let (base, index) = match name.rfind('#') {
            Some(pos) => (&name[..pos], parse_c_int(&name[pos + 1..])?),
            None => (name, 0),
        };
        let index = usize::try_from(index).ok()?;
        let i = *self.by_name.get(base)?.get(index)?;
        Some(&self.symbols[i])
    }

    /// Trace address of a symbol by name (see [`Self::find_by_name`]).
    pub fn address_of(&self, name: &str) -> Option<u64> {
        self.find_by_name(name).map(|s| s.addr)
    }

    /// The symbol TTU shows for a trace address, and the address's offset
    /// from it. TTU's rule (`Image::find_symbol`): walk down from the
    /// highest symbol address not above `addr`; return the first symbol with
    /// a nonzero size that contains `addr`; failing that, the first symbol
    /// seen at all (the nearest label below). Quirk kept on purpose: the walk
    /// stops *before* the lowest symbol address in the image, so symbols
    /// there are never returned, not even on an exact match.
    pub fn find_by_address(&self, addr: u64) -> Option<(&Symbol, u64)> {
        let lowest = *self.by_addr.keys().next()?;
        let mut backup = None;
        for (&at, indices) in self.by_addr.range(..=addr).rev() {
            if at == lowest {
                break;
            }
            for &i in indices {
                let sym = &self.symbols[i];
                if sym.size != 0 && addr - sym.addr < sym.size {
                    return Some((sym, addr - sym.addr));
                }
                backup.get_or_insert(sym);
            }
        }
        backup.map(|s| (s, addr - s.addr))
    }

    /// TTU's `IndexNavigator::get_symbolic_address`: `name`, `name + 0x10`,
    /// or, with no symbol, the address in hex when `fallback_hex` (C++
    /// `showbase`, so zero is `0`, not `0x0`) and the empty string otherwise.
    pub fn symbolic_address(&self, addr: u64, fallback_hex: bool) -> String {
        match self.find_by_address(addr) {
            Some((sym, 0)) => sym.display_name(),
            Some((sym, offset)) => format!("{} + {:#x}", sym.display_name(), offset),
            None if fallback_hex => show_hex(addr),
            None => String::new(),
        }
    }
}

/// C++ `hex << showbase`: no prefix on zero.
fn show_hex(v: u64) -> String {
    if v == 0 {
        "0".into()
    } else {
        format!("{v:#x}")
    }
}

fn want_symbol(name: &[u8]) -> bool {
    // Mapping symbols mark Arm/Thumb/A64 code and data for disassemblers;
    // they are everywhere and share names, so they never identify anything.
    !name.is_empty() && !matches!(name, [b'$', b'a' | b't' | b'x' | b'd', ..])
}

/// `std::stoi` as TTU uses it for `name#N`: optional leading whitespace and
/// sign, at least one digit, anything after the digits ignored, `None` if
/// there are no digits or the value does not fit in an `int`.
fn parse_c_int(s: &str) -> Option<i32> {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let magnitude: i64 = rest[..digits].parse().ok()?;
    let value = if negative { -magnitude } else { magnitude };
    i32::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A64: &[u8] = include_bytes!("../tests/data/elf/quicksort-aarch64-O2-fastmodel-2M.elf");
    const A32: &[u8] = include_bytes!("../tests/data/elf/quicksort-arm-O2-fastmodel-2M.elf");
    const T32: &[u8] = include_bytes!("../tests/data/elf/quicksort-thumb-O2-fastmodel-2M.elf");

    fn load(data: &[u8]) -> SymbolTable {
        SymbolTable::from_elf_bytes(data, 0).unwrap()
    }

    #[test]
    fn c_int() {
        assert_eq!(parse_c_int("1"), Some(1));
        assert_eq!(parse_c_int(" +2abc"), Some(2));
        assert_eq!(parse_c_int("-1"), Some(-1));
        assert_eq!(parse_c_int(""), None);
        assert_eq!(parse_c_int("x"), None);
        assert_eq!(parse_c_int("99999999999"), None);
    }

    #[test]
    fn header_facts() {
        let a64 = load(A64);
        assert_eq!(a64.class(), ElfClass::Elf64);
        assert_eq!(a64.machine(), elf::EM_AARCH64);
        assert!(!a64.is_big_endian());
        let t32 = load(T32);
        assert_eq!(t32.class(), ElfClass::Elf32);
        assert_eq!(t32.machine(), elf::EM_ARM);
    }

    #[test]
    fn no_mapping_or_section_symbols() {
        for data in [A64, A32, T32] {
            let t = load(data);
            assert!(t.symbols().iter().all(|s| !s.name.starts_with('$')));
            assert!(t.find_by_name(".text").is_none());
            assert!(
                t.find_by_name("main.c").is_none(),
                "file symbols are dropped"
            );
        }
    }
}
