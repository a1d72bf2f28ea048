//! A browse session that indexes the first byte range itself and adopts the
//! others, indexed elsewhere (as browser workers do), must end with the
//! index and statistics a one-pass session builds, byte for byte, and
//! answer queries alike — including when ranges arrive late, out of order,
//! cannot be adopted, or never come.

use tarmac_lens_core::{dialect_of, line_start_at, protocol::*, split_offsets, Session};

use tarmac_lens_core::{IndexOptions, ParseOptions, RangeJob, SliceSource, Stats, TraceIdentity};

use crate::common::{data, read, tarmac_files};

const ID: TraceIdentity = TraceIdentity { len: 0, mtime: 0 };

type S<'a> = Session<SliceSource<'a>>;

/// The index's options for every session here: checkpoints every 64 KiB
/// (a quarter of the default), so that each range of a 2 MB trace cut in
/// five finds a split point.
fn opts() -> IndexOptions {
    IndexOptions {
        checkpoint_bytes: 64 << 10,
        ..IndexOptions::default()
    }
}

fn one_pass(bytes: &[u8]) -> S<'_> {
    let mut s = Session::open_with(SliceSource(bytes), opts()).unwrap();
    while !s.index_step(1 << 20).unwrap().complete {}
    s
}

/// Range `[from, to)` indexed as a range worker does, in small steps, and
/// carried as bytes.
fn range_worker(bytes: &[u8], from: u64, to: u64) -> (Vec<u8>, Stats) {
    let mut src = SliceSource(bytes);
    let opts = opts();
    let dialect = dialect_of(&mut src, &opts).unwrap();
    let mut job = RangeJob::new(&mut src, opts, dialect, from, to).unwrap();
    while !job.step(&mut src, 100 << 10).unwrap() {}
    assert_eq!(job.done_bytes(), job.range().1 - job.range().0);
    let (index, stats) = job.finish();
    (index.to_bytes(), stats)
}

/// What the range workers hand in for each part (1-based): `None` for a
/// worker that failed.
type Parts = Vec<Option<(Vec<u8>, Stats)>>;

/// A session split in `n` ranges, the others handed in from `parts` in
/// reverse order, each after some steps of the session's own indexing; the
/// progress is checked on the way.
fn ranged<'a>(
    bytes: &'a [u8],
    n: usize,
    strict: bool,
    make: impl Fn(&[u8], u64, u64) -> Option<(Vec<u8>, Stats)>,
) -> S<'a> {
    ranged_after(bytes, n, strict, 0, make)
}

/// As [`ranged`], the session having indexed `first_step` bytes on its own
/// before the split (the browser's worker splits after its first answer).
fn ranged_after<'a>(
    bytes: &'a [u8],
    n: usize,
    strict: bool,
    first_step: u64,
    make: impl Fn(&[u8], u64, u64) -> Option<(Vec<u8>, Stats)>,
) -> S<'a> {
    let total = bytes.len() as u64;
    let mut s = Session::open_with(SliceSource(bytes), opts()).unwrap();
    if first_step > 0 {
        s.index_step(first_step).unwrap();
    }
    let raw = s.split_indexing(n).unwrap();
    assert_eq!(raw.len(), n - 1);
    let parts: Parts = raw.iter().map(|&(f, t)| make(bytes, f, t)).collect();
    let mut order: Vec<usize> = (1..n).rev().collect();
    let mut last_done = 0;
    let mut last_lines = 0;
    for step in 0.. {
        // Hand in the parts in reverse order, one every few steps, and the
        // rest once the session waits for one.
        if (step % 3 == 2 || s.waiting_for_range()) && !order.is_empty() {
            let k = order.remove(0);
            let before = s.progress();
            match &parts[k - 1] {
                Some((b, st)) => s.take_range(k, b, st.clone()),
                None => s.range_failed(k),
            }
            let after = s.progress();
            // Rows become browsable only once adopted, in order.
            assert_eq!(after.lines, before.lines);
            assert!(after.done_bytes >= before.done_bytes);
        } else if s.waiting_for_range() {
            panic!("waiting with every part handed in");
        }
        let p = s.index_step(64 << 10).unwrap();
        // Work found unusable stops counting (the session redoes it).
        assert!(
            (p.done_bytes >= last_done || !strict) && p.done_bytes <= total,
            "{p:?}"
        );
        assert!(p.lines >= last_lines, "{p:?}");
        last_done = p.done_bytes;
        last_lines = p.lines;
        if p.complete {
            assert_eq!(p.done_bytes, total);
            break;
        }
        assert!(step < 1_000_000);
    }
    s
}

/// Query answers at a spread of positions.
fn answers(s: &mut S<'_>) -> Vec<String> {
    let nodes = s.progress().nodes;
    let mut out = vec![format!("{:?}", s.progress()), format!("{:?}", s.stats())];
    for i in 0..12u64 {
        let node = nodes * i / 12;
        for q in [
            Query::Rows(Rows {
                view: 0,
                first: node,
                count: 40,
            }),
            Query::Registers(Registers {
                node,
                mark: RegMark::None,
            }),
            Query::Memory(Memory {
                node,
                addr: 0x7fff_ff00,
                len: 256,
                compare: None,
            }),
            Query::CallStack(CallStack { node }),
            Query::Step(Step {
                view: 0,
                node,
                delta: 3,
            }),
        ] {
            out.push(format!("{:?}", s.answer(q)));
        }
    }
    out
}

fn same(name: &str, want: &mut S<'_>, got: &mut S<'_>) {
    let (w, g) = (want.save(ID).unwrap(), got.save(ID).unwrap());
    assert!(
        w == g,
        "{name}: the index and statistics of ranges differ from one pass ({:?})",
        got.range_report()
    );
    assert_eq!(answers(want), answers(got), "{name}: answers differ");
}

fn good(bytes: &[u8], f: u64, t: u64) -> Option<(Vec<u8>, Stats)> {
    Some(range_worker(bytes, f, t))
}

fn traces() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["tracegen", "ttu"] {
        for p in tarmac_files(dir) {
            out.push((p.display().to_string(), read(&p)));
        }
    }
    out
}

#[test]
fn adopted_ranges_make_the_one_pass_session() {
    for (name, bytes) in traces() {
        let mut want = one_pass(&bytes);
        for n in [2, 3, 5] {
            let mut got = ranged(&bytes, n, true, good);
            same(&format!("{name} in {n}"), &mut want, &mut got);
            let r = got.range_report().unwrap();
            assert_eq!(r.ranges, n - 1);
            assert_eq!(r.joined + r.alone, n - 1);
            // Generated traces are long enough for every range to find a
            // split point: adopting must be what is tested there.
            if name.contains("tracegen") {
                assert_eq!(r.joined, n - 1, "{name} in {n}: {r:?}");
            }
        }
    }
}

/// The page holds each range's bytes until the session waits for it
/// (`awaited_range`), counting it as indexed meanwhile: the session asks
/// for the ranges in order, only once it has reached each, and ends as one
/// pass does.
#[test]
fn ranges_held_until_awaited_make_the_one_pass_session() {
    let traces = traces();
    let (name, bytes) = traces.iter().find(|(n, _)| n.contains("tracegen")).unwrap();
    let total = bytes.len() as u64;
    let mut want = one_pass(bytes);
    let mut s = Session::open_with(SliceSource(bytes), opts()).unwrap();
    let raw = s.split_indexing(3).unwrap();
    let mut held: Vec<Option<(Vec<u8>, Stats)>> = raw
        .iter()
        .map(|&(f, t)| Some(range_worker(bytes, f, t)))
        .collect();
    for k in 1..=held.len() {
        s.range_progress(k, u64::MAX);
    }
    let mut asked = Vec::new();
    loop {
        if let Some(k) = s.awaited_range() {
            assert!(s.waiting_for_range());
            asked.push(k);
            let (b, st) = held[k - 1].take().expect("a range asked for twice");
            s.take_range(k, &b, st);
            assert_eq!(s.awaited_range(), None);
        }
        let p = s.index_step(64 << 10).unwrap();
        // Ranges held count as indexed, and never past the trace.
        assert!(p.done_bytes <= total, "{p:?}");
        if p.complete {
            break;
        }
    }
    assert_eq!(asked, [1, 2], "{name}");
    same(&format!("{name}, ranges held"), &mut want, &mut s);
    assert_eq!(s.range_report().unwrap().joined, 2);
}

/// The page's path across changes of state: programs of each instruction
/// set one after another, each restarting its clock, adopted as the
/// native stitch joins them. (Compared as [`same`] does but for the
/// progress's `index_bytes`, an estimate from vector capacities: the PC
/// counts of programs with different PCs, merged, grow differently.)
#[test]
fn ranges_across_changes_of_state_and_time_are_adopted() {
    let bytes = [
        "quicksort-arm-O2-fastmodel-2M",
        "quicksort-thumb-O2-fastmodel-2M",
        "quicksort-aarch64-O2-fastmodel-2M",
        "quicksort-thumb-O2-fastmodel-2M",
    ]
    .iter()
    .flat_map(|n| read(&data(&format!("tracegen/{n}.tarmac"))))
    .collect::<Vec<u8>>();
    let mut want = one_pass(&bytes);
    let want_answers = answers(&mut want);
    for n in [2, 3, 4, 6] {
        let mut got = ranged(&bytes, n, true, good);
        let name = format!("concatenation in {n}");
        assert!(
            want.save(ID).unwrap() == got.save(ID).unwrap(),
            "{name}: the index and statistics of ranges differ from one pass"
        );
        let got_answers = answers(&mut got);
        assert_eq!(
            want_answers[1..],
            got_answers[1..],
            "{name}: answers differ"
        );
        let r = got.range_report().unwrap();
        assert_eq!(r.joined, n - 1, "{name}: {r:?}");
    }
}

#[test]
fn a_session_split_after_its_first_steps_makes_the_one_pass_session() {
    for (name, bytes) in traces() {
        if !name.contains("tracegen") {
            continue;
        }
        let mut want = one_pass(&bytes);
        for first_step in [1, 32 << 10, 100 << 10] {
            let mut got = ranged_after(&bytes, 3, true, first_step, good);
            same(&format!("{name} after {first_step}"), &mut want, &mut got);
            let r = got.range_report().unwrap();
            assert_eq!(
                (r.ranges, r.joined),
                (2, 2),
                "{name} after {first_step}: {r:?}"
            );
        }
    }
}

#[test]
fn a_session_that_has_read_past_the_split_is_not_split() {
    let (name, bytes) = traces()
        .into_iter()
        .find(|(n, _)| n.contains("tracegen"))
        .unwrap();
    let len = bytes.len() as u64;
    // Lines handed out past where a split in two would end the session's
    // range; then lines short of it, but read (the reads double in size)
    // past it.
    for first_step in [len * 3 / 4, len / 2 - (150 << 10)] {
        let mut s = Session::open_with(SliceSource(&bytes), opts()).unwrap();
        s.index_step(first_step).unwrap();
        assert!(
            s.split_indexing(2).unwrap().is_empty(),
            "{name} after {first_step}"
        );
        while !s.index_step(1 << 20).unwrap().complete {}
        same(&name, &mut one_pass(&bytes), &mut s);
    }
}

#[test]
fn a_range_boundary_inside_a_call_is_adopted() {
    let bytes = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    let mut want = one_pass(&bytes);
    let mut inside = 0;
    for n in [2, 3, 4, 6] {
        let mut got = ranged(&bytes, n, true, good);
        same(&format!("{n} ranges"), &mut want, &mut got);
        assert_eq!(got.range_report().unwrap().joined, n - 1);
        for from in split_offsets(bytes.len() as u64, n).into_iter().skip(1) {
            let Some(at) = got.ask(Locate::Offset(from)).unwrap() else {
                panic!("no node at {from}");
            };
            if let Ok(frames) = got.ask(CallStack { node: at.node }) {
                inside += usize::from(!frames.is_empty());
            }
        }
    }
    assert!(inside > 0, "no range boundary fell inside a call");
}

/// Every timestamp in `[from, to)` of a copy changed, keeping the text's
/// layout: a worker given such a copy ends its range in a state the
/// session's never matches.
fn wrong_times(bytes: &[u8], from: u64, to: u64) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    let (from, to) = (from as usize, to as usize);
    let mut at_line_start = true;
    let mut i = from;
    while i < to {
        if at_line_start {
            let mut j = i;
            while j < to && copy[j] == b' ' {
                j += 1;
            }
            let mut k = j;
            while k < to && copy[k].is_ascii_digit() {
                k += 1;
            }
            if k > j {
                copy[k - 1] = if copy[k - 1] == b'9' {
                    b'0'
                } else {
                    copy[k - 1] + 1
                };
            }
        }
        at_line_start = copy[i] == b'\n';
        i += 1;
    }
    copy
}

#[test]
fn ranges_that_cannot_be_adopted_are_indexed_by_the_session() {
    let bytes = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    let mut want = one_pass(&bytes);
    // A worker's state that disagrees at the split (range 2 of 4).
    let mut got = ranged(&bytes, 4, false, |b, f, t| {
        let raw = split_offsets(b.len() as u64, 4);
        if f == raw[2] {
            Some(range_worker(&wrong_times(b, f, t), f, t))
        } else {
            good(b, f, t)
        }
    });
    same("a state that disagrees", &mut want, &mut got);
    let r = got.range_report().unwrap();
    assert_eq!((r.joined, r.alone), (2, 1), "{r:?}");

    // Bytes that do not decode, and a range of another split.
    let mut got = ranged(&bytes, 3, false, |b, f, t| {
        let (mut x, st) = range_worker(b, f, t);
        if f == split_offsets(b.len() as u64, 3)[1] {
            x.truncate(x.len() / 2);
            Some((x, st))
        } else {
            Some(range_worker(b, f - 1000, t))
        }
    });
    same("broken bytes", &mut want, &mut got);
    assert_eq!(got.range_report().unwrap().alone, 2);

    // Workers that failed.
    let mut got = ranged(&bytes, 3, false, |_, _, _| None);
    same("failed workers", &mut want, &mut got);
    assert_eq!(got.range_report().unwrap().alone, 2);
}

#[test]
fn progress_counts_other_workers_but_rows_only_what_is_adopted() {
    let bytes = read(&data("tracegen/quicksort-thumb-O2-gem5-2M.tarmac"));
    let total = bytes.len() as u64;
    let mut s = Session::open_with(SliceSource(&bytes), opts()).unwrap();
    let raw = s.split_indexing(3).unwrap();
    // The last range done and a third of the second: counted, not browsable.
    let (b2, st2) = range_worker(&bytes, raw[1].0, raw[1].1);
    s.take_range(2, &b2, st2);
    s.range_progress(1, 1000);
    let mut p = s.index_step(1 << 20).unwrap();
    while !s.waiting_for_range() {
        p = s.index_step(1 << 20).unwrap();
    }
    let first_end = line_start_at(&mut SliceSource(&bytes), raw[0].0).unwrap();
    let last_len = total - line_start_at(&mut SliceSource(&bytes), raw[1].0).unwrap();
    assert_eq!(p.done_bytes, first_end + 1000 + last_len);
    let first_lines = bytes[..first_end as usize]
        .iter()
        .filter(|&&c| c == b'\n')
        .count() as u64;
    assert_eq!(p.lines, first_lines);
    // Waiting does nothing.
    assert_eq!(s.index_step(1 << 20).unwrap(), p);
    let r = s
        .ask(Rows {
            view: 0,
            first: first_lines + 10,
            count: 10,
        })
        .unwrap();
    assert!(r.rows.is_empty());
    let (b1, st1) = range_worker(&bytes, raw[0].0, raw[0].1);
    s.take_range(1, &b1, st1);
    while !s.index_step(1 << 20).unwrap().complete {}
    let mut want = one_pass(&bytes);
    same("late range", &mut want, &mut s);
    // Splitting is for a fresh session only.
    assert!(s.split_indexing(2).unwrap().is_empty());
    assert!(one_pass(&bytes).split_indexing(2).unwrap().is_empty());
}

#[test]
fn statistics_of_ranges_match_the_cli_counts() {
    let bytes = read(&data("ttu/parsertest.txt"));
    let want =
        tarmac_lens_core::compute_stats(SliceSource(&bytes), ParseOptions::default(), |_| {})
            .unwrap();
    for n in [2, 3] {
        let s = ranged(&bytes, n, true, good);
        assert_eq!(s.stats(), Some(&want), "{n} ranges");
    }
}

#[test]
fn unparsed_lines_of_adopted_ranges_are_numbered_in_the_whole_trace() {
    let clean = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    // A line the parser does not understand every ~10 KB: more than are listed.
    let mut bytes = Vec::new();
    let mut since = 0;
    for line in clean.split_inclusive(|&c| c == b'\n') {
        bytes.extend_from_slice(line);
        since += line.len();
        if since > 10_000 {
            bytes.extend_from_slice(b"?? not a trace line\n");
            since = 0;
        }
    }
    let mut want = one_pass(&bytes);
    assert!(want.stats().unwrap().unparsed > tarmac_lens_core::MAX_LISTED_UNPARSED as u64);
    for n in [2, 4] {
        let mut got = ranged(&bytes, n, true, good);
        assert_eq!(got.range_report().unwrap().joined, n - 1);
        assert_eq!(got.stats(), want.stats(), "{n} ranges");
        same(&format!("{n} ranges"), &mut want, &mut got);
    }
}

/// A source that ends before the length it claims (a file cut while open).
struct Cut<'a>(&'a [u8], u64);

impl tarmac_lens_core::TraceSource for Cut<'_> {
    fn len(&self) -> u64 {
        self.1
    }
    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        SliceSource(self.0).read_at(offset, buf)
    }
}

#[test]
fn a_source_that_ends_early_ends_indexing_as_in_one_pass() {
    let bytes = read(&data("tracegen/quicksort-arm-O2-es-2M.tarmac"));
    let cut = &bytes[..bytes.len() / 3];
    let claimed = bytes.len() as u64;
    let run = |parts: usize| {
        let mut s = Session::open_with(Cut(cut, claimed), opts()).unwrap();
        let raw = s.split_indexing(parts).unwrap();
        for (k, &(from, to)) in raw.iter().enumerate() {
            // Ranges past the end hold nothing; the first one is cut.
            let (b, st) = range_worker(cut, from.min(cut.len() as u64), to.min(cut.len() as u64));
            s.take_range(k + 1, &b, st);
        }
        let mut steps = 0;
        while !s.index_step(64 << 10).unwrap().complete {
            steps += 1;
            assert!(steps < 10_000, "{parts} parts: indexing never ends");
        }
        s.save(ID).unwrap()
    };
    assert!(run(1) == run(3), "a cut source indexed in ranges differs");
}
