//! Batch reports against the exact outputs of the reference tools.

use std::path::Path;

use tarmac_lens_core::{
    report, report::calltree, EngineOptions, ParseOptions, SliceSource, SymbolTable,
};

use crate::common::{assert_same, data, read};

fn calltree_text(trace: &Path, elf: Option<&Path>, debug: bool) -> String {
    let bytes = read(trace);
    let image = elf.map(|e| SymbolTable::from_elf_bytes(&read(e), 0).expect("valid ELF"));
    let a = report::analyse_calls(
        SliceSource(&bytes),
        ParseOptions::default(),
        EngineOptions {
            debug_calls: debug,
            ..EngineOptions::default()
        },
    )
    .unwrap();
    let mut out = String::new();
    for d in &a.debug {
        out.push_str(d);
        out.push('\n');
    }
    let root = calltree::build(&a).expect("trace has instructions");
    let name = |addr: u64| {
        image
            .as_ref()
            .map_or(String::new(), |i| i.function_name(addr))
    };
    out.push_str(&calltree::render(&root, &a, &name));
    out
}

#[test]
fn calltree_quicksort_matches_reference() {
    let got = calltree_text(&data("ttu/quicksort.tarmac"), None, false);
    let want = String::from_utf8(read(&data("ttu/calltree-quicksort-addr.ref"))).unwrap();
    assert_same(&got, &want, "calltree quicksort");
}

/// The call-heuristic tests: their ELFs are not public, so function names at
/// the ends of the tree lines are left out of the comparison; everything
/// else, including the diagnostics, must match.
#[test]
fn calltests_match_reference_with_diagnostics() {
    for t in ["calltest32", "calltest64"] {
        let got = calltree_text(&data(&format!("ttu/calltests/{}.tarmac", t)), None, true);
        let want = String::from_utf8(read(&data(&format!("ttu/calltests/{}.ref", t)))).unwrap();
        let strip = |s: &str| {
            s.lines()
                .map(|l| match l.find(" : ") {
                    Some(i) if l.trim_start().starts_with("o ") => l[..i + 3].to_string(),
                    _ => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_same(&strip(&got), &strip(&want), t);
    }
}

fn tracegen_cases() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(data("tracegen"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let n = p.file_name()?.to_str()?.to_string();
            n.strip_suffix(".tarmac").map(|s| s.to_string())
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 8, "{:?}", v);
    v
}

#[test]
fn calltree_with_symbols_matches_reference_for_generated_traces() {
    for base in tracegen_cases() {
        let got = calltree_text(
            &data(&format!("tracegen/{}.tarmac", base)),
            Some(&data(&format!("tracegen/{}.elf", base))),
            false,
        );
        let want =
            String::from_utf8(read(&data(&format!("tracegen/{}.calltree.ref", base)))).unwrap();
        assert_same(&got, &want, &base);
    }
}
