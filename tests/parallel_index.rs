//! Parallel indexing must build exactly the sequential index: every
//! reference trace is indexed in 1..=8 ranges, and small traces at many
//! split points (so that splits fall inside nodes, calls, between a write
//! and its read, next to semihosting calls), and each stitched index is
//! compared with the sequential one byte for byte and by query answers.

use tarmac_lens_core::index::parallel::{self, RangeIndex, StitchStats};
use tarmac_lens_core::index::{Index, IndexOptions, TraceIdentity};
use tarmac_lens_core::parse::ParseOptions;
use tarmac_lens_core::source::SliceSource;

mod common;
use common::{data, read, Rng};

const ID: TraceIdentity = TraceIdentity { len: 0, mtime: 0 };

fn traces() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in [
        "ttu",
        "ttu/calltests",
        "ttu/samples",
        "ttu/truncate",
        "tracegen",
    ] {
        let mut names: Vec<_> = std::fs::read_dir(data(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "tarmac"))
            .collect();
        names.sort();
        for p in names {
            out.push((p.display().to_string(), read(&p)));
        }
    }
    assert!(out.len() >= 20, "reference traces missing");
    out
}

fn opts(len: usize, big_endian: bool) -> IndexOptions {
    IndexOptions {
        parse: ParseOptions {
            big_endian,
            ..ParseOptions::default()
        },
        // Small intervals: many checkpoints, so ranges find split points.
        checkpoint_bytes: if len > 1 << 20 { 8 << 10 } else { 512 },
    }
}

/// Indexes `bytes` in ranges starting at `starts` (raw offsets), through
/// the source path for odd-numbered ranges and the slice path otherwise;
/// every range but those numbered 1 mod 3 goes through its byte form, as it
/// would between browser workers.
fn build_ranges(bytes: &[u8], opts: IndexOptions, starts: &[u64]) -> (Index, StitchStats) {
    let len = bytes.len() as u64;
    let dialect = parallel::dialect_of(&mut SliceSource(bytes), &opts).unwrap();
    let parts: Vec<RangeIndex> = starts
        .iter()
        .enumerate()
        .map(|(i, &from)| {
            let to = starts.get(i + 1).copied().unwrap_or(len);
            let r = if i % 2 == 1 {
                RangeIndex::build(&mut SliceSource(bytes), opts, dialect, from, to, |_| {}).unwrap()
            } else {
                RangeIndex::build_from_slice(bytes, opts, dialect, from, to, |_| {})
            };
            if i % 3 == 1 {
                r
            } else {
                let b = r.to_bytes();
                assert!(RangeIndex::from_bytes(&b[..b.len() - 1]).is_err());
                RangeIndex::from_bytes(&b).unwrap()
            }
        })
        .collect();
    parallel::stitch(&mut SliceSource(bytes), parts, len).unwrap()
}

/// Query answers at a spread of positions.
fn answers(index: &Index, bytes: &[u8]) -> Vec<String> {
    let mut src = SliceSource(bytes);
    let nodes = index.nodes();
    let mut out = Vec::new();
    for i in 0..16u64 {
        let n = nodes * i / 16;
        if n >= nodes {
            break;
        }
        let regs = index.registers_after(&mut src, n).unwrap();
        out.push(format!("{:?} {:?}", &regs.bytes[..256], &regs.known[..256]));
        out.push(format!("{:?}", index.node(&mut src, n).unwrap()));
        out.push(format!("{:?}", index.calls().stack_at(n)));
        for addr in [0u64, 0x8000, 0x80000, 0x7fff_ff00, 0xffff_ffff_ff00] {
            out.push(format!(
                "{:?}",
                index.memory_after(&mut src, n, addr, 256).unwrap()
            ));
        }
    }
    out
}

fn check(name: &str, bytes: &[u8], big_endian: bool, splits: &[Vec<u64>]) -> (usize, usize) {
    let o = opts(bytes.len(), big_endian);
    let seq = Index::build_from_slice(bytes, o, |_| {});
    let want = seq.to_bytes(ID);
    let want_answers = answers(&seq, bytes);
    let (mut ranges, mut joined) = (0, 0);
    for starts in splits {
        let (par, stats) = build_ranges(bytes, o, starts);
        let got = par.to_bytes(ID);
        assert!(
            got == want,
            "{name}: index built in ranges {starts:?} differs from the sequential one ({stats:?})"
        );
        assert_eq!(
            answers(&par, bytes),
            want_answers,
            "{name}: answers differ for ranges {starts:?}"
        );
        ranges += stats.ranges - 1;
        joined += stats.joined;
    }
    (ranges, joined)
}

#[test]
fn ranges_stitch_to_the_sequential_index() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut ranges, mut joined) = (0, 0);
    for (name, bytes) in traces() {
        let len = bytes.len() as u64;
        let mut splits: Vec<Vec<u64>> = (1..=8).map(|n| parallel::split_offsets(len, n)).collect();
        // Random split points; dense for small traces, so that every kind
        // of boundary occurs.
        let random = if len < 300_000 { 40 } else { 4 };
        for _ in 0..random {
            let n = 2 + (rng.next() % 5) as usize;
            let mut s: Vec<u64> = (1..n).map(|_| rng.next() % len.max(1)).collect();
            s.push(0);
            s.sort_unstable();
            splits.push(s);
        }
        let (r, j) = check(&name, &bytes, false, &splits[..8]);
        // Generated traces are long enough for every even range to find a
        // split point: the adopting path must be what is tested there.
        if name.contains("tracegen") {
            assert_eq!(j, r, "{name}: only {j} of {r} even ranges joined");
        }
        let (r2, j2) = check(&name, &bytes, false, &splits[8..]);
        eprintln!("{name}: {} of {} ranges joined", j + j2, r + r2);
        ranges += r + r2;
        joined += j + j2;
        if name.ends_with("indextest.tarmac") {
            check(&name, &bytes, true, &splits);
        }
    }
    assert!(
        joined * 5 > ranges * 2,
        "only {joined} of {ranges} ranges joined"
    );
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn threads_build_the_sequential_index() {
    let bytes = read(&data("tracegen/quicksort-thumb-O2-gem5-2M.tarmac"));
    let o = IndexOptions::default();
    let want = Index::build_from_slice(&bytes, o, |_| {}).to_bytes(ID);
    for jobs in [2, 3, 4] {
        let (par, stats) = parallel::build_parallel_slice(&bytes, o, jobs, &|_, _| {});
        assert_eq!(stats.joined, jobs - 1, "{jobs} jobs: {stats:?}");
        assert!(par.to_bytes(ID) == want, "{jobs} jobs: index differs");
    }
}
