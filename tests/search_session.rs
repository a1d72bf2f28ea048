//! Text search through the browsing session (what the worker answers the
//! page's search bar): the same lines as `tarmac-lens search`, in small
//! replies, with kind filters, line ranges, cancelling and bad patterns.

use std::path::Path;

use tarmac_lens_core::{
    protocol::{Query, Reply},
    KindFilter, ParseOptions, SearchQuery, SearchReply, SearchRequest, Session, SliceSource,
    MAX_HITS_PER_REPLY, MAX_LISTED,
};

use crate::common::tarmac_lens;

const TRACE: &str = "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac";

fn path(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

fn request(pattern: &str) -> SearchRequest {
    SearchRequest {
        pattern: pattern.into(),
        regex: false,
        ignore_case: false,
        kinds: vec![],
        lines: None,
    }
}

fn search_reply(reply: Reply) -> SearchReply {
    match reply {
        Reply::Search(r) => r,
        other => panic!("expected a search reply, got {other:?}"),
    }
}

/// Runs a search to the end, as the page polls it: (line, match text) per
/// listed hit, the final count, and the number of replies.
fn run(s: &mut Session<SliceSource<'_>>, req: SearchRequest) -> (Vec<(u64, String)>, u64, usize) {
    let mut r = search_reply(s.answer(Query::Search(SearchQuery::Start(req))));
    let id = r.id;
    let mut hits = Vec::new();
    let mut replies = 1;
    loop {
        assert!(r.hits.len() <= MAX_HITS_PER_REPLY, "a reply stays small");
        assert!(r.done_bytes <= r.total_bytes);
        for h in &r.hits {
            let from = h.text_from as usize;
            let piece = h.text[h.start as usize - from..h.end as usize - from].to_string();
            hits.push((h.line, piece));
        }
        if r.done {
            assert_eq!(r.done_bytes, r.total_bytes);
            return (hits, r.matches, replies);
        }
        let before = r.done_bytes;
        r = search_reply(s.answer(Query::Search(SearchQuery::More { id })));
        assert_eq!(r.id, id);
        assert!(r.done_bytes >= before, "progress never goes back");
        replies += 1;
    }
}

/// `tarmac-lens search` on the same trace: the lines it prints.
fn cli(args: &[&str]) -> Vec<u64> {
    let out = tarmac_lens()
        .arg("search")
        .arg(path(TRACE))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split(':').next().unwrap().parse().unwrap())
        .collect()
}

fn lines(hits: &[(u64, String)]) -> Vec<u64> {
    hits.iter().map(|h| h.0).collect()
}

#[test]
fn plain_regex_kinds_and_ranges_find_what_the_cli_finds() {
    let bytes = std::fs::read(path(TRACE)).unwrap();
    // Not indexed at all: a search needs no index.
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();

    let (hits, count, replies) = run(&mut s, request("x19"));
    let want = cli(&["x19"]);
    assert!(want.len() > 100, "{} hits", want.len());
    assert_eq!(lines(&hits), want);
    assert_eq!(count, want.len() as u64);
    assert!(hits.iter().all(|h| h.1 == "x19"));
    assert!(replies > 1, "streamed in steps, not one answer");

    let re = SearchRequest {
        regex: true,
        ..request(r"\bBL\s+\{?pc\}?|\bBL\b")
    };
    let (hits, _, _) = run(&mut s, re);
    let want = cli(&["-E", r"\bBL\s+\{?pc\}?|\bBL\b"]);
    assert!(!want.is_empty());
    assert_eq!(lines(&hits), want);

    for (kind, name) in [
        (KindFilter::Instructions, "instructions"),
        (KindFilter::Registers, "registers"),
        (KindFilter::Memory, "memory"),
    ] {
        let req = SearchRequest {
            kinds: vec![kind],
            ..request("0000")
        };
        let (hits, count, _) = run(&mut s, req);
        let want = cli(&["--kind", name, "0000"]);
        assert!(!want.is_empty(), "{name}");
        assert_eq!(count, want.len() as u64, "{name}");
        assert_eq!(
            lines(&hits),
            want[..want.len().min(MAX_LISTED as usize)],
            "{name}"
        );
    }

    let ranged = SearchRequest {
        lines: Some((1000, 3000)),
        ..request("LDR")
    };
    let (hits, _, _) = run(&mut s, ranged);
    let want = cli(&["--lines", "1000..3000", "LDR"]);
    assert!(!want.is_empty());
    assert!(want.iter().all(|&l| (1000..=3000).contains(&l)));
    assert_eq!(lines(&hits), want);
}

#[test]
fn past_the_listed_cap_matches_are_counted_not_listed() {
    let bytes = std::fs::read(path(TRACE)).unwrap();
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    let want = cli(&[" clk "]);
    assert!(want.len() as u64 > MAX_LISTED, "{}", want.len());
    let (hits, count, _) = run(&mut s, request(" clk "));
    assert_eq!(count, want.len() as u64);
    assert_eq!(lines(&hits), want[..MAX_LISTED as usize]);
}

#[test]
fn a_new_search_replaces_the_old_and_cancel_stops_it() {
    let bytes = std::fs::read(path(TRACE)).unwrap();
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    let first = search_reply(s.answer(Query::Search(SearchQuery::Start(request("clk")))));
    assert!(!first.done);
    let second = search_reply(s.answer(Query::Search(SearchQuery::Start(request("LDR")))));
    assert_ne!(first.id, second.id);
    match s.answer(Query::Search(SearchQuery::More { id: first.id })) {
        Reply::Error(e) => assert!(e.contains("newer search"), "{e}"),
        other => panic!("{other:?}"),
    }
    let more = search_reply(s.answer(Query::Search(SearchQuery::More { id: second.id })));
    assert!(more.done_bytes > second.done_bytes);
    let cancelled = search_reply(s.answer(Query::Search(SearchQuery::Cancel { id: second.id })));
    assert!(cancelled.done);
    assert!(matches!(
        s.answer(Query::Search(SearchQuery::More { id: second.id })),
        Reply::Error(_)
    ));
}

#[test]
fn bad_patterns_are_clear_errors() {
    let bytes = std::fs::read(path(TRACE)).unwrap();
    let mut s = Session::open(SliceSource(&bytes), ParseOptions::default()).unwrap();
    let bad = SearchRequest {
        regex: true,
        ..request("(x1")
    };
    match s.answer(Query::Search(SearchQuery::Start(bad))) {
        Reply::Error(e) => assert!(e.contains("bad regular expression"), "{e}"),
        other => panic!("{other:?}"),
    }
    match s.answer(Query::Search(SearchQuery::Start(request("")))) {
        Reply::Error(e) => assert!(e.contains("empty"), "{e}"),
        other => panic!("{other:?}"),
    }
    let backwards = SearchRequest {
        lines: Some((10, 5)),
        ..request("x")
    };
    assert!(matches!(
        s.answer(Query::Search(SearchQuery::Start(backwards))),
        Reply::Error(_)
    ));
}

#[test]
fn hits_carry_the_match_columns_of_the_displayed_line() {
    // A tab before the match: columns are those of the tab-expanded text
    // the trace view shows.
    let trace = b"1 clk IT (1) 00008000 e3a00000 A svc_s : MOV\tr0,#0\n1 clk R r0 00000000\n";
    let mut s = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
    let (hits, count, _) = run(&mut s, request("r0,#0"));
    assert_eq!(count, 1);
    let r = search_reply(s.answer(Query::Search(SearchQuery::Start(request("r0,#0")))));
    let h = &r.hits[0];
    assert_eq!(h.line, 1);
    assert_eq!(hits[0].1, "r0,#0");
    assert!(!h.text.contains('\t'));
    assert_eq!(h.start % 8, 0, "the tab moved the match to a tab stop");
}

#[test]
fn a_long_line_is_handed_out_around_its_match() {
    let mut trace = b"1 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0\n".to_vec();
    trace.extend(b"1 clk TEXT ");
    trace.extend(std::iter::repeat_n(b'x', 100_000));
    trace.extend(b" needle ");
    trace.extend(std::iter::repeat_n(b'y', 100_000));
    trace.push(b'\n');
    let mut s = Session::open(SliceSource(&trace), ParseOptions::default()).unwrap();
    let r = search_reply(s.answer(Query::Search(SearchQuery::Start(request("needle")))));
    let h = &r.hits[0];
    assert_eq!(h.line, 2);
    assert_eq!(h.start, 11 + 100_000 + 1);
    assert!(h.text_from > 0 && h.text_from < h.start);
    assert!(h.text.len() <= 240);
    let at = (h.start - h.text_from) as usize;
    assert_eq!(&h.text[at..at + 6], "needle");
    // Near the start of its line, the snippet is the line from its start.
    let r = search_reply(s.answer(Query::Search(SearchQuery::Start(request("MOV")))));
    assert_eq!(r.hits[0].text_from, 0);
    assert!(r.hits[0].text.starts_with("1 clk IT"));
}
