//! `tarmac-lens diff` as a CI job uses it: exit status 0 when the traces
//! agree, 1 when they diverge, 2 when it cannot tell; `-q` prints nothing;
//! `--json` is one document with both sides' fields; `--ignore` and
//! `--ignore-mem` drop known-benign differences and the comparison goes on
//! to the real one after them.
use std::path::Path;
use std::process::Output;

use crate::common::{tarmac_lens, Dir};

/// A program that reads a timer into x0, stores it at 0x2000, then sets x2.
const A: &str = "\
1 clk IT (1) 00001000 d53be020 O EL3h_s : MRS      x0,CNTPCT_EL0
1 clk R X0 0000000000000064
2 clk IT (2) 00001004 f9000020 O EL3h_s : STR      x0,[x1,#0]
2 clk MW8 00002000:000000002000 00000000_00000064
3 clk IT (3) 00001008 d2800042 O EL3h_s : MOV      x2,#2
3 clk R X2 0000000000000002
4 clk IT (4) 0000100c d503201f O EL3h_s : NOP
";

/// The same run on another model: another timer value (so another value
/// stored), and a real difference after them, in x2.
const B: &str = "\
1 clk IT (1) 00001000 d53be020 O EL3h_s : MRS      x0,CNTPCT_EL0
1 clk R X0 0000000000000065
2 clk IT (2) 00001004 f9000020 O EL3h_s : STR      x0,[x1,#0]
2 clk MW8 00002000:000000002000 00000000_00000065
3 clk IT (3) 00001008 d2800042 O EL3h_s : MOV      x2,#2
3 clk R X2 0000000000000003
4 clk IT (4) 0000100c d503201f O EL3h_s : NOP
";

fn diff(a: &Path, b: &Path, extra: &[&str]) -> Output {
    tarmac_lens()
        .arg("diff")
        .arg(a)
        .arg(b)
        .args(extra)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn the_exit_status_says_whether_the_traces_diverge() {
    let d = Dir::new("status");
    let (a, b) = (d.write("a.tarmac", A), d.write("b.tarmac", B));
    let same = diff(&a, &a, &[]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    assert!(stdout(&same).contains("no divergence in 4 instructions"));
    let differ = diff(&a, &b, &[]);
    assert_eq!(differ.status.code(), Some(1), "{}", stderr(&differ));
    let text = stdout(&differ);
    assert!(text.contains("divergence at instruction 1:"), "{text}");
    assert!(
        text.contains("x0: 0000000000000064 vs 0000000000000065"),
        "{text}"
    );
    // Found all the same after the first one.
    assert!(
        text.contains("x2: 0000000000000002 vs 0000000000000003"),
        "{text}"
    );
}

#[test]
fn every_error_exits_2() {
    let d = Dir::new("errors");
    let (a, b) = (d.write("a.tarmac", A), d.write("b.tarmac", B));
    let missing = d.path().join("missing.tarmac");
    let not_a_trace = d.write("notes.txt", "just some prose, no trace at all\n".repeat(60));
    for (args, says) in [
        (vec![a.clone(), missing.clone()], "missing.tarmac"),
        (vec![missing.clone(), b.clone()], "missing.tarmac"),
        (vec![a.clone(), not_a_trace], "notes.txt"),
    ] {
        let o = tarmac_lens().arg("diff").args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
    for (extra, says) in [
        (&["--ignore", "x0,bogus"][..], "unknown register 'bogus'"),
        (&["--ignore-mem", "0x2000"][..], "0x2000"),
        (&["--ignore-mem", "0x2008..0x2000"][..], "not after"),
        (&["--ignore-mem", "nosuchsymbol:4"][..], "nosuchsymbol"),
        // clap's own usage errors.
        (&["--max", "many"][..], "many"),
        (&["--no-such-option"][..], "no-such-option"),
    ] {
        let o = diff(&a, &b, extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{extra:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty(), "{extra:?}");
    }
    // Both traces from one standard input cannot be.
    let o = tarmac_lens().args(["diff", "-", "-"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn quiet_prints_nothing_and_keeps_the_status() {
    let d = Dir::new("quiet");
    let (a, b) = (d.write("a.tarmac", A), d.write("b.tarmac", B));
    for (x, y, code) in [(&a, &b, 1), (&a, &a, 0)] {
        for q in ["-q", "--quiet"] {
            let o = diff(x, y, &[q]);
            assert_eq!(o.status.code(), Some(code));
            assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{q}: {o:?}");
        }
    }
    let o = diff(&a, &b, &["-q", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn json_has_both_sides_fields() {
    let d = Dir::new("json");
    let (a, b) = (d.write("a.tarmac", A), d.write("b.tarmac", B));
    let o = diff(&a, &b, &["--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["diverged"], true);
    assert_eq!(v["compared"], 4);
    assert_eq!(v["stopped_at_max"], false);
    assert!(v["a"].as_str().unwrap().ends_with("a.tarmac"));
    assert!(v["b"].as_str().unwrap().ends_with("b.tarmac"));
    let divs = v["divergences"].as_array().unwrap();
    assert_eq!(divs.len(), 3, "{v:#}");
    let first = &divs[0];
    assert_eq!(first["instruction"], 1);
    for side in ["a", "b"] {
        let s = &first[side];
        assert_eq!(s["line"], 1);
        assert_eq!(s["pc"], "0x1000");
        assert_eq!(s["encoding"], "d53be020");
        assert_eq!(s["width"], 32);
        assert_eq!(s["effect"], "executed");
        assert_eq!(s["disassembly"], "MRS      x0,CNTPCT_EL0");
    }
    assert_eq!(
        first["differences"][0],
        serde_json::json!({"kind": "register", "name": "x0",
            "a": "0000000000000064", "b": "0000000000000065"})
    );
    assert_eq!(
        divs[1]["differences"][0],
        serde_json::json!({"kind": "memory", "address": "0x2000",
            "a": "64", "b": "65"})
    );
    assert_eq!(divs[2]["differences"][0]["name"], "x2");
    // A cut trace: the ended side is null and named.
    let short = d.write("short.tarmac", &A[..A.find("4 clk").unwrap()]);
    let o = diff(&a, &short, &["--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let last = &v["divergences"][0];
    assert!(last["b"].is_null());
    assert_eq!(last["differences"][0]["kind"], "ended");
    assert_eq!(last["differences"][0]["trace"], "b");
    // Stopped at --max.
    let o = diff(&a, &b, &["--json", "--max", "1"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["stopped_at_max"], true);
    assert_eq!(v["divergences"].as_array().unwrap().len(), 1);
}

#[test]
fn ignored_differences_do_not_count_and_the_real_one_is_still_found() {
    let d = Dir::new("ignore");
    let (a, b) = (d.write("a.tarmac", A), d.write("b.tarmac", B));
    // The timer's register and the word it was stored to, in each syntax;
    // names as traces write them, in any case, aliases too (w0 is x0's low
    // half, where the values differ).
    for extra in [
        &["--ignore", "X0", "--ignore-mem", "0x2000:8"][..],
        &["--ignore", "x0", "--ignore-mem", "0x2000..0x2008"][..],
        &["--ignore=w0", "--ignore-mem=0x1ffc..0x2000+8"][..],
        &["--ignore", "cpsr,W0", "--ignore-mem", "0x2000:1"][..],
    ] {
        let o = diff(&a, &b, extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stderr(&o));
        let text = stdout(&o);
        assert_eq!(
            text.matches("divergence at").count(),
            1,
            "{extra:?}: {text}"
        );
        assert!(text.contains("divergence at instruction 3:"), "{text}");
        assert!(text.contains("x2:"), "{text}");
    }
    // Every alias the parser knows is a name, whatever the traces hold.
    let o = diff(
        &a,
        &b,
        &["--ignore", "SP_EL3,r13_svc,lr,v1,D1,s1,cpsr,psr,fpscr"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = diff(&a, &b, &["--ignore", "x0,x2", "--ignore-mem", "0x2000:8"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("no divergence in 4 instructions"));
    // Not far enough: the other bytes still differ.
    let o = diff(&a, &b, &["--ignore", "x0,x2", "--ignore-mem", "0x2001:7"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("memory 0x2000 (written): 64 vs 65"));
}
