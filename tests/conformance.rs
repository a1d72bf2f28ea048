//! The parser against the reference tools' own parser test: every line of
//! `parsertest.txt` must decode to exactly the events `parsertest.ref` lists.

use std::path::Path;

use tarmac_lens_core::{dump, ParseOptions, SliceSource};

fn data(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ttu")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e))
}

/// Splits a dump into per-line blocks keyed by the `--- Tarmac line:` header,
/// so a mismatch is reported for the line that caused it.
fn blocks(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("--- Tarmac line: ") || out.is_empty() {
            out.push(String::new());
        }
        let last = out.last_mut().expect("pushed above");
        last.push_str(line);
        last.push('\n');
    }
    out
}

fn check(input: &str, expected: &str, opts: ParseOptions) {
    let trace = data(input);
    let mut out = Vec::new();
    dump(SliceSource(&trace), opts, &mut out).expect("dump succeeds");
    let got = String::from_utf8(out).expect("dump of an ASCII file is ASCII");
    let want = String::from_utf8(data(expected)).expect("reference is ASCII");
    let (g, w) = (blocks(&got), blocks(&want));
    for (i, (gb, wb)) in g.iter().zip(w.iter()).enumerate() {
        assert_eq!(gb, wb, "block {} of {} differs", i + 1, input);
    }
    assert_eq!(g.len(), w.len(), "{}: number of lines differs", input);
    assert_eq!(got, want, "{}: byte-for-byte comparison", input);
}

#[test]
fn parsertest_matches_reference_line_for_line() {
    check("parsertest.txt", "parsertest.ref", ParseOptions::default());
}

#[test]
fn parsertest_implicit_thumb_matches_reference() {
    check(
        "parsertest-implicit-thumb.txt",
        "parsertest-implicit-thumb.ref",
        ParseOptions {
            implicit_thumb: true,
            ..ParseOptions::default()
        },
    );
}

/// The reference parser needs `--implicit-thumb` for an RTL logger's
/// instruction lines, which give neither state nor mode. With nothing
/// bracketed, an address and a 16- or 32-bit encoding can only be Thumb
/// (issue 55): read without the option, the file dumps as the reference
/// does with it.
#[test]
fn rtl_logger_lines_read_as_thumb_without_the_option_as_the_reference_with_it() {
    let trace = data("parsertest-implicit-thumb.txt");
    let mut out = Vec::new();
    dump(SliceSource(&trace), ParseOptions::default(), &mut out).unwrap();
    let got = String::from_utf8(out).unwrap();
    let want = String::from_utf8(data("parsertest-implicit-thumb.ref")).unwrap();
    assert_eq!(got, want);
    // A bracketed value without a state still needs the option.
    let line = b"354ns IT (1) 00000350 490d LDR r1,[pc,#52]\n";
    let mut out = Vec::new();
    dump(SliceSource(line), ParseOptions::default(), &mut out).unwrap();
    assert!(String::from_utf8(out)
        .unwrap()
        .contains("Parse error: expected instruction-set state"),);
}
