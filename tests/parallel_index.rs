//! Parallel indexing must build exactly the sequential index: every
//! reference trace is indexed in 1..=8 ranges, and small traces at many
//! split points (so that splits fall inside nodes, calls, between a write
//! and its read, next to semihosting calls), and each stitched index is
//! compared with the sequential one byte for byte and by query answers.

use tarmac_lens_core::{
    dialect_of, split_offsets, stitch, Index, IndexOptions, ParseOptions, RangeIndex, SliceSource,
    StitchStats, TraceIdentity,
};

use crate::common::{data, read, tarmac_files, Rng};

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
        for p in tarmac_files(dir) {
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
    let dialect = dialect_of(&mut SliceSource(bytes), &opts).unwrap();
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
    stitch(&mut SliceSource(bytes), parts, len).unwrap()
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
        let mut splits: Vec<Vec<u64>> = (1..=8).map(|n| split_offsets(len, n)).collect();
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
        let (par, stats) = tarmac_lens_core::build_parallel_slice(&bytes, o, jobs, &|_, _| {});
        assert_eq!(stats.joined, jobs - 1, "{jobs} jobs: {stats:?}");
        assert!(par.to_bytes(ID) == want, "{jobs} jobs: index differs");
    }
}

// Traces that change execution state: whatever precedes a range's split
// point (another program, the other instruction set, another exception
// level, later timestamps) is carried by the stitch, and the range joins.

fn tracegen(name: &str) -> Vec<u8> {
    read(&data(&format!("tracegen/{name}.tarmac")))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Offsets of instruction lines (`IT`/`IS`) at or after every `size`
/// bytes: places to cut a trace into pieces that start at an instruction.
fn instruction_cuts(bytes: &[u8], size: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    let mut at = size;
    while at < bytes.len() {
        let mut line = at;
        while line < bytes.len() {
            line += bytes[line..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len() - line, |i| i + 1);
            let text = &bytes[line..bytes.len().min(line + 64)];
            if find(text, b" IT (").is_some() || find(text, b" IS (").is_some() {
                break;
            }
        }
        if line >= bytes.len() {
            break;
        }
        cuts.push(line);
        at = line + size;
    }
    cuts.push(bytes.len());
    cuts
}

/// Range starts just before, at and after each of `marks` (byte offsets
/// where the trace changes state), and between them.
fn splits_around(len: usize, marks: &[usize]) -> Vec<Vec<u64>> {
    let len = len as u64;
    let mut out: Vec<Vec<u64>> = (2..=6).map(|n| split_offsets(len, n)).collect();
    for (i, &m) in marks.iter().enumerate() {
        let m = m as u64;
        for d in [-300_000i64, -40_000, -700, 0, 1, 2_500, 90_000] {
            let at = m.saturating_add_signed(d).min(len - 1);
            let mut s = vec![0, at];
            // Another range starting in the middle of the next part.
            if let Some(&next) = marks.get(i + 1) {
                s.push((m + next as u64) / 2);
            }
            s.sort_unstable();
            // Ranges long enough to find a split point.
            s.dedup_by(|b, a| *b < *a + 64_000);
            out.push(s);
        }
    }
    out
}

/// [`check`], and every range joined.
fn check_joined(name: &str, bytes: &[u8], splits: &[Vec<u64>]) {
    let (ranges, joined) = check(name, bytes, false, splits);
    eprintln!("{name}: {joined} of {ranges} ranges joined");
    assert_eq!(joined, ranges, "{name}: ranges that did not join");
}

#[test]
fn concatenated_programs_join() {
    // A32, Thumb, AArch64 and A32 again, each from time 0: each part
    // changes instruction set and execution state, and time goes back.
    let parts = [
        tracegen("quicksort-arm-O2-fastmodel-2M"),
        tracegen("quicksort-thumb-O2-fastmodel-2M"),
        tracegen("quicksort-aarch64-O2-fastmodel-2M"),
        tracegen("quicksort-arm-O2-fastmodel-2M"),
    ];
    let mut bytes = Vec::new();
    let mut marks = Vec::new();
    for p in &parts {
        if !bytes.is_empty() {
            marks.push(bytes.len());
        }
        bytes.extend_from_slice(p);
    }
    check_joined(
        "A32+T32+A64+A32",
        &bytes,
        &splits_around(bytes.len(), &marks),
    );
}

#[test]
fn interworking_joins() {
    // A32 and Thumb calling each other within one program, then again.
    let one = read(&data("tracegen/lines/recursion-arm-O1-fastmodel.tarmac"));
    let len = one.len() as u64;
    let mut splits: Vec<Vec<u64>> = (2..=8).map(|n| split_offsets(len, n)).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..24 {
        let mut s: Vec<u64> = (0..3).map(|_| rng.next() % len).collect();
        s.push(0);
        s.sort_unstable();
        s.dedup();
        splits.push(s);
    }
    // Random starts may land too near the end to find a split point.
    let (ranges, joined) = check("interworking", &one, false, &splits[7..]);
    assert!(
        joined * 10 >= ranges * 9,
        "interworking: {joined} of {ranges}"
    );
    check_joined("interworking", &one, &splits[..7]);
    let twice = [&one[..], &one[..]].concat();
    check_joined(
        "interworking twice",
        &twice,
        &splits_around(twice.len(), &[one.len()]),
    );
}

#[test]
fn exception_level_and_state_changes_join() {
    // An AArch64 program at EL3 and EL1 (its mode fields rewritten in
    // every other piece) interleaved with an A32 program, in pieces of
    // about 200 KB: state changes, mode changes and time going back and
    // forth between the two programs' clocks, as a 32-bit EL0 under a
    // 64-bit kernel makes them.
    let a64 = tracegen("quicksort-aarch64-O2-fastmodel-2M");
    let a32 = tracegen("quicksort-arm-O2-fastmodel-2M");
    let (c64, c32) = (
        instruction_cuts(&a64, 200_000),
        instruction_cuts(&a32, 200_000),
    );
    let mut bytes = Vec::new();
    let mut marks = Vec::new();
    for i in 0..c64.len().max(c32.len()) - 1 {
        if let Some(w) = c64.get(i..i + 2) {
            marks.push(bytes.len());
            let mut piece = a64[w[0]..w[1]].to_vec();
            if i % 2 == 1 {
                while let Some(at) = find(&piece, b"EL3h_s") {
                    piece[at..at + 6].copy_from_slice(b"EL1h_n");
                }
            }
            bytes.extend_from_slice(&piece);
        }
        if let Some(w) = c32.get(i..i + 2) {
            marks.push(bytes.len());
            bytes.extend_from_slice(&a32[w[0]..w[1]]);
        }
    }
    marks.remove(0);
    let splits = splits_around(bytes.len(), &marks[..marks.len() - 2]);
    check_joined("EL and state changes", &bytes, &splits);
}

#[test]
fn time_going_backwards_joins() {
    // gem5's clock runs to 7.2M ticks; the Fast Models traces after it
    // restart at 0 and never reach it, so the sequential pass clamps every
    // later time to 7.2M; the other way round, gem5's times soon pass the
    // Fast Models' ones.
    let gem5 = tracegen("quicksort-thumb-O2-gem5-2M");
    let fm = tracegen("quicksort-aarch64-O2-fastmodel-cpu-2M");
    for (name, parts) in [
        ("gem5 then Fast Models", [&gem5, &fm, &fm]),
        ("Fast Models then gem5", [&fm, &fm, &gem5]),
    ] {
        let mut bytes = Vec::new();
        let mut marks = Vec::new();
        for p in parts {
            if !bytes.is_empty() {
                marks.push(bytes.len());
            }
            bytes.extend_from_slice(p);
        }
        check_joined(name, &bytes, &splits_around(bytes.len(), &marks));
    }
    // A trace whose timestamps go back inside it.
    let b = read(&data("field/backwards-timestamps.tarmac"));
    let splits: Vec<Vec<u64>> = (1..b.len() as u64).map(|s| vec![0, s]).collect();
    check("backwards-timestamps", &b, false, &splits);
}

#[test]
fn gem5_after_a_trace_that_wrote_sp_joins() {
    // gem5's AArch64 trace never writes sp: after a Fast Models trace that
    // did, its calls are detected with the sp that one left, which only
    // the sequential pass knows; a range inside it joins all the same,
    // its transfers replayed with that sp.
    let gem5 = tracegen("quicksort-aarch64-O2-gem5-2M");
    let fm = tracegen("quicksort-aarch64-O2-fastmodel-2M");
    let bytes = [&fm[..], &gem5[..]].concat();
    let (len, m) = (bytes.len() as u64, fm.len() as u64);
    let splits = [
        vec![0, len / 2],
        vec![0, m + 1],
        vec![0, m - 40_000, m + 90_000],
        vec![0, len / 3, len * 2 / 3],
    ];
    check_joined("Fast Models then gem5", &bytes, &splits);
    // With gem5's Thumb trace between, which writes the AArch32 sp: a
    // range that starts there has seen one sp when it reads the other.
    let thumb = tracegen("quicksort-thumb-O2-gem5-2M");
    let bytes = [&fm[..], &thumb[..], &gem5[..]].concat();
    let m2 = m + thumb.len() as u64;
    let splits = [vec![0, m2 + 1], vec![0, m + 90_000, m2 + 90_000]];
    let (ranges, joined) = check("Fast Models, gem5 Thumb, gem5", &bytes, false, &splits);
    eprintln!("Fast Models, gem5 Thumb, gem5: {joined} of {ranges} ranges joined");
}

#[test]
fn sp_first_written_far_into_a_range_joins() {
    // A range that starts in an A32 program knows its sp at once, but
    // reads the AArch64 sp as unknown until the Fast Models trace after
    // three of gem5's (which never write sp) writes it, 6 MB on: the
    // sequential pass knew it there, from the first trace, and would
    // refuse the join, so the range makes its split again after that
    // write. (It once did so only in its first 4 MiB, and the page's 1 GB
    // concatenation of every test trace was indexed twice over.)
    let fm = tracegen("quicksort-aarch64-O2-fastmodel-2M");
    let a32 = tracegen("quicksort-arm-O2-fastmodel-2M");
    let gem5 = tracegen("quicksort-aarch64-O2-gem5-2M");
    let bytes = [&fm[..], &a32, &gem5, &gem5, &gem5, &fm].concat();
    let m = fm.len() as u64;
    let splits = [vec![0, m + 1], vec![0, m + 90_000]];
    check_joined("sp written 6 MB into a range", &bytes, &splits);
}
