//! The interactive reports (`report::explore`): their texts are the CLI's
//! byte for byte, their structured parts agree with those texts, and every
//! reply stays bounded.

use tarmac_lens_core::{
    report::{ProfileSort, Reports, TextKind, MAX_FRAMES, MAX_PAGE, MIN_FRAME_FRACTION},
    EngineOptions, FileSource, ParseOptions, SliceSource, SymbolTable,
};

use crate::common::{cli_stdout, data, Dir};

const BASE: &str = "tracegen/quicksort-arm-O2-fastmodel-2M";

fn reports(base: &str, with_elf: bool) -> Reports {
    let image = with_elf.then(|| {
        SymbolTable::from_elf_bytes(&std::fs::read(data(&format!("{base}.elf"))).unwrap(), 0)
            .unwrap()
    });
    let source = FileSource::open(&data(&format!("{base}.tarmac"))).unwrap();
    Reports::compute(
        source,
        ParseOptions::default(),
        EngineOptions::default(),
        image,
    )
    .unwrap()
}

#[test]
fn texts_equal_the_cli_output() {
    let trace = data(&format!("{BASE}.tarmac"));
    let elf = data(&format!("{BASE}.elf"));
    let (trace, elf) = (trace.to_str().unwrap(), elf.to_str().unwrap());
    let r = reports(BASE, true);
    for (kind, cmd) in [
        (TextKind::Calltree, "calltree"),
        (TextKind::Profile, "profile"),
        (TextKind::Flamegraph, "flamegraph"),
    ] {
        let want = cli_stdout(&[cmd, trace, "--image", elf, "--no-index"]);
        assert_eq!(r.text(kind).unwrap().as_bytes(), &want[..], "{cmd}");
    }
    let tmp = Dir::new("explore");
    let dir = tmp.path();
    let vcd_path = dir.join("t.vcd");
    cli_stdout(&[
        "vcd",
        trace,
        "--image",
        elf,
        "--no-index",
        "--no-date",
        "-o",
        vcd_path.to_str().unwrap(),
    ]);
    let mut got = Vec::new();
    r.write_vcd(|| FileSource::open(std::path::Path::new(trace)), &mut got)
        .unwrap();
    assert_eq!(got, std::fs::read(&vcd_path).unwrap());
    assert!(r.text(TextKind::Vcd).is_none());
}

#[test]
fn texts_match_the_references() {
    let r = reports(BASE, true);
    let want = |ext: &str| std::fs::read_to_string(data(&format!("{BASE}.{ext}.ref"))).unwrap();
    assert_eq!(r.text(TextKind::Calltree).unwrap(), want("calltree"));
    assert_eq!(r.text(TextKind::Profile).unwrap(), want("profile"));
}

#[test]
fn profile_rows_are_the_table_and_sort() {
    let r = reports(BASE, true);
    let text = r.text(TextKind::Profile).unwrap();
    let page = r.profile(ProfileSort::Address, false, 0, MAX_PAGE);
    assert_eq!(page.total as usize, text.lines().count() - 1);
    for (row, line) in page.rows.iter().zip(text.lines().skip(1)) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[0], format!("0x{:x}", row.addr));
        assert_eq!(f[1], row.count.to_string());
        assert_eq!(f[2], row.inclusive.to_string());
        assert_eq!(f[3..].join(" "), row.name);
    }
    // Exclusive time is the flame graph's: the folded counts sum to it.
    let folded: u64 = r
        .text(TextKind::Flamegraph)
        .unwrap()
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .fold(0, u64::wrapping_add);
    let own = page
        .rows
        .iter()
        .map(|r| r.exclusive)
        .fold(0, u64::wrapping_add);
    assert_eq!(own, folded);
    for r_ in &page.rows {
        assert!(r_.exclusive <= r_.inclusive, "{r_:?}");
    }
    let by_count = r.profile(ProfileSort::Count, true, 0, MAX_PAGE);
    assert!(by_count
        .rows
        .windows(2)
        .all(|w| w[0].count > w[1].count || (w[0].count == w[1].count && w[0].addr < w[1].addr)));
    assert_eq!(by_count.rows[0].name, "cmp_ascending");
    let by_name = r.profile(ProfileSort::Name, false, 0, MAX_PAGE);
    assert!(by_name.rows.windows(2).all(|w| w[0].name <= w[1].name));
    let paged = r.profile(ProfileSort::Inclusive, true, 2, 3);
    assert_eq!(paged.rows.len(), 3);
    assert_eq!(
        paged.rows,
        r.profile(ProfileSort::Inclusive, true, 0, MAX_PAGE).rows[2..5]
    );
}

#[test]
fn tree_levels_match_the_calltree_text() {
    let r = reports(BASE, true);
    let text = r.text(TextKind::Calltree).unwrap();
    let root = r.tree(None, 0, 10).unwrap();
    assert_eq!(root.total, 1);
    let top = &root.nodes[0];
    assert_eq!(top.name, "_start");
    let first = text.lines().next().unwrap();
    assert!(first.starts_with(&format!(
        "o t:{} l:{} pc:0x{:x} - t:{} l:{}",
        top.entry.time,
        top.entry.line,
        top.entry.pc,
        top.exit.unwrap().time,
        top.exit.unwrap().line
    )));
    assert_eq!(top.time, Some(17175 - 1));
    // Every instruction of this trace is in _start.
    assert_eq!(top.instructions, Some(r.summary().instructions));
    // Children at each level: the text's `- ` lines at that indentation.
    let calls_at = |indent: usize| {
        text.lines()
            .filter(|l| l.starts_with(&format!("{}- ", " ".repeat(indent))))
            .count() as u64
    };
    assert_eq!(top.children, calls_at(2));
    let kids = r.tree(Some(&[]), 0, MAX_PAGE).unwrap();
    assert_eq!(kids.nodes.len() as u64, top.children);
    assert_eq!(kids.nodes[0].name, "tg_main");
    let call = kids.nodes[0].call.unwrap();
    assert_eq!((call.time, call.line), (597, 1212));
    let resume = kids.nodes[0].resume.unwrap();
    assert_eq!((resume.time, resume.line), (17175, 34985));
    // Walking the whole tree finds every activation the profile counts.
    let mut seen = 0u64;
    let mut todo = vec![Vec::<u32>::new()];
    while let Some(path) = todo.pop() {
        seen += 1;
        let mut offset = 0;
        loop {
            let page = r.tree(Some(&path), offset, 7).unwrap();
            assert!(page.nodes.len() <= 7);
            for n in &page.nodes {
                todo.push(n.path.clone());
            }
            offset += page.nodes.len() as u64;
            if offset >= page.total {
                break;
            }
        }
    }
    assert_eq!(seen, r.summary().activations);
    assert!(r.tree(Some(&[99_999]), 0, 10).is_none());
}

#[test]
fn path_at_finds_the_innermost_call_of_a_node() {
    let r = reports(BASE, true);
    let node_of = |path: &[u32]| {
        let (parent, last) = path.split_at(path.len() - 1);
        r.tree(Some(parent), u64::from(last[0]), 1).unwrap().nodes[0].clone()
    };
    let tg_main = node_of(&[0]);
    // The call instruction is the caller's, the first node the callee's,
    // the return instruction the callee's, the node after it the caller's.
    assert_eq!(r.path_at(tg_main.call.unwrap().node), Vec::<u32>::new());
    assert_eq!(r.path_at(tg_main.entry.node), vec![0]);
    assert_eq!(r.path_at(tg_main.exit.unwrap().node), vec![0]);
    assert_eq!(r.path_at(tg_main.resume.unwrap().node), Vec::<u32>::new());
    assert_eq!(r.path_at(0), Vec::<u32>::new());
    assert_eq!(r.path_at(u64::MAX), Vec::<u32>::new());
    // Every node of some deep activations: inside it and in none of its calls.
    for path in [
        vec![0, 0, 2],
        vec![0, 0, 2, 0],
        vec![0, 0, 0],
        vec![0, 0, 3],
    ] {
        let act = node_of(&path);
        let calls = r.tree(Some(&path), 0, 500).unwrap().nodes;
        for n in act.entry.node..=act.exit.unwrap().node {
            let inner = calls
                .iter()
                .position(|c| c.entry.node <= n && n <= c.exit.unwrap().node);
            let mut want = path.clone();
            if let Some(i) = inner {
                want.push(i as u32);
            }
            assert!(r.path_at(n).starts_with(&want), "node {n}");
            assert_eq!(inner.is_none(), r.path_at(n) == path, "node {n}");
        }
    }
}

#[test]
fn flame_frames_add_up_and_zoom() {
    let r = reports(BASE, true);
    let folded = r.text(TextKind::Flamegraph).unwrap();
    let whole = r.flame(0).unwrap();
    let root = &whole.frames[0];
    assert_eq!(root.name, "_start");
    let sum: u64 = folded
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(root.total, sum);
    assert!(whole.ancestors.is_empty());
    // Each frame's own time is its stack's folded count.
    let by_id: std::collections::HashMap<u32, &_> =
        whole.frames.iter().map(|f| (f.id, f)).collect();
    for f in &whole.frames {
        let mut stack = vec![f.name.clone()];
        let mut p = f.parent;
        while let Some(id) = p {
            stack.push(by_id[&id].name.clone());
            p = by_id[&id].parent;
        }
        stack.reverse();
        let line = format!("{} {}", stack.join(";"), f.own);
        if f.own > 0 {
            assert!(folded.lines().any(|l| l == line), "{line}");
        }
        assert!(f.total as f64 >= root.total as f64 * MIN_FRAME_FRACTION);
    }
    assert!(whole.frames.len() <= MAX_FRAMES);
    // Zooming into quicksort: it is the root, at depth 0 and offset 0, and
    // its ancestors lead back to _start.
    let q = whole.frames.iter().find(|f| f.name == "quicksort").unwrap();
    let zoomed = r.flame(q.id).unwrap();
    assert_eq!(zoomed.frames[0].id, q.id);
    assert_eq!((zoomed.frames[0].depth, zoomed.frames[0].start), (0, 0));
    assert_eq!(
        zoomed
            .ancestors
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>(),
        ["_start", "tg_main", "run_iteration"]
    );
    for f in &zoomed.frames[1..] {
        assert!(f.start + f.total <= q.total, "{f:?}");
    }
    assert!(r.flame(1 << 30).is_none());
}

/// A trace of `depth` nested calls: the code at 0x800 calls the function
/// at 0x1000, each function at `0x1000 + 32 * i` saves lr and calls the
/// next, the innermost returns at once, the others pop their return.
fn deep_trace(depth: usize) -> String {
    let base = |i: usize| 0x1000 + 32 * i as u64;
    let mut out = String::new();
    let mut t = 1;
    let line =
        |out: &mut String, t: &mut u64, pc: u64, enc: &str, text: &str, writes: &[String]| {
            *out += &format!("{t} clk IT ({t}) {pc:08x} {enc} A svc_s : {text}\n");
            for w in writes {
                *out += &format!("{t} clk R {w}\n");
            }
            *t += 1;
        };
    let mut sp = 0x40_0000u64;
    line(
        &mut out,
        &mut t,
        0x800,
        "e3a0d901",
        "MOV      r13,#0x400000",
        &[format!("r13_svc {sp:08x}")],
    );
    line(
        &mut out,
        &mut t,
        0x804,
        "eb0001fd",
        "BL       0x1000",
        &["r14_svc 00000808".into()],
    );
    for i in 0..depth - 1 {
        sp -= 8;
        line(
            &mut out,
            &mut t,
            base(i),
            "e92d4010",
            "PUSH     {r4,lr}",
            &[format!("r13_svc {sp:08x}")],
        );
        line(
            &mut out,
            &mut t,
            base(i) + 4,
            "ebfffff6",
            "BL       next",
            &[format!("r14_svc {:08x}", base(i) + 8)],
        );
    }
    line(
        &mut out,
        &mut t,
        base(depth - 1),
        "e12fff1e",
        "BX       lr",
        &[],
    );
    for i in (0..depth - 1).rev() {
        sp += 8;
        line(
            &mut out,
            &mut t,
            base(i) + 8,
            "e8bd8010",
            "POP      {r4,pc}",
            &[format!("r13_svc {sp:08x}")],
        );
    }
    line(&mut out, &mut t, 0x808, "e320f000", "NOP", &[]);
    out
}

#[test]
fn a_deep_flame_graph_is_cut_at_the_depth_limit() {
    use tarmac_lens_core::report::MAX_FRAME_DEPTH;
    let text = deep_trace(MAX_FRAME_DEPTH as usize + 50);
    let r = Reports::compute(
        SliceSource(text.as_bytes()),
        ParseOptions::default(),
        EngineOptions::default(),
        None,
    )
    .unwrap();
    let folded = r.text(TextKind::Flamegraph).unwrap();
    let deepest = folded
        .lines()
        .map(|l| l.matches(';').count())
        .max()
        .unwrap();
    assert!(deepest as u32 > MAX_FRAME_DEPTH, "{deepest} levels");
    let v = r.flame(0).unwrap();
    assert_eq!(
        v.frames.iter().map(|f| f.depth).max(),
        Some(MAX_FRAME_DEPTH)
    );
    assert!(v.omitted > 0);
    // Zooming in shows what was cut.
    let deep = v
        .frames
        .iter()
        .find(|f| f.depth == MAX_FRAME_DEPTH)
        .unwrap();
    assert!(r.flame(deep.id).unwrap().frames.len() > 1);
}

#[test]
fn without_symbols_names_are_addresses() {
    let r = reports(BASE, false);
    assert!(!r.summary().has_symbols);
    assert_eq!(r.tree(None, 0, 1).unwrap().nodes[0].name, "0x10000");
    assert_eq!(
        r.profile(ProfileSort::Address, false, 0, 1).rows[0].name,
        ""
    );
}

#[test]
fn an_empty_or_damaged_trace_gives_empty_reports() {
    for bytes in [&b""[..], b"garbage\n\xff\xfe not tarmac\n"] {
        let r = Reports::compute(
            SliceSource(bytes),
            ParseOptions::default(),
            EngineOptions::default(),
            None,
        )
        .unwrap();
        assert_eq!(r.tree(None, 0, 10).unwrap().total, 0);
        assert_eq!(r.profile(ProfileSort::Count, true, 0, 10).total, 0);
        assert!(r.flame(0).is_none());
        assert_eq!(r.text(TextKind::Calltree).unwrap(), "");
        let mut vcd = Vec::new();
        r.write_vcd(|| Ok(SliceSource(bytes)), &mut vcd).unwrap();
        assert!(vcd.starts_with(b"$version"));
    }
}

/// The profile's instruction columns, checked against a brute-force count
/// over the call tree text: own instructions add up to the trace's, a
/// function's inclusive count is at most the trace's, and the calls list
/// of each function is its activations, in trace order.
#[test]
fn profile_instructions_and_the_calls_of_a_function() {
    for base in [
        BASE,
        "tracegen/quicksort-thumb-O2-fastmodel-2M",
        "tracegen/quicksort-aarch64-O2-fastmodel-2M",
    ] {
        let r = reports(base, true);
        let summary = r.summary();
        let page = r.profile(ProfileSort::OwnInstructions, true, 0, MAX_PAGE);
        let own: u64 = page.rows.iter().map(|row| row.own_instructions).sum();
        assert_eq!(
            own, summary.instructions,
            "{base}: own instructions add up to the trace's"
        );
        for w in page.rows.windows(2) {
            assert!(
                w[0].own_instructions >= w[1].own_instructions,
                "{base}: sorted"
            );
        }
        let root = &r.tree(None, 0, 1).unwrap().nodes[0];
        for row in &page.rows {
            assert!(
                row.instructions <= summary.instructions,
                "{base}: {}",
                row.name
            );
            assert!(
                row.own_instructions <= row.instructions,
                "{base}: {}",
                row.name
            );
            let calls = r.calls_of(row.addr, 0, MAX_PAGE);
            assert_eq!(
                calls.total, row.count,
                "{base}: {} is called as often as counted",
                row.name
            );
            assert_eq!(calls.calls.len() as u64, row.count.min(MAX_PAGE as u64));
            for w in calls.calls.windows(2) {
                assert!(
                    w[0].entry.line < w[1].entry.line,
                    "{base}: {} in trace order",
                    row.name
                );
            }
            for c in &calls.calls {
                assert_eq!(c.entry.pc, row.addr);
                assert_eq!(c.name, row.name);
                // The path leads to the same activation in the tree.
                if let Some((last, parent)) = c.path.split_last() {
                    let again = r.tree(Some(parent), u64::from(*last), 1).unwrap();
                    assert_eq!(&again.nodes[0], c, "{base}: {}", row.name);
                } else {
                    assert_eq!(c, root);
                }
            }
            // Pages follow on.
            if row.count > 2 {
                let second = r.calls_of(row.addr, 1, 1);
                assert_eq!(second.calls, calls.calls[1..2]);
            }
        }
        // The outermost function covers every instruction of the tree.
        assert_eq!(
            page.rows.iter().map(|row| row.instructions).max(),
            Some(summary.instructions)
        );
        assert_eq!(r.calls_of(0xdead_beef, 0, 10).total, 0);
    }
}
