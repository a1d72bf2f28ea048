//! The embed API's questions (`model::embed_questions`), answered by a real
//! `browse::Session` as the page's worker answers them, checked against the
//! index's own watchpoint answers (which `tests/watch.rs` holds to the trace
//! text) and the trace's line numbers.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::{json, Value};
use tarmac_lens::model::embed_questions::{Asking, Step};
use tarmac_lens_core::browse::Session;
use tarmac_lens_core::index::{AccessKind, Index, IndexOptions, Watched};
use tarmac_lens_core::parse::ParseOptions;
use tarmac_lens_core::parse::{RegClass, RegId};
use tarmac_lens_core::source::SliceSource;

mod common;
use common::data;

const TRACE: &str = "ttu/samples/calculator-aarch64-fastmodel.tarmac";

struct Fixture {
    trace: Vec<u8>,
    index: Index,
}

impl Fixture {
    fn new() -> Fixture {
        let trace = std::fs::read(data(TRACE)).unwrap();
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
        match s.answer(tarmac_lens_core::browse::protocol::Query::Locate(
            tarmac_lens_core::browse::protocol::Locate::Line(line),
        )) {
            tarmac_lens_core::browse::protocol::Reply::Node(Some(n)) => n.node,
            other => panic!("line {line}: {other:?}"),
        }
    }
}

/// Asks as the page does: each query to the session, each reply back.
fn ask(
    session: &mut Session<SliceSource<'_>>,
    msg: Value,
    here: Option<u64>,
) -> Result<Value, String> {
    let mut asking = Asking::new(&msg, here)?;
    let mut step = asking.start();
    for _ in 0..10_000 {
        match step {
            Step::Ask(q) => step = asking.reply(session.answer(q)),
            Step::Done(answer) => return answer,
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
