//! Source lines against GNU binutils' `addr2line`, the oracle: every
//! distinct PC of the generated traces (AArch64, A32, Thumb; O1 and O2)
//! maps to the same functions and `file:line`s, inlined frames included;
//! and `tarmac-lens lines` counts what a count of the PCs in `dump`'s
//! output, each mapped by `addr2line`, gives.
//!
//! The oracle is Debian's `binutils-aarch64-linux-gnu` and
//! `binutils-arm-none-eabi` (`scripts/install-deps.sh` installs them); a
//! machine without them fails here, saying which package is missing.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use tarmac_lens_core::{DebugInfo, SymbolTable};

mod common;
use common::{data, read};

/// The generated traces with their ELFs: `tracegen/` (quicksort, O2) and
/// `tracegen/lines/` (recursion at O1; hash at O2, which inlines).
fn traces() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["tracegen", "tracegen/lines"] {
        for e in std::fs::read_dir(data(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "tarmac") {
                v.push(p);
            }
        }
    }
    v.sort();
    let names: Vec<String> = v
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "aarch64-O1",
        "arm-O1",
        "thumb-O1",
        "aarch64-O2",
        "arm-O2",
        "thumb-O2",
    ] {
        assert!(
            names.iter().any(|n| n.contains(want)),
            "no {want} trace in {names:?}"
        );
    }
    v
}

/// `addr2line` for the ELF's machine, or a failure naming the package.
fn oracle_for(elf: &[u8]) -> &'static str {
    // e_machine: 16 bits at offset 18, little-endian in these images.
    let (tool, package) = match u16::from_le_bytes([elf[18], elf[19]]) {
        183 => ("aarch64-linux-gnu-addr2line", "binutils-aarch64-linux-gnu"),
        40 => ("arm-none-eabi-addr2line", "binutils-arm-none-eabi"),
        m => panic!("no oracle for ELF machine {m}"),
    };
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "{tool} not found: install Debian's {package} (scripts/install-deps.sh does)"
    );
    tool
}

/// One frame as `addr2line -f -i` prints it: function (`??` for none)
/// and `file:line` (`??:0`/`??:?` for none), discriminators dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
struct OracleFrame {
    function: String,
    location: String,
}

/// Asks the oracle about `pcs` in one run; frames innermost first.
fn oracle(elf_path: &Path, elf: &[u8], pcs: &[u64]) -> HashMap<u64, Vec<OracleFrame>> {
    let mut child = Command::new(oracle_for(elf))
        .args(["-a", "-f", "-i", "-e"])
        .arg(elf_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for pc in pcs {
        input.push_str(&format!("0x{pc:x}\n"));
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(
        out.status.success(),
        "addr2line failed on {}",
        elf_path.display()
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut map: HashMap<u64, Vec<OracleFrame>> = HashMap::new();
    let mut lines = text.lines().peekable();
    while let Some(addr) = lines.next() {
        let pc = u64::from_str_radix(addr.trim_start_matches("0x"), 16)
            .unwrap_or_else(|_| panic!("address line expected, got {addr:?}"));
        let mut frames = Vec::new();
        while lines.peek().is_some_and(|l| !l.starts_with("0x")) {
            let function = lines.next().unwrap().to_string();
            let location = lines.next().expect("a location after a function");
            let location = location
                .split(" (discriminator")
                .next()
                .unwrap()
                .to_string();
            frames.push(OracleFrame { function, location });
        }
        map.insert(pc, frames);
    }
    assert_eq!(map.len(), pcs.len(), "one answer per address");
    map
}

/// Instruction PCs with their counts, read from `tarmac-lens dump`'s
/// parser-test output (`* InstructionEvent ... effect=E pc=HEX`): what ran
/// and what failed its condition, by a path that shares no code with the
/// count under test.
fn dumped_pcs(trace: &Path) -> BTreeMap<u64, (u64, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_tarmac-lens"))
        .arg("dump")
        .arg(trace)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut pcs: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let Some(rest) = line.strip_prefix("* InstructionEvent ") else {
            continue;
        };
        let field = |name: &str| {
            rest.split(' ')
                .find_map(|f| f.strip_prefix(name))
                .unwrap_or_else(|| panic!("no {name} in {line}"))
        };
        let pc = u64::from_str_radix(field("pc="), 16).unwrap();
        let e = pcs.entry(pc).or_default();
        match field("effect=") {
            "executed" => e.0 += 1,
            "ccfail" => e.1 += 1,
            other => panic!("effect {other} in {line}"),
        }
    }
    assert!(!pcs.is_empty(), "{}: no instructions", trace.display());
    pcs
}

/// Our frames in the oracle's words. Where DWARF describes no function
/// (assembly, libgcc), `addr2line` names the symbol table's; so do we.
fn ours(info: &DebugInfo, symbols: &SymbolTable, pc: u64) -> Vec<OracleFrame> {
    let frames = info.frames(pc).unwrap();
    let symbol = || {
        symbols
            .find_by_address(pc)
            .map_or("??".to_string(), |(s, _)| s.name.clone())
    };
    if frames.is_empty() {
        return vec![OracleFrame {
            function: symbol(),
            location: info
                .location(pc)
                .unwrap()
                .map_or("??:0".into(), |l| l.to_string()),
        }];
    }
    frames
        .iter()
        .map(|f| OracleFrame {
            function: f.function.clone().unwrap_or_else(symbol),
            location: f.location.as_ref().map_or("??:0".into(), |l| l.to_string()),
        })
        .collect()
}

/// Each trace with its ELF, and with the same code built with
/// `-gdwarf-4` where `tracegen/lines/` has one (`*.dwarf4.elf`; the others
/// are DWARF 5, GCC 12's default).
fn images() -> Vec<(PathBuf, PathBuf)> {
    let mut v = Vec::new();
    for trace in traces() {
        let dwarf4 = trace.with_extension("dwarf4.elf");
        if dwarf4.exists() {
            v.push((trace.clone(), dwarf4));
        }
        v.push((trace.clone(), trace.with_extension("elf")));
    }
    assert!(
        v.iter()
            .any(|(_, e)| e.to_string_lossy().ends_with("dwarf4.elf")),
        "no DWARF 4 image"
    );
    v
}

#[test]
fn every_traced_pc_maps_as_addr2line_maps_it() {
    let mut inlined_by_arch: BTreeMap<&str, usize> = BTreeMap::new();
    for (trace, elf_path) in images() {
        let elf = read(&elf_path);
        let info = DebugInfo::from_elf_bytes(Arc::from(elf.as_slice()), 0)
            .unwrap()
            .expect("the generated ELFs carry DWARF");
        let symbols = SymbolTable::from_elf_bytes(&elf, 0).unwrap();
        let pcs: Vec<u64> = dumped_pcs(&trace).into_keys().collect();
        let want = oracle(&elf_path, &elf, &pcs);
        let mut inlined = 0;
        for pc in &pcs {
            let got = ours(&info, &symbols, *pc);
            assert_eq!(
                &got,
                &want[pc],
                "{} pc 0x{pc:x}: ours, then addr2line's",
                elf_path.display()
            );
            inlined += usize::from(got.len() > 1);
        }
        let name = trace.file_name().unwrap().to_string_lossy().into_owned();
        for arch in ["aarch64", "arm", "thumb"] {
            if name.contains(&format!("-{arch}-")) {
                *inlined_by_arch.entry(arch).or_default() += inlined;
            }
        }
        eprintln!(
            "{}: {} PCs agree, {inlined} in inlined code",
            elf_path.display(),
            pcs.len()
        );
    }
    // The inlined frames were compared, not only the outermost ones.
    assert_eq!(inlined_by_arch.len(), 3, "{inlined_by_arch:?}");
    assert!(
        inlined_by_arch.values().all(|&n| n > 0),
        "{inlined_by_arch:?}"
    );
}
