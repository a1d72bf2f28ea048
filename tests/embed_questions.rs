//! The embed API's questions (`model::embed_questions`), answered by a real
//! `browse::Session` as the page's worker answers them, checked against the
//! index's own watchpoint answers (which `tests/watch.rs` holds to the trace
//! text) and the trace's line numbers.
use serde_json::{json, Value};
use tarmac_lens::model::embed_questions::{Asking, Step};
use tarmac_lens_core::{
    AccessKind, Index, IndexOptions, ParseOptions, RegClass, RegId, Session, SliceSource, Watched,
};

use crate::common::data;

const TRACE: &str = "ttu/samples/calculator-aarch64-fastmodel.tarmac";

struct Fixture {
    trace: Vec<u8>,
    index: Index,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::with(TRACE)
    }

    fn with(name: &str) -> Fixture {
        let trace = std::fs::read(data(name)).unwrap();
        let index =
            Index::build(&mut SliceSource(&trace), IndexOptions::default(), |_| {}).unwrap();
        Fixture { trace, index }
    }

    fn session(&self) -> Session<SliceSource<'_>> {
        let mut s = Session::open(SliceSource(&self.trace), ParseOptions::default()).unwrap();
        while !s.index_step(1 << 20).unwrap().complete {}
        s
    }

    /// Every node that accesses `what`, with its first line, in order.
    fn accesses(&self, what: Watched, kind: AccessKind) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let last = self.index.summary().nodes - 1;
        self.index
            .accesses(
                &mut SliceSource(&self.trace),
                what,
                kind,
                0..=last,
                &mut |h| {
                    out.push((h.node.at.node, h.node.at.line));
                    true
                },
                &mut |_| true,
            )
            .unwrap();
        out
    }

    /// The node holding a 1-based line.
    fn node_of_line(&self, line: u64) -> u64 {
        let mut s = self.session();
        let at = tarmac_lens_core::protocol::Locate::Line(line);
        match s.ask(at).unwrap() {
            Some(n) => n.node,
            None => panic!("line {line}: no node"),
        }
    }
}

/// Asks as the page does: each query to the session, each reply back.
fn ask(
    session: &mut Session<SliceSource<'_>>,
    msg: Value,
    here: Option<u64>,
) -> Result<Value, String> {
    asked(session, msg, here).0
}

/// The answer, and how many queries it took.
fn asked(
    session: &mut Session<SliceSource<'_>>,
    msg: Value,
    here: Option<u64>,
) -> (Result<Value, String>, usize) {
    let mut asking = match Asking::new(&msg, here) {
        Ok(a) => a,
        Err(e) => return (Err(e), 0),
    };
    let mut step = asking.start();
    for queries in 0..10_000 {
        match step {
            Step::Ask(q) => step = asking.reply(session.answer(q)),
            Step::Done(answer) => return (answer, queries),
        }
    }
    panic!("{msg}: no answer after 10,000 questions");
}

fn hits(answer: &Value) -> Vec<(u64, u64)> {
    answer["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["node"].as_u64().unwrap(), h["line"].as_u64().unwrap()))
        .collect()
}

#[test]
fn watch_lists_every_access_as_the_index_does() {
    let f = Fixture::new();
    let mut s = f.session();
    let x0 = RegId::new(RegClass::X, 0);
    for (access, kind) in [
        ("write", AccessKind::Write),
        ("read", AccessKind::Read),
        ("any", AccessKind::Any),
    ] {
        let want = f.accesses(Watched::Reg(x0), kind);
        assert!(want.len() > 20, "{access}: {} hits", want.len());
        let got = ask(
            &mut s,
            json!({"type": "watch", "target": "x0", "access": access, "direction": "all"}),
            Some(12_345),
        )
        .unwrap();
        assert_eq!(got["target"], "x0");
        assert_eq!(got["more"], false);
        assert_eq!(got["complete"], true);
        assert_eq!(hits(&got), want, "{access}");
        for &(node, line) in want.iter().take(5) {
            // The line a hit names is its node's.
            assert_eq!(f.node_of_line(line), node);
        }
        // At most `max`, and `more` says the list was cut.
        let got = ask(
            &mut s,
            json!({"type": "watch", "target": "x0", "access": access, "direction": "all", "max": 7}),
            None,
        )
        .unwrap();
        assert_eq!(hits(&got), want[..7]);
        assert_eq!(got["more"], true);
        // From one line to another.
        let (a, b) = (want[3].1, want[want.len() - 3].1);
        let got = ask(
            &mut s,
            json!({"type": "watch", "target": "x0", "access": access, "direction": "all", "line": a, "to": b}),
            None,
        )
        .unwrap();
        assert_eq!(
            hits(&got),
            want[3..want.len() - 2],
            "{access} lines {a}..{b}"
        );
    }
}

#[test]
fn watch_steps_from_the_position_or_a_line() {
    let f = Fixture::new();
    let mut s = f.session();
    // A memory range the trace writes: the first store's bytes.
    let text = std::str::from_utf8(&f.trace).unwrap();
    // A memory range the trace writes often: a stored-to address.
    let store = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().skip_while(|w| !w.starts_with("MW"));
            let size: u64 = w.next()?.strip_prefix("MW")?.parse().ok()?;
            let addr = u64::from_str_radix(w.next()?.split(':').next()?, 16).ok()?;
            Some((addr, size))
        })
        .find(|&(addr, len)| {
            f.accesses(Watched::Mem { addr, len }, AccessKind::Write)
                .len()
                >= 4
        })
        .expect("a store");
    let (addr, len) = store;
    let what = Watched::Mem { addr, len };
    let target = format!("{addr:#x}:{len}");
    for (access, kind) in [("write", AccessKind::Write), ("any", AccessKind::Any)] {
        let all = f.accesses(what, kind);
        assert!(all.len() >= 2, "{target}: {all:?}");
        let (node, line) = all[all.len() / 2];
        // From the viewer's position (the node itself is not a hit).
        let next = ask(
            &mut s,
            json!({"type": "watch", "target": target, "access": access}),
            Some(node),
        )
        .unwrap();
        assert_eq!(next["target"], format!("[{addr:#x}:{len}]"));
        assert_eq!(hits(&next), all[all.len() / 2 + 1..][..1], "{access} next");
        let prev = ask(
            &mut s,
            json!({"type": "watch", "target": format!("[{target}]"), "access": access, "direction": "previous", "line": line}),
            Some(0),
        )
        .unwrap();
        assert_eq!(
            hits(&prev),
            all[all.len() / 2 - 1..][..1],
            "{access} previous"
        );
        assert_eq!(f.node_of_line(line), node);
        let h = &prev["hits"][0];
        assert!(
            h["detail"]
                .as_str()
                .unwrap()
                .contains(&format!("{addr:#x}"))
                || h["access"] == "r",
            "{h}"
        );
    }
    // Nothing after the last access: no hits, and no error.
    let last = f.accesses(what, AccessKind::Any).last().unwrap().0;
    let none = ask(
        &mut s,
        json!({"type": "watch", "target": target}),
        Some(last),
    )
    .unwrap();
    assert_eq!(hits(&none), []);
}

#[test]
fn bad_questions_say_what_is_wrong() {
    let f = Fixture::new();
    let mut s = f.session();
    let cases = [
        (json!({"type": "watch"}), "needs a target"),
        (
            json!({"type": "watch", "target": 5}),
            "target must be a string",
        ),
        (
            json!({"type": "watch", "target": "x0", "access": "execute"}),
            "access must be",
        ),
        (
            json!({"type": "watch", "target": "x0", "direction": "up"}),
            "direction must be",
        ),
        (
            json!({"type": "watch", "target": "x0", "max": 0}),
            "max must be 1 to",
        ),
        (
            json!({"type": "watch", "target": "x0", "max": -1}),
            "max must be a non-negative integer",
        ),
        (
            json!({"type": "watch", "target": "x0", "to": 9}),
            "to goes with direction \"all\"",
        ),
        (
            json!({"type": "watch", "target": "x0", "line": 99_999_999}),
            "past the trace's end",
        ),
        (
            json!({"type": "watch", "target": "nosuchsymbol+4"}),
            "nosuchsymbol",
        ),
        (json!({"type": "watch", "target": "x0:0"}), "0"),
        (json!({"type": "ask"}), "unknown question"),
    ];
    for (msg, want) in cases {
        let err = ask(&mut s, msg.clone(), Some(3)).unwrap_err();
        assert!(err.contains(want), "{msg}: {err}");
    }
}

/// Where `condition` becomes true from `from`, as the index finds it in
/// one search (`tests/find.rs` holds that to a brute-force replay).
fn find_one(f: &Fixture, condition: &str, from: u64, forward: bool) -> Option<(u64, u64)> {
    let cond = tarmac_lens_core::Condition::parse(condition, &NoSymbols).unwrap();
    let hits = f
        .index
        .find_condition(&mut SliceSource(&f.trace), &cond, Some(from), forward, 1)
        .unwrap();
    hits.first().map(|h| (h.node.at.node, h.node.at.line))
}

struct NoSymbols;
impl tarmac_lens_core::ExprContext for NoSymbols {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, _: &str) -> Option<u64> {
        None
    }
}

fn hit(answer: &Value) -> Option<(u64, u64)> {
    let h = &answer["hit"];
    (!h.is_null()).then(|| (h["node"].as_u64().unwrap(), h["line"].as_u64().unwrap()))
}

#[test]
fn find_goes_where_one_search_goes_in_pieces() {
    // Big enough for a search of several pieces.
    let f = Fixture::with("tracegen/quicksort-aarch64-O2-es-2M.tarmac");
    let mut s = f.session();
    let n = f.index.summary().nodes;
    let mut checked = 0;
    for condition in [
        "x0 == 0",
        "w1 > 0x10 && x2 != 0",
        "[sp+8:4] == 0",
        "x19 == 0x12345678",
    ] {
        for from in [0, n / 3, n - 2] {
            for (direction, forward) in [("next", true), ("previous", false)] {
                let want = find_one(&f, condition, from, forward);
                let got = ask(
                    &mut s,
                    json!({"type": "find", "condition": condition, "direction": direction}),
                    Some(from),
                )
                .unwrap();
                assert_eq!(got["condition"], condition);
                assert_eq!(hit(&got), want, "{condition} {direction} from node {from}");
                checked += want.is_some() as u32;
            }
        }
    }
    assert!(checked >= 6, "only {checked} searches found something");
    // From a line, with the far hit many pieces away.
    let last = find_one(&f, "x0 == 0", n - 1, false).unwrap();
    let line = f.trace.split(|&b| b == b'\n').count() as u64 - 1;
    let (got, queries) = asked(
        &mut s,
        json!({"type": "find", "condition": "x0 == 0x12345", "direction": "previous", "line": line}),
        None,
    );
    assert_eq!(hit(&got.unwrap()), None);
    assert!(
        queries > 2,
        "one piece searched the whole trace: {queries} queries"
    );
    let got = ask(
        &mut s,
        json!({"type": "find", "condition": "x0 == 0", "direction": "previous", "line": line}),
        None,
    )
    .unwrap();
    assert_eq!(hit(&got), Some(last));
}

#[test]
fn find_names_the_column_of_a_bad_condition() {
    let f = Fixture::new();
    let mut s = f.session();
    let err = ask(
        &mut s,
        json!({"type": "find", "condition": "x0 == [sp"}),
        Some(0),
    )
    .unwrap_err();
    assert!(err.starts_with("column "), "{err}");
    let err = ask(&mut s, json!({"type": "find"}), Some(0)).unwrap_err();
    assert!(err.contains("needs a condition"), "{err}");
    let err = ask(
        &mut s,
        json!({"type": "find", "condition": "x0 == 0", "direction": "all"}),
        Some(0),
    )
    .unwrap_err();
    assert!(err.contains("direction must be"), "{err}");
}

#[test]
fn why_explains_the_value_at_a_line_as_the_pane_does() {
    use tarmac_lens_core::protocol::{Eval, Locate, WhyQuery, WriteTarget};
    let f = Fixture::new();
    let mut s = f.session();
    let x0 = RegId::new(RegClass::X, 0);
    let writes = f.accesses(Watched::Reg(x0), AccessKind::Write);
    let (node, line) = writes[writes.len() / 2];
    let direct = |s: &mut Session<SliceSource<'_>>, node, target, depth| {
        let tree = s.ask(WhyQuery {
            node,
            target,
            depth,
            loaded: None,
        });
        serde_json::to_value(&*tree.unwrap()).unwrap()
    };
    let got = ask(
        &mut s,
        json!({"type": "why", "target": "x0", "line": line}),
        None,
    )
    .unwrap();
    assert_eq!(got["target"], "x0");
    let want = direct(&mut s, node, WriteTarget::Register("x0".into()), 4);
    assert_eq!(got["tree"], want);
    assert_eq!(got["tree"]["writer"]["line"], line, "x0 was written there");
    // From the position, memory by expression, two levels.
    let sp = s
        .ask(Eval {
            node,
            expr: "sp".into(),
        })
        .unwrap();
    let got = ask(
        &mut s,
        json!({"type": "why", "target": "[sp:8]", "depth": 2}),
        Some(node),
    )
    .unwrap();
    assert_eq!(got["target"], format!("[{sp:#x}:8]"));
    let want = direct(&mut s, node, WriteTarget::Memory { addr: sp, len: 8 }, 2);
    assert_eq!(got["tree"], want);
    // Without a position: the trace's first node.
    let first = s.ask(Locate::Start).unwrap().expect("a first node").node;
    let got = ask(&mut s, json!({"type": "why", "target": "x1"}), None).unwrap();
    assert_eq!(
        got["tree"],
        direct(&mut s, first, WriteTarget::Register("x1".into()), 4)
    );
    for (msg, err) in [
        (
            json!({"type": "why", "target": "x0", "depth": 0}),
            "depth must be 1 to",
        ),
        (
            json!({"type": "why", "target": "x0", "depth": 99}),
            "depth must be 1 to",
        ),
        (json!({"type": "why"}), "needs a target"),
        (json!({"type": "why", "target": "[sp:0]"}), "0"),
    ] {
        let e = ask(&mut s, msg.clone(), Some(node)).unwrap_err();
        assert!(e.contains(err), "{msg}: {e}");
    }
}
