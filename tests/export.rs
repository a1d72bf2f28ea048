//! `tarmac-lens export`: the Chrome trace-event JSON checked against the
//! format (every `B` closed by its `E` on its thread, properly nested,
//! `ts` never going back, the fields readers require) and against the
//! call reports (a slice per activation `calltree` prints, named as
//! `profile` names the functions); the Callgrind profile read back by a
//! small reader of the format, with the instruction count, call counts
//! and inclusive costs of `index` and `profile`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

use crate::common::{cli_text, tarmac_lens, Dir};

const TRACEGEN: &str = "tests/data/tracegen";

/// The traces with their images (none for the calltests and the trace
/// without timestamps), as command-line arguments.
fn traces() -> Vec<Vec<String>> {
    let mut v = Vec::new();
    for name in [
        "quicksort-aarch64-O2-fastmodel-2M",
        "quicksort-aarch64-O2-es-2M",
        "quicksort-arm-O2-es-2M",
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

fn with<'a>(cmd: &[&'a str], trace: &'a [String]) -> Vec<&'a str> {
    let mut v = cmd.to_vec();
    v.extend(trace.iter().map(String::as_str));
    v
}

/// `profile`'s rows: address → (count, time, name; the address when it
/// prints none).
fn profile(trace: &[String]) -> BTreeMap<String, (u64, u64)> {
    let text = cli_text(&with(&["profile"], trace));
    let mut rows = BTreeMap::new();
    for line in text.lines().skip(1) {
        let mut f = line.split_whitespace();
        let addr = f.next().unwrap();
        let count: u64 = f.next().unwrap().parse().unwrap();
        let time: u64 = f.next().unwrap().parse().unwrap();
        let name = line.get(36..).unwrap_or("");
        let name = if name.is_empty() { addr } else { name };
        rows.insert(name.to_string(), (count, time));
    }
    rows
}

fn activations(trace: &[String]) -> usize {
    cli_text(&with(&["calltree"], trace))
        .lines()
        .filter(|l| l.trim_start().starts_with("o "))
        .count()
}

/// Checks a document against the trace-event format; returns the slice
/// names in the order they began.
fn validate_chrome(doc: &Value) -> Vec<String> {
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let mut stacks: HashMap<(u64, u64), Vec<String>> = HashMap::new();
    let mut last_ts: HashMap<(u64, u64), f64> = HashMap::new();
    let mut names = Vec::new();
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        let pid = e["pid"].as_u64().expect("pid");
        let tid = e["tid"].as_u64().expect("tid");
        let name = e["name"].as_str().expect("name").to_string();
        if ph == "M" {
            assert!(
                e["args"]["name"].is_string(),
                "metadata without a name: {e}"
            );
            continue;
        }
        let ts = e["ts"].as_f64().expect("ts a number");
        assert!(ts >= 0.0);
        let last = last_ts.entry((pid, tid)).or_insert(0.0);
        assert!(ts >= *last, "ts goes back on {pid}/{tid}: {e}");
        *last = ts;
        let stack = stacks.entry((pid, tid)).or_default();
        match ph {
            "B" => {
                names.push(name.clone());
                stack.push(name);
            }
            "E" => {
                let open = stack.pop().expect("an E with no B open");
                assert_eq!(open, name, "E closes another slice than the innermost");
            }
            "i" => assert!(
                matches!(e["s"].as_str(), Some("t" | "p" | "g")),
                "instant without scope: {e}"
            ),
            other => panic!("unexpected phase {other}"),
        }
    }
    for ((pid, tid), s) in stacks {
        assert!(s.is_empty(), "{pid}/{tid} ends with slices open: {s:?}");
    }
    names
}

#[test]
fn chrome_json_is_valid_and_has_a_slice_per_activation_named_as_profile_names() {
    for trace in traces() {
        let text = cli_text(&with(&["export", "--format", "chrome"], &trace));
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let names = validate_chrome(&doc);
        assert_eq!(names.len(), activations(&trace), "{trace:?}");
        let named: BTreeSet<String> = names.into_iter().collect();
        let profiled: BTreeSet<String> = profile(&trace).into_keys().collect();
        assert_eq!(named, profiled, "{trace:?}");
    }
}

#[test]
fn chrome_times_are_microseconds_of_the_trace_or_instruction_counts() {
    // 1000000 ps per instruction: one microsecond each.
    let text = cli_text(&[
        "export",
        "--format",
        "chrome",
        "tests/data/ttu/calltests/calltest32.tarmac",
    ]);
    let doc: Value = serde_json::from_str(&text).unwrap();
    let first = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ph"] == "B")
        .unwrap();
    assert_eq!(first["ts"].as_f64(), Some(1.0));
    // No timestamps: instructions before.
    let text = cli_text(&[
        "export",
        "--format",
        "chrome",
        "tests/data/field/no-timestamp.tarmac",
    ]);
    let doc: Value = serde_json::from_str(&text).unwrap();
    let ts: Vec<f64> = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["ts"].as_f64())
        .collect();
    assert_eq!(ts.first(), Some(&0.0));
    let instructions = index_instructions("tests/data/field/no-timestamp.tarmac");
    assert!(ts.iter().all(|&t| t <= instructions as f64));
}

#[test]
fn chrome_holds_times_that_go_back_and_names_their_lines() {
    let tmp = Dir::new("export");
    let dir = tmp.path();
    let path = dir.join("back.tarmac");
    std::fs::write(
        &path,
        "10 clk IT (1) 00008000 e3a01000 A svc_s : MOV r1,#0\n\
         20 clk IT (2) 00008004 eb000000 A svc_s : BL 0x800c\n\
         15 clk IT (3) 0000800c e1a0f00e A svc_s : MOV pc,lr\n\
         40 clk IT (4) 00008008 e3a01000 A svc_s : MOV r1,#0\n",
    )
    .unwrap();
    let out = tarmac_lens()
        .args(["export", "--format", "chrome"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("back.tarmac:3: timestamp 15 is before 20"),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    validate_chrome(&doc);
}

fn index_instructions(trace: &str) -> u64 {
    let text = cli_text(&["index", "--no-index", trace]);
    let v: Value = serde_json::from_str(&text).unwrap();
    v["instructions"].as_u64().unwrap()
}

/// What a Callgrind reader makes of a profile.
#[derive(Default, Debug)]
struct Callgrind {
    summary: u64,
    totals: u64,
    /// Self cost per function.
    own: BTreeMap<String, u64>,
    /// Per callee: calls and inclusive cost, summed over the call sites.
    called: BTreeMap<String, (u64, u64)>,
    /// Source lines with cost (with `positions: instr line`).
    lines: BTreeSet<(String, u64)>,
}

/// Reads the format as the specification gives it (uncompressed names;
/// positions in hex or decimal), refusing anything it does not know.
fn read_callgrind(text: &str) -> Callgrind {
    let mut cg = Callgrind::default();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("# callgrind format"));
    let mut positions = vec!["line".to_string()];
    let mut events = Vec::new();
    let (mut fl, mut fi, mut func, mut cfn) = (None::<String>, None::<String>, None, None);
    let mut pending_calls: Option<u64> = None;
    let number = |s: &str| -> u64 {
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).expect("hex"),
            None => s.parse().expect("number"),
        }
    };
    for line in lines {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((key, value)) = line.split_once(':').filter(|(k, _)| {
            !k.contains('=') && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) {
            let value = value.trim();
            match key {
                "version" => assert_eq!(value, "1"),
                "creator" | "cmd" | "pid" | "part" | "desc" => {}
                "positions" => positions = value.split(' ').map(String::from).collect(),
                "events" => events = value.split(' ').map(String::from).collect(),
                "summary" => cg.summary = number(value),
                "totals" => cg.totals = number(value),
                other => panic!("unknown header {other}"),
            }
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            match key {
                "fl" => {
                    fl = Some(value.to_string());
                    fi = None;
                }
                "fi" | "fe" => fi = Some(value.to_string()),
                "fn" => {
                    assert!(fl.is_some(), "fn= before any fl=");
                    func = Some(value.to_string());
                    fi = None;
                }
                "cfl" | "cfi" => {}
                "cfn" => cfn = Some(value.to_string()),
                "calls" => {
                    assert!(cfn.is_some(), "calls= without cfn=");
                    let mut f = value.split(' ');
                    pending_calls = Some(number(f.next().unwrap()));
                    assert_eq!(f.count(), positions.len(), "target position");
                }
                other => panic!("unknown line {other}="),
            }
            continue;
        }
        let fields: Vec<&str> = line.split(' ').collect();
        assert_eq!(
            fields.len(),
            positions.len() + events.len(),
            "cost line {line:?}"
        );
        let cost = number(fields[positions.len()]);
        let f = func.clone().expect("cost line outside a function");
        if let Some(calls) = pending_calls.take() {
            let callee = cfn.clone().unwrap();
            let e = cg.called.entry(callee).or_default();
            e.0 += calls;
            e.1 += cost;
        } else {
            *cg.own.entry(f).or_default() += cost;
            if let Some(i) = positions.iter().position(|p| p == "line") {
                let file = fi.clone().or(fl.clone()).unwrap();
                cg.lines.insert((file, number(fields[i])));
            }
        }
    }
    assert_eq!(events, ["Instructions"]);
    assert!(pending_calls.is_none(), "calls= without its cost line");
    cg
}

#[test]
fn callgrind_reads_back_with_the_instruction_count_and_profile_figures() {
    for trace in traces() {
        let text = cli_text(&with(&["export", "--format", "callgrind"], &trace));
        let cg = read_callgrind(&text);
        let instructions = index_instructions(trace.last().unwrap());
        assert_eq!(cg.summary, instructions, "{trace:?}");
        assert_eq!(cg.totals, instructions, "{trace:?}");
        assert_eq!(cg.own.values().sum::<u64>(), instructions, "{trace:?}");
        let rows = profile(&trace);
        // Every function profile lists, and its calls: the root's one
        // activation is no call.
        let functions: BTreeSet<&String> = cg.own.keys().collect();
        assert_eq!(functions, rows.keys().collect(), "{trace:?}");
        let root = rows
            .iter()
            .filter(|(name, _)| !cg.called.contains_key(*name))
            .map(|(name, _)| name.clone())
            .collect::<Vec<_>>();
        assert_eq!(root.len(), 1, "one function is never called: {root:?}");
        for (name, (count, time)) in &rows {
            let (calls, inclusive) = cg.called.get(name).copied().unwrap_or((0, 0));
            if *name == root[0] {
                assert_eq!(*count, 1);
                continue;
            }
            assert_eq!(calls, *count, "{trace:?} calls of {name}");
            // The fastmodel trace's clock ticks once per instruction,
            // so profile's inclusive time is the inclusive instruction
            // count there.
            if trace[0].contains("fastmodel") || trace[0].ends_with("ttu/quicksort.tarmac") {
                assert_eq!(inclusive, *time, "{trace:?} inclusive cost of {name}");
            }
        }
    }
}

#[test]
fn callgrind_costs_source_lines_with_dwarf() {
    let trace = [
        format!("--image={TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M.elf"),
        format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M.tarmac"),
    ];
    let text = cli_text(&with(&["export", "--format", "callgrind"], &trace));
    assert!(text.contains("\npositions: instr line\n"));
    let cg = read_callgrind(&text);
    // The lines with cost are the lines `lines` says ran.
    let json: Value =
        serde_json::from_str(&cli_text(&with(&["lines", "--format", "json"], &trace))).unwrap();
    let mut ran = BTreeSet::new();
    for f in json["files"].as_array().unwrap() {
        for l in f["lines"].as_array().unwrap() {
            if l["executed"].as_u64().unwrap() + l["failed"].as_u64().unwrap() > 0 {
                ran.insert((
                    f["file"].as_str().unwrap().to_string(),
                    l["line"].as_u64().unwrap(),
                ));
            }
        }
    }
    let costed: BTreeSet<_> = cg
        .lines
        .iter()
        .filter(|(f, l)| f != "???" && *l != 0)
        .cloned()
        .collect();
    assert_eq!(costed, ran);
}

#[test]
fn export_refuses_bad_input_with_a_message() {
    for args in [
        vec!["export", "--format", "chrome", "tests/data/no-such.tarmac"],
        vec!["export", "--format", "callgrind", "Cargo.toml"],
    ] {
        let out = tarmac_lens().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("tarmac-lens: "));
        assert!(out.stdout.is_empty(), "no half document on standard output");
    }
    let out = tarmac_lens()
        .args([
            "export",
            "--format",
            "pdf",
            "tests/data/ttu/quicksort.tarmac",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Two one-core traces interleaved by timestamp, as `tests/multicore.rs`
/// builds them (a line without a timestamp stays with the one before).
fn interleave(a: &str, b: &str) -> String {
    let mut groups: Vec<(u64, usize, String)> = Vec::new();
    for (who, text) in [a, b].into_iter().enumerate() {
        for line in text.lines().filter(|l| !l.is_empty()) {
            let time = line.split(' ').next().and_then(|t| t.parse().ok());
            match (time, groups.last_mut()) {
                (None, Some(g)) if g.1 == who => g.2.push_str(&format!("\n{line}")),
                (t, _) => groups.push((t.unwrap_or(0), who, line.to_string())),
            }
        }
    }
    groups.sort_by_key(|g| (g.0, g.1));
    groups.into_iter().map(|g| g.2 + "\n").collect()
}

#[test]
fn chrome_gives_each_core_of_a_multi_core_trace_a_thread() {
    let read = |p: &str| std::fs::read_to_string(p).unwrap();
    let merged = interleave(
        &read(&format!(
            "{TRACEGEN}/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac"
        )),
        &read("tests/data/multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac"),
    );
    let tmp = Dir::new("export-mc");
    let dir = tmp.path();
    let path = dir.join("two.tarmac");
    std::fs::write(&path, merged).unwrap();
    let path_s = path.to_str().unwrap().to_string();
    let doc: Value = serde_json::from_str(&cli_text(&[
        "export",
        "--format",
        "chrome",
        "--no-index",
        &path_s,
    ]))
    .unwrap();
    validate_chrome(&doc);
    let events = doc["traceEvents"].as_array().unwrap();
    for (tid, cpu) in [(1, "cpu0"), (2, "cpu1")] {
        let thread = events
            .iter()
            .find(|e| e["name"] == "thread_name" && e["tid"] == tid)
            .unwrap();
        assert_eq!(thread["args"]["name"], cpu);
        let slices = events
            .iter()
            .filter(|e| e["ph"] == "B" && e["tid"] == tid)
            .count();
        let want = activations(&["--cpu".into(), cpu.into(), path_s.clone()]);
        assert_eq!(slices, want, "{cpu}");
    }
    // Callgrind has one thread of calls: a core must be picked.
    let out = tarmac_lens()
        .args(["export", "--format", "callgrind", &path_s])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cpu"));
}

/// The page's downloads (`Reports::write_export`, in the report worker)
/// are the command's output.
#[test]
fn the_panels_exports_equal_the_cli_output() {
    use tarmac_lens_core::{
        report::{Reports, TextKind},
        EngineOptions, FileSource, ParseOptions, SymbolTable,
    };

    let base = format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M");
    let (trace, elf) = (format!("{base}.tarmac"), format!("{base}.elf"));
    let open = || FileSource::open(std::path::Path::new(&trace)).unwrap();
    let reports = |image: bool| {
        let image =
            image.then(|| SymbolTable::from_elf_bytes(&std::fs::read(&elf).unwrap(), 0).unwrap());
        Reports::compute(
            open(),
            ParseOptions::default(),
            EngineOptions::default(),
            image,
        )
        .unwrap()
    };
    let export = |r: &Reports, kind| {
        let mut out = Vec::new();
        r.write_export(kind, &trace, open(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let with_image = reports(true);
    assert!(TextKind::ALL.contains(&TextKind::Chrome));
    assert_eq!(
        export(&with_image, TextKind::Chrome),
        cli_text(&["export", "--format", "chrome", "--image", &elf, &trace])
    );
    // By address: the panel reads no DWARF, and the command reads it
    // from an --image.
    assert_eq!(
        export(&reports(false), TextKind::Callgrind),
        cli_text(&["export", "--format", "callgrind", &trace])
    );
    assert!(with_image.text(TextKind::Callgrind).is_none());
    assert_eq!(
        TextKind::Callgrind.file_name("t.tarmac"),
        "callgrind.out.t.tarmac"
    );
}

/// Valgrind's own reader, `callgrind_annotate` (Debian's valgrind
/// package; scripts/install-deps.sh installs it), reads the profile with
/// the trace's instruction count as its total and `profile`'s inclusive
/// time per function (this trace's clock ticks once per instruction).
#[test]
fn callgrind_annotate_reads_the_profile_with_profiles_figures() {
    let spawned = Command::new("callgrind_annotate").arg("--version").output();
    assert!(
        spawned.is_ok(),
        "callgrind_annotate not found: install Debian's valgrind (scripts/install-deps.sh does)"
    );
    let base = format!("{TRACEGEN}/quicksort-aarch64-O2-fastmodel-2M");
    let trace = [format!("--image={base}.elf"), format!("{base}.tarmac")];
    let tmp = Dir::new("export-cg");
    let dir = tmp.path();
    let file = dir.join("callgrind.out.quicksort");
    let file_s = file.to_str().unwrap();
    cli_text(&with(
        &["export", "--format", "callgrind", "-o", file_s],
        &trace,
    ));
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100", file_s])
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // `15,505 (97.47%)  ./programs/main.c:tg_main`: a function's code
    // inlined from another file is listed again under that file, with
    // part of its cost; its own file's row has all of it.
    let mut inclusive: BTreeMap<String, u64> = BTreeMap::new();
    let mut total = None;
    for line in text.lines() {
        let Some((cost, rest)) = line.trim_start().split_once(" (") else {
            continue;
        };
        let Ok(cost) = cost.replace(',', "").parse::<u64>() else {
            continue;
        };
        let Some((_, what)) = rest.split_once(")  ") else {
            continue;
        };
        if what == "PROGRAM TOTALS" {
            total = Some(cost);
        } else if let Some((_, function)) = what.rsplit_once(':') {
            let e = inclusive.entry(function.to_string()).or_default();
            *e = (*e).max(cost);
        }
    }
    assert_eq!(total, Some(index_instructions(&trace[1])));
    let want: BTreeMap<String, u64> = profile(&trace)
        .into_iter()
        .map(|(name, (_, time))| (name, time))
        .collect();
    assert_eq!(inclusive, want);
}
