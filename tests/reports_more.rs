//! profile, flamegraph, callinfo, vcd and truncate against the reference
//! tools' exact outputs, at library level and through the binary.

use std::path::Path;

use tarmac_lens_core::{
    report,
    report::{callinfo, calltree, flamegraph, names, profile, truncate, vcd},
    EngineOptions, ParseOptions, SliceSource, SymbolTable,
};

use crate::common::{assert_same, data, read, tarmac_lens};

fn text(p: &Path) -> String {
    String::from_utf8(read(p)).unwrap()
}

fn tree(bytes: &[u8]) -> calltree::CallTree {
    let a = report::analyse_calls(
        SliceSource(bytes),
        ParseOptions::default(),
        EngineOptions::default(),
    )
    .unwrap();
    calltree::build(&a).expect("trace has instructions")
}

fn profile_text(trace: &Path, elf: Option<&Path>) -> String {
    let image = elf.map(|e| SymbolTable::from_elf_bytes(&read(e), 0).unwrap());
    let calls = tree(&read(trace));
    let name = |addr: u64| names::function_name(image.as_ref(), addr, true);
    profile::render(&profile::compute(calls.root()), &name)
}

#[test]
fn profile_quicksort_matches_reference() {
    let got = profile_text(&data("ttu/quicksort.tarmac"), None);
    assert_same(
        &got,
        &text(&data("ttu/profile-quicksort-addr.ref")),
        "profile",
    );
}

#[test]
fn profile_tracegen_match_references() {
    let mut n = 0;
    for entry in std::fs::read_dir(data("tracegen")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("tarmac") {
            continue;
        }
        let base = p.with_extension("");
        let got = profile_text(&p, Some(&base.with_extension("elf")));
        let want = text(&base.with_extension("profile.ref"));
        assert_same(&got, &want, &p.display().to_string());
        n += 1;
    }
    assert_eq!(n, 8);
}

#[test]
fn flamegraph_quicksort_matches_reference() {
    let calls = tree(&read(&data("ttu/quicksort.tarmac")));
    let got = flamegraph::render(calls.root(), &|_, _| String::new());
    assert_same(
        &got,
        &text(&data("ttu/flamegraph-quicksort-addr.ref")),
        "flamegraph",
    );
}

fn visits(bytes: &[u8], addrs: &[u64]) -> Vec<Vec<tarmac_lens_core::Site>> {
    callinfo::find_visits(
        SliceSource(bytes),
        ParseOptions::default(),
        EngineOptions::default(),
        addrs,
    )
    .unwrap()
}

#[test]
fn callinfo_quicksort_address() {
    let bytes = read(&data("ttu/quicksort.tarmac"));
    let t = callinfo::resolve("0x80ec", None).unwrap();
    let v = visits(&bytes, &[t.addr()]);
    assert_eq!(
        callinfo::render(&t, &v[0]),
        " - time: 2030 (line:4290, pos:216439)\n"
    );
    // The Thumb bit is ignored, as in the reference tool.
    assert_eq!(visits(&bytes, &[0x80ed]), v);
}

/// Symbol lookup on a generated trace: the visits to `memcpy`'s entry are
/// the activations the reference call tree shows for it.
#[test]
fn callinfo_symbol_matches_calltree_entries() {
    let base = data("tracegen/quicksort-aarch64-O2-es-2M");
    let bytes = read(&base.with_extension("tarmac"));
    let image = SymbolTable::from_elf_bytes(&read(&base.with_extension("elf")), 0).unwrap();
    let t = callinfo::resolve("memcpy", Some(&image)).unwrap();
    let callinfo::Target::Symbol { addr, size, .. } = t.clone() else {
        panic!("not a symbol: {:?}", t)
    };
    let v = visits(&bytes, &[addr]);
    let mut want = format!(
        "Symbol 'memcpy' at 0x{:x} ({} bytes) called from :\n",
        addr, size
    );
    let calltree_ref = text(&base.with_extension("calltree.ref"));
    for l in calltree_ref.lines().map(str::trim_start) {
        if l.starts_with("o ") && l.ends_with(": memcpy") {
            let f: Vec<&str> = l.split_whitespace().collect();
            let time = f[1].trim_start_matches("t:");
            let line: usize = f[2].trim_start_matches("l:").parse().unwrap();
            // Byte offset of that line in the trace.
            let pos: usize = bytes
                .split(|&b| b == b'\n')
                .take(line - 1)
                .map(|l| l.len() + 1)
                .sum();
            want.push_str(&format!(" - time: {} (line:{}, pos:{})\n", time, line, pos));
        }
    }
    assert!(want.lines().count() > 1);
    assert_eq!(callinfo::render(&t, &v[0]), want);
}

#[test]
fn callinfo_argument_errors() {
    let image =
        SymbolTable::from_elf_bytes(&read(&data("tracegen/quicksort-aarch64-O2-es-2M.elf")), 0)
            .unwrap();
    assert!(callinfo::resolve("nosuch", Some(&image))
        .unwrap_err()
        .to_string()
        .contains("'nosuch' not found"));
    assert!(callinfo::resolve("memcpy", None)
        .unwrap_err()
        .to_string()
        .contains("no image"));
    assert!(callinfo::resolve("1+", Some(&image)).is_err());
    assert!(callinfo::resolve("0x1ffffffffffffffff", None).is_err());
    assert_eq!(
        callinfo::resolve("memcpy+4", Some(&image)).unwrap(),
        callinfo::Target::Address(image.address_of("memcpy").unwrap() + 4)
    );
}

fn vcd_text(bytes: &[u8], timestamps: bool) -> String {
    let calls = tree(bytes);
    let functions = vcd::function_changes(calls.root(), &|_| String::new());
    let aarch64 = vcd::is_aarch64(SliceSource(bytes), ParseOptions::default()).unwrap();
    let mut out = Vec::new();
    vcd::write(
        SliceSource(bytes),
        ParseOptions::default(),
        EngineOptions::default(),
        aarch64,
        functions,
        vcd::VcdOptions {
            date: None,
            use_tarmac_timestamps: timestamps,
        },
        &mut out,
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn vcd_quicksort_matches_reference() {
    let bytes = read(&data("ttu/quicksort.tarmac"));
    let got = vcd_text(&bytes, false);
    assert_same(&got, &text(&data("ttu/vcd-quicksort.ref")), "vcd");
}

/// The function-name variants need quicksort.elf, which we do not have:
/// compare everything but the names.
#[test]
fn vcd_function_variants_match_apart_from_names() {
    let bytes = read(&data("ttu/quicksort.tarmac"));
    let blank = |s: &str| {
        s.lines()
            .map(|l| {
                if l.starts_with('s') && l.ends_with(" %\"") {
                    "s %\"".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (file, ts) in [
        ("ttu/vcd-quicksort-function.ref", false),
        ("ttu/vcd-quicksort-function-timestamp.ref", true),
    ] {
        let got = vcd_text(&bytes, ts);
        assert_same(&blank(&got), &blank(&text(&data(file))), file);
    }
}

fn truncated(path: &Path) -> Vec<u8> {
    let bytes = read(path);
    let cut = truncate::find_cut(SliceSource(&bytes), ParseOptions::default()).unwrap();
    let mut out = bytes[..cut.keep_bytes as usize].to_vec();
    if cut.add_newline {
        out.push(b'\n');
    }
    out
}

#[test]
fn truncate_matches_references() {
    for t in ["crash32", "crash32m", "crash64", "loop"] {
        let got = truncated(&data(&format!("ttu/truncate/{}.tarmac", t)));
        let want = read(&data(&format!("ttu/truncate/{}.ref", t)));
        assert_same(
            &String::from_utf8_lossy(&got),
            &String::from_utf8_lossy(&want),
            t,
        );
    }
    // A trace with no loop comes out unchanged.
    let p = data("ttu/truncate/nontruncate.tarmac");
    assert_eq!(truncated(&p), read(&p));
}

#[test]
fn truncate_adds_missing_final_newline_and_survives_garbage() {
    let cut = truncate::find_cut(
        SliceSource(b"0 clk IT (0) 00000000 e1a00000 A svc_s : NOP"),
        ParseOptions::default(),
    )
    .unwrap();
    assert!(cut.add_newline);
    for junk in [
        &b""[..],
        b"\n\n\n",
        b"\xff\xfe garbage\n",
        b"1 clk R r0 zz\n2",
    ] {
        let _ = truncate::find_cut(SliceSource(junk), ParseOptions::default()).unwrap();
    }
    // An unparsable line mid-trace stops the output before it, with an
    // error; as the last line without a newline it is dropped with a warning.
    let bad = b"1 clk IT (1) 00008000 d2a00200 O EL3h_s : MOV x0,#0x100000\n??? junk\n2 clk IT (2) 00008004 d2a00200 O EL3h_s : MOV x0,#0x100000\n";
    let cut = truncate::find_cut(SliceSource(bad), ParseOptions::default()).unwrap();
    assert!(cut
        .error
        .as_deref()
        .is_some_and(|e| e.starts_with("line 2:")));
    assert_eq!(cut.lines, 1);
    let first = bad.iter().position(|&b| b == b'\n').unwrap() + 1;
    let partial = &bad[..first + b"??? junk".len()];
    let cut = truncate::find_cut(SliceSource(partial), ParseOptions::default()).unwrap();
    assert_eq!(cut.error, None);
    assert_eq!(cut.warnings.len(), 1);
    assert_eq!(cut.keep_bytes, first as u64);
    assert!(!cut.add_newline);
}

#[test]
fn cli_reports_write_reference_output() {
    let q = data("ttu/quicksort.tarmac");
    let out = tarmac_lens().arg("profile").arg(&q).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, read(&data("ttu/profile-quicksort-addr.ref")));

    let out = tarmac_lens()
        .args(["callinfo"])
        .arg(&q)
        .arg("0x80ec")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, b" - time: 2030 (line:4290, pos:216439)\n");

    let dir = std::env::temp_dir().join(format!("tl-reports-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fg = dir.join("fg.txt");
    let out = tarmac_lens()
        .arg("flamegraph")
        .arg(&q)
        .arg("-o")
        .arg(&fg)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert_eq!(read(&fg), read(&data("ttu/flamegraph-quicksort-addr.ref")));

    let v = dir.join("q.vcd");
    let out = tarmac_lens()
        .arg("vcd")
        .arg(&q)
        .args(["--no-date", "-o"])
        .arg(&v)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(read(&v), read(&data("ttu/vcd-quicksort.ref")));
    let out = tarmac_lens()
        .arg("vcd")
        .arg(&q)
        .arg("-o")
        .arg(&v)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&read(&v)).starts_with("$date\n"));

    let t = data("ttu/truncate/crash32m.tarmac");
    let out = tarmac_lens().arg("truncate").arg(&t).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, read(&data("ttu/truncate/crash32m.ref")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_errors_exit_1_with_message() {
    let q = data("ttu/quicksort.tarmac");
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["callinfo".into(), q.clone().into(), "nosuch".into()],
        vec!["callinfo".into(), q.clone().into(), "1+".into()],
        vec!["profile".into(), "/nonexistent/trace".into()],
        vec!["truncate".into(), "/nonexistent/trace".into()],
        vec![
            "vcd".into(),
            q.clone().into(),
            "-o".into(),
            "/nonexistent/dir/x.vcd".into(),
        ],
    ];
    for args in cases {
        let out = tarmac_lens().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{:?}", args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("tarmac-lens: "), "{:?}: {}", args, err);
        assert!(!err.contains("panicked"), "{:?}: {}", args, err);
    }
}

/// `--no-offsets` names a function entered past its start by the bare
/// symbol name.
#[test]
fn profile_no_offsets_drops_the_address_suffix() {
    let base = data("tracegen/quicksort-aarch64-O2-gem5-2M");
    let image = SymbolTable::from_elf_bytes(&read(&base.with_extension("elf")), 0).unwrap();
    let calls = tree(&read(&base.with_extension("tarmac")));
    let table = profile::compute(calls.root());
    let with = profile::render(&table, &|a| names::function_name(Some(&image), a, true));
    let without = profile::render(&table, &|a| names::function_name(Some(&image), a, false));
    assert!(with.contains("quicksort + 0x"));
    assert!(!without.contains(" + 0x"));
    assert_eq!(with.lines().count(), without.lines().count());
}

/// Flame-graph self times add up to the root's inclusive time.
#[test]
fn flamegraph_self_times_sum_to_root_time() {
    for entry in std::fs::read_dir(data("tracegen")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) != Some("tarmac") {
            continue;
        }
        let image = SymbolTable::from_elf_bytes(&read(&p.with_extension("elf")), 0).unwrap();
        let calls = tree(&read(&p));
        let root = calls.root();
        let out = flamegraph::render(root, &|a, _| names::function_name(Some(&image), a, true));
        let sum = out
            .lines()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .fold(0u64, u64::wrapping_add);
        assert_eq!(
            sum,
            root.exit.time.wrapping_sub(root.entry.time),
            "{}",
            p.display()
        );
        assert!(out.lines().next().unwrap().starts_with("_start"));
    }
}

/// The dump and its report for `bytes`, numbered by the trace's timestamps.
fn vcd_with_timestamps(bytes: &[u8]) -> (String, vcd::VcdReport) {
    let calls = tree(bytes);
    let functions = vcd::function_changes(calls.root(), &|_| String::new());
    let mut out = Vec::new();
    let report = vcd::write(
        SliceSource(bytes),
        ParseOptions::default(),
        EngineOptions::default(),
        false,
        functions,
        vcd::VcdOptions {
            date: None,
            use_tarmac_timestamps: true,
        },
        &mut out,
    )
    .unwrap();
    (String::from_utf8(out).unwrap(), report)
}

fn vcd_times(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|t| t.parse().unwrap())
        .collect()
}

#[test]
fn vcd_holds_backwards_timestamps_and_names_their_lines() {
    let bytes = read(&data("field/backwards-timestamps.tarmac"));
    let (text, report) = vcd_with_timestamps(&bytes);
    assert_eq!(vcd_times(&text), vec![100_000, 101_000, 102_000, 103_000]);
    assert_eq!(report.backwards_count, 2);
    assert_eq!(
        report.backwards,
        vec![
            vcd::BackwardsTime {
                line: 5,
                time: 99,
                held_at: 101
            },
            vcd::BackwardsTime {
                line: 6,
                time: 99,
                held_at: 101
            },
        ]
    );
    // The held node's changes are still written: r1 becomes 2 before 3.
    let r1 = text
        .lines()
        .find(|l| l.contains(" r1 ") && l.starts_with("$var"))
        .and_then(|l| l.split_whitespace().nth(3))
        .expect("r1 declared")
        .to_string();
    let values: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with(&format!(" {r1}")) && l.starts_with('b'))
        .collect();
    assert!(
        values
            .iter()
            .any(|v| v.starts_with("b00000000000000000000000000000010 ")),
        "{values:?}"
    );
}

#[test]
fn vcd_time_never_goes_back_after_memory_sub_steps() {
    // The first node's second access is written half-way to the next
    // time; the node after it goes back to an earlier timestamp.
    let trace = "\
100 clk IT (100) 00008000 e8900006 A svc_s : LDM r0,{r1,r2}
100 clk MR4 00001000 00000001
100 clk MR4 00001004 00000002
100 clk R r1 00000001
100 clk R r2 00000002
50 clk IT (50) 00008004 e2811001 A svc_s : ADD r1,r1,#1
50 clk R r1 00000002
101 clk IT (101) 00008008 e2811001 A svc_s : ADD r1,r1,#1
101 clk R r1 00000003
";
    let (text, report) = vcd_with_timestamps(trace.as_bytes());
    let times = vcd_times(&text);
    assert!(
        times.windows(2).all(|w| w[0] < w[1]),
        "VCD time must increase: {times:?}"
    );
    assert_eq!(times, vec![100_000, 100_500, 101_000, 102_000]);
    assert_eq!(report.backwards_count, 2);
    assert_eq!(report.backwards[0].line, 6);
}
