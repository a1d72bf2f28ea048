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
//!   Thumb branch targets with the low bit set too, so exact matches work
//!   there. Other callers have a code address without that bit (a branch
//!   target in the disassembly, a PC): [`SymbolTable::find_by_address`], the
//!   one lookup every caller uses, first sets or clears the bit as the
//!   mapping symbols (`$t`, `$a`, `$d`) say the address holds Thumb code,
//!   Arm code or data, so both conventions name the same symbol.
//! - Names that occur more than once are told apart as `name#1`, `name#2`,
//!   ... in symbol table order; the first keeps its bare name.
//! - See [`SymbolTable::find_by_address`] for the address rule.

use std::collections::{BTreeMap, HashMap};

use crate::Error;

use object::elf;
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::{Endianness, SectionIndex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymbolKind {
    /// STT_NOTYPE: labels and linker-defined symbols.
    Any,
    Object,
    Function,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymbolBinding {
    Local,
    /// STB_GLOBAL or STB_WEAK.
    Global,
}

/// Whether an ELF image is 32- or 64-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfClass {
    /// `ELFCLASS32`.
    Elf32,
    /// `ELFCLASS64`.
    Elf64,
}

/// What an Arm mapping symbol says the bytes from its address on hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Contents {
    /// `$a`: A32 code.
    Arm,
    /// `$t`: T32 code; a code address there carries the Thumb bit.
    Thumb,
    /// `$x`: A64 code.
    A64,
    /// `$d`: data (literal pools, tables, variables).
    Data,
}

/// A function or object symbol of the image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Address in the trace: `elf_addr` plus the load offset.
    pub addr: u64,
    /// `st_value` as in the ELF file.
    pub(crate) elf_addr: u64,
    /// `st_size`: its size in bytes (0 when the ELF gives none).
    pub size: u64,
    pub(crate) kind: SymbolKind,
    pub(crate) binding: SymbolBinding,
    /// Raw name from the string table.
    pub name: String,
    /// 0 for the first symbol of this name, 1 for the second, ...
    pub(crate) duplicate_nr: usize,
}

impl Symbol {
    /// Whether it names code (`STT_FUNC`).
    pub fn is_function(&self) -> bool {
        self.kind == SymbolKind::Function
    }

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
///
/// Made from an ELF file's bytes ([`SymbolTable::from_elf_bytes`]); names a
/// trace address by the symbol holding it ([`SymbolTable::find_by_address`],
/// [`SymbolTable::symbolic_address`]) and a name by its address
/// ([`SymbolTable::address_of`]). A [`crate::Session`] takes one with
/// [`crate::Session::load_elf`].
#[derive(Clone, Debug)]
pub struct SymbolTable {
    symbols: Vec<Symbol>,
    /// Address -> indices into `symbols`, in symbol table order.
    by_addr: BTreeMap<u64, Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
    /// Mapping symbols by trace address: where Thumb code, Arm code and
    /// data start.
    mapping: BTreeMap<u64, Contents>,
    big_endian: bool,
    class: ElfClass,
    machine: u16,
    load_offset: i64,
}

impl SymbolTable {
    /// Reads the symbol tables of an ELF file. `load_offset` is TTU's
    /// `--load-offset`: added to every symbol's ELF address to get its
    /// address in the trace.
    pub fn from_elf_bytes(data: &[u8], load_offset: i64) -> crate::Result<Self> {
        Self::read_elf(data, load_offset).map_err(Error::Elf)
    }

    fn read_elf(data: &[u8], load_offset: i64) -> Result<Self, String> {
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
            mapping: BTreeMap::new(),
            big_endian,
            class,
            machine: 0,
            load_offset,
        };
        let words = aligned_words(data);
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
                let elf_addr: u64 = sym.st_value(endian).into();
                if let Some(contents) = mapping_symbol(name) {
                    // Only symbols in sections: an undefined or absolute `$d`
                    // marks nothing.
                    let shndx = sym.st_shndx(endian);
                    if shndx != elf::SHN_UNDEF
                        && (shndx < elf::SHN_LORESERVE || shndx == elf::SHN_XINDEX)
                    {
                        self.mapping
                            .insert(elf_addr.wrapping_add(self.load_offset as u64), contents);
                    }
                    continue;
                }
                if !want_symbol(name) {
                    continue;
                }
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

    /// Whether the image is big-endian.
    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }

    /// Whether it is 32- or 64-bit.
    pub fn class(&self) -> ElfClass {
        self.class
    }

    /// `e_machine` (`object::elf::EM_AARCH64`, `EM_ARM`, ...).
    pub fn machine(&self) -> u16 {
        self.machine
    }

    /// The offset added to every ELF address (`--load-offset`).
    pub fn load_offset(&self) -> i64 {
        self.load_offset
    }

    /// Fails if the trace is being read with the other endianness than the
    /// image's (`--li`/`--bi`). TTU only warns; the message is its wording
    /// with the two sides spelled out.
    pub fn check_endianness(&self, big_endian: bool) -> crate::Result<()> {
        if big_endian == self.big_endian {
            return Ok(());
        }
        let word = |b: bool| if b { "big-endian" } else { "little-endian" };
        Err(Error::Elf(format!(
            "Endianness mismatch between image and provided endianness: the ELF image is {}, but the trace is being read as {}",
            word(self.big_endian),
            word(big_endian)
        )))
    }

    /// Why this image cannot be the traced program's, judged from the
    /// instruction sets of the trace's first instructions, or `None` when
    /// nothing disagrees (or the trace shows no instructions yet). A
    /// trace may run both states (AArch64 firmware, an AArch32 program):
    /// only an image for a state the trace never shows is refused.
    pub fn architecture_mismatch(&self, sets: &crate::sniff::InstructionSets) -> Option<String> {
        let image = match (self.machine, self.class) {
            (elf::EM_AARCH64, _) => "AArch64",
            (elf::EM_ARM, ElfClass::Elf32) => "AArch32 (Arm/Thumb)",
            (elf::EM_ARM, ElfClass::Elf64) => {
                return Some(
                    "the ELF image says Arm (AArch32) but is a 64-bit ELF file, which no Arm toolchain makes: is it damaged?"
                        .into(),
                )
            }
            (machine, _) => {
                return Some(format!(
                    "the ELF image is for {}, not for an Arm processor: its symbols cannot name this trace's code",
                    machine_name(machine)
                ))
            }
        };
        if sets.total() == 0 {
            return None;
        }
        let trace = match (sets.a64 > 0, sets.a32 + sets.t32 > 0) {
            (true, false) if self.machine == elf::EM_ARM => "AArch64",
            (false, true) if self.machine == elf::EM_AARCH64 => {
                match (sets.a32 > 0, sets.t32 > 0) {
                    (true, false) => "AArch32 (Arm)",
                    (false, true) => "AArch32 (Thumb)",
                    _ => "AArch32 (Arm and Thumb)",
                }
            }
            _ => return None,
        };
        Some(format!(
            "the ELF image is for {image}, but the trace runs {trace} code: is it the image of another program? Its names will be wrong"
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
    pub(crate) fn find_by_name(&self, name: &str) -> Option<&Symbol> {
        let (base, index) = match name.rfind('#') {
            Some(pos) => (&name[..pos], parse_c_int(&name[pos + 1..])?),
            None => (name, 0),
        };
        let index = usize::try_from(index).ok()?;
        let i = *self.by_name.get(base)?.get(index)?;
        Some(&self.symbols[i])
    }

    /// Trace address of a symbol by name: `name`, or `name#N` for the N-th
    /// of several symbols of that name, as TTU looks them up.
    pub fn address_of(&self, name: &str) -> Option<u64> {
        self.find_by_name(name).map(|s| s.addr)
    }

    /// The symbol for a trace address, and the address's offset from it:
    /// the one lookup behind every name the CLI, the reports and the page
    /// print. The address may carry the Thumb bit or not: it is first made
    /// a code address in the symbols' convention (the Thumb bit set in
    /// Thumb code of an Arm image), then looked up by TTU's rule (the
    /// nearest symbol at or below it that contains it, else the nearest
    /// label below).
    pub fn find_by_address(&self, addr: u64) -> Option<(&Symbol, u64)> {
        self.find_exact(self.code_address(addr))
    }

    /// `addr` as the symbols of this image write code addresses: in an Arm
    /// (`EM_ARM`) image, with the Thumb bit set where the mapping symbols
    /// say Thumb code starts at or below it, and clear in Arm code; in data
    /// or another architecture's image, unchanged. An image without mapping
    /// symbols falls back on its Thumb functions (odd `st_value`): an
    /// address inside one gets the bit.
    pub(crate) fn code_address(&self, addr: u64) -> u64 {
        if self.machine != elf::EM_ARM {
            return addr;
        }
        let even = addr & !1;
        if self.mapping.is_empty() {
            let thumb = self.find_exact(even | 1).is_some_and(|(sym, offset)| {
                sym.kind == SymbolKind::Function && sym.elf_addr & 1 == 1 && offset < sym.size
            });
            return if thumb { even | 1 } else { addr };
        }
        match self.contents_at(even) {
            Some(Contents::Thumb) => even | 1,
            Some(Contents::Arm) => even,
            _ => addr,
        }
    }

    /// What the mapping symbols say the byte at `addr` holds: the last
    /// mapping symbol at or below it, `None` below the first (or without
    /// any).
    pub(crate) fn contents_at(&self, addr: u64) -> Option<Contents> {
        self.mapping.range(..=addr).next_back().map(|(_, &c)| c)
    }

    /// Addresses in `[start, end)` where a mapping symbol or a function
    /// starts (Thumb bit cleared): where what the bytes hold may change.
    pub(crate) fn code_boundaries(&self, start: u64, end: u64) -> Vec<u64> {
        let mut v: Vec<u64> = self.mapping.range(start..end).map(|(&a, _)| a).collect();
        v.extend(
            self.symbols
                .iter()
                .filter(|s| s.is_function() && (start..end).contains(&(s.addr & !1)))
                .map(|s| s.addr & !1),
        );
        v.sort_unstable();
        v.dedup();
        v
    }

    /// TTU's rule (`Image::find_symbol`) for an address already in the
    /// symbols' convention: walk down from the highest symbol address not
    /// above `addr`; return the first symbol with a nonzero size that
    /// contains `addr`; failing that, the first symbol seen at all (the
    /// nearest label below). Quirk kept on purpose: the walk stops *before*
    /// the lowest symbol address in the image, so symbols there are never
    /// returned, not even on an exact match.
    fn find_exact(&self, addr: u64) -> Option<(&Symbol, u64)> {
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

impl SymbolTable {
    /// The function name TTU's calltree, profile and flamegraph reports
    /// print for a function entry address: the symbol's raw name, empty if
    /// none. When the address is inside a symbol rather than at its start,
    /// TTU appends ` + 0x` and the *address itself*, not the offset (seen in
    /// its gem5 AArch64 quicksort profile: `quicksort + 0x10508` for an entry
    /// at 0x10508, 0x58 into `quicksort`); reproduced because the reports
    /// must match byte for byte.
    pub fn function_name(&self, addr: u64) -> String {
        match self.find_by_address(addr) {
            Some((sym, 0)) => sym.name.clone(),
            Some((sym, _)) => format!("{} + {:#x}", sym.name, addr),
            None => String::new(),
        }
    }
}

/// A person's name for an `e_machine` value.
fn machine_name(machine: u16) -> String {
    match machine {
        elf::EM_386 => "x86 (32-bit)".into(),
        elf::EM_X86_64 => "x86-64".into(),
        elf::EM_RISCV => "RISC-V".into(),
        elf::EM_MIPS => "MIPS".into(),
        elf::EM_PPC => "PowerPC".into(),
        elf::EM_PPC64 => "PowerPC (64-bit)".into(),
        elf::EM_XTENSA => "Xtensa".into(),
        elf::EM_TI_C6000 => "TI C6000".into(),
        other => format!("machine type {other}"),
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

/// `$a`, `$t`, `$x`, `$d`, alone or with a `.suffix` (AAELF's mapping
/// symbols); anything else is no mapping symbol.
fn mapping_symbol(name: &[u8]) -> Option<Contents> {
    let (kind, rest) = name.strip_prefix(b"$")?.split_first()?;
    if !(rest.is_empty() || rest[0] == b'.') {
        return None;
    }
    match kind {
        b'a' => Some(Contents::Arm),
        b't' => Some(Contents::Thumb),
        b'x' => Some(Contents::A64),
        b'd' => Some(Contents::Data),
        _ => None,
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

/// `data` copied into 8-byte words: `object` reads headers in place and
/// refuses misaligned ones, and bytes from `include_bytes!` or a JS
/// ArrayBuffer copy carry no alignment guarantee. The first `data.len()`
/// bytes of the words are `data`.
pub(crate) fn aligned_words(data: &[u8]) -> Vec<u64> {
    data.chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A64: &[u8] =
        include_bytes!("../../../tests/data/elf/quicksort-aarch64-O2-fastmodel-2M.elf");
    const A32: &[u8] = include_bytes!("../../../tests/data/elf/quicksort-arm-O2-fastmodel-2M.elf");
    const T32: &[u8] =
        include_bytes!("../../../tests/data/elf/quicksort-thumb-O2-fastmodel-2M.elf");

    fn load(data: &[u8]) -> SymbolTable {
        SymbolTable::from_elf_bytes(data, 0).unwrap()
    }

    const PROFILES: &[(&str, &str)] = &[
        (
            "quicksort-aarch64-O2-es-2M",
            include_str!("../../../tests/data/elf/profile/quicksort-aarch64-O2-es-2M.profile.ref"),
        ),
        (
            "quicksort-aarch64-O2-fastmodel-2M",
            include_str!(
                "../../../tests/data/elf/profile/quicksort-aarch64-O2-fastmodel-2M.profile.ref"
            ),
        ),
        (
            "quicksort-aarch64-O2-fastmodel-cpu-2M",
            include_str!(
                "../../../tests/data/elf/profile/quicksort-aarch64-O2-fastmodel-cpu-2M.profile.ref"
            ),
        ),
        (
            "quicksort-aarch64-O2-gem5-2M",
            include_str!(
                "../../../tests/data/elf/profile/quicksort-aarch64-O2-gem5-2M.profile.ref"
            ),
        ),
        (
            "quicksort-arm-O2-es-2M",
            include_str!("../../../tests/data/elf/profile/quicksort-arm-O2-es-2M.profile.ref"),
        ),
        (
            "quicksort-arm-O2-fastmodel-2M",
            include_str!(
                "../../../tests/data/elf/profile/quicksort-arm-O2-fastmodel-2M.profile.ref"
            ),
        ),
        (
            "quicksort-thumb-O2-fastmodel-2M",
            include_str!(
                "../../../tests/data/elf/profile/quicksort-thumb-O2-fastmodel-2M.profile.ref"
            ),
        ),
        (
            "quicksort-thumb-O2-gem5-2M",
            include_str!("../../../tests/data/elf/profile/quicksort-thumb-O2-gem5-2M.profile.ref"),
        ),
    ];

    fn elf_for(name: &str) -> &'static [u8] {
        if name.contains("aarch64") {
            A64
        } else if name.contains("thumb") {
            T32
        } else {
            A32
        }
    }

    #[test]
    fn function_names_match_ttu_profiles() {
        let mut checked = 0;
        for (name, profile) in PROFILES {
            let table = load(elf_for(name));
            for line in profile.lines().skip(1) {
                let addr = u64::from_str_radix(line[2..11].trim_end(), 16).unwrap();
                let expected = &line[36..];
                assert_eq!(table.function_name(addr), expected, "{name}: {line}");
                checked += 1;
            }
        }
        assert!(checked > 80);
    }

    const CALLTREES: &[(&str, &str)] = &[
        (
            "quicksort-aarch64-O2-fastmodel-2M",
            include_str!(
                "../../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.calltree.ref"
            ),
        ),
        (
            "quicksort-aarch64-O2-gem5-2M",
            include_str!("../../../tests/data/tracegen/quicksort-aarch64-O2-gem5-2M.calltree.ref"),
        ),
        (
            "quicksort-arm-O2-fastmodel-2M",
            include_str!("../../../tests/data/tracegen/quicksort-arm-O2-fastmodel-2M.calltree.ref"),
        ),
        (
            "quicksort-arm-O2-es-2M",
            include_str!("../../../tests/data/tracegen/quicksort-arm-O2-es-2M.calltree.ref"),
        ),
        (
            "quicksort-thumb-O2-fastmodel-2M",
            include_str!(
                "../../../tests/data/tracegen/quicksort-thumb-O2-fastmodel-2M.calltree.ref"
            ),
        ),
        (
            "quicksort-thumb-O2-gem5-2M",
            include_str!("../../../tests/data/tracegen/quicksort-thumb-O2-gem5-2M.calltree.ref"),
        ),
    ];

    /// Every call target of TTU's call trees names the same symbol whether
    /// the Thumb bit is on the address (the engine's and TTU's convention)
    /// or not (a branch target read from the disassembly, a bare PC).
    #[test]
    fn call_targets_named_alike_with_or_without_the_thumb_bit() {
        let mut checked = 0;
        for (name, tree) in CALLTREES {
            let table = load(elf_for(name));
            for line in tree.lines() {
                let Some(rest) = line.trim_start().strip_prefix("o ") else {
                    continue;
                };
                let pc = rest
                    .split(" pc:")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap();
                let pc = u64::from_str_radix(pc.trim_start_matches("0x"), 16).unwrap();
                let expected = rest.split_once(" : ").map_or("", |(_, n)| n);
                assert_eq!(table.function_name(pc), expected, "{name}: {line}");
                let with = table
                    .find_by_address(pc)
                    .map(|(s, o)| (s.display_name(), o));
                for form in [pc & !1, pc | u64::from(name.contains("thumb"))] {
                    let found = table
                        .find_by_address(form)
                        .map(|(s, o)| (s.display_name(), o));
                    assert_eq!(found, with, "{name}: {form:#x} ({line})");
                }
                if with.as_ref().is_some_and(|(_, offset)| *offset == 0) {
                    let shown = table.symbolic_address(pc & !1, false);
                    assert_eq!(shown, expected, "{name}: the page's name for {pc:#x}");
                }
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked} calls");
    }

    #[test]
    fn mapping_symbols_say_what_an_address_holds() {
        let t32 = load(T32);
        assert_eq!(t32.contents_at(0x10000), Some(Contents::Thumb));
        assert_eq!(
            t32.contents_at(0x1001c),
            Some(Contents::Data),
            "_start's literal"
        );
        assert_eq!(t32.contents_at(0x10028), Some(Contents::Thumb));
        assert_eq!(
            t32.contents_at(0x10370),
            Some(Contents::Data),
            "tg_iterations"
        );
        assert_eq!(t32.contents_at(0xfffc), None);
        // Code gets the bit, data keeps its address.
        assert_eq!(t32.code_address(0x10028), 0x10029);
        assert_eq!(t32.code_address(0x10029), 0x10029);
        assert_eq!(t32.code_address(0x10370), 0x10370);
        assert_eq!(t32.symbolic_address(0x10370, false), "tg_iterations");
        assert_eq!(t32.symbolic_address(0x10028, false), "run_iteration");
        assert_eq!(t32.symbolic_address(0x1002c, false), "tg_main");
        assert_eq!(t32.symbolic_address(0x10030, false), "tg_main + 0x4");
        assert_eq!(t32.symbolic_address(0x102f8, false), "prog_quicksort");

        let a32 = load(A32);
        assert_eq!(
            a32.contents_at(a32.address_of("_start").unwrap()),
            Some(Contents::Arm)
        );
        // An odd address in Arm code is the instruction's.
        let start = a32.address_of("_start").unwrap();
        assert_eq!(a32.code_address(start | 1), start);

        let a64 = load(A64);
        assert_eq!(a64.contents_at(0x10000), Some(Contents::A64));
        assert_eq!(a64.code_address(0x10001), 0x10001, "no Thumb in A64 images");

        // Load offsets move the mapping symbols too.
        let moved = SymbolTable::from_elf_bytes(T32, 0x1000).unwrap();
        assert_eq!(moved.symbolic_address(0x11028, false), "run_iteration");
        assert_eq!(moved.contents_at(0x10028), None, "below the moved .text");
    }

    #[test]
    fn without_mapping_symbols_thumb_functions_decide() {
        let mut t32 = load(T32);
        t32.mapping.clear();
        assert_eq!(t32.code_address(0x10028), 0x10029);
        assert_eq!(t32.symbolic_address(0x10028, false), "run_iteration");
        assert_eq!(t32.symbolic_address(0x102f8, false), "prog_quicksort");
        // Past every Thumb function (data) the address stays.
        assert_eq!(t32.code_address(0x10370), 0x10370);
    }

    #[test]
    fn mapping_symbol_names() {
        assert_eq!(mapping_symbol(b"$t"), Some(Contents::Thumb));
        assert_eq!(mapping_symbol(b"$a.12"), Some(Contents::Arm));
        assert_eq!(mapping_symbol(b"$x"), Some(Contents::A64));
        assert_eq!(mapping_symbol(b"$d.realdata"), Some(Contents::Data));
        for not in [&b"$"[..], b"$tx", b"$b", b"t", b"", b"$ta"] {
            assert_eq!(
                mapping_symbol(not),
                None,
                "{:?}",
                String::from_utf8_lossy(not)
            );
        }
    }

    #[test]
    fn names_to_addresses_and_back() {
        let a64 = load(A64);
        for (name, addr, size) in [
            ("_start", 0x10000, 52),
            ("quicksort", 0x104b0, 156),
            ("partition", 0x10280, 340),
            ("fill.constprop.0", 0x103e0, 136),
            ("qs_array", 0x10780, 384),
            ("tg_image_base", 0xf000, 0),
        ] {
            let sym = a64.find_by_name(name).unwrap();
            assert_eq!((sym.addr, sym.size), (addr, size), "{name}");
            assert_eq!(a64.address_of(name), Some(addr));
        }
        assert_eq!(
            a64.find_by_name("quicksort").unwrap().kind,
            SymbolKind::Function
        );
        assert_eq!(
            a64.find_by_name("partition").unwrap().binding,
            SymbolBinding::Local
        );
        assert_eq!(
            a64.find_by_name("qs_array").unwrap().kind,
            SymbolKind::Object
        );
        assert_eq!(a64.find_by_name("__bss_end").unwrap().kind, SymbolKind::Any);
        assert_eq!(
            a64.find_by_address(0x104b0),
            Some((a64.find_by_name("quicksort").unwrap(), 0))
        );
        let (sym, off) = a64.find_by_address(0x104b0 + 155).unwrap();
        assert_eq!((sym.name.as_str(), off), ("quicksort", 155));
        // The first byte past quicksort is prog_quicksort's.
        assert_eq!(
            a64.symbolic_address(0x104b0 + 156, true),
            "quicksort + 0x9c"
        );
        assert_eq!(a64.symbolic_address(0x10550, true), "prog_quicksort");
        assert_eq!(a64.symbolic_address(0x10290, false), "partition + 0x10");
        for missing in [
            "main",
            "",
            "QUICKSORT",
            "quicksort ",
            "$x",
            ".text",
            "main.c",
        ] {
            assert!(a64.find_by_name(missing).is_none(), "{missing:?}");
        }
    }

    #[test]
    fn duplicate_names_numbered_like_ttu() {
        let mut t = load(A64);
        let dup = |addr| Symbol {
            addr,
            elf_addr: addr,
            size: 4,
            kind: SymbolKind::Function,
            binding: SymbolBinding::Local,
            name: "swap".into(),
            duplicate_nr: 0,
        };
        t.add(dup(0x20000));
        t.add(dup(0x30000));
        assert_eq!(t.find_by_name("swap").unwrap().addr, 0x10190);
        assert_eq!(t.find_by_name("swap#0").unwrap().addr, 0x10190);
        assert_eq!(t.find_by_name("swap#1").unwrap().addr, 0x20000);
        assert_eq!(t.find_by_name("swap#2").unwrap().addr, 0x30000);
        assert_eq!(
            t.find_by_name("swap# 2x").unwrap().addr,
            0x30000,
            "stoi leniency"
        );
        assert!(t.find_by_name("swap#3").is_none());
        assert!(t.find_by_name("swap#-1").is_none());
        assert!(t.find_by_name("swap#").is_none());
        assert_eq!(t.find_all_by_name("swap").len(), 3);
        assert_eq!(t.symbolic_address(0x30002, true), "swap#2 + 0x2");
        assert_eq!(t.function_name(0x30000), "swap", "reports use the raw name");
    }

    #[test]
    fn ttu_address_rules() {
        let a64 = load(A64);
        // The lowest symbol address (tg_image_base, 0xf000) is never used,
        // not even for an exact match.
        assert_eq!(a64.find_by_address(0xf000), None);
        assert_eq!(a64.symbolic_address(0xf000, true), "0xf000");
        assert_eq!(a64.symbolic_address(0xf000, false), "");
        assert_eq!(a64.symbolic_address(0, true), "0");
        assert_eq!(a64.symbolic_address(0x10000, true), "_start");
        // At one address a sized symbol wins over a label listed before it.
        assert_eq!(a64.symbolic_address(0x105f2, true), "tg_result + 0x2");
        assert_eq!(a64.symbolic_address(0x105f0, true), "tg_result");
        // Nothing sized contains it: the nearest label below.
        assert_eq!(a64.symbolic_address(0x10900, true), "__bss_end");
        assert_eq!(
            a64.symbolic_address(0x500000, true),
            "__stack_top + 0x100000"
        );
        assert_eq!(
            a64.symbolic_address(u64::MAX, true),
            "__stack_top + 0xffffffffffbfffff"
        );

        let t32 = load(T32);
        // Thumb symbols keep the low bit, as TTU's index addresses do.
        assert_eq!(t32.find_by_name("_start").unwrap().addr, 0x10001);
        assert_eq!(t32.symbolic_address(0x10001, true), "_start");
        // ... and an address without it, in Thumb code, is given it.
        assert_eq!(t32.symbolic_address(0x10000, true), "_start");
        // tg_exit (size 0) lies inside _start: the sized symbol below wins.
        assert_eq!(t32.symbolic_address(0x1001a, true), "_start + 0x1a");
        assert_eq!(t32.symbolic_address(0x10019, true), "_start + 0x18");
        // Data (a literal pool marked `$d`) keeps its address.
        assert_eq!(t32.symbolic_address(0x1001c, true), "_start + 0x1b");
    }

    #[test]
    fn load_offset_moves_symbols() {
        let up = SymbolTable::from_elf_bytes(A64, 0x1000).unwrap();
        assert_eq!(up.load_offset(), 0x1000);
        let qs = up.find_by_name("quicksort").unwrap();
        assert_eq!((qs.addr, qs.elf_addr), (0x114b0, 0x104b0));
        assert_eq!(up.symbolic_address(0x114b4, true), "quicksort + 0x4");
        // Below the lowest moved symbol (tg_image_base, now 0x10000) nothing.
        assert_eq!(up.symbolic_address(0x104b4, true), "0x104b4");
        let down = SymbolTable::from_elf_bytes(A64, -0x10000).unwrap();
        assert_eq!(down.address_of("quicksort"), Some(0x4b0));
        assert_eq!(down.function_name(0x4b0), "quicksort");
        // Wraps rather than overflowing.
        let wrap = SymbolTable::from_elf_bytes(A64, i64::MIN).unwrap();
        assert_eq!(wrap.address_of("_start"), Some(0x8000_0000_0001_0000));
    }

    #[test]
    fn endianness_check() {
        let t = load(A32);
        assert!(t.check_endianness(false).is_ok());
        let err = t.check_endianness(true).unwrap_err().to_string();
        assert!(
            err.contains("mismatch") && err.contains("little-endian"),
            "{err}"
        );
    }

    /// Section headers of a 64-bit little-endian ELF: (offset, size) of each.
    fn retype_symtab(data: &mut [u8]) {
        let word = |d: &[u8], at: usize, n: usize| {
            d[at..at + n]
                .iter()
                .rev()
                .fold(0usize, |v, &b| v << 8 | b as usize)
        };
        let shoff = word(data, 0x28, 8);
        let shentsize = word(data, 0x3a, 2);
        let shnum = word(data, 0x3c, 2);
        for i in 0..shnum {
            let at = shoff + i * shentsize + 4;
            if word(data, at, 4) == elf::SHT_SYMTAB as usize {
                data[at] = elf::SHT_PROGBITS as u8;
            }
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        let err = |d: &[u8]| SymbolTable::from_elf_bytes(d, 0).unwrap_err().to_string();
        assert!(err(b"").contains("not an ELF"));
        assert!(err(b"#!/bin/sh\necho hello\n").contains("not an ELF"));
        let mut bad_class = A64.to_vec();
        bad_class[4] = 9;
        assert!(err(&bad_class).contains("class"));
        let mut bad_data = A64.to_vec();
        bad_data[5] = 0;
        assert!(err(&bad_data).contains("encoding"));
        let mut stripped = A64.to_vec();
        retype_symtab(&mut stripped);
        assert!(
            err(&stripped).contains("no symbol table"),
            "{}",
            err(&stripped)
        );
        assert!(err(&A64[..64]).contains("section headers"));
    }

    #[test]
    fn truncated_and_garbled_never_panic() {
        for data in [A64, A32, T32] {
            for len in 0..data.len() {
                let _ = SymbolTable::from_elf_bytes(&data[..len], 0);
            }
            // Deterministic xorshift so failures reproduce.
            let mut state = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..2000 {
                let mut copy = data.to_vec();
                for _ in 0..4 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let at = (state as usize) % copy.len();
                    copy[at] = (state >> 32) as u8;
                }
                if let Ok(t) = SymbolTable::from_elf_bytes(&copy, 0) {
                    for addr in [0, 0x10000, 0x104b4, u64::MAX] {
                        let _ = t.symbolic_address(addr, true);
                    }
                }
            }
        }
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
    fn images_for_another_state_are_refused() {
        use crate::sniff::InstructionSets;
        let a64_trace = InstructionSets {
            a64: 100,
            ..Default::default()
        };
        let thumb_trace = InstructionSets {
            t32: 100,
            ..Default::default()
        };
        let arm_trace = InstructionSets {
            a32: 100,
            ..Default::default()
        };
        let mixed = InstructionSets {
            a64: 10,
            a32: 5,
            t32: 5,
        };
        let (a64, a32, t32) = (load(A64), load(A32), load(T32));
        assert_eq!(a64.architecture_mismatch(&a64_trace), None);
        assert_eq!(t32.architecture_mismatch(&thumb_trace), None);
        assert_eq!(a32.architecture_mismatch(&arm_trace), None);
        assert_eq!(
            t32.architecture_mismatch(&arm_trace),
            None,
            "Arm and Thumb share an image"
        );
        for image in [&a64, &a32, &t32] {
            assert_eq!(image.architecture_mismatch(&mixed), None);
            assert_eq!(
                image.architecture_mismatch(&InstructionSets::default()),
                None
            );
        }
        let e = t32.architecture_mismatch(&a64_trace).unwrap();
        assert!(
            e.contains("for AArch32") && e.contains("runs AArch64"),
            "{e}"
        );
        let e = a64.architecture_mismatch(&thumb_trace).unwrap();
        assert!(
            e.contains("for AArch64") && e.contains("AArch32 (Thumb)"),
            "{e}"
        );
        let mut x86 = load(A64);
        x86.machine = elf::EM_X86_64;
        let e = x86.architecture_mismatch(&a64_trace).unwrap();
        assert!(e.contains("x86-64"), "{e}");
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
