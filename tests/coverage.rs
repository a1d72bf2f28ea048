//! `coverage` against its oracles: the lcov tracefile is read by Debian's
//! `genhtml` without a warning and its line counts are `lines`'; branch
//! outcomes are those of hand-written traces whose every outcome is known,
//! in A64, A32 and T32; the image's instructions are those `objdump -d`
//! lists (literal pools left out); three parts merged give one run's
//! outputs byte for byte; a trace that fails is named and the others kept;
//! one core of a multi-core trace is covered as its own trace.
//!
//! `genhtml` is Debian's `lcov` package, `objdump` its
//! `binutils-aarch64-linux-gnu` and `binutils-arm-none-eabi`
//! (`scripts/install-deps.sh` installs them); a machine without them fails
//! here, saying which package is missing.

// Runs the CLI and the oracles: native only.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use serde_json::Value;
use tarmac_lens_core::coverage::{Image, Kind};

use crate::common::{self, data, objdump_instructions, oracle, read, run_cli, tarmac_lens};

fn ok(args: &[&str]) -> Output {
    let out = run_cli(args);
    assert!(
        out.status.success(),
        "tarmac-lens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh scratch directory for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tl-coverage-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(p: &Path) -> String {
    String::from_utf8(read(p)).unwrap()
}

/// The generated traces with DWARF images (`tracegen/lines/`: AArch64,
/// A32, Thumb at O1 and O2) and the hand-written ones.
fn traces_with_images() -> Vec<(PathBuf, PathBuf)> {
    let mut v = Vec::new();
    for dir in ["tracegen/lines", "coverage"] {
        for e in std::fs::read_dir(data(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "tarmac") {
                v.push((p.clone(), p.with_extension("elf")));
            }
        }
    }
    v.sort();
    assert!(v.len() >= 9, "{v:?}");
    v
}

/// Runs genhtml on `info` in `cwd`; fails on any warning or error.
fn genhtml(info: &Path, cwd: &Path, out: &Path, with_source: bool) {
    let tool = oracle("genhtml", "lcov");
    let mut cmd = Command::new(tool);
    cmd.current_dir(cwd)
        .args(["--branch-coverage", "--function-coverage", "-o"])
        .arg(out);
    if !with_source {
        cmd.arg("--no-source");
    }
    let run = cmd.arg(info).output().expect("run genhtml");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "genhtml {}: {said}", info.display());
    let lower = said.to_lowercase();
    assert!(
        !lower.contains("warning") && !lower.contains("error"),
        "genhtml {}: {said}",
        info.display()
    );
    assert!(said.contains("Overall coverage rate"), "{said}");
}

/// `DA` counts by file and line.
fn da_lines(lcov: &str) -> BTreeMap<(String, u32), u64> {
    let mut out = BTreeMap::new();
    let mut file = String::new();
    for l in lcov.lines() {
        if let Some(f) = l.strip_prefix("SF:") {
            file = f.to_string();
        } else if let Some(d) = l.strip_prefix("DA:") {
            let (line, count) = d.split_once(',').unwrap();
            let key = (file.clone(), line.parse().unwrap());
            assert!(
                out.insert(key, count.parse().unwrap()).is_none(),
                "{l} twice"
            );
        }
    }
    out
}

#[test]
fn lcov_is_read_by_genhtml_and_counts_lines_as_lines_does() {
    let dir = scratch("genhtml");
    for (n, (trace, elf)) in traces_with_images().iter().enumerate() {
        let info = dir.join(format!("{n}.info"));
        let image = format!("--image={}", s(elf));
        ok(&["coverage", &image, s(trace), "--lcov", s(&info)]);
        let lcov = text(&info);
        genhtml(&info, &dir, &dir.join(format!("html{n}")), false);

        // With the sources: the records whose file is found from the
        // trace's directory (DWARF names are relative to the build's).
        let here = trace.parent().unwrap();
        let found: String = lcov
            .split_inclusive("end_of_record\n")
            .filter(|r| {
                r.lines()
                    .find_map(|l| l.strip_prefix("SF:"))
                    .is_some_and(|f| here.join(f).is_file())
            })
            .collect();
        if !found.is_empty() {
            let part = dir.join(format!("{n}-sources.info"));
            std::fs::write(&part, &found).unwrap();
            genhtml(&part, here, &dir.join(format!("src{n}")), true);
        }

        // DA counts are `lines`' executed counts, line for line.
        let lines = ok(&["lines", &image, s(trace), "--format", "json"]);
        let lines: Value = serde_json::from_slice(&lines.stdout).unwrap();
        let mut want = BTreeMap::new();
        for f in lines["files"].as_array().unwrap() {
            for l in f["lines"].as_array().unwrap() {
                want.insert(
                    (
                        f["file"].as_str().unwrap().to_string(),
                        l["line"].as_u64().unwrap() as u32,
                    ),
                    l["executed"].as_u64().unwrap(),
                );
            }
        }
        assert_eq!(da_lines(&lcov), want, "{}", trace.display());
        assert!(want.values().any(|&c| c > 0));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `(pc, kind, outcomes)` of every conditional instruction in the JSON.
fn branches(json: &Value) -> Vec<(u64, String, Option<[u64; 2]>)> {
    let mut v = Vec::new();
    for f in json["files"].as_array().unwrap() {
        for b in f["branches"].as_array().unwrap() {
            let pc = u64::from_str_radix(b["pc"].as_str().unwrap().trim_start_matches("0x"), 16);
            let outcomes = b["outcomes"]
                .as_array()
                .map(|o| [o[0].as_u64().unwrap(), o[1].as_u64().unwrap()]);
            v.push((
                pc.unwrap(),
                b["kind"].as_str().unwrap().to_string(),
                outcomes,
            ));
        }
    }
    v.sort();
    v
}

fn coverage_json(elf: &Path, traces: &[&Path], dir: &Path) -> Value {
    let json = dir.join("out.json");
    let image = format!("--image={}", s(elf));
    let mut args = vec!["coverage", &image, "--json", s(&json)];
    args.extend(traces.iter().map(|t| s(t)));
    ok(&args);
    serde_json::from_str(&text(&json)).unwrap()
}

#[test]
fn branch_outcomes_of_hand_written_traces_in_each_instruction_set() {
    let dir = scratch("branches");
    let b = |pc: u64, kind: &str, o: Option<[u64; 2]>| (pc, kind.to_string(), o);
    // From the comments of tests/data/coverage/branches-*.S, which the
    // traces run once: [taken, not taken] for a branch, [executed,
    // failed] for a conditional instruction; None where never reached.
    let cases = [
        (
            "a64",
            vec![
                b(0x8008, "branch", Some([1, 1])), // b.ne: a taken, then an IS
                b(0x800c, "branch", Some([1, 0])), // cbz
                b(0x8010, "branch", None),         // tbnz
                b(0x8014, "branch", Some([0, 1])), // cbnz: IS
            ],
            (7, 9),
        ),
        (
            "a32",
            vec![
                b(0x800c, "branch", Some([1, 1])), // bne: IT both times, the next PC tells
                b(0x8014, "conditional", Some([1, 0])), // moveq
                b(0x8018, "conditional", Some([0, 1])), // movne: IS
                b(0x8020, "branch", None),         // bne
                b(0x8024, "branch", Some([1, 0])), // bleq
            ],
            // The literal at 0x8030 is data ($d): 12 instructions, not 13.
            (10, 12),
        ),
        (
            "t32",
            vec![
                b(0x8006, "branch", Some([1, 1])),      // bne.n
                b(0x800c, "conditional", Some([1, 0])), // moveq in the ITE
                b(0x800e, "conditional", Some([0, 1])), // movne in the ITE: IS
                b(0x8010, "branch", Some([1, 0])),      // cbz
                b(0x8012, "branch", None),              // bne.w (32-bit)
                b(0x8016, "branch", Some([0, 1])),      // cbnz: IS
            ],
            (12, 13),
        ),
    ];
    for (set, want, (reached, total)) in cases {
        let trace = data(&format!("coverage/branches-{set}.tarmac"));
        let elf = data(&format!("coverage/branches-{set}.elf"));
        let json = coverage_json(&elf, &[&trace], &dir);
        assert_eq!(branches(&json), want, "{set}");
        let insns = &json["totals"]["instructions"];
        assert_eq!(
            (
                insns["hit"].as_u64().unwrap(),
                insns["total"].as_u64().unwrap()
            ),
            (reached, total),
            "{set}"
        );
        let outcomes = &json["totals"]["branches"];
        let seen: u64 = want
            .iter()
            .flat_map(|w| w.2.unwrap_or([0, 0]))
            .filter(|&c| c > 0)
            .count() as u64;
        assert_eq!(outcomes["hit"].as_u64(), Some(seen), "{set}");
        assert_eq!(
            outcomes["total"].as_u64(),
            Some(2 * want.len() as u64),
            "{set}"
        );

        // The same trace in ES style (condition failures as `CCFAIL`)
        // gives the same lcov.
        let es = dir.join(format!("{set}-es.tarmac"));
        ok(&["convert", "--style", "es", "-o", s(&es), s(&trace)]);
        let image = format!("--image={}", s(&elf));
        let (a, b) = (dir.join("fm.info"), dir.join("es.info"));
        ok(&["coverage", &image, s(&trace), "--lcov", s(&a)]);
        ok(&["coverage", &image, s(&es), "--lcov", s(&b)]);
        assert_eq!(text(&a), text(&b), "{set}: ES style");
        assert!(text(&a).contains("BRDA:"), "{set}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every ELF under tests/data with code for an Arm core.
fn images() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["tracegen", "tracegen/lines", "coverage", "elf"] {
        for e in std::fs::read_dir(data(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "elf") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

const CONDITIONS: [&str; 16] = [
    "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le",
];

/// A mnemonic as objdump writes a conditional branch: `b.ne`, `cbz`,
/// `tbnz`, `bne.n`, `blls`, `bxeq`.
fn is_conditional_branch(m: &str) -> bool {
    let m = m
        .strip_suffix(".n")
        .or_else(|| m.strip_suffix(".w"))
        .unwrap_or(m);
    if matches!(m, "cbz" | "cbnz" | "tbz" | "tbnz") {
        return true;
    }
    if let Some(c) = m.strip_prefix("b.") {
        return CONDITIONS.contains(&c);
    }
    ["b", "bl", "bx", "blx"]
        .iter()
        .any(|p| m.strip_prefix(p).is_some_and(|c| CONDITIONS.contains(&c)))
}

#[test]
fn the_image_s_instructions_are_objdump_s_without_literal_pools() {
    let mut pools = 0;
    for elf in images() {
        let bytes = read(&elf);
        let (tool, package) = match u16::from_le_bytes([bytes[18], bytes[19]]) {
            183 => ("aarch64-linux-gnu-objdump", "binutils-aarch64-linux-gnu"),
            40 => ("arm-none-eabi-objdump", "binutils-arm-none-eabi"),
            m => panic!("{}: ELF machine {m}", elf.display()),
        };
        let want = objdump_instructions(&elf, oracle(tool, package));
        let image = Image::from_elf_bytes("x", Arc::from(bytes), 0).unwrap();
        let got: BTreeSet<u64> = image.code().iter().map(|c| c.addr).collect();
        let want_addrs: BTreeSet<u64> = want.keys().copied().collect();
        assert_eq!(got, want_addrs, "{}", elf.display());
        let listed = Command::new(tool).arg("-d").arg(&elf).output().unwrap();
        pools += String::from_utf8_lossy(&listed.stdout)
            .matches("\t.word\t")
            .count();
        // Every conditional branch objdump names is one; the others that
        // the classifier calls branches write the PC under a condition.
        for c in image.code() {
            let text = &want[&c.addr];
            let mnemonic = text.split_whitespace().next().unwrap();
            if is_conditional_branch(mnemonic) {
                assert_eq!(
                    c.kind,
                    Kind::Branch,
                    "{}: {text} at {:x}",
                    elf.display(),
                    c.addr
                );
            } else if c.kind == Kind::Branch {
                assert!(
                    text.contains("pc") || mnemonic.starts_with("b"),
                    "{}: {text} at {:x} is no branch",
                    elf.display(),
                    c.addr
                );
            }
        }
    }
    assert!(pools > 0, "no image had a literal pool to leave out");
}

#[test]
fn every_instruction_a_trace_fails_can_fail() {
    for (trace, elf) in traces_with_images() {
        let image = Image::from_elf_bytes("x", Arc::from(read(&elf)), 0).unwrap();
        let kinds: BTreeMap<u64, Kind> = image.code().iter().map(|c| (c.addr, c.kind)).collect();
        let counts = tarmac_lens_core::coverage::count_trace(
            tarmac_lens_core::FileSource::open(&trace).unwrap(),
            Default::default(),
        )
        .unwrap();
        let mut failing = 0;
        for (&pc, &kind) in &kinds {
            if counts.get(pc).failed > 0 {
                failing += 1;
                assert_ne!(kind, Kind::Plain, "{}: 0x{pc:x} failed", trace.display());
            }
        }
        assert!(failing > 0, "{}", trace.display());
    }
}

const QUICKSORT: [&str; 4] = [
    "quicksort-aarch64-O2-fastmodel-2M",
    "quicksort-aarch64-O2-es-2M",
    "quicksort-aarch64-O2-gem5-2M",
    "quicksort-aarch64-O2-fastmodel-cpu-2M",
];

fn quicksort(i: usize) -> PathBuf {
    data(&format!("tracegen/{}.tarmac", QUICKSORT[i]))
}

/// lcov, JSON and summary of one run.
fn outputs(args: &[&str], dir: &Path, tag: &str) -> (String, String, String) {
    let (lcov, json) = (
        dir.join(format!("{tag}.info")),
        dir.join(format!("{tag}.json")),
    );
    let mut all = args.to_vec();
    all.extend(["--lcov", s(&lcov), "--json", s(&json)]);
    let out = ok(&all);
    (
        text(&lcov),
        text(&json),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn three_parts_merged_equal_one_run_byte_for_byte() {
    let dir = scratch("merge");
    let elf = data(&format!("tracegen/{}.elf", QUICKSORT[0]));
    let image = format!("--image={}", s(&elf));
    // Five traces of one image by four tools, one twice.
    let order = [0, 1, 2, 3, 0];
    let paths: Vec<PathBuf> = order.iter().map(|&i| quicksort(i)).collect();
    let names: Vec<&str> = paths.iter().map(|p| s(p)).collect();
    let mut args = vec!["coverage", &image, "--jobs", "2"];
    args.extend(&names);
    let whole = outputs(&args, &dir, "whole");
    let mut one_job = vec!["coverage", &image, "-j", "1"];
    one_job.extend(&names);
    assert_eq!(
        outputs(&one_job, &dir, "one-job"),
        whole,
        "--jobs changes nothing"
    );

    let mut parts = Vec::new();
    for (n, slice) in [&names[..2], &names[2..3], &names[3..]].iter().enumerate() {
        let mut a = vec!["coverage", &image];
        a.extend(slice.iter());
        outputs(&a, &dir, &format!("part{n}"));
        parts.push(dir.join(format!("part{n}.json")));
    }
    let mut m = vec!["coverage", "merge"];
    m.extend(parts.iter().map(|p| s(p)));
    let merged = outputs(&m, &dir, "merged");
    assert_eq!(merged.0, whole.0, "lcov");
    assert_eq!(merged.1, whole.1, "json");
    assert_eq!(merged.2, whole.2, "summary");

    // One part merged alone is itself: the JSON reads back losslessly.
    let alone = dir.join("alone.json");
    ok(&["coverage", "merge", s(&parts[1]), "--json", s(&alone)]);
    assert_eq!(text(&alone), text(&parts[1]));

    // A merge of merges is the same again.
    let first_two = dir.join("merged-01.json");
    ok(&[
        "coverage",
        "merge",
        s(&parts[0]),
        s(&parts[1]),
        "--json",
        s(&first_two),
    ]);
    let again = outputs(
        &["coverage", "merge", s(&first_two), s(&parts[2])],
        &dir,
        "again",
    );
    assert_eq!(again, whole);

    // Per-trace attribution: every line run names the traces that ran it,
    // and the traces are listed in the order given.
    let json: Value = serde_json::from_str(&whole.1).unwrap();
    let listed: Vec<&str> = json["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(listed, names);
    for f in json["files"].as_array().unwrap() {
        for l in f["lines"].as_array().unwrap() {
            let traces = l["traces"].as_array().unwrap().len();
            if l["executed"].as_u64().unwrap() > 0 {
                assert_eq!(traces, 5, "{l}");
            } else {
                assert_eq!(traces, 0, "{l}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_trace_that_fails_is_named_and_the_others_are_kept() {
    let dir = scratch("failing");
    let elf = data(&format!("tracegen/{}.elf", QUICKSORT[0]));
    let image = format!("--image={}", s(&elf));
    let missing = dir.join("missing.tarmac");
    let binary = dir.join("binary.tarmac");
    std::fs::write(&binary, [0u8, 1, 2, 3, 0xff, 0xfe, 0, 0].repeat(64)).unwrap();
    let (a, b) = (quicksort(0), quicksort(1));
    let (lcov, json) = (dir.join("x.info"), dir.join("x.json"));
    let out = run_cli(&[
        "coverage",
        &image,
        s(&a),
        s(&missing),
        s(&b),
        s(&binary),
        "--lcov",
        s(&lcov),
        "--json",
        s(&json),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(s(&missing)), "{err}");
    assert!(err.contains(s(&binary)), "{err}");
    assert!(err.contains("2 of 4 traces could not be read"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let good = outputs(&["coverage", &image, s(&a), s(&b)], &dir, "good");
    assert_eq!(text(&lcov), good.0);
    assert_eq!(text(&json), good.1);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), good.2);

    // A part that is no coverage result is named too; the others merge.
    let not_json = dir.join("not.json");
    std::fs::write(
        &not_json,
        "{\"format\": \"tarmac-lens coverage\", \"version\": 1,\n\"image\": 3}",
    )
    .unwrap();
    let out = run_cli(&[
        "coverage",
        "merge",
        s(&dir.join("good.json")),
        s(&not_json),
        s(&a),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not.json: ") && err.contains(s(&a)), "{err}");
    assert!(err.contains("2 of 3 parts"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), good.2);

    // Parts of another image do not merge.
    let thumb = data("tracegen/quicksort-thumb-O2-fastmodel-2M");
    let other = outputs(
        &[
            "coverage",
            &format!("--image={}", s(&thumb.with_extension("elf"))),
            s(&thumb.with_extension("tarmac")),
        ],
        &dir,
        "other",
    );
    let _ = other;
    let out = run_cli(&[
        "coverage",
        "merge",
        s(&dir.join("good.json")),
        s(&dir.join("other.json")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("another image"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_dwarf_coverage_is_by_function_and_lcov_is_refused() {
    let dir = scratch("nodwarf");
    let elf = data("coverage/branches-t32.elf");
    let stripped = dir.join("stripped.elf");
    let objcopy = oracle("arm-none-eabi-objcopy", "binutils-arm-none-eabi");
    let status = Command::new(objcopy)
        .arg("--strip-debug")
        .arg(&elf)
        .arg(&stripped)
        .status()
        .unwrap();
    assert!(status.success());
    let trace = data("coverage/branches-t32.tarmac");
    let image = format!("--image={}", s(&stripped));
    let out = run_cli(&[
        "coverage",
        &image,
        s(&trace),
        "--lcov",
        s(&dir.join("x.info")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no DWARF") && err.contains("stripped.elf"),
        "{err}"
    );
    let json = coverage_json(&stripped, &[&trace], &dir);
    assert_eq!(json["files"].as_array().unwrap().len(), 0);
    assert_eq!(json["totals"]["instructions"]["hit"].as_u64(), Some(12));
    let summary = ok(&["coverage", &image, s(&trace)]);
    let summary = String::from_utf8(summary.stdout).unwrap();
    assert!(
        summary.contains("FUNCTION") && summary.contains("_start"),
        "{summary}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_images_and_parts_are_errors_not_panics() {
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    for elf in [
        "coverage/branches-t32.elf",
        "coverage/branches-a64.elf",
        "tracegen/quicksort-arm-O2-fastmodel-2M.elf",
    ] {
        let bytes = read(&data(elf));
        for _ in 0..200 {
            let mut b = bytes.clone();
            match rng.next() % 3 {
                0 => b.truncate((rng.next() % b.len() as u64) as usize),
                _ => {
                    for _ in 0..8 {
                        let at = (rng.next() % b.len() as u64) as usize;
                        b[at] = rng.next() as u8;
                    }
                }
            }
            if let Ok(image) = Image::from_elf_bytes("x", Arc::from(b), 0) {
                let _ = tarmac_lens_core::coverage::Coverage::new(&image);
            }
        }
    }
    let dir = scratch("damaged");
    let json = coverage_json(
        &data("coverage/branches-a32.elf"),
        &[&data("coverage/branches-a32.tarmac")],
        &dir,
    );
    let whole = json.to_string();
    let pretty = text(&dir.join("out.json"));
    for text in [whole, pretty] {
        let b = text.as_bytes();
        for _ in 0..300 {
            let mut m = b.to_vec();
            if rng.next().is_multiple_of(2) {
                m.truncate((rng.next() % m.len() as u64) as usize);
            } else {
                let at = (rng.next() % m.len() as u64) as usize;
                m[at] = b"0123456789,:[]{}\"x-"[(rng.next() % 17) as usize];
            }
            let m = String::from_utf8_lossy(&m);
            if let Ok(c) = tarmac_lens_core::coverage::Coverage::from_json(&m) {
                let _ = (c.to_json(), c.to_text(), c.to_lcov());
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_trace_of_another_program_is_said() {
    let image = format!("--image={}", s(&data("coverage/branches-t32.elf")));
    let trace = data("tracegen/lines/hash-thumb-O2-fastmodel.tarmac");
    let out = ok(&["coverage", &image, s(&trace)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("none of the") && err.contains("--load-offset"),
        "{err}"
    );
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(summary.contains("outside the image's code"), "{summary}");
    // Code outside the image is named by no function of it.
    assert!(summary.contains("0/1 0.0%"), "{summary}");
}

/// Two one-core traces interleaved by timestamp (a line without one stays
/// with the line before), as a multi-core model writes them.
fn interleave(a: &[u8], b: &[u8]) -> Vec<u8> {
    fn groups(t: &[u8], who: usize) -> Vec<(u64, usize, usize, Vec<u8>)> {
        let mut out: Vec<(u64, usize, usize, Vec<u8>)> = Vec::new();
        for (i, line) in t
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .enumerate()
        {
            let time = line
                .split(|&c| c == b' ')
                .next()
                .and_then(|w| std::str::from_utf8(w).ok()?.parse().ok());
            match (time, out.last_mut()) {
                (Some(t), Some(g)) if g.0 == t => {}
                (None, Some(_)) => {}
                (t, _) => out.push((t.unwrap_or(0), who, i, Vec::new())),
            }
            let g = out.last_mut().unwrap();
            g.3.extend_from_slice(line);
            g.3.push(b'\n');
        }
        out
    }
    let mut all = groups(a, 0);
    all.extend(groups(b, 1));
    all.sort_by_key(|g| (g.0, g.1, g.2));
    all.into_iter().flat_map(|g| g.3).collect()
}

#[test]
fn one_core_of_a_multi_core_trace_is_covered_as_its_own_trace() {
    let dir = scratch("multicore");
    let cpu0 = data("tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac");
    let cpu1 = data("multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac");
    let both = dir.join("both.tarmac");
    std::fs::write(&both, interleave(&read(&cpu0), &read(&cpu1))).unwrap();
    let image = format!("--image={}", s(&cpu0.with_extension("elf")));
    let alone = outputs(&["coverage", &image, s(&cpu0)], &dir, "alone");
    let picked = outputs(
        &["coverage", &image, "--cpu", "cpu0", s(&both)],
        &dir,
        "picked",
    );
    assert_eq!(picked.0, alone.0, "lcov");
    // Without --cpu the trace is refused, named, as the other commands do.
    let out = run_cli(&["coverage", &image, s(&both)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("both.tarmac") && err.contains("--cpu"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A compressed trace, or one on standard input, is covered as the plain
/// file is (the CLI reads them everywhere).
#[test]
fn compressed_and_piped_traces_are_covered_as_the_plain_ones() {
    use std::io::Write;
    let dir = scratch("compressed");
    let plain = quicksort(0);
    let elf = data(&format!("tracegen/{}.elf", QUICKSORT[0]));
    let image = format!("--image={}", s(&elf));
    let gz = dir.join("trace.tarmac.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&read(&plain)).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let (lcov, _, summary) = outputs(&["coverage", &image, s(&plain)], &dir, "plain");
    let (lcov_gz, _, summary_gz) = outputs(&["coverage", &image, s(&gz)], &dir, "gz");
    assert_eq!(lcov_gz, lcov);
    assert_eq!(summary_gz, summary);
    let lcov_path = dir.join("stdin.info");
    let out = tarmac_lens()
        .args(["coverage", &image, "--lcov", s(&lcov_path), "-"])
        .stdin(std::fs::File::open(&gz).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text(&lcov_path), lcov);
    let twice = run_cli(&["coverage", &image, "-", "-"]);
    assert!(!twice.status.success());
    assert!(String::from_utf8_lossy(&twice.stderr).contains("standard input"));
}

/// The table a page shows has the lcov tracefile's figures, file by file,
/// and each file's first line that never ran.
#[test]
fn the_table_has_the_tracefile_s_figures() {
    use tarmac_lens_core::{
        coverage::{count_trace, Coverage},
        SliceSource,
    };
    let elf = data(&format!("tracegen/{}.elf", QUICKSORT[0]));
    let image = Image::from_elf_bytes("quicksort.elf", Arc::from(read(&elf)), 0).unwrap();
    let mut cov = Coverage::new(&image).unwrap();
    let trace = read(&quicksort(0));
    let counts = count_trace(SliceSource(&trace), Default::default()).unwrap();
    cov.add_trace(0, "quicksort", &counts, &image).unwrap();
    let table = cov.table();
    let lcov = cov.to_lcov().unwrap();
    assert!(table.dwarf);
    let mut files = 0;
    for record in lcov
        .split("end_of_record\n")
        .filter(|r| !r.trim().is_empty())
    {
        let field = |key: &str| -> u64 {
            record
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .unwrap_or_else(|| panic!("{key} in {record}"))
                .parse()
                .unwrap()
        };
        let name = record.lines().find_map(|l| l.strip_prefix("SF:")).unwrap();
        let row = table.groups.iter().find(|g| g.name == name).unwrap();
        assert_eq!(row.figures.lines, (field("LH:"), field("LF:")), "{name}");
        assert_eq!(
            row.figures.functions,
            (field("FNH:"), field("FNF:")),
            "{name}"
        );
        assert_eq!(
            row.figures.branches,
            (field("BRH:"), field("BRF:")),
            "{name}"
        );
        let never = record
            .lines()
            .filter_map(|l| l.strip_prefix("DA:"))
            .filter_map(|l| l.split_once(','))
            .filter(|(_, n)| *n == "0")
            .map(|(line, _)| line.parse::<u32>().unwrap())
            .min();
        assert_eq!(row.first_unexecuted, never, "{name}");
        files += 1;
    }
    assert!(files > 0);
    // Every other group is the code with no source line (in no record of
    // the tracefile), said so, for a page to name in its language.
    let unlined = table
        .groups
        .iter()
        .filter(|g| g.is_no_source_line())
        .count();
    assert!(unlined <= 1);
    assert_eq!(table.groups.len(), files + unlined);
    let sum = |f: fn(&tarmac_lens_core::coverage::GroupRow) -> (u64, u64)| {
        table
            .groups
            .iter()
            .map(f)
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    };
    assert_eq!(sum(|g| g.figures.lines), table.totals.lines);
    let ran = table.functions.iter().filter(|f| f.executed > 0).count() as u64;
    assert_eq!((ran, table.functions.len() as u64), table.totals.functions);
    assert!(ran > 0);
}

/// A function is named once, as the profile names it: a compiler's copy
/// (`fill.constprop.0`) is an ELF symbol where DWARF names the source
/// function (`fill`), and coverage listed both, the symbol's as a function
/// never entered with no source line although the profile shows it
/// called. Each function the profile lists is in the coverage under its
/// name, entered as often as it was called; none is named only by a
/// symbol and never run.
#[test]
fn functions_are_named_as_the_profile_names_them_one_per_address() {
    let dir = scratch("profile-names");
    for arch in ["aarch64", "arm", "thumb"] {
        let trace = data(&format!("tracegen/quicksort-{arch}-O2-fastmodel-2M.tarmac"));
        let elf = trace.with_extension("elf");
        let cov = coverage_json(&elf, &[&trace], &dir);
        let functions: BTreeMap<&str, &Value> = cov["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["name"].as_str().unwrap(), f))
            .collect();
        let image = format!("--image={}", s(&elf));
        let profile = ok(&["profile", "--no-offsets", &image, s(&trace)]);
        let profile = String::from_utf8(profile.stdout).unwrap();
        let mut listed = 0;
        for row in profile.lines().skip(1) {
            let words: Vec<&str> = row.split_whitespace().collect();
            let (count, name) = (words[1], words[3..].join(" "));
            let f = functions
                .get(name.as_str())
                .unwrap_or_else(|| panic!("{arch}: {name} not in the coverage: {functions:?}"));
            assert_eq!(f["entries"].to_string(), count, "{arch}: {name}");
            listed += 1;
        }
        assert!(listed >= 10, "{arch}: {profile}");
        assert!(functions.contains_key("fill.constprop.0") && !functions.contains_key("fill"));
        for (name, f) in &functions {
            assert!(
                !f["file"].is_null() || f["executed"].as_u64() > Some(0),
                "{arch}: {name} has no source line and never ran"
            );
        }
    }
}
