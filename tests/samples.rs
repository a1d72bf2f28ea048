//! Every real trace we ship parses completely, and no input makes the parser
//! panic.

use std::path::{Path, PathBuf};

use crate::common::{tarmac_files, Rng};

use tarmac_lens_core::{compute_stats, LineReader, ParseOptions, Parser, RecordKind, SliceSource};

fn traces() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "ttu",
        "ttu/samples",
        "ttu/calltests",
        "ttu/truncate",
        "published/morello-fvp",
        "published/cortex-m-rtl-logger",
        "published/emulator-es",
    ] {
        out.extend(tarmac_files(dir));
    }
    out.sort();
    assert!(
        out.len() >= 15,
        "expected the reference and published traces, found {:?}",
        out
    );
    out
}

#[test]
fn every_reference_trace_parses_without_unparsed_lines() {
    for p in traces() {
        let data = std::fs::read(&p).unwrap();
        let s = compute_stats(SliceSource(&data), ParseOptions::default(), |_| {}).unwrap();
        assert_eq!(
            s.unparsed,
            0,
            "{}: unparsed lines {:?}",
            p.display(),
            s.unparsed_details
        );
        assert!(s.count("instruction") > 0, "{}", p.display());
        assert_eq!(s.bytes, data.len() as u64);
        let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
        let partial = u64::from(!data.is_empty() && *data.last().unwrap() != b'\n');
        assert_eq!(s.lines, newlines + partial, "{}", p.display());
    }
}

#[test]
fn mutated_lines_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for p in traces() {
        let data = std::fs::read(&p).unwrap();
        corpus.extend(data.split(|&b| b == b'\n').take(400).map(|l| l.to_vec()));
    }
    let specials = b" :()[]<>,_-.#xX0123456789abcdefRWMT\xff\xc2\xa0\t\r";
    for opts in [
        ParseOptions::default(),
        ParseOptions {
            implicit_thumb: true,
            big_endian: true,
            ..ParseOptions::default()
        },
    ] {
        let mut parser = Parser::new(opts, tarmac_lens_core::Dialect::Tarmac);
        let iters: usize = std::env::var("FUZZ_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60_000);
        for i in 0..iters {
            let mut line = corpus[(rng.next() as usize) % corpus.len()].clone();
            let edits = 1 + rng.next() % 4;
            for _ in 0..edits {
                let r = rng.next();
                let pos = if line.is_empty() {
                    0
                } else {
                    (r as usize >> 8) % line.len()
                };
                match r % 4 {
                    0 if !line.is_empty() => {
                        line.remove(pos);
                    }
                    1 => line.insert(pos, specials[(r as usize >> 20) % specials.len()]),
                    2 if !line.is_empty() => {
                        line[pos] = specials[(r as usize >> 20) % specials.len()]
                    }
                    _ => line.truncate(pos),
                }
            }
            let rec = parser.parse_line(&line);
            // Touch the record so the borrow is real.
            let _ = (i, rec.kind.name());
        }
    }
}

#[test]
fn lines_split_at_any_chunk_size_give_the_same_records() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ttu/samples/calculator-aarch64-es-ld-st-style.tarmac");
    let data = std::fs::read(p).unwrap();
    let kinds = |chunk: usize| {
        let mut r = LineReader::with_range(SliceSource(&data), 0, data.len() as u64, 1, chunk);
        let mut parser = Parser::new(ParseOptions::default(), tarmac_lens_core::Dialect::Tarmac);
        let mut v = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            let rec = parser.parse_line(l.text);
            v.push((l.number, l.offset, rec.time, rec.kind.name()));
            assert!(!matches!(rec.kind, RecordKind::Unparsed(_)));
        }
        v
    };
    assert_eq!(kinds(4096), kinds(1 << 20));
}
