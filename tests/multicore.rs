//! Multi-core traces: two single-core traces of different programs (cpu0:
//! quicksort, with Tarmac Trace Utilities' reports; cpu1: recursion) are
//! interleaved by timestamp, as a multi-core model writes them. Each core
//! picked with `--cpu` must give exactly what its own trace gives (line
//! numbers mapped), with memory shared between the cores.

use std::path::{Path, PathBuf};

use tarmac_lens_core::{build_parallel_slice, count_cores, CoreCount};

use tarmac_lens_core::{Index, IndexOptions, ParseOptions, SliceSource, TraceIdentity};

use crate::common::{data, read, tarmac_lens};

const CPU0: &str = "tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M";
const CPU1: &str = "multicore/recursion-aarch64-O2-fastmodel-cpu1";

struct Merged {
    bytes: Vec<u8>,
    /// For each input, its line number (1-based index) -> merged line number.
    map: [Vec<u64>; 2],
}

fn timestamp(line: &[u8]) -> Option<u64> {
    let end = line.iter().position(|&b| b == b' ')?;
    std::str::from_utf8(&line[..end]).ok()?.parse().ok()
}

/// Groups of lines (a line without a timestamp stays with the one before),
/// merged by timestamp; at equal times cpu0's group goes first.
fn merge(a: &[u8], b: &[u8]) -> Merged {
    type Group<'t> = (u64, usize, Vec<&'t [u8]>, u64);
    fn groups(t: &[u8], who: usize) -> Vec<Group<'_>> {
        let mut out: Vec<Group<'_>> = Vec::new();
        for (i, line) in t.split(|&c| c == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            match (timestamp(line), out.last_mut()) {
                (None, Some(g)) => g.2.push(line),
                (time, _) => out.push((time.unwrap_or(0), who, vec![line], i as u64 + 1)),
            }
        }
        out
    }
    let mut all = groups(a, 0);
    all.extend(groups(b, 1));
    all.sort_by_key(|g| (g.0, g.1, g.3));
    let mut m = Merged {
        bytes: Vec::new(),
        map: [vec![0], vec![0]],
    };
    let mut n = 0;
    for (_, who, lines, first) in all {
        for (k, line) in lines.iter().enumerate() {
            n += 1;
            let orig = first as usize + k;
            let map = &mut m.map[who];
            if map.len() <= orig {
                map.resize(orig + 1, 0);
            }
            map[orig] = n;
            m.bytes.extend_from_slice(line);
            m.bytes.push(b'\n');
        }
    }
    m
}

fn merged() -> Merged {
    merge(
        &read(&data(&format!("{CPU0}.tarmac"))),
        &read(&data(&format!("{CPU1}.tarmac"))),
    )
}

/// `l:N` in a calltree rewritten through `map`.
fn remap_lines(text: &str, map: &[u64]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("l:") {
        out.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: usize = rest[..end].parse().expect("a line number after l:");
        out.push_str(&map[n].to_string());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Scratch {
        let dir = std::env::temp_dir().join(format!("tl-multicore-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("merged.tarmac");
        std::fs::write(&p, bytes).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

fn cli(args: &[&str], trace: &Path) -> std::process::Output {
    tarmac_lens().args(args).arg(trace).output().unwrap()
}

fn stdout(o: std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn cores_are_counted() {
    let m = merged();
    let got = count_cores(SliceSource(&m.bytes), ParseOptions::default()).unwrap();
    let mut want: Vec<CoreCount> = Vec::new();
    for t in [CPU0, CPU1] {
        let bytes = read(&data(&format!("{t}.tarmac")));
        want.extend(count_cores(SliceSource(&bytes), ParseOptions::default()).unwrap());
    }
    assert_eq!(got, want);
    assert_eq!(got[0].name, "cpu0");
    assert_eq!(got[1].instructions, 4568);

    let s = Scratch::new("cores", &m.bytes);
    let out = stdout(cli(&["cores"], &s.0));
    assert!(out.contains("cpu0") && out.contains("cpu1"), "{out}");
    assert!(out.contains(&got[0].instructions.to_string()), "{out}");
}

#[test]
fn each_core_reports_as_its_own_trace() {
    let m = merged();
    let s = Scratch::new("reports", &m.bytes);

    // cpu0: exactly what Tarmac Trace Utilities printed for its own trace.
    let elf0 = data(&format!("{CPU0}.elf")).display().to_string();
    let profile = stdout(cli(&["profile", "--cpu", "cpu0", "--image", &elf0], &s.0));
    assert_eq!(
        profile,
        String::from_utf8(read(&data(&format!("{CPU0}.profile.ref")))).unwrap()
    );
    let calltree = stdout(cli(&["calltree", "--cpu", "cpu0", "--image", &elf0], &s.0));
    let want = String::from_utf8(read(&data(&format!("{CPU0}.calltree.ref")))).unwrap();
    assert_eq!(calltree, remap_lines(&want, &m.map[0]));

    // cpu1: what this tool prints for its own trace.
    let elf1 = data(&format!("{CPU1}.elf")).display().to_string();
    let own = data(&format!("{CPU1}.tarmac"));
    for report in ["calltree", "profile", "flamegraph"] {
        let got = stdout(cli(&[report, "--cpu", "cpu1", "--image", &elf1], &s.0));
        let want = stdout(cli(&[report, "--image", &elf1], &own));
        assert!(!want.is_empty());
        let want = if report == "calltree" {
            remap_lines(&want, &m.map[1])
        } else {
            want
        };
        assert_eq!(got, want, "{report} of cpu1");
    }
}

#[test]
fn mixing_cores_unasked_is_an_error() {
    let m = merged();
    let s = Scratch::new("mixed", &m.bytes);
    for report in ["calltree", "profile", "vcd", "truncate"] {
        let o = cli(&[report], &s.0);
        assert_eq!(o.status.code(), Some(1), "{report}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("interleaves 2 cores (cpu0, cpu1)") && err.contains("--cpu"),
            "{report}: {err}"
        );
    }
    let o = cli(&["profile", "--cpu", "core1"], &s.0);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a core name"));
    // A core the trace does not have: nothing happened on it.
    let out = stdout(cli(&["profile", "--cpu", "cpu7"], &s.0));
    assert_eq!(out.lines().count(), 1, "{out}");
}

fn opts(cpu: &str) -> IndexOptions {
    IndexOptions {
        parse: ParseOptions {
            cpu: Some(cpu.parse().unwrap()),
            ..ParseOptions::default()
        },
        checkpoint_bytes: 16 << 10,
    }
}

#[test]
fn a_core_has_its_own_registers_and_calls_and_shares_memory() {
    let m = merged();
    let own = read(&data(&format!("{CPU1}.tarmac")));
    let alone = Index::build_from_slice(&own, IndexOptions::default(), |_| {});
    let within = Index::build_from_slice(&m.bytes, opts("cpu1"), |_| {});
    let (a, w) = (alone.summary(), within.summary());
    assert_eq!(
        (a.nodes, a.instructions, a.calls),
        (w.nodes, w.instructions, w.calls)
    );
    let mut src_a = SliceSource(&own);
    let mut src_w = SliceSource(&m.bytes);
    for n in (0..a.nodes).step_by(97).chain([a.nodes - 1]) {
        let ra = alone.registers_after(&mut src_a, n).unwrap();
        let rw = within.registers_after(&mut src_w, n).unwrap();
        assert!(
            ra.bytes == rw.bytes && ra.known == rw.known,
            "registers at node {n}"
        );
        let la = alone.node(&mut src_a, n).unwrap();
        let lw = within.node(&mut src_w, n).unwrap();
        assert_eq!((la.at.pc, la.at.time), (lw.at.pc, lw.at.time), "node {n}");
        assert_eq!(m.map[1][la.at.line as usize], lw.at.line, "node {n}");
    }

    // Memory is shared: at cpu1's last node, which ends after every cpu0
    // line, memory cpu1 never touched holds what cpu0 left there.
    let q = read(&data(&format!("{CPU0}.tarmac")));
    let q_alone = Index::build_from_slice(&q, IndexOptions::default(), |_| {});
    let q_end = q_alone.summary().nodes - 1;
    for addr in [0x105f0u64, 0x10600, 0x10700, 0x10800] {
        let untouched = alone
            .memory_after(&mut src_a, a.nodes - 1, addr, 16)
            .unwrap();
        assert!(
            untouched.known.iter().all(|&k| !k),
            "cpu1 touches {addr:#x}"
        );
        let by_cpu0 = q_alone
            .memory_after(&mut SliceSource(&q), q_end, addr, 16)
            .unwrap();
        assert!(
            by_cpu0.known.iter().all(|&k| k),
            "cpu0 leaves {addr:#x} unknown"
        );
        let shared = within
            .memory_after(&mut src_w, w.nodes - 1, addr, 16)
            .unwrap();
        assert_eq!(
            (shared.bytes, shared.known),
            (by_cpu0.bytes, by_cpu0.known),
            "{addr:#x}"
        );
    }
}

#[test]
fn a_core_indexes_the_same_in_parallel() {
    let m = merged();
    const ID: TraceIdentity = TraceIdentity { len: 0, mtime: 0 };
    for cpu in ["cpu0", "cpu1"] {
        let seq = Index::build_from_slice(&m.bytes, opts(cpu), |_| {});
        let bytes = seq.to_bytes(ID);
        let (back, _) = Index::from_bytes(&bytes).unwrap();
        assert_eq!(back.summary(), seq.summary());
        for jobs in 2..=4 {
            let (par, _) = build_parallel_slice(&m.bytes, opts(cpu), jobs, &|_, _| {});
            assert!(par.to_bytes(ID) == bytes, "{cpu}, {jobs} jobs");
        }
    }
}

#[test]
fn statistics_name_the_cores() {
    use tarmac_lens_core::compute_stats as compute;
    let m = merged();
    let stats = compute(SliceSource(&m.bytes), ParseOptions::default(), |_| {}).unwrap();
    assert_eq!(stats.cores, ["cpu0", "cpu1"]);
    let one = read(&data(&format!("{CPU1}.tarmac")));
    let stats = compute(SliceSource(&one), ParseOptions::default(), |_| {}).unwrap();
    assert_eq!(stats.cores, ["cpu1"]);
    let none = read(&data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac"));
    let stats = compute(SliceSource(&none), ParseOptions::default(), |_| {}).unwrap();
    assert!(stats.cores.is_empty());
}

#[test]
fn a_followed_core_shows_the_others_lines_dimmed() {
    use tarmac_lens_core::{
        protocol::{Hl, Row, Rows},
        Session,
    };
    let m = merged();
    let text = String::from_utf8(m.bytes.clone()).unwrap();
    let rows_of = |cpu: Option<&str>| {
        let parse = ParseOptions {
            cpu: cpu.map(|c| c.parse().unwrap()),
            ..ParseOptions::default()
        };
        let mut s = Session::open(SliceSource(&m.bytes), parse).unwrap();
        while !s.index_step(1 << 20).unwrap().complete {}
        let rows = Rows {
            view: 0,
            first: 0,
            count: 400,
        };
        s.ask(rows).unwrap().rows
    };
    let dimmed = |rows: &[Row]| -> Vec<u64> {
        rows.iter()
            .filter_map(|r| match r {
                Row::Line { line, spans, .. }
                    if spans.len() == 1 && spans[0].hl == Hl::OtherCore =>
                {
                    Some(*line)
                }
                _ => None,
            })
            .collect()
    };
    let rows = rows_of(Some("cpu1"));
    let lines: Vec<&str> = text.lines().collect();
    let want: Vec<u64> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Line { line, .. } if lines[*line as usize - 1].contains(" cpu0 ") => Some(*line),
            _ => None,
        })
        .collect();
    assert!(want.len() > 50, "the first rows mix both cores");
    assert_eq!(dimmed(&rows), want);
    assert!(dimmed(&rows_of(None)).is_empty());
}
