//! `examples/registers_at_line.rs` runs, on a checked-in trace, and prints
//! what the trace's text says the registers hold.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

#[allow(dead_code)] // `main` is for `cargo run --example`.
#[path = "../examples/registers_at_line.rs"]
mod example;

const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/ttu/quicksort.tarmac"
);

#[test]
fn prints_the_core_registers_after_a_line() {
    let mut out = Vec::new();
    example::run(Path::new(TRACE), 1025, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let value = |name: &str| {
        out.lines()
            .find_map(|l| l.split_once(' ').filter(|(n, _)| *n == name))
            .map(|(_, v)| v.trim().to_ascii_uppercase())
            .unwrap_or_else(|| panic!("no {name} in:\n{out}"))
    };
    // Line 1025 is `453 clk R X10 0000000000000066`, in the node of
    // `453 clk IT (453) 000080a8 38696a8a O EL3h_s : LDRB w10,[x20,x9]`.
    assert_eq!(value("x10"), "0000000000000066");
    assert_eq!(value("pc"), "00000000000080A8");
    // Earlier writes still hold: `450 clk R X9 000000000000000B`,
    // `451 clk R cpsr 200003cd`.
    assert_eq!(value("x9"), "000000000000000B");
    assert_eq!(value("psr"), "200003CD");
    // 31 x registers, sp, pc and psr: an AArch64 trace.
    assert_eq!(out.lines().count(), 34, "{out}");
}

#[test]
fn a_line_past_the_end_is_an_error() {
    let err = example::run(Path::new(TRACE), 99_999, &mut Vec::new()).unwrap_err();
    assert_eq!(err.to_string(), "the trace has no line 99999");
}
