//! Exports that scale and coverage that other tools read, each checked by
//! a reader that is not ours:
//! - `export --format perfetto` decoded by Perfetto's own schema (PyPI
//!   `perfetto`'s `perfetto_trace_pb2`, `tests/perfetto_check.py`): the
//!   slices rebuilt from the track events are the call tree's activations,
//!   in order, named as `calltree` names them, each as long as the call
//!   (entry to the node it returned to), on the reference and generated
//!   traces; levels, events and rate on a trace that changes exception
//!   level; parts of a split export each load and join to the whole; the
//!   page's download is the command's output.
//! - drcov read back by a reader written from the format's description
//!   (`tests/drcov_check.py`), its blocks equal to the trace's PCs grouped
//!   by the image's basic blocks as `objdump -d` shows them.
//! - `coverage combine` against Python's set operators on the per-line
//!   JSON (`tests/coverage_sets.py`); `which` against the parts' JSON;
//!   `minimize` keeps the union's lines.
//! - Bad input: an error that says what, and no output written.
//!
//! The Python packages come from `scripts/install-deps.sh` (a venv in
//! `.venv`; `TARMAC_LENS_PYTHON` names another interpreter).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::run_cli;

const TRACEGEN: &str = "tests/data/tracegen";

fn ok(args: &[&str]) -> String {
    let out = run_cli(args);
    assert!(
        out.status.success(),
        "tarmac-lens {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The interpreter with PyPI's `perfetto` and `protobuf`.
fn python() -> PathBuf {
    if let Ok(p) = std::env::var("TARMAC_LENS_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python3");
    assert!(
        venv.exists(),
        "{} is missing: run scripts/install-deps.sh (it makes the venv with PyPI's perfetto \
         and protobuf)",
        venv.display()
    );
    venv
}

fn run_python(script: &str, args: &[&str]) -> String {
    let out = Command::new(python())
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests")
                .join(script),
        )
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{script} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tarmac-lens-exports-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---------------------------------------------------------------- Perfetto

/// One activation as `calltree` prints it: name (its address when it has
/// none), entry time, and the time of the node it returned to (from the
/// call line before it; none for the root or a call that never returned).
#[derive(Debug)]
struct Activation {
    name: String,
    entry: u64,
    resume: Option<u64>,
    depth: usize,
}

fn calltree(trace: &[String]) -> Vec<Activation> {
    let mut args = vec!["calltree"];
    args.extend(trace.iter().map(String::as_str));
    let text = ok(&args);
    let mut out = Vec::new();
    let mut resume = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim_start();
        let times: Vec<u64> = t
            .split_whitespace()
            .filter_map(|w| w.strip_prefix("t:"))
            .map(|n| n.parse().unwrap())
            .collect();
        if t.starts_with("- ") {
            // `- t:CALL l:.. pc:.. - t:RESUME l:.. pc:..`: unset is `t:0`
            // with the reference's line; an unset resume has pc 0.
            let unset = t.ends_with("pc:0x0");
            resume = (!unset).then_some(times[1]);
        } else if t.starts_with("o ") {
            let addr = t
                .split_whitespace()
                .nth(3)
                .unwrap()
                .trim_start_matches("pc:");
            let name = t.split_once(" : ").map_or("", |x| x.1).trim();
            out.push(Activation {
                name: if name.is_empty() {
                    addr.to_string()
                } else {
                    name.to_string()
                },
                entry: times[0],
                resume: resume.take(),
                depth: indent / 4,
            });
        }
    }
    out
}

/// Nanoseconds per trace time unit, as the export converts (1 for
/// clock ticks and instruction counts; picoseconds are divided).
fn ns(trace: &[String], t: u64) -> u64 {
    let file = trace.last().unwrap();
    let head = std::fs::read_to_string(file).unwrap();
    let first = head
        .lines()
        .find(|l| l.contains(" IT ") || l.contains(" ES "))
        .unwrap_or("");
    if first.split_whitespace().nth(1) == Some("ps") {
        t / 1000
    } else {
        t
    }
}

fn perfetto(trace: &[String], dir: &Path, extra: &[&str]) -> Value {
    let out = dir.join("t.pftrace");
    let mut args = vec!["export", "--format", "perfetto", "-o", s(&out)];
    args.extend_from_slice(extra);
    args.extend(trace.iter().map(String::as_str));
    ok(&args);
    serde_json::from_str(&run_python("perfetto_check.py", &[s(&out)])).unwrap()
}

fn reference_and_generated() -> Vec<Vec<String>> {
    let mut v = Vec::new();
    for name in [
        "quicksort-aarch64-O2-fastmodel-2M",
        "quicksort-aarch64-O2-es-2M",
        "quicksort-aarch64-O2-gem5-2M",
        "quicksort-arm-O2-fastmodel-2M",
        "quicksort-arm-O2-es-2M",
        "quicksort-thumb-O2-fastmodel-2M",
        "quicksort-thumb-O2-gem5-2M",
    ] {
        v.push(vec![
            format!("--image={TRACEGEN}/{name}.elf"),
            format!("{TRACEGEN}/{name}.tarmac"),
        ]);
    }
    for t in [
        "tests/data/ttu/quicksort.tarmac",
        "tests/data/ttu/calltests/calltest32.tarmac",
        "tests/data/ttu/calltests/calltest64.tarmac",
        "tests/data/field/no-timestamp.tarmac",
    ] {
        v.push(vec![t.to_string()]);
    }
    v
}

#[test]
fn perfetto_slices_are_the_call_trees_activations_named_and_timed_as_the_calls() {
    let dir = scratch("perfetto");
    for trace in reference_and_generated() {
        let doc = perfetto(&trace, &dir, &[]);
        let acts = calltree(&trace);
        let slices = doc["slices"].as_array().unwrap();
        assert_eq!(
            slices.len(),
            acts.len(),
            "{trace:?}: a slice per activation"
        );
        let end = slices
            .iter()
            .map(|s| s["ts"].as_u64().unwrap() + s["dur"].as_u64().unwrap())
            .max()
            .unwrap();
        for (i, (sl, act)) in slices.iter().zip(&acts).enumerate() {
            let at = format!("{trace:?}, activation {i} ({})", act.name);
            assert_eq!(sl["name"].as_str().unwrap(), act.name, "{at}");
            assert_eq!(sl["ts"].as_u64().unwrap(), ns(&trace, act.entry), "{at}");
            // The call's time: from its entry to the node it returned to;
            // one that never returned lasts to the trace's end.
            let until = act.resume.map_or(end, |r| ns(&trace, r));
            assert_eq!(
                sl["dur"].as_u64().unwrap(),
                until - ns(&trace, act.entry),
                "{at}"
            );
            assert_eq!(sl["depth"].as_u64().unwrap() as usize, act.depth, "{at}");
        }
        // Names and counts are the profile's.
        let mut args = vec!["profile"];
        args.extend(trace.iter().map(String::as_str));
        let mut profiled = BTreeMap::new();
        for line in ok(&args).lines().skip(1) {
            let mut f = line.split_whitespace();
            let addr = f.next().unwrap();
            let count: u64 = f.next().unwrap().parse().unwrap();
            let name = line.get(36..).unwrap_or("").trim();
            let name = if name.is_empty() { addr } else { name };
            *profiled.entry(name.to_string()).or_insert(0) += count;
        }
        let mut sliced = BTreeMap::new();
        for sl in slices {
            *sliced
                .entry(sl["name"].as_str().unwrap().to_string())
                .or_insert(0u64) += 1;
        }
        assert_eq!(sliced, profiled, "{trace:?}");
        // One track of calls, named for the level the quicksort ran at.
        let tracks = doc["tracks"].as_object().unwrap();
        let calls: Vec<&str> = tracks
            .values()
            .filter_map(|t| t["name"].as_str())
            .filter(|n| n.starts_with("calls"))
            .collect();
        assert_eq!(calls.len(), 1, "{trace:?}: {calls:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A loop that makes three calls a round, one of them at EL1 inside an
/// SVC (`crates/core/tests/synthetic/` is the same loop, made on the fly).
fn levels_trace(rounds: u64) -> String {
    let round: [(&str, &[&str]); 13] = [
        (
            "00000ffc 9100001f O EL0t_n : MOV      sp,x0",
            &["R SP_EL0 0000000000100000"],
        ),
        (
            "00001000 94000010 O EL0t_n : BL       {pc}+0x40 ; 0x1040",
            &["R X30 0000000000001004"],
        ),
        (
            "00001040 d10043ff O EL0t_n : SUB      sp,sp,#0x10",
            &["R SP_EL0 00000000000FFFF0"],
        ),
        (
            "00001044 94000010 O EL0t_n : BL       {pc}+0x40 ; 0x1084",
            &["R X30 0000000000001048"],
        ),
        ("00001084 d503201f O EL0t_n : NOP", &[]),
        ("00001088 d65f03c0 O EL0t_n : RET", &[]),
        (
            "00001048 910043ff O EL0t_n : ADD      sp,sp,#0x10",
            &["R SP_EL0 0000000000100000"],
        ),
        ("0000104c d65f03c0 O EL0t_n : RET", &[]),
        (
            "00001004 d4000001 O EL0t_n : SVC      #0",
            &["E 00001008 00000015 CoreEvent_LOWER_A64_SYNC"],
        ),
        (
            "00000400 94000004 O EL1h_n : BL       {pc}+0x10 ; 0x410",
            &["R X30 0000000000000404"],
        ),
        ("00000410 d65f03c0 O EL1h_n : RET", &[]),
        ("00000404 d69f03e0 O EL1h_n : ERET", &[]),
        (
            "00001008 17fffffd O EL0t_n : B        {pc}-0xc ; 0xffc",
            &[],
        ),
    ];
    let mut out = String::new();
    for k in 0..rounds {
        for (i, (insn, after)) in round.iter().enumerate() {
            let t = k * 13 + i as u64 + 1;
            out.push_str(&format!("{t} ns IT ({t}) {insn}\n"));
            for a in *after {
                out.push_str(&format!("{t} ns {a}\n"));
            }
        }
    }
    out
}

#[test]
fn perfetto_gives_each_exception_level_its_track_exceptions_and_the_rate() {
    let dir = scratch("levels");
    let file = dir.join("levels.tarmac");
    std::fs::write(&file, levels_trace(3000)).unwrap();
    let trace = vec![s(&file).to_string()];
    let doc = perfetto(&trace, &dir, &[]);
    let tracks = doc["tracks"].as_object().unwrap();
    let by_name: BTreeMap<&str, &str> = tracks
        .iter()
        .map(|(uuid, t)| (t["name"].as_str().unwrap(), uuid.as_str()))
        .collect();
    let group = by_name["cpu"];
    for name in [
        "calls at NS-EL0",
        "calls at NS-EL1",
        "exceptions and mode changes",
        "instruction rate",
    ] {
        let uuid = by_name
            .get(name)
            .unwrap_or_else(|| panic!("{name}: {by_name:?}"));
        assert_eq!(
            tracks[*uuid]["parent"].as_u64().unwrap().to_string(),
            group,
            "{name} is one of the core's tracks"
        );
    }
    let slices = doc["slices"].as_array().unwrap();
    let on = |track: &str| -> Vec<&Value> {
        slices
            .iter()
            .filter(|s| s["track"].as_str() == Some(by_name[track]))
            .collect()
    };
    // The EL1 call of every round on the EL1 track, at depth 0 there;
    // the root and the two EL0 calls of each round on the EL0 track.
    let el1 = on("calls at NS-EL1");
    assert_eq!(el1.len(), 3000);
    assert!(el1
        .iter()
        .all(|s| s["name"] == "0x410" && s["depth"] == 0 && s["dur"] == 1));
    let el0 = on("calls at NS-EL0");
    assert_eq!(el0.len(), 1 + 2 * 3000);
    assert_eq!(el0.len() + el1.len(), calltree(&trace).len());
    // An exception and two changes of mode a round.
    let instants = doc["instants"].as_array().unwrap();
    let count = |cat: &str| {
        instants
            .iter()
            .filter(|i| i["category"][0].as_str() == Some(cat))
            .count()
    };
    assert_eq!(count("exception"), 3000);
    assert_eq!(count("mode"), 2 * 3000);
    // One instruction a nanosecond: 1000 instructions/µs in every window.
    let counters = doc["counters"].as_array().unwrap();
    assert!(counters.len() >= 3000 * 13 / 1024, "{}", counters.len());
    for c in counters {
        let v = c["value"].as_f64().unwrap();
        assert!((v - 1000.0).abs() < 1e-6, "{c}");
    }
    assert_eq!(
        tracks[by_name["instruction rate"]]["counter_unit"],
        "instructions/µs"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn perfetto_gives_each_core_of_a_multi_core_trace_its_tracks() {
    let dir = scratch("cores");
    // Two cores' lines interleaved: quicksort on cpu0, recursion on cpu1.
    let a = std::fs::read_to_string(format!(
        "{TRACEGEN}/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac"
    ))
    .unwrap();
    let b =
        std::fs::read_to_string("tests/data/multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac")
            .unwrap();
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut text = String::new();
    for i in 0..a.len().max(b.len()) {
        for l in [a.get(i), b.get(i)].into_iter().flatten() {
            text.push_str(l);
            text.push('\n');
        }
    }
    let file = dir.join("two.tarmac");
    std::fs::write(&file, text).unwrap();
    let trace = vec![s(&file).to_string()];
    let doc = perfetto(&trace, &dir, &[]);
    let tracks = doc["tracks"].as_object().unwrap();
    for cpu in ["cpu0", "cpu1"] {
        let (group, _) = tracks
            .iter()
            .find(|(_, t)| t["name"] == cpu && t["parent"].is_null())
            .unwrap_or_else(|| panic!("{cpu}: {tracks:?}"));
        let calls: Vec<&String> = tracks
            .iter()
            .filter(|(_, t)| t["parent"].as_u64().map(|p| p.to_string()).as_ref() == Some(group))
            .filter(|(_, t)| t["name"].as_str().unwrap().starts_with("calls"))
            .map(|(u, _)| u)
            .collect();
        let slices = doc["slices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| {
                calls
                    .iter()
                    .any(|u| s["track"].as_str() == Some(u.as_str()))
            })
            .count();
        let one = calltree(&["--cpu".to_string(), cpu.to_string(), trace[0].clone()]);
        assert_eq!(slices, one.len(), "{cpu}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn perfetto_parts_each_load_and_join_to_the_whole() {
    let dir = scratch("split");
    let base = format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M");
    let trace = vec![format!("--image={base}.elf"), format!("{base}.tarmac")];
    let whole = perfetto(&trace, &dir, &[]);
    let out = dir.join("part.pftrace");
    let mut args = vec![
        "export",
        "--format",
        "perfetto",
        "--split",
        "8K",
        "-o",
        s(&out),
    ];
    args.extend(trace.iter().map(String::as_str));
    let run = run_cli(&args);
    assert!(run.status.success());
    let mut parts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().contains("part-"))
        .collect();
    parts.sort();
    assert!(parts.len() > 3, "{parts:?}");
    assert!(String::from_utf8_lossy(&run.stderr).contains(&format!("{} part(s)", parts.len())));
    for (i, p) in parts.iter().enumerate() {
        assert!(p.ends_with(format!("part-{:03}.pftrace", i + 1)));
        assert!(std::fs::metadata(p).unwrap().len() <= 8 << 10, "{p:?}");
        // Each part on its own: its tracks, names and slices complete.
        run_python("perfetto_check.py", &[s(p)]);
    }
    let all: Vec<&str> = parts.iter().map(|p| s(p)).collect();
    let split: Value = serde_json::from_str(&run_python("perfetto_check.py", &all)).unwrap();
    // A slice cut at a part's end begins again at the same time in the
    // next: joined, the parts give the whole's slices.
    let mut joined: Vec<(String, u64, u64)> = Vec::new();
    // (depth, name, end) of each slice that may go on in the next part.
    let mut may_go_on: BTreeMap<(u64, String, u64), (usize, u64)> = BTreeMap::new();
    for sl in split["slices"].as_array().unwrap() {
        let (name, ts, dur) = (
            sl["name"].as_str().unwrap().to_string(),
            sl["ts"].as_u64().unwrap(),
            sl["dur"].as_u64().unwrap(),
        );
        let (part, depth) = (sl["part"].as_u64().unwrap(), sl["depth"].as_u64().unwrap());
        let key = (depth, name.clone(), ts);
        let index = match may_go_on.remove(&key) {
            Some((i, p)) if p + 1 == part => {
                joined[i].2 += dur;
                i
            }
            _ => {
                joined.push((name.clone(), ts, dur));
                joined.len() - 1
            }
        };
        may_go_on.insert((depth, name, ts + dur), (index, part));
    }
    let mut want: Vec<(String, u64, u64)> = whole["slices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["ts"].as_u64().unwrap(),
                s["dur"].as_u64().unwrap(),
            )
        })
        .collect();
    joined.sort();
    want.sort();
    assert_eq!(joined, want);
    // Too small a part for what one must hold: said, and no part left.
    let tiny = dir.join("tiny.pftrace");
    let mut args = vec![
        "export",
        "--format",
        "perfetto",
        "--split",
        "200",
        "-o",
        s(&tiny),
    ];
    args.extend(trace.iter().map(String::as_str));
    let run = run_cli(&args);
    assert_eq!(run.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("give parts a larger size"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!std::fs::read_dir(&dir).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with("tiny")));
    // --split needs a file to number.
    let run = run_cli(&["export", "--format", "perfetto", "--split", "1M", &trace[1]]);
    assert_eq!(run.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// The page's download (`Reports::write_export`, in the report worker)
/// is the command's output.
#[test]
fn the_panels_perfetto_download_is_the_commands_output() {
    use tarmac_lens_core::{
        report::{Reports, TextKind},
        EngineOptions, FileSource, ParseOptions, SymbolTable,
    };

    let base = format!("{TRACEGEN}/quicksort-thumb-O2-fastmodel-2M");
    let (trace, elf) = (format!("{base}.tarmac"), format!("{base}.elf"));
    let open = || FileSource::open(Path::new(&trace)).unwrap();
    let image = SymbolTable::from_elf_bytes(&std::fs::read(&elf).unwrap(), 0).unwrap();
    let reports = Reports::compute(
        open(),
        ParseOptions::default(),
        EngineOptions::default(),
        Some(image),
    )
    .unwrap();
    assert!(TextKind::ALL.contains(&TextKind::Perfetto));
    assert!(TextKind::Perfetto.is_binary() && TextKind::Perfetto.is_export());
    let mut page = Vec::new();
    reports
        .write_export(TextKind::Perfetto, &trace, open(), &mut page)
        .unwrap();
    let out = run_cli(&["export", "--format", "perfetto", "--image", &elf, &trace]);
    assert!(out.status.success());
    assert!(page.len() > 1000);
    assert!(
        page == out.stdout,
        "{} bytes, the command's {}",
        page.len(),
        out.stdout.len()
    );
    assert_eq!(TextKind::Perfetto.file_name("t.tarmac"), "t.tarmac.pftrace");
}

// ------------------------------------------------------------------- drcov

const OBJDUMP: [(&str, &str); 3] = [
    ("aarch64", "aarch64-linux-gnu-objdump"),
    ("arm", "arm-none-eabi-objdump"),
    ("thumb", "arm-none-eabi-objdump"),
];

#[test]
fn drcov_blocks_are_the_traces_pcs_grouped_by_the_images_basic_blocks() {
    let dir = scratch("drcov");
    for (arch, objdump) in OBJDUMP {
        for style in ["fastmodel", "es"] {
            if arch == "thumb" && style == "es" {
                continue;
            }
            let base = format!("{TRACEGEN}/quicksort-{arch}-O2-{style}-2M");
            let (trace, elf) = (format!("{base}.tarmac"), format!("{base}.elf"));
            let out = dir.join(format!("{arch}-{style}.drcov"));
            ok(&[
                "export",
                "--format",
                "drcov",
                "--image",
                &elf,
                &trace,
                "-o",
                s(&out),
            ]);
            let checked = run_python(
                "drcov_check.py",
                &[s(&out), "--elf", &elf, "--objdump", objdump, &trace],
            );
            let v: Value = serde_json::from_str(&checked).unwrap();
            // Blocks, not instructions: calls and branches cut runs.
            assert!(
                v["blocks"].as_u64().unwrap() * 2 < v["instructions"].as_u64().unwrap(),
                "{arch} {style}: {v}"
            );
            // Standard output holds the same bytes.
            let stdout = run_cli(&["export", "--format", "drcov", "--image", &elf, &trace]);
            assert_eq!(stdout.stdout, std::fs::read(&out).unwrap());
        }
    }
    // No image, no module: said.
    let out = run_cli(&[
        "export",
        "--format",
        "drcov",
        &format!("{TRACEGEN}/quicksort-arm-O2-fastmodel-2M.tarmac"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("drcov needs --image"));
    // Parts are Perfetto's: drcov refuses --split rather than write one whole file.
    let out = run_cli(&[
        "export",
        "--format",
        "drcov",
        "--split",
        "1M",
        "--image",
        &format!("{TRACEGEN}/quicksort-arm-O2-fastmodel-2M.elf"),
        &format!("{TRACEGEN}/quicksort-arm-O2-fastmodel-2M.tarmac"),
        "-o",
        s(&dir.join("split.drcov")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--split cuts a Perfetto export"));
    assert!(!dir.join("split.drcov").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Lines `first..last` (1-based, inclusive) of a trace: a run cut short,
/// so that parts of one image cover different code.
fn cut(from: &str, first: usize, last: usize, to: &Path) {
    let text = std::fs::read_to_string(from).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .skip(first - 1)
        .take(last + 1 - first)
        .collect();
    std::fs::write(to, lines.join("\n") + "\n").unwrap();
}

#[test]
fn coverage_writes_drcov_merged_and_per_trace() {
    let dir = scratch("drcov-each");
    let base = format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M");
    let elf = format!("{base}.elf");
    let (a, b) = (dir.join("a.tarmac"), dir.join("b.tarmac"));
    cut(&format!("{base}.tarmac"), 1, 900, &a);
    cut(&format!("{base}.tarmac"), 20000, 32300, &b);
    let merged = dir.join("all.drcov");
    let each = dir.join("each");
    ok(&[
        "coverage",
        "--image",
        &elf,
        "--drcov",
        s(&merged),
        "--drcov-each",
        s(&each),
        s(&a),
        s(&b),
    ]);
    let check = |file: &Path, traces: &[&Path]| -> u64 {
        let mut args = vec![
            s(file),
            "--elf",
            &elf,
            "--objdump",
            "aarch64-linux-gnu-objdump",
        ];
        args.extend(traces.iter().map(|t| s(t)));
        let v: Value = serde_json::from_str(&run_python("drcov_check.py", &args)).unwrap();
        v["instructions"].as_u64().unwrap()
    };
    let n_a = check(&each.join("a.tarmac.drcov"), &[&a]);
    let n_b = check(&each.join("b.tarmac.drcov"), &[&b]);
    let n_all = check(&merged, &[&a, &b]);
    assert!(
        n_all > n_a.max(n_b) && n_all <= n_a + n_b,
        "{n_a} {n_b} {n_all}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

// ----------------------------------------------------- coverage algebra

/// Three parts of one image that cover different code, and one of
/// another image.
fn parts(dir: &Path) -> Vec<PathBuf> {
    let base = format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M");
    let elf = format!("{base}.elf");
    let mut out = Vec::new();
    for (name, first, last) in [("a", 1, 1200), ("b", 800, 5000), ("c", 3000, 32300)] {
        let t = dir.join(format!("{name}.tarmac"));
        cut(&format!("{base}.tarmac"), first, last, &t);
        let json = dir.join(format!("{name}.json"));
        ok(&[
            "coverage",
            "--quiet",
            "--image",
            &elf,
            "--json",
            s(&json),
            s(&t),
        ]);
        out.push(json);
    }
    let thumb = format!("{TRACEGEN}/quicksort-thumb-O2-fastmodel-2M");
    let other = dir.join("other.json");
    ok(&[
        "coverage",
        "--image",
        &format!("{thumb}.elf"),
        "--json",
        s(&other),
        &format!("{thumb}.tarmac"),
    ]);
    out.push(other);
    out
}

fn executed_lines(json: &Path) -> BTreeMap<(String, u64), Vec<u64>> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for f in v["files"].as_array().unwrap() {
        for l in f["lines"].as_array().unwrap() {
            if l["executed"].as_u64().unwrap() > 0 {
                out.insert(
                    (
                        f["file"].as_str().unwrap().to_string(),
                        l["line"].as_u64().unwrap(),
                    ),
                    l["traces"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t.as_u64().unwrap())
                        .collect(),
                );
            }
        }
    }
    out
}

#[test]
fn combine_is_pythons_set_algebra_on_the_lines() {
    let dir = scratch("combine");
    let p = parts(&dir);
    let named: Vec<String> = ["a", "b", "c"]
        .iter()
        .zip(&p)
        .map(|(n, f)| format!("{n}={}", s(f)))
        .collect();
    let mut sizes = BTreeSet::new();
    for expr in [
        "(a|b)-c",
        "a&b",
        "a^b|c",
        "a-b-c",
        "a|b&c",
        "(a-b)&(c|a)",
        "a&b&c",
    ] {
        let out = dir.join("combined.json");
        let lcov = dir.join("combined.info");
        // The parts it names, in the order given.
        let used: Vec<&str> = named
            .iter()
            .filter(|n| expr.contains(&n[..1]))
            .map(String::as_str)
            .collect();
        let mut args = vec!["coverage", "combine", expr];
        args.extend(&used);
        args.extend(["--json", s(&out), "--lcov", s(&lcov)]);
        ok(&args);
        let mut py = vec![expr, s(&out)];
        py.extend(&used);
        let v: Value = serde_json::from_str(&run_python("coverage_sets.py", &py)).unwrap();
        sizes.insert(v["lines"].as_u64().unwrap());
    }
    // The expressions chose different lines.
    assert!(sizes.len() >= 4, "{sizes:?}");
    // A combined result is a part like any other: it reads back and merges.
    let out = dir.join("combined.json");
    ok(&[
        "coverage",
        "merge",
        s(&out),
        s(&p[0]),
        "--json",
        s(&dir.join("m.json")),
    ]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn which_lists_the_runs_of_a_line_function_or_address_and_minimize_keeps_the_union() {
    let dir = scratch("which");
    let p = parts(&dir);
    let three: Vec<&str> = p[..3].iter().map(|f| s(f)).collect();
    let lines: Vec<BTreeMap<(String, u64), Vec<u64>>> =
        p[..3].iter().map(|f| executed_lines(f)).collect();
    let names: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|n| s(&dir.join(format!("{n}.tarmac"))).to_string())
        .collect();
    // Every line any part ran: its runs are the parts that ran it.
    let all: BTreeSet<&(String, u64)> = lines.iter().flat_map(|l| l.keys()).collect();
    for (file, line) in all.iter().take(40) {
        let mut args = vec!["coverage", "which", "--line"];
        let spec = format!("{file}:{line}");
        args.push(&spec);
        args.extend(&three);
        let text = ok(&args);
        let got: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        let want: Vec<&str> = (0..3)
            .filter(|&i| lines[i].contains_key(&(file.clone(), *line)))
            .map(|i| names[i].as_str())
            .collect();
        assert_eq!(got, want, "{spec}");
    }
    // The end of a path is enough; a function; an address by its line.
    let text = ok(&[
        "coverage",
        "which",
        "--function",
        "partition",
        three[0],
        three[1],
        three[2],
    ]);
    assert!(text.starts_with("# "), "{text}");
    assert!(text.contains("function partition"));
    let c_only = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>();
    assert!(c_only.contains(&names[2].as_str()), "{text}");
    let text = ok(&[
        "coverage",
        "which",
        "--address",
        "0x10060",
        three[0],
        three[1],
        three[2],
    ]);
    assert!(text.contains("main.c:"), "{text}");
    // Minimize: greedy, said so, and its runs cover every line.
    let text = ok(&["coverage", "minimize", three[0], three[1], three[2]]);
    assert!(text.starts_with("# greedy cover"), "{text}");
    let mut added = 0;
    let picked: Vec<usize> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (name, n) = l.split_once("\t+").unwrap();
            added += n.parse::<usize>().unwrap();
            names.iter().position(|x| x == name).unwrap()
        })
        .collect();
    let covered: BTreeSet<&(String, u64)> = picked.iter().flat_map(|&i| lines[i].keys()).collect();
    assert_eq!(covered, all);
    assert_eq!(added, all.len(), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_parts_and_expressions_are_errors_that_write_nothing() {
    let dir = scratch("bad");
    let p = parts(&dir);
    let truncated = dir.join("truncated.json");
    let text = std::fs::read_to_string(&p[0]).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let out = dir.join("out.json");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![format!("a={}", s(&p[0])), format!("b={}", s(&p[3]))],
            "another image",
        ),
        (
            vec![format!("a={}", s(&p[0])), format!("b={}", s(&truncated))],
            "truncated.json",
        ),
        (
            vec![format!("a={}", s(&p[0])), format!("c={}", s(&p[2]))],
            "no part is named `b`",
        ),
    ];
    for (named, says) in cases {
        let mut args = vec!["coverage", "combine", "a|b"];
        args.extend(named.iter().map(String::as_str));
        args.extend(["--json", s(&out)]);
        let run = run_cli(&args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{says}: {err}");
        assert!(!err.contains("panicked"));
        assert!(run.stdout.is_empty(), "nothing on standard output");
        assert!(!out.exists(), "nothing written for {says}");
    }
    for cmd in ["which", "minimize"] {
        let mut args = vec!["coverage", cmd];
        if cmd == "which" {
            args.extend(["--function", "partition"]);
        }
        args.extend([s(&p[0]), s(&truncated)]);
        let run = run_cli(&args);
        assert_eq!(run.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&run.stderr).contains("truncated.json"));
        assert!(run.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).ok();
}
