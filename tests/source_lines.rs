//! Source lines against GNU binutils' `addr2line`, the oracle: every
//! distinct PC of the generated traces (AArch64, A32, Thumb; O1 and O2)
//! maps to the same functions and `file:line`s, inlined frames included;
//! and `tarmac-lens lines` counts what a count of the PCs in `dump`'s
//! output, each mapped by `addr2line`, gives.
//!
//! The oracle is Debian's `binutils-aarch64-linux-gnu` and
//! `binutils-arm-none-eabi` (`scripts/install-deps.sh` installs them); a
//! machine without them fails here, saying which package is missing.

// Runs the CLI and the binutils: native only.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use tarmac_lens_core::{DebugInfo, SymbolTable};

use crate::common::{data, read, tarmac_files, tarmac_lens, Dir};

/// The generated traces with their ELFs: `tracegen/` (quicksort, O2) and
/// `tracegen/lines/` (recursion at O1; hash at O2, which inlines).
fn traces() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["tracegen", "tracegen/lines"] {
        v.extend(tarmac_files(dir));
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
    crate::common::oracle(tool, package)
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
    let out = tarmac_lens().arg("dump").arg(trace).output().unwrap();
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
/// `-gdwarf-4` where `tracegen/lines/` has one (`*.dwarf4.elf`, for each
/// architecture; the others are DWARF 5, GCC 12's default).
fn images() -> Vec<(PathBuf, PathBuf)> {
    let mut v = Vec::new();
    for trace in traces() {
        let dwarf4 = trace.with_extension("dwarf4.elf");
        if dwarf4.exists() {
            v.push((trace.clone(), dwarf4));
        }
        v.push((trace.clone(), trace.with_extension("elf")));
    }
    for arch in ["aarch64", "arm", "thumb"] {
        assert!(
            v.iter().any(|(_, e)| {
                let e = e.to_string_lossy();
                e.ends_with(".dwarf4.elf") && e.contains(&format!("-{arch}-"))
            }),
            "no DWARF 4 image for {arch}"
        );
    }
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

/// Per-line counts: `tarmac-lens lines --format json` against the PCs of
/// `dump`, each mapped to its innermost `file:line` by the oracle.
#[test]
fn line_counts_equal_a_count_of_dumped_pcs_mapped_by_addr2line() {
    for trace in traces() {
        let elf_path = trace.with_extension("elf");
        let elf = read(&elf_path);
        let counts = dumped_pcs(&trace);
        let pcs: Vec<u64> = counts.keys().copied().collect();
        let mapped = oracle(&elf_path, &elf, &pcs);
        let mut want: BTreeMap<(String, u64), (u64, u64)> = BTreeMap::new();
        let mut want_unmapped = (0, 0);
        for (pc, (ran, failed)) in &counts {
            let loc = &mapped[pc][0].location;
            let (file, line) = loc.rsplit_once(':').unwrap();
            let slot = match (file, line.parse::<u64>()) {
                ("??", _) | (_, Err(_)) | (_, Ok(0)) => &mut want_unmapped,
                (f, Ok(l)) => want.entry((f.to_string(), l)).or_default(),
            };
            slot.0 += ran;
            slot.1 += failed;
        }

        let out = tarmac_lens()
            .args(["lines", "--format", "json", "--image"])
            .arg(&elf_path)
            .arg(&trace)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut got: BTreeMap<(String, u64), (u64, u64)> = BTreeMap::new();
        let mut files = BTreeSet::new();
        let mut never = 0;
        for f in json["files"].as_array().unwrap() {
            let file = f["file"].as_str().unwrap().to_string();
            files.insert(file.clone());
            let (mut ran, mut failed) = (0, 0);
            for l in f["lines"].as_array().unwrap() {
                let c = (
                    l["executed"].as_u64().unwrap(),
                    l["failed"].as_u64().unwrap(),
                );
                ran += c.0;
                failed += c.1;
                let instructions = l["instructions"].as_array().unwrap().len();
                if c == (0, 0) {
                    // A line with code that never ran.
                    assert_eq!(instructions, 0, "{}: {l}", trace.display());
                    never += 1;
                    continue;
                }
                got.insert((file.clone(), l["line"].as_u64().unwrap()), c);
            }
            assert_eq!(
                (ran, failed),
                (
                    f["executed"].as_u64().unwrap(),
                    f["failed"].as_u64().unwrap()
                ),
                "{}: {file}'s total is its lines' sum",
                trace.display()
            );
        }
        assert_eq!(got, want, "{}: per-line counts", trace.display());
        let unmapped = &json["unmapped"];
        assert_eq!(
            (
                unmapped["executed"].as_u64().unwrap(),
                unmapped["failed"].as_u64().unwrap()
            ),
            want_unmapped,
            "{}: instructions with no line",
            trace.display()
        );
        let total: (u64, u64) = counts.values().fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1));
        let by_function = json["functions"]
            .as_array()
            .unwrap()
            .iter()
            .fold((0, 0), |a, f| {
                (
                    a.0 + f["executed"].as_u64().unwrap(),
                    a.1 + f["failed"].as_u64().unwrap(),
                )
            });
        assert_eq!(
            (
                by_function.0 + want_unmapped.0,
                by_function.1 + want_unmapped.1
            ),
            total,
            "{}: functions and unmapped add up to every instruction",
            trace.display()
        );
        assert!(files.len() >= 2, "{}: {files:?}", trace.display());
        // Each program has code the run does not reach (error paths).
        assert!(never > 0, "{}: no line left unrun", trace.display());
    }
}

fn run(args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = tarmac_lens().args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The image with every `.debug_*` section renamed: as if built without `-g`.
fn without_dwarf(elf: &[u8], name: &str) -> PathBuf {
    let mut bytes = elf.to_vec();
    let needle = b".debug_";
    for i in 0..bytes.len().saturating_sub(needle.len()) {
        if &bytes[i..i + needle.len()] == needle {
            bytes[i..i + needle.len()].copy_from_slice(b".nodbg_");
        }
    }
    let path = std::env::temp_dir().join(format!(
        "tarmac-lens-nodwarf-{name}-{}.elf",
        std::process::id()
    ));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// `--lines` adds ` (file:line)` after the names and changes nothing else;
/// the location is the entry PC's, as `addr2line` gives it.
#[test]
fn calltree_and_profile_lines_only_add_locations() {
    let trace = data("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac");
    let elf_path = trace.with_extension("elf");
    let elf = read(&elf_path);
    let image = std::ffi::OsString::from(format!("--image={}", elf_path.display()));
    for command in ["calltree", "profile"] {
        let (ok, plain, _) = run(&[command.as_ref(), image.as_os_str(), trace.as_os_str()]);
        assert!(ok);
        let (ok, with, _) = run(&[
            command.as_ref(),
            "--lines".as_ref(),
            image.as_os_str(),
            trace.as_os_str(),
        ]);
        assert!(ok);
        assert_eq!(plain.lines().count(), with.lines().count());
        let mut located = 0;
        for (p, w) in plain.lines().zip(with.lines()) {
            if p == w {
                continue;
            }
            let suffix = w
                .strip_prefix(p)
                .unwrap_or_else(|| panic!("{w:?} is not {p:?} + more"));
            let location = suffix
                .strip_prefix(" (")
                .and_then(|s| s.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{suffix:?}"));
            // The entry PC is the line's `pc:0x...` (calltree) or first field (profile).
            let pc = w
                .split_whitespace()
                .find_map(|f| f.strip_prefix("pc:0x").or_else(|| f.strip_prefix("0x")))
                .map(|h| u64::from_str_radix(h, 16).unwrap())
                .unwrap();
            let want = oracle(&elf_path, &elf, &[pc & !1]);
            assert_eq!(location, want[&(pc & !1)][0].location, "{w}");
            located += 1;
        }
        assert!(located > 0, "{command} --lines printed no location");
    }
}

#[test]
fn images_without_dwarf_and_missing_images_are_said() {
    let trace = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let stripped = without_dwarf(&read(&trace.with_extension("elf")), "cli");
    let image = std::ffi::OsString::from(format!("--image={}", stripped.display()));
    let (ok, _, err) = run(&["lines".as_ref(), trace.as_os_str()]);
    assert!(!ok && err.contains("lines needs --image"), "{err}");
    let (ok, _, err) = run(&["lines".as_ref(), image.as_os_str(), trace.as_os_str()]);
    assert!(!ok, "lines without DWARF succeeded");
    assert!(
        err.contains(&format!("{}: no DWARF", stripped.display())),
        "{err}"
    );
    let (ok, plain, _) = run(&["profile".as_ref(), image.as_os_str(), trace.as_os_str()]);
    assert!(ok);
    let (ok, with, err) = run(&[
        "profile".as_ref(),
        "--lines".as_ref(),
        image.as_os_str(),
        trace.as_os_str(),
    ]);
    assert!(ok);
    assert_eq!(with, plain, "without DWARF, the names alone");
    assert!(err.contains("no DWARF line information"), "{err}");
    let (ok, _, err) = run(&["calltree".as_ref(), "--lines".as_ref(), trace.as_os_str()]);
    assert!(!ok && err.contains("--lines needs --image"), "{err}");
    std::fs::remove_file(stripped).unwrap();
}

/// With the sources, `lines` prints them whole with the counts of the
/// JSON output in the left column.
#[test]
fn annotated_sources_carry_the_counts() {
    let trace = data("tracegen/lines/recursion-arm-O1-fastmodel.tarmac");
    let elf = trace.with_extension("elf");
    let image = std::ffi::OsString::from(format!("--image={}", elf.display()));
    let tmp = Dir::new("sources");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("programs")).unwrap();
    let source: String = (1..=400).map(|n| format!("source line {n}\n")).collect();
    std::fs::write(dir.join("programs/recursion.c"), &source).unwrap();
    let (ok, json, _) = run(&[
        "lines".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        image.as_os_str(),
        trace.as_os_str(),
    ]);
    assert!(ok);
    let (ok, text, err) = run(&[
        "lines".as_ref(),
        "--source-dir".as_ref(),
        dir.as_os_str(),
        image.as_os_str(),
        trace.as_os_str(),
    ]);
    assert!(ok, "{err}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let file = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"].as_str().unwrap().ends_with("recursion.c"))
        .unwrap();
    for l in file["lines"].as_array().unwrap() {
        let (n, ran, failed) = (
            l["line"].as_u64().unwrap(),
            l["executed"].as_u64().unwrap(),
            l["failed"].as_u64().unwrap(),
        );
        let cell = if (ran, failed) == (0, 0) {
            "#####".to_string()
        } else if failed == 0 {
            ran.to_string()
        } else {
            format!("{ran}/{failed}")
        };
        let want = format!("{cell:>12}:{n:>5}:source line {n}\n");
        assert!(text.contains(&want), "{want:?} not in the annotated source");
    }
    assert!(text.contains(&format!("{:>12}:{:>5}:source line 1\n", "-", 1)));
    std::fs::remove_dir_all(dir).unwrap();
}

/// `--load-offset` moves the DWARF's addresses as it moves the symbols':
/// the image placed elsewhere than the trace ran it names no line.
#[test]
fn the_load_offset_applies_to_lines() {
    let trace = data("tracegen/lines/recursion-aarch64-O1-fastmodel.tarmac");
    let image =
        std::ffi::OsString::from(format!("--image={}", trace.with_extension("elf").display()));
    let json = |offset: &str| {
        let (ok, out, err) = run(&[
            "lines".as_ref(),
            "--format=json".as_ref(),
            format!("--load-offset={offset}").as_ref(),
            image.as_os_str(),
            trace.as_os_str(),
        ]);
        assert!(ok, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let ran = |v: &serde_json::Value| -> u64 {
        v["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["executed"].as_u64().unwrap())
            .sum()
    };
    let placed = json("0");
    let moved = json("0x100000");
    assert!(ran(&placed) > 0);
    assert_eq!(ran(&moved), 0);
    assert_eq!(
        moved["unmapped"]["executed"].as_u64().unwrap(),
        ran(&placed) + placed["unmapped"]["executed"].as_u64().unwrap()
    );
}

/// The browse session answers source frames once given the image's DWARF,
/// and says it has none before, or for an image without.
#[test]
fn a_session_answers_source_frames() {
    let trace = data("tracegen/lines/hash-arm-O2-fastmodel.tarmac");
    let elf = read(&trace.with_extension("elf"));
    let mut session = tarmac_lens_core::Session::open(
        tarmac_lens_core::FileSource::open(&trace).unwrap(),
        Default::default(),
    )
    .unwrap();
    let pcs: Vec<u64> = dumped_pcs(&trace).into_keys().collect();
    assert!(session.source_frames(pcs[0]).is_none());
    let stripped = without_dwarf(&elf, "session");
    assert!(!session
        .load_debug_info(Arc::from(read(&stripped).as_slice()), 0)
        .unwrap());
    std::fs::remove_file(stripped).unwrap();
    assert!(session.source_frames(pcs[0]).is_none());
    assert!(session
        .load_debug_info(Arc::from(elf.as_slice()), 0)
        .unwrap());
    let info = DebugInfo::from_elf_bytes(Arc::from(elf.as_slice()), 0)
        .unwrap()
        .unwrap();
    let mut named = 0;
    for pc in pcs {
        let frames = session.source_frames(pc).unwrap().unwrap();
        assert_eq!(frames, info.frames(pc).unwrap());
        named += usize::from(frames.iter().any(|f| f.function.is_some()));
    }
    assert!(named > 0);
}
