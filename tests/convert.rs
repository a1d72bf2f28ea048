//! `convert`: a trace rewritten in the other style keeps its events (the
//! `*` lines of `dump`), and so does the way back.

use std::path::PathBuf;

use crate::common::{data, read, tarmac_files};

use tarmac_lens_core::{convert, dump, Dialect, ParseOptions, SliceSource, Style};

fn events(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    dump(SliceSource(bytes), ParseOptions::default(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("--- Tarmac line: "))
        .map(str::to_string)
        .collect()
}

fn to(style: Style, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    convert(SliceSource(bytes), ParseOptions::default(), style, &mut out).unwrap();
    out
}

fn traces() -> Vec<PathBuf> {
    let mut v = vec![
        data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"),
        data("tracegen/quicksort-arm-O2-es-2M.tarmac"),
        data("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac"),
        data("tracegen/quicksort-aarch64-O2-gem5-2M.tarmac"),
        data("ttu/quicksort.tarmac"),
    ];
    for dir in [
        "ttu/samples",
        "field",
        "published/morello-fvp",
        "published/cortex-m-rtl-logger",
        "published/emulator-es",
    ] {
        v.extend(tarmac_files(dir));
    }
    v
}

/// Lines of `text` whose event word (after timestamp, unit, core) is one of
/// `words`.
fn lines_of(text: &[u8], words: &[&str]) -> usize {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .find(|w| {
                    !w.starts_with(|c: char| c.is_ascii_digit())
                        && !w.starts_with("cpu")
                        && !["clk", "ns", "ps", "cs", "cyc", "tic", "us"].contains(w)
                })
                .is_some_and(|w| words.iter().any(|x| w.starts_with(x)))
        })
        .count()
}

#[test]
fn either_style_and_back_keeps_the_events() {
    for p in traces() {
        let name = p.display().to_string();
        let bytes = read(&p);
        let want = events(&bytes);
        assert!(want.len() >= 5, "{name}");
        for (style, back) in [(Style::Es, Style::FastModel), (Style::FastModel, Style::Es)] {
            let there = to(style, &bytes);
            assert_eq!(events(&there), want, "{name} as {style:?}");
            let again = to(back, &there);
            assert_eq!(events(&again), want, "{name} as {style:?} and back");
        }
    }
}

#[test]
fn each_style_has_only_its_own_instruction_and_memory_lines() {
    let fm = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    let es = read(&data("tracegen/quicksort-arm-O2-es-2M.tarmac"));
    assert!(lines_of(&fm, &["IT"]) > 10_000);
    assert!(lines_of(&es, &["ES", "LD", "ST"]) > 10_000);

    let fm_as_es = to(Style::Es, &fm);
    assert_eq!(lines_of(&fm_as_es, &["IT", "IS", "MR", "MW"]), 0);
    assert_eq!(lines_of(&fm_as_es, &["ES"]), lines_of(&fm, &["IT", "IS"]));
    assert!(lines_of(&fm_as_es, &["LD", "ST"]) > 1_000);

    let es_as_fm = to(Style::FastModel, &es);
    assert_eq!(lines_of(&es_as_fm, &["LD", "ST"]), 0);
    // Each ES instruction but the exception entries (`ES EXC`, `ES Reset`).
    assert_eq!(
        lines_of(&es_as_fm, &["IT", "IS"]),
        lines_of(&es, &["ES"]) - lines_of(&es_as_fm, &["ES"])
    );
    assert!(lines_of(&es_as_fm, &["MR", "MW"]) > 1_000);
}

#[test]
fn lines_without_an_equal_in_the_other_style_are_kept() {
    // A second physical address, an exclusive store, an atomic update and an
    // access across a 16-byte window: a diagram would lose what they say.
    let trace = "\
1 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0
1 clk MR8 00001000:00002000_NS,00003000_NS 0000000012345678
1 clk MW4X 00001000 00000001
1 clk MU4_ADD 00001000 00000001
1 clk MR8 0000100c 1122334455667788
2 clk MW4 00001004:00002004_NS 00000009
";
    let es = String::from_utf8(to(Style::Es, trace.as_bytes())).unwrap();
    let lines: Vec<&str> = es.lines().collect();
    assert_eq!(lines[0], "1 clk ES (00008000:e3a00000) A svc_s : MOV r0,#0");
    assert_eq!(&lines[1..5], &trace.lines().collect::<Vec<_>>()[1..5]);
    assert_eq!(
        lines[5],
        "2 clk ST 00001000 ........ ........ 00000009 ........    NS:0000002000"
    );
    assert_eq!(events(es.as_bytes()), events(trace.as_bytes()));
}

#[test]
fn only_tarmac_traces_are_converted() {
    let armulator = "Date: Thu Aug  9 16:41:36 2001\nSource: Armul\n\
                     BNR4O___ A0000000 00000C1E\nBNR8O___ 00008000 E28F8090 E898000F\n";
    let opts = ParseOptions {
        dialect: Some(Dialect::Armulator),
        ..ParseOptions::default()
    };
    let err = convert(
        SliceSource(armulator.as_bytes()),
        opts,
        Style::Es,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "convert rewrites Tarmac traces only; this one reads as armulator"
    );
}
