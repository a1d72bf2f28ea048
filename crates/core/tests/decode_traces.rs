//! Every instruction of the checked-in traces decodes to its operands
//! (`tarmac_lens_core::decode`), except the encodings listed in `EXPECTED`
//! with why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tarmac_lens_core::{
    operands, Effect, ISet, LineReader, MemDirection, Operands, ParseOptions, Parser, RecordKind,
    RegClass, RegId, SliceSource, FLAGS_REGISTER,
};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data");

/// Encodings that legitimately do not decode: (instruction set, encoding,
/// why).
const EXPECTED: &[(ISet, u32, &str)] = &[
    (
        ISet::A64,
        0xdfdfdfcf,
        "crash64.tarmac runs into data: the model prints `DCI 0xdfdfdfcf ; ? Undefined`",
    ),
    (
        ISet::A64,
        0x02000000,
        "stats/hand/undecoded.tarmac: no A64 instruction, for the mix's undecoded count",
    ),
];

fn traces(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            traces(&path, out);
        } else if path.extension().is_some_and(|e| e == "tarmac") {
            out.push(path);
        }
    }
}

#[test]
fn every_traced_instruction_decodes() {
    let mut files = Vec::new();
    traces(Path::new(DATA), &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {files:?}");
    let mut seen = BTreeSet::new();
    let mut failed: BTreeMap<(String, u32, u8), (String, String)> = BTreeMap::new();
    let mut decoded = 0usize;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let mut parser =
            Parser::for_sample(ParseOptions::default(), &bytes[..bytes.len().min(64 << 10)]);
        let mut lines = LineReader::new(SliceSource(&bytes));
        while let Some(line) = lines.next_line().unwrap() {
            let record = parser.parse_line(line.text);
            let RecordKind::Instruction(i) = record.kind else {
                continue;
            };
            if i.effect == Effect::FetchFail {
                continue;
            }
            let width = i.width / 8;
            if !seen.insert((format!("{:?}", i.iset), i.encoding, width)) {
                continue;
            }
            match operands(i.iset, i.encoding as u32, width) {
                Ok(_) => decoded += 1,
                Err(e) => {
                    let expected = EXPECTED
                        .iter()
                        .any(|&(iset, enc, _)| iset == i.iset && u64::from(enc) == i.encoding);
                    if !expected {
                        failed.insert(
                            (format!("{:?}", i.iset), i.encoding as u32, width),
                            (
                                String::from_utf8_lossy(i.disassembly).trim().to_string(),
                                format!("{} ({})", e.reason, path.display()),
                            ),
                        );
                    }
                }
            }
        }
    }
    assert!(decoded > 500, "decoded only {decoded} distinct encodings");
    let report: Vec<String> = failed
        .iter()
        .map(|((iset, enc, w), (dis, why))| {
            format!("{iset} {enc:0w$x} {dis}: {why}", w = *w as usize * 2)
        })
        .collect();
    assert!(
        report.is_empty(),
        "{} undecoded:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The core register a traced write lands in, as the decoder names it:
/// AArch64 `wN` is `xN` and every SIMD/FP view of register n is `vN`.
fn canonical(reg: RegId, a64: bool) -> RegId {
    let name = reg.to_string();
    let index = name.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let index: u8 = index.parse().unwrap_or(0);
    match name.trim_end_matches(|c: char| c.is_ascii_digit()) {
        "w" if a64 => RegId::new(RegClass::X, index),
        "wsp" => RegId::new(RegClass::Xsp, 0),
        "q" | "d" | "s" if a64 => RegId::new(RegClass::V, index),
        _ => reg,
    }
}

/// An executed instruction and what its trace lines show it doing.
struct Followed {
    ops: Operands,
    a64: bool,
    text: String,
    written: Vec<RegId>,
    read_memory: bool,
    wrote_memory: bool,
}

/// Semihosting calls, after which the debugger writes the result to r0/x0:
/// A64 `HLT #0xf000`, A32 `SVC #0x123456`, T32 `SVC #0xab` and `BKPT #0xab`.
fn semihosting(iset: ISet, encoding: u32) -> bool {
    match iset {
        ISet::A64 | ISet::C64 => encoding == 0xd45e_0000,
        ISet::Arm => encoding & 0x0fff_ffff == 0x0f12_3456,
        _ => encoding == 0xdfab || encoding == 0xbeab,
    }
}

/// Traces written by hand, whose register lines do not follow from the
/// instructions: TTU's `indextest` has `STR x9,...` write x9 (and a fuzz
/// reproducer copies it).
const SYNTHETIC: &[&str] = &[
    "indextest.tarmac",
    "memory-write-search-over-all-of-memory-hung.tarmac",
];

/// Every register the traces show an instruction writing is among the
/// registers its encoding says it writes (the flags after a compare, the
/// base after a writeback...), and reads or writes memory only if it
/// decodes as a load or a store; with four exceptions that are no decoding
/// error: an exception entry writes registers no encoding names (the
/// instruction followed by one is skipped), and so does an exception return
/// (A64 `ERET`, which restores the PSR from SPSR; on an M-profile core a
/// `BX lr` to an `EXC_RETURN` value, which unstacks registers); a
/// semihosting call's result is
/// written by the debugger; and some traces write `cpsr` where the flags do
/// not change, which the decoder does not count as a write: the trace
/// generator prints it unchanged after `ADC`/`SBC` (which read the carry),
/// interworking branches (`BX`, `BLX`) change only its T bit, the
/// instruction set state, and `MSR DAIFSet`/`DAIFClr` only its interrupt
/// masks.
#[test]
fn traced_writes_are_decoded_writes() {
    let mut files = Vec::new();
    traces(Path::new(DATA), &mut files);
    files.sort();
    let mut checked = 0usize;
    let mut wrong: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap();
        if SYNTHETIC.contains(&name) {
            continue;
        }
        // This gem5 sample prints LDP's 16-byte read as `MW16`.
        let direction_unknown = name == "calculator-aarch64-gem5.tarmac";
        let bytes = std::fs::read(path).unwrap();
        let mut parser =
            Parser::for_sample(ParseOptions::default(), &bytes[..bytes.len().min(64 << 10)]);
        let mut lines = LineReader::new(SliceSource(&bytes));
        let mut last_psr: u64 = 0;
        // The last value written to an AArch32 lr: a branch to an
        // `EXC_RETURN` value (0xFFFFFFxx) is an M-profile exception return.
        let mut last_lr: u64 = 0;
        let mut current: Option<Followed> = None;
        let mut finish = |current: &mut Option<Followed>| {
            let Some(c) = current.take() else { return };
            checked += 1;
            let mut bad = Vec::new();
            for &reg in &c.written {
                let reg = canonical(reg, c.a64);
                if !c.ops.writes().contains(&reg) {
                    bad.push(format!("writes {reg}"));
                }
            }
            if c.read_memory && !c.ops.loads {
                bad.push("reads memory".to_string());
            }
            if c.wrote_memory && !c.ops.stores {
                bad.push("writes memory".to_string());
            }
            for b in bad {
                *wrong.entry(format!("{}: {b}", c.text)).or_default() += 1;
            }
        };
        // In a multi-core trace, the core of the instruction followed:
        // another core's lines are not its effects.
        let mut core: Option<Vec<u8>> = None;
        while let Some(line) = lines.next_line().unwrap() {
            let rec = parser.parse_line(line.text);
            if rec.cpu.is_some()
                && !matches!(rec.kind, RecordKind::Instruction(_))
                && rec.cpu != core.as_deref()
            {
                continue;
            }
            match rec.kind {
                RecordKind::Instruction(i) => {
                    finish(&mut current);
                    core = rec.cpu.map(<[u8]>::to_vec);
                    if i.effect != Effect::Executed {
                        continue;
                    }
                    if semihosting(i.iset, i.encoding as u32) {
                        continue;
                    }
                    let exception_return = match i.iset {
                        ISet::A64 | ISet::C64 => {
                            matches!(i.encoding, 0xd69f03e0 | 0xd69f0bff | 0xd69f0fff)
                        }
                        ISet::Thumb => i.encoding == 0x4770 && last_lr >= 0xffff_ff00,
                        _ => false,
                    };
                    if exception_return {
                        continue;
                    }
                    if let Ok(o) = operands(i.iset, i.encoding as u32, i.width / 8) {
                        let text = format!(
                            "{:?} {:08x} {}",
                            i.iset,
                            i.encoding,
                            String::from_utf8_lossy(i.disassembly).trim()
                        );
                        current = Some(Followed {
                            ops: o,
                            a64: i.iset.is_aarch64(),
                            text,
                            written: Vec::new(),
                            read_memory: false,
                            wrote_memory: false,
                        });
                    }
                }
                RecordKind::Register(r) => {
                    let Some(reg) = r.reg else { continue };
                    let value = r
                        .bytes
                        .iter()
                        .take(8)
                        .rev()
                        .fold(0u64, |v, &b| v << 8 | u64::from(b));
                    if reg == RegId::new(RegClass::R, 14) {
                        last_lr = value;
                    }
                    if reg == FLAGS_REGISTER {
                        // The interrupt masks (A, I, F: bits 8:6; D too in
                        // AArch64, bit 9) are not flags.
                        const MASKS: u64 = 0x3c0;
                        let same = last_psr & !MASKS == value & !MASKS;
                        last_psr = value;
                        let interworking =
                            current.as_ref().is_some_and(|c| c.ops.writes_pc && !c.a64);
                        if same || interworking {
                            continue;
                        }
                    }
                    if let Some(cur) = current.as_mut() {
                        cur.written.push(reg);
                    }
                }
                RecordKind::Memory(m) => {
                    if let Some(cur) = current.as_mut() {
                        match m.direction {
                            _ if direction_unknown => {
                                if !(cur.ops.loads || cur.ops.stores) {
                                    cur.read_memory = true;
                                }
                            }
                            MemDirection::Read => cur.read_memory = true,
                            MemDirection::Write | MemDirection::Update => cur.wrote_memory = true,
                        }
                    }
                }
                RecordKind::Exception(_) => current = None,
                _ => {}
            }
        }
        finish(&mut current);
    }
    assert!(checked > 10_000, "checked only {checked} instructions");
    let report: Vec<String> = wrong.iter().map(|(k, n)| format!("{n:6} {k}")).collect();
    assert!(
        report.is_empty(),
        "{} mismatches between trace and decoding:\n{}",
        report.len(),
        report.join("\n")
    );
}
