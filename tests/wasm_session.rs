//! The browsing session in a worker over a `Blob`, as the page uses it:
//! every answer equals the native session's over the same bytes.
use js_sys::{Array, Uint8Array};
use tarmac_lens::web::reading::blob_source::BlobSource;
use tarmac_lens_core::{protocol::*, ParseOptions, Session, SliceSource, TraceSource};
use wasm_bindgen_test::*;
use web_sys::Blob;

const QUICKSORT: &[u8] = include_bytes!("data/ttu/quicksort.tarmac");

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("Blob from bytes")
}

fn run<S: TraceSource>(mut s: Session<S>) -> Vec<Reply> {
    // Small steps: many interleavings of indexing and reading.
    while !s.index_step(8 << 10).unwrap().complete {}
    let queries = vec![
        Query::Rows(Rows {
            view: 0,
            first: 100,
            count: 40,
        }),
        Query::Locate(Locate::Line(4290)),
        Query::Registers(Registers {
            node: 2000,
            mark: RegMark::ChangedSince(1999),
        }),
        Query::Memory(Memory {
            node: 2000,
            addr: 0xfff00,
            len: 256,
            compare: Some(10),
        }),
        Query::Write(Write {
            node: 2000,
            target: WriteTarget::Register("x30".into()),
            forward: false,
        }),
        Query::Eval(Eval {
            node: 2000,
            expr: "sp+0x10".into(),
        }),
        Query::Fold(Fold {
            view: 0,
            node: 15,
            op: FoldOp::FoldCall,
        }),
        Query::Rows(Rows {
            view: 0,
            first: 0,
            count: 100,
        }),
        Query::CallStack(CallStack { node: 1500 }),
    ];
    queries.into_iter().map(|q| s.answer(q)).collect()
}

#[wasm_bindgen_test]
fn blob_session_answers_like_the_native_one() {
    let blob_session = Session::open(
        BlobSource::new(blob(QUICKSORT)).unwrap(),
        ParseOptions::default(),
    )
    .unwrap();
    let memory_session = Session::open(SliceSource(QUICKSORT), ParseOptions::default()).unwrap();
    let a = run(blob_session);
    let b = run(memory_session);
    assert_eq!(a, b);
    assert!(matches!(a[0], Reply::Rows(ref r) if r.rows.len() == 40));
    assert!(matches!(a[1], Reply::Locate(Some(ref n)) if n.first_line == 4290 && n.time == 2030));
    assert!(a.iter().all(|r| !matches!(r, Reply::Error(_))), "{:?}", a);
}

/// Every reply of a search run to the end, as the page polls it.
fn search_all<S: TraceSource>(
    s: &mut Session<S>,
    req: tarmac_lens_core::SearchRequest,
) -> Vec<Reply> {
    use tarmac_lens_core::SearchQuery;
    let mut replies = vec![s.answer(Query::Search(SearchQuery::Start(req)))];
    while let Some(Reply::Search(r)) = replies.last() {
        if r.done {
            break;
        }
        let id = r.id;
        replies.push(s.answer(Query::Search(SearchQuery::More { id })));
    }
    replies
}

#[wasm_bindgen_test]
fn blob_session_searches_like_the_native_one() {
    use tarmac_lens_core::{KindFilter, SearchRequest};
    let mut blob_session = Session::open(
        BlobSource::new(blob(QUICKSORT)).unwrap(),
        ParseOptions::default(),
    )
    .unwrap();
    let mut memory_session =
        Session::open(SliceSource(QUICKSORT), ParseOptions::default()).unwrap();
    let requests = [
        SearchRequest {
            pattern: "x0".into(),
            regex: false,
            ignore_case: false,
            kinds: vec![],
            lines: None,
        },
        SearchRequest {
            pattern: r"\bBL\b".into(),
            regex: true,
            ignore_case: false,
            kinds: vec![KindFilter::Instructions],
            lines: Some((100, 5000)),
        },
    ];
    for req in requests {
        let a = search_all(&mut blob_session, req.clone());
        let b = search_all(&mut memory_session, req);
        assert_eq!(a, b);
        let hits: usize = a
            .iter()
            .map(|r| match r {
                Reply::Search(r) => r.hits.len(),
                other => panic!("{other:?}"),
            })
            .sum();
        assert!(hits > 0);
    }
}
