//! The command line as a person uses it: index files, stale-index rebuilds,
//! JSON figures, errors and exit codes.
use std::path::PathBuf;

use crate::common::{data, inserted, retimed, tarmac_lens, Dir, GARBAGE};

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON line")
}

/// A scratch copy of a trace, so index files land in a temporary directory.
fn scratch(name: &str) -> (Dir, PathBuf) {
    let dir = Dir::new("cli");
    let p = dir.path().join("t.tarmac");
    std::fs::copy(data(name), &p).unwrap();
    (dir, p)
}

#[test]
fn index_json_and_reuse() {
    let (_d, trace) = scratch("ttu/quicksort.tarmac");
    let first = json(&tarmac_lens().args(["index"]).arg(&trace).output().unwrap());
    for key in [
        "bytes",
        "lines",
        "instructions",
        "seconds",
        "mb_per_s",
        "index_bytes",
        "peak_rss_bytes",
    ] {
        assert!(first.get(key).is_some(), "missing {}", key);
    }
    assert_eq!(first["bytes"], std::fs::metadata(&trace).unwrap().len());
    assert_eq!(first["lines"], 4322);
    assert_eq!(first["reused"], false);
    let index_file = trace.with_extension("tarmac.index");
    assert!(index_file.exists());
    let again = json(&tarmac_lens().args(["index"]).arg(&trace).output().unwrap());
    assert_eq!(again["reused"], true);
    assert_eq!(again["instructions"], first["instructions"]);
    let forced = json(
        &tarmac_lens()
            .args(["index", "--force-index"])
            .arg(&trace)
            .output()
            .unwrap(),
    );
    assert_eq!(forced["reused"], false);
    // A changed trace makes the index stale: rebuilt.
    let mut bytes = std::fs::read(&trace).unwrap();
    bytes.extend_from_slice(b"2045 clk IT (2045) 000080e8 d503201f O EL3h_s : NOP\n");
    std::fs::write(&trace, &bytes).unwrap();
    let stale = json(&tarmac_lens().args(["index"]).arg(&trace).output().unwrap());
    assert_eq!(stale["reused"], false);
    assert_eq!(stale["lines"], 4323);
    // A corrupt index is rebuilt, not trusted.
    std::fs::write(&index_file, b"TLENSIX\x01garbage").unwrap();
    let rebuilt = json(&tarmac_lens().args(["index"]).arg(&trace).output().unwrap());
    assert_eq!(rebuilt["reused"], false);
}

#[test]
fn an_index_following_another_core_is_rebuilt() {
    let (_d, trace) = scratch("multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac");
    let index = |cpu: Option<&str>| {
        let mut cmd = tarmac_lens();
        cmd.arg("index").arg(&trace);
        if let Some(cpu) = cpu {
            cmd.args(["--cpu", cpu]);
        }
        json(&cmd.output().unwrap())["reused"].clone()
    };
    assert_eq!(index(None), false);
    assert_eq!(index(Some("cpu1")), false, "built for all cores");
    assert_eq!(index(Some("cpu1")), true);
    assert_eq!(index(Some("cpu0")), false, "built following cpu1");
    assert_eq!(index(None), false, "built following cpu0");
    assert_eq!(index(None), true);
}

#[test]
fn index_options_on_other_commands() {
    let (d, trace) = scratch("ttu/quicksort.tarmac");
    let custom = d.path().join("custom.idx");
    // --only-index builds the index where told and prints nothing.
    let out = tarmac_lens()
        .args(["calltree", "--only-index"])
        .arg(format!("--index={}", custom.display()))
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(custom.exists());
    // --no-index never writes one.
    let out = tarmac_lens()
        .args(["index", "--no-index"])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!trace.with_extension("tarmac.index").exists());
}

#[test]
fn elf_endianness_contradicting_bi_is_an_error() {
    let out = tarmac_lens()
        .args(["calltree", "--bi"])
        .arg(format!(
            "--image={}",
            data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf").display()
        ))
        .arg(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("endian"), "{}", err);
}

#[test]
fn errors_are_messages_not_panics() {
    let out = tarmac_lens()
        .args(["stats", "/nonexistent/trace.tarmac"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/trace.tarmac"));
    let out = tarmac_lens()
        .args(["stats", "--no-such-option", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = tarmac_lens()
        .args(["calltree", "--debug=nonsense"])
        .arg(data("ttu/quicksort.tarmac"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // A binary file is named for what it is, and not a crash.
    let out = tarmac_lens()
        .args(["stats", "--json"])
        .arg(data("tracegen/quicksort-arm-O2-es-2M.elf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is an ELF executable"));
    // A directory or device is not mistaken for an empty trace.
    let out = tarmac_lens().args(["stats", "/dev/null"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a regular file"));
}

#[test]
fn stats_json_has_the_promised_fields() {
    let v = json(
        &tarmac_lens()
            .args(["stats", "--json"])
            .arg(data("ttu/parsertest.txt"))
            .output()
            .unwrap(),
    );
    for key in ["bytes", "lines", "records", "unparsed", "unparsed_lines"] {
        assert!(v.get(key).is_some(), "missing {}", key);
    }
    assert!(v["records"]["instruction"].as_u64().unwrap() > 10);
    let dump = tarmac_lens()
        .args(["dump"])
        .arg(data("ttu/parsertest.txt"))
        .output()
        .unwrap();
    assert_eq!(
        dump.stdout,
        std::fs::read(data("ttu/parsertest.ref")).unwrap()
    );
}

#[test]
fn diff_prints_the_first_divergence_or_says_there_is_none() {
    let fm = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let es = data("tracegen/quicksort-aarch64-O2-es-2M.tarmac");
    let out = tarmac_lens()
        .arg("diff")
        .arg(&fm)
        .arg(&es)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "no divergence in 15908 instructions\n"
    );

    let (_dir, changed) = scratch("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let text = std::fs::read_to_string(&fm).unwrap().replacen(
        "7 clk R X2 0000000000010900",
        "7 clk R X2 0000000000010904",
        1,
    );
    std::fs::write(&changed, text).unwrap();
    let out = tarmac_lens()
        .args(["diff", "--max", "1"])
        .arg(&fm)
        .arg(&changed)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "diverged");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "divergence at instruction 7:");
    assert!(
        lines[1].contains("line 79 time 7 pc 0x10018 58000182 LDR      x2,{pc}+0x30 ; 0x10048"),
        "{stdout}"
    );
    assert!(lines[2].contains("t.tarmac: line 79"), "{stdout}");
    assert_eq!(lines[3], "  x2: 0000000000010900 vs 0000000000010904");
    assert_eq!(lines.len(), 4, "{stdout}");

    let out = tarmac_lens()
        .arg("diff")
        .arg(&fm)
        .arg("/nonexistent/trace")
        .output()
        .unwrap();
    // Status 2, as `cmp` and `diff` say trouble (tests/cli_diff.rs).
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/trace"));
}

#[test]
fn search_prints_matching_lines_counts_and_refuses_bad_patterns() {
    let trace = data("ttu/quicksort.tarmac");
    let text = std::fs::read_to_string(&trace).unwrap();
    let out = tarmac_lens()
        .args(["search"])
        .arg(&trace)
        .arg("BL ")
        .output()
        .unwrap();
    assert!(out.status.success());
    // Exactly grep -n's answer.
    let want: String = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("BL "))
        .map(|(i, l)| format!("{}:{}\n", i + 1, l))
        .collect();
    assert!(!want.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);

    let out = tarmac_lens()
        .args(["search", "-c", "-E", "-i", "--kind", "instructions"])
        .arg(&trace)
        .arg(r"\bbl\s")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        want.lines().count().to_string()
    );

    let out = tarmac_lens()
        .args([
            "search",
            "-m",
            "1",
            "--kind",
            "registers",
            "--lines",
            "150..200",
        ])
        .arg(&trace)
        .arg("X0")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "158:1 clk R X0 0000000000100000\n"
    );

    let out = tarmac_lens()
        .args(["search", "-E"])
        .arg(&trace)
        .arg("(")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad regular expression"));
    let out = tarmac_lens()
        .args(["search", "--kind", "nonsense"])
        .arg(&trace)
        .arg("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ep_profile_reads_a_ti_ep_trace_and_refuses_another_dialect() {
    let (_dir, trace) = scratch("ttu/indextest.tarmac");
    let ep = trace.with_file_name("t.ept.txt");
    std::fs::write(
        &ep,
        "####Version:3\n\
         100:0x1000:0:0:0x1000:0:0\n\
         100:0x1000:2:1:0x1000:4:0\n\
         101:0x1004:2:3:0x1000:8:2\n\
         104:0x100c:1:2:0x1000:4:0\n",
    )
    .unwrap();
    let out = tarmac_lens().arg("ep-profile").arg(&ep).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("cycles 100..104 (4); packet cycles 6, stall cycles 2 (33.3%)\n"),
        "{text}"
    );
    assert!(
        text.contains("0x00001004          1            3   50.0%          2       8"),
        "{text}"
    );
    assert!(
        text.contains("cycle        104  0x0000100c -> 0x00001000  size 4 latency 2  (line 5)"),
        "{text}"
    );

    let out = tarmac_lens()
        .arg("ep-profile")
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no EP trace records"));
}

#[test]
fn flow_prints_blocks_and_refuses_a_trace_without_branches() {
    let (_dir, trace) = scratch("ttu/indextest.tarmac");
    let branches = trace.with_file_name("flow.tarmac");
    std::fs::write(
        &branches,
        "1 clk FD (1) 00001000 00002000 A\n5 clk FI (5) 00002010 00003000 T\n",
    )
    .unwrap();
    let out = tarmac_lens().arg("flow").arg(&branches).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "??????????..0x00001000      ? instr\n    FD 0x00001000 -> 0x00002000  (line 1, time 1)\n\
         0x00002000..0x00002010      4 instr A32\n    FI 0x00002010 -> 0x00003000  (line 2, time 5)\n"
    );
    let out = tarmac_lens()
        .arg("flow")
        .arg(data("ttu/quicksort.tarmac"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("instruction lines show the flow"));
}

/// A file that is no trace is named for what it is, and the command fails:
/// a bzip2-compressed trace (gzip, zstd and xz are read:
/// tests/cli_compressed.rs), a picture, an ELF image, random bytes, a text.
#[test]
fn files_that_are_not_traces_are_refused_with_what_they_are() {
    let dir = Dir::new("cli");
    let trace = std::fs::read(data("tracegen/quicksort-arm-O2-fastmodel-2M.tarmac")).unwrap();
    let bz2 = dir.path().join("trace.tarmac.bz2");
    // A bzip2 stream header then text: the magic number decides before
    // anything else.
    let mut bzip2 = b"BZh91AY&SY".to_vec();
    bzip2.extend_from_slice(&trace[..4096]);
    std::fs::write(&bz2, &bzip2).unwrap();
    let random = dir.path().join("random.bin");
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..100_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    std::fs::write(&random, bytes).unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "# Notes\n\nThe trace is somewhere else.\nAsk Bob.\n").unwrap();
    let cases = [
        (bz2, "bzip2-compressed", "bunzip2"),
        (random, "binary data", ""),
        (text, "not a Tarmac trace", "line 3"),
        (
            data("elf/quicksort-arm-O2-fastmodel-2M.elf"),
            "ELF",
            "ELF image",
        ),
        (
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/screenshot.png"),
            "PNG image",
            "",
        ),
    ];
    for (path, what, advice) in cases {
        for command in ["stats", "index", "calltree", "dump", "search"] {
            let mut cmd = tarmac_lens();
            cmd.arg(command);
            if command == "index" || command == "calltree" {
                cmd.arg("--no-index");
            }
            cmd.arg(&path);
            if command == "search" {
                cmd.arg("MOV");
            }
            let out = cmd.output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{command} {path:?}: {err}");
            assert!(out.stdout.is_empty(), "{command} {path:?} printed");
            assert!(
                err.contains(what) && err.contains(advice),
                "{command} {path:?}: {err}"
            );
        }
    }
    // An empty file is an empty trace, not an error.
    let empty = dir.path().join("empty.tarmac");
    std::fs::write(&empty, "").unwrap();
    let out = tarmac_lens()
        .args(["stats", "--json"])
        .arg(&empty)
        .output()
        .unwrap();
    assert_eq!(json(&out)["lines"], 0);
}

/// An ELF image for another architecture than the trace's is used (as the
/// reference tools do) but said to be wrong on standard error.
#[test]
fn an_image_for_another_architecture_is_warned_about() {
    let trace = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let wrong = data("tracegen/quicksort-thumb-O2-fastmodel-2M.elf");
    let right = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
    let out = tarmac_lens()
        .args(["profile", "--no-index", "--image"])
        .arg(&wrong)
        .arg(&trace)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning") && err.contains("AArch32") && err.contains("AArch64"),
        "{err}"
    );
    let out = tarmac_lens()
        .args(["profile", "--no-index", "-q", "--image"])
        .arg(&wrong)
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "-q: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = tarmac_lens()
        .args(["profile", "--no-index", "--image"])
        .arg(&right)
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stats_groups_unparsed_lines_by_event_word() {
    let dir = Dir::new("cli");
    let p = dir.path().join("u.tarmac");
    let mut text = String::from("1 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0\n");
    for i in 0..1200 {
        text.push_str(&format!("{i} clk XYZ {i}\n"));
    }
    text.push_str("9 clk ABC\n");
    std::fs::write(&p, text).unwrap();
    let out = tarmac_lens().arg("stats").arg(&p).output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    let xyz = s.find("  1,200 lines of type `XYZ` unread\n").expect(&s);
    let abc = s.find("  1 lines of type `ABC` unread\n").expect(&s);
    assert!(xyz < abc, "most lines first: {s}");
}

#[test]
fn vcd_with_backwards_timestamps_warns_with_the_line() {
    let dir = Dir::new("cli");
    let out_path = dir.path().join("b.vcd");
    let out = tarmac_lens()
        .args(["vcd", "--use-tarmac-timestamps", "--no-date"])
        .arg(data("field/backwards-timestamps.tarmac"))
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("backwards-timestamps.tarmac:5: timestamp 99 is before 101; held at 101"),
        "{err}"
    );
    let vcd = std::fs::read_to_string(&out_path).unwrap();
    assert!(vcd.ends_with("$end\n"), "{vcd}");
}

#[test]
fn convert_writes_the_other_style() {
    let dir = Dir::new("cli");
    let es = dir.path().join("es.tarmac");
    let out = tarmac_lens()
        .args(["convert", "--style", "es"])
        .arg(data("field/no-timestamp.tarmac"))
        .arg("-o")
        .arg(&es)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&es).unwrap();
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "ES (00008000:e3a01000) A svc : MOV r1,#0",
            "R r1 00000000",
            "ES (00008004:e2811001) A svc : ADD r1,r1,#1",
            "R r1 00000001",
            "ES (00008008:e5801000) A svc : STR r1,[r0,#0]",
            "ST 00001000 ........ ........ ........ 00000001",
        ]
    );
    let bad = tarmac_lens()
        .args(["convert", "--style", "gem5"])
        .arg(data("field/no-timestamp.tarmac"))
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown style 'gem5'"));
}

#[test]
fn find_lists_where_a_condition_becomes_true_and_answers_with_its_status() {
    let (_dir, trace) = scratch("ttu/quicksort.tarmac");
    let run = |args: &[&str]| {
        let out = tarmac_lens()
            .arg("find")
            .arg(&trace)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, _) = run(&["--max", "2", "[sp+8:8] > 0"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out,
        "line 860 time 367 pc 0x8038: sp=0xfffb0 [sp+8:8]=0x1c\n\
         line 3843 time 1825 pc 0x8038: sp=0xfffb0 [sp+8:8]=0x2\n"
    );
    // The index file was written, and is reused.
    assert!(trace.with_extension("tarmac.index").exists());
    // The default is the first; --backward from a line lists the nearest first.
    let (_, first, _) = run(&["[sp+8:8] > 0"]);
    assert_eq!(first.lines().count(), 1);
    let (code, back, _) = run(&["--backward", "--from", "3900", "--all", "[sp+8:8] > 0"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = back
        .lines()
        .map(|l| l.split(" time").next().unwrap())
        .collect();
    assert_eq!(lines, ["line 3843", "line 860"]);
    // JSON.
    let (code, out, _) = run(&["--json", "--all", "x1 == 0 || x2 == 5"]);
    assert_eq!(code, Some(0));
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["direction"], "forward");
    let hits = doc["hits"].as_array().unwrap();
    assert!(hits.len() >= 3, "{out}");
    assert_eq!(hits[1]["line"], 1456);
    assert_eq!(hits[1]["pc"], "0x8060");
    assert_eq!(hits[1]["operands"]["x1"], "0x0");
    // None: status 1, nothing printed.
    let (code, out, _) = run(&["x0 == 0x123456789"]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    // A bad condition: status 2, the column named.
    let (code, _, err) = run(&["x0 = 0"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("at column 4: unexpected character '='"),
        "{err}"
    );
    let (code, _, err) = run(&["[sp+8:3] == 0"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("at column 7:"), "{err}");
    // -q: only the status.
    let (code, out, _) = run(&["-q", "x0 == 0"]);
    assert_eq!((code, out.as_str()), (Some(0), ""));
}

#[test]
fn find_takes_symbols_from_the_image_and_names_the_function() {
    let (_dir, trace) = scratch("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let elf = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
    let out = tarmac_lens()
        .args(["find", "--max", "2", "--image"])
        .arg(&elf)
        .arg(&trace)
        .arg("pc == quicksort && x1 > 3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "line 14338 time 7217 pc 0x104b0 quicksort: pc=0x104b0 x1=0xf\n\
         line 14816 time 7445 pc 0x104b0 quicksort: pc=0x104b0 x1=0xf\n"
    );
    // Without the image the name is no symbol: trouble, at its column.
    let out = tarmac_lens()
        .arg("find")
        .arg(&trace)
        .arg("pc == quicksort")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("at column 7: unrecognised identifier name 'quicksort'"));
}

#[test]
fn watch_lists_the_accesses_the_trace_text_shows() {
    let (_dir, trace) = scratch("ttu/quicksort.tarmac");
    let text = std::fs::read_to_string(&trace).unwrap();
    let run = |args: &[&str]| {
        let out = tarmac_lens()
            .arg("watch")
            .arg(&trace)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // The oracle: each MR/MW line touching [0x8100, 0x8110) (the array sorted), credited to
    // the instruction line before it (this trace's nodes start there).
    let (lo, hi) = (0x8100u64, 0x8110u64);
    let mut want: Vec<(u64, String)> = Vec::new();
    let mut node_line = 0;
    for (i, l) in text.lines().enumerate() {
        let f: Vec<&str> = l.split_whitespace().collect();
        match f.get(2) {
            Some(&"IT") | Some(&"IS") => node_line = i as u64 + 1,
            Some(t) if t.starts_with("MR") || t.starts_with("MW") => {
                let size: u64 = t[2..].parse().unwrap();
                let addr = u64::from_str_radix(f[3].split(':').next().unwrap(), 16).unwrap();
                if addr < hi && lo < addr + size {
                    let kind = if t.starts_with("MR") { "r" } else { "w" };
                    match want.last_mut() {
                        Some((n, k)) if *n == node_line => {
                            if !k.contains(kind) {
                                *k = format!("{k}{kind}").replace("wr", "rw");
                            }
                        }
                        _ => want.push((node_line, kind.to_string())),
                    }
                }
            }
            _ => {}
        }
    }
    assert!(want.len() > 20 && want.iter().any(|(_, k)| k == "r"));
    let got = |out: &str| -> Vec<(u64, String)> {
        out.lines()
            .map(|l| {
                let line = l.split(' ').nth(1).unwrap().parse().unwrap();
                let kind = l.split(": ").nth(1).unwrap().split(' ').next().unwrap();
                (line, kind.to_string())
            })
            .collect()
    };
    let (code, out, _) = run(&["--mem", "0x8100:0x10"]);
    assert_eq!(code, Some(0));
    assert_eq!(got(&out), want);
    // Reads only, writes only, a line range.
    let (_, out, _) = run(&["--mem", "0x8100:16", "--reads"]);
    let reads: Vec<_> = want.iter().filter(|(_, k)| k.contains('r')).collect();
    assert_eq!(got(&out).len(), reads.len());
    let (_, out, _) = run(&["--mem", "0x8100:16", "--writes", "--lines", "1000..3000"]);
    let writes: Vec<_> = (want.iter())
        .filter(|(l, k)| k.contains('w') && (1000..=3000).contains(l))
        .collect();
    assert_eq!(got(&out).len(), writes.len());
    // Next and previous from a line, nearest first.
    let mid = want[want.len() / 2].0;
    let (_, out, _) = run(&[
        "--mem",
        "0x8100:16",
        "--from",
        &mid.to_string(),
        "--max",
        "2",
    ]);
    let after: Vec<u64> = got(&out).iter().map(|h| h.0).collect();
    let want_after: Vec<u64> = want
        .iter()
        .map(|h| h.0)
        .filter(|&l| l > mid)
        .take(2)
        .collect();
    assert_eq!(after, want_after);
    let (_, out, _) = run(&[
        "--mem",
        "0x8100:16",
        "--from",
        &mid.to_string(),
        "--backward",
    ]);
    let before = want.iter().rev().map(|h| h.0).find(|&l| l < mid);
    assert_eq!(got(&out).first().map(|h| h.0), before);
    // The value accessed, and the address from an expression with --at.
    let (_, out, _) = run(&["--mem", "sp:8", "--at", "180", "--max", "1"]);
    assert!(
        out.starts_with("line 177 time 10 pc 0x8038: w W [0xfffd0:8]=0x0000000000008024"),
        "{out}"
    );
    // A register: the nodes whose lines write it.
    let (_, out, _) = run(&["--reg", "x21", "--writes", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hits = doc["hits"].as_array().unwrap();
    let x21 = text.lines().filter(|l| l.contains(" R X21 ")).count();
    assert_eq!(hits.len(), x21);
    assert_eq!(doc["kind"], "write");
    // None: status 1, the range named; trouble: status 2.
    let (code, out, err) = run(&["--mem", "0x10:4"]);
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(err.contains("no access of [0x10:4]"), "{err}");
    let (code, _, err) = run(&["--reg", "x99"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--reg x99: not a register name"), "{err}");
    let (code, _, err) = run(&["--mem", "x5+:4"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--mem x5+:4:"), "{err}");
    let (code, _, err) = run(&["--mem", "0x10", "--lines", "9..3"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("the last line is before the first"), "{err}");
}

/// `why`: the tree of a literal load in text (with the image's value of
/// the never-written word) and as JSON; a bad register or line is exit
/// status 2.
#[test]
fn why_tree_text_and_json() {
    let (_dir, trace) = scratch("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let elf = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf");
    let out = tarmac_lens()
        .arg("why")
        .arg(&trace)
        .args(["--line", "72", "x0", "--image"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("x0 = 0x0000000000400000  ← line 71 time 4 pc 0x1000c _start"));
    assert!(lines[0].contains(": LDR      x0,{pc}+0x2c"), "{text}");
    assert_eq!(
        lines[1],
        "  [0x10038:8] = 0x0000000000400000  ← no earlier write  \
         [never written: image [0x10038] = 0x0000000000400000]"
    );
    // As JSON: a load's input is the memory it read; its address
    // registers are named, not followed.
    let out = tarmac_lens()
        .arg("why")
        .arg(&trace)
        .args(["--line", "20016", "x1", "--depth", "1", "--json"])
        .output()
        .unwrap();
    let doc = json(&out);
    assert_eq!(doc["what"], "x1");
    assert_eq!(doc["value"], "0x00000000fffffa37");
    assert_eq!(doc["writer"]["line"], 20011);
    assert_eq!(doc["source"]["kind"], "computed");
    let inputs = doc["inputs"].as_array().unwrap();
    let whats: Vec<&str> = inputs.iter().map(|i| i["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["[0x10800:4]"]);
    assert_eq!(doc["not_followed"], serde_json::json!(["x21", "x26"]));
    assert!(inputs.iter().all(|i| i["source"]["kind"] == "depth_limit"));
    // Memory by expression (x21 is 0x10780 there): its writer is the
    // store, whose inputs include the stored register.
    let out = tarmac_lens()
        .arg("why")
        .arg(&trace)
        .args(["--line", "20016", "x21+0x80:4", "--depth", "1", "--json"])
        .output()
        .unwrap();
    let doc = json(&out);
    assert_eq!(doc["what"], "[0x10800:4]");
    assert_eq!(doc["value"], "0xfffffa37");
    assert_eq!(doc["writer"]["line"], 19388);
    let inputs = doc["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["what"], "x2");
    assert_eq!(inputs[0]["value"], "0x00000000fffffa37");
    assert_eq!(doc["not_followed"], serde_json::json!(["x1"]));
    for bad in [["--line", "72", "q99"], ["--line", "99999999", "x0"]] {
        let out = tarmac_lens()
            .arg("why")
            .arg(&trace)
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

/// The first line of `why`'s text for a register after a line.
fn why_first_line(trace: &std::path::Path, line: u64, what: &str) -> String {
    let out = tarmac_lens()
        .arg("why")
        .arg(trace)
        .args(["--line", &line.to_string(), what, "--depth", "0"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().next().unwrap_or_default().to_string()
}

/// Garbage lines in a trace, one starting with a timestamp later than the
/// lines around it: the load after them is reported at its own line and
/// time, not at the garbage's (which opened a node that took the load in,
/// and lent its time to every line up to it).
#[test]
fn why_names_an_instruction_after_garbage_by_its_own_line_and_time() {
    let one = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (dir, trace) = scratch("ttu/quicksort.tarmac");
    std::fs::write(&trace, inserted(&one, 15000, GARBAGE)).unwrap();
    let first = why_first_line(&trace, 15008, "x21");
    assert!(
        first.contains("← line 15006 time 7532 pc 0x101f0: LDR      w21,[x25,#0]"),
        "{first}"
    );
    // `find` names the position by the same line and time.
    let out = tarmac_lens()
        .arg("find")
        .arg(&trace)
        .args(["--from", "15005", "--first", "x21 == 0xfffff3d6"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("line 15006 time 7532 "), "{text}");
    drop(dir);
}

/// A trace whose time goes back (a run at even times, then one at odd
/// times from the start): `why` and `watch` report each writer at the time
/// its line gives, not the highest time seen before it.
#[test]
fn why_and_watch_report_each_lines_own_time_where_time_went_back() {
    let one = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let first_run = one.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut both = retimed(&one, |n| 2 * n);
    both.extend_from_slice(&retimed(&one, |n| 2 * n + 1));
    let (dir, trace) = scratch("ttu/quicksort.tarmac");
    std::fs::write(&trace, &both).unwrap();
    // Line 15001 of the run is the load of x21 at 7532: 15065 at 15065 in
    // the second.
    let first = why_first_line(&trace, first_run + 15002, "x21");
    let want = format!("← line {} time 15065 pc 0x101f0: LDR", first_run + 15001);
    assert!(first.contains(&want), "{first}");
    let out = tarmac_lens()
        .arg("watch")
        .arg(&trace)
        .args(["--reg", "x21", "--writes", "--from"])
        .arg((first_run + 14990).to_string())
        .args(["--max", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!("line {} time 15065 ", first_run + 15001);
    assert!(text.starts_with(&want), "{text}");
    drop(dir);
}

/// The forms of `tests/data/published/` through the commands a person
/// runs on them: a multi-cluster capability trace was refused whole ("not
/// a Tarmac trace"), an RTL logger's had no instructions, an ES log's
/// exception was unparsed.
#[test]
fn published_forms_are_read_by_the_commands() {
    let stats = |name: &str| {
        let (dir, trace) = scratch(&format!("published/{name}"));
        let out = tarmac_lens()
            .arg("stats")
            .arg("--json")
            .arg(&trace)
            .output()
            .unwrap();
        drop(dir);
        json(&out)
    };
    let records = |doc: &serde_json::Value| {
        ["instruction", "register", "memory", "bus", "exception"]
            .map(|k| doc["records"][k].as_u64().unwrap_or(0))
    };
    let m = stats("morello-fvp/clusters-and-capabilities.tarmac");
    assert_eq!(
        (m["unparsed"].as_u64(), records(&m)),
        (Some(0), [10, 13, 4, 0, 0])
    );
    assert_eq!(
        m["cores"],
        serde_json::json!(["cluster0.cpu0", "cluster0.cpu2"])
    );
    let r = stats("cortex-m-rtl-logger/indented.tarmac");
    assert_eq!(
        (r["unparsed"].as_u64(), records(&r)),
        (Some(0), [8, 10, 9, 5, 0])
    );
    let e = stats("emulator-es/serror-in-es-log.tarmac");
    assert_eq!(
        (e["unparsed"].as_u64(), records(&e)),
        (Some(0), [8, 9, 2, 0, 2])
    );

    // One core of the clusters, by its whole name; its capability
    // instructions dumped with their bounds.
    let (_dir, trace) = scratch("published/morello-fvp/clusters-and-capabilities.tarmac");
    let out = tarmac_lens()
        .args(["index", "--cpu", "cluster0.cpu2", "--no-index"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(json(&out)["instructions"], 6);
    let out = tarmac_lens()
        .args(["why", "--cpu", "cluster0.cpu2", "--no-index"])
        .arg(&trace)
        .args(["--line", "26", "x0", "--depth", "0"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("← line 26 time 15 pc 0x120a54: ADD      w0,w0,w2"),
        "{text}"
    );
    let out = tarmac_lens().arg("dump").arg(&trace).output().unwrap();
    let dump = String::from_utf8_lossy(&out.stdout);
    assert!(dump.contains(
        "pc=120a40 iset=C64 width=32 instruction=71000d3f disassembly=\"CMP      w9,#3\" \
         capability_tag=1 capability_meta=b05dc000137a0004 base=0 top=29bc00000000000"
    ));

    // The logger's fetches are no data accesses a watchpoint sees; its
    // data reads and writes are.
    let (_dir, trace) = scratch("published/cortex-m-rtl-logger/indented.tarmac");
    let watch = |range: &str| {
        tarmac_lens()
            .args(["watch", "--no-index", "--mem", range])
            .arg(&trace)
            .output()
            .unwrap()
    };
    assert_eq!(
        watch("0x1a30:32").status.code(),
        Some(1),
        "code fetched only"
    );
    let out = watch("0x1a50:4");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("line 12 time 81700 pc -: r R [0x1a50:4]=0x20000100"),
        "{text}"
    );
}
