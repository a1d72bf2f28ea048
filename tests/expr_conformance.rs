//! Reproduces TTU's `exprtest --infile exprtest.txt` byte for byte.

use tarmac_lens_core::{parse_expr, ExprContext};

/// The contexts of TTU's `tools/exprtest.cpp`: every name except
/// `nonexistent` is both a register (value 12345) and a symbol (54321).
struct ExprTestContext;

impl ExprContext for ExprTestContext {
    fn register(&self, _name: &str) -> Option<u64> {
        Some(12345)
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        (name != "nonexistent").then_some(54321)
    }
    fn is_register_name(&self, name: &str) -> bool {
        name != "nonexistent"
    }
}

fn run(input: &str) -> String {
    let mut out = String::new();
    // std::getline splits on '\n' only and yields no empty last line.
    let body = input.strip_suffix('\n').unwrap_or(input);
    for (i, line) in body.split('\n').enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let title = format!("line {}", i + 1);
        match parse_expr(line, &ExprTestContext) {
            Err(e) => out.push_str(&format!("{title}: parse failure: {e}\n")),
            Ok(expr) => {
                out.push_str(&format!("{title}: parse gives {}\n", expr.display()));
                let value = expr
                    .eval(&ExprTestContext)
                    .expect("exprtest's context has a value for every register");
                out.push_str(&format!("{title}: evaluation gives {value}\n"));
            }
        }
    }
    out
}

#[test]
fn exprtest_matches_ttu() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ttu/");
    let input = std::fs::read_to_string(format!("{dir}exprtest.txt")).unwrap();
    let expected = std::fs::read_to_string(format!("{dir}exprtest.ref")).unwrap();
    let actual = run(&input);
    if actual != expected {
        let mut exp = expected.lines();
        for (n, got) in actual.lines().enumerate() {
            let want = exp.next();
            assert_eq!(Some(got), want, "first difference at output line {}", n + 1);
        }
        panic!(
            "output is a prefix of the reference: {} lines missing (or trailing newline differs)",
            exp.count()
        );
    }
}
