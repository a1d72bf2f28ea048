//! `diff`: the same program traced by different tools does not diverge;
//! a single changed value, encoding or a cut trace is found at the right
//! instruction with the right field.

use crate::common::{data, read};
use tarmac_lens_core::{
    diff::{diff, hex, DiffReport, Difference},
    ParseOptions, SliceSource,
};

fn compare(a: &[u8], b: &[u8], max: usize) -> DiffReport {
    let opts = ParseOptions::default();
    diff(SliceSource(a), opts, SliceSource(b), opts, max).expect("in-memory sources read")
}

fn trace(name: &str) -> Vec<u8> {
    read(&data(&format!("tracegen/quicksort-{name}-2M.tarmac")))
}

/// The trace with line `number` (1-based) replaced.
fn with_line(text: &[u8], number: usize, new: &str) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    lines[number - 1] = new.as_bytes();
    lines.join(&b'\n')
}

/// 1-based number of the first line equal to `line`.
fn line_of(text: &[u8], line: &str) -> usize {
    text.split(|&b| b == b'\n')
        .position(|l| l == line.as_bytes())
        .unwrap_or_else(|| panic!("no line {line:?}"))
        + 1
}

#[test]
fn one_program_traced_by_three_tools_does_not_diverge() {
    // Fast Models, ES/LD/ST-style and gem5 report different registers
    // (cpsr rewritten or not), memory in different shapes (MR8 against a
    // 16-byte LD diagram) and different timestamps.
    for (a, b, instructions) in [
        ("aarch64-O2-fastmodel", "aarch64-O2-es", 15908),
        ("aarch64-O2-fastmodel", "aarch64-O2-gem5", 15908),
        ("aarch64-O2-fastmodel", "aarch64-O2-fastmodel-cpu", 15908),
        ("arm-O2-fastmodel", "arm-O2-es", 17175),
        ("thumb-O2-fastmodel", "thumb-O2-gem5", 17692),
    ] {
        let r = compare(&trace(a), &trace(b), 10);
        assert_eq!(r.divergences, vec![], "{a} vs {b}");
        assert_eq!(r.compared, instructions, "{a} vs {b}");
        assert_eq!(r.unparsed_a.count + r.unparsed_b.count, 0);
    }
}

#[test]
fn a_register_result_that_differs_is_named_with_both_values() {
    let a = trace("aarch64-O2-fastmodel");
    let b = with_line(
        &a,
        line_of(&a, "7 clk R X2 0000000000010900"),
        "7 clk R X2 0000000000010904",
    );
    let r = compare(&a, &b, 1);
    assert_eq!(r.divergences.len(), 1);
    let d = &r.divergences[0];
    // The 7th instruction (LDR x2); instructions are numbered from 0.
    assert_eq!(d.instruction, 6);
    assert_eq!(d.a.as_ref().unwrap().pc, 0x10018);
    assert_eq!(
        d.a.as_ref().unwrap().line,
        line_of(&a, "7 clk R X2 0000000000010900") as u64 - 2
    );
    let [Difference::Register { name, a: va, b: vb }] = d.differences.as_slice() else {
        panic!("expected one register difference, got {:?}", d.differences);
    };
    assert_eq!(name, "x2");
    assert_eq!(hex(va), "0000000000010900");
    assert_eq!(hex(vb), "0000000000010904");
}

#[test]
fn a_memory_write_a_read_and_an_encoding_are_each_found() {
    let a = trace("aarch64-O2-fastmodel");
    let mw = "10 clk MW8 000105f0:0000000105f0 00000000_00000000";
    let b = with_line(
        &a,
        line_of(&a, mw),
        "10 clk MW8 000105f0:0000000105f0 00000000_00000001",
    );
    let d = &compare(&a, &b, 1).divergences[0];
    assert_eq!(d.instruction, 9);
    assert!(
        matches!(&d.differences[..], [Difference::Memory { addr: 0x105f0, a, b }] if hex(a) == "00" && hex(b) == "01"),
        "{:?}",
        d.differences
    );

    let mr = "6 clk MR8 00010040:000000010040 00000000_000105f0";
    let b = with_line(
        &a,
        line_of(&a, mr),
        "6 clk MR8 00010040:000000010040 00000000_000105f1",
    );
    let d = &compare(&a, &b, 1).divergences[0];
    assert_eq!(d.instruction, 5);
    assert!(
        d.differences.iter().any(|x| matches!(x, Difference::Read { addr: 0x10040, a, b } if a == &[0xf0] && b == &[0xf1])),
        "{:?}",
        d.differences
    );

    let it = "3 clk IT (3) 00010008 d5033fdf O EL3h_s : ISB      ";
    let b = with_line(
        &a,
        line_of(&a, it),
        "3 clk IT (3) 00010008 d5033fde O EL3h_s : ISB      ",
    );
    let d = &compare(&a, &b, 1).divergences[0];
    assert_eq!(
        (d.instruction, d.differences.clone()),
        (2, vec![Difference::Encoding])
    );
}

#[test]
fn several_divergences_are_listed_up_to_the_limit_and_a_cut_trace_ends() {
    let a = trace("aarch64-O2-fastmodel");
    // Every cpsr write flipped: many divergences, only three reported.
    let text = String::from_utf8(a.clone()).unwrap();
    let b = text
        .replace("R cpsr 800003cd", "R cpsr 600003cd")
        .into_bytes();
    let r = compare(&a, &b, 3);
    assert_eq!(r.divergences.len(), 3);
    assert!(r
        .divergences
        .windows(2)
        .all(|w| w[0].instruction < w[1].instruction));

    // The same trace cut after 100 instructions.
    let cut = text
        .match_indices(" IT ")
        .chain(text.match_indices(" IS "))
        .map(|(i, _)| i)
        .collect::<std::collections::BTreeSet<_>>();
    let at = *cut.iter().nth(100).unwrap();
    let start = text[..at].rfind('\n').unwrap() + 1;
    let r = compare(&a, &a[..start], 10);
    let last = r.divergences.last().unwrap();
    assert_eq!(last.differences, vec![Difference::Ended]);
    assert_eq!(last.instruction, 100);
    assert!(last.a.is_some() && last.b.is_none());
    assert_eq!(r.compared, 100);
}

#[test]
fn a_trace_compared_with_itself_does_not_diverge() {
    let a = read(&data("ttu/quicksort.tarmac"));
    let r = compare(&a, &a, 10);
    assert!(r.divergences.is_empty());
    assert!(r.compared > 1000);
}

#[test]
fn progress_reaches_both_sizes_and_the_report_is_the_same() {
    let a = trace("aarch64-O2-fastmodel");
    let b = trace("aarch64-O2-es");
    let opts = ParseOptions::default();
    let mut seen: Vec<(u64, u64)> = Vec::new();
    let r = tarmac_lens_core::diff::diff_with_progress(
        SliceSource(&a),
        opts,
        SliceSource(&b),
        opts,
        10,
        |done, total| seen.push((done, total)),
    )
    .expect("in-memory sources read");
    assert_eq!(r, compare(&a, &b, 10));
    let total = (a.len() + b.len()) as u64;
    assert!(seen.len() > 2, "{seen:?}");
    assert!(seen.iter().all(|&(_, t)| t == total));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.last().map(|s| s.0), Some(total));
}
