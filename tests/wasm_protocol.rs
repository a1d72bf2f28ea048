//! The page <-> worker messages survive what postMessage does to them:
//! encoding to JS values and a structured clone.
use std::collections::BTreeMap;

use js_sys::{Array, Function, Reflect, Uint8Array};
use tarmac_lens::web::shared::protocol::{decode, encode, PageEvent, ToPage, ToWorker};
use tarmac_lens_core::{
    protocol::{Hl, Reply, Row, RowsReply, Span},
    Stats, UnparsedLine,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// What postMessage does to a value on its way to the other side.
fn structured_clone(value: &JsValue) -> JsValue {
    let global = js_sys::global();
    let clone: Function = Reflect::get(&global, &"structuredClone".into())
        .unwrap()
        .dyn_into()
        .expect("structuredClone is a function");
    clone.call1(&global, value).expect("value is cloneable")
}

#[wasm_bindgen_test]
fn messages_to_the_page_cross_intact_including_counts_beyond_f64_precision() {
    let stats = Stats {
        dialect: "tarmac".into(),
        // 2^53 + 1 has no exact f64; a trace this big is not expected, but a
        // count must never silently round.
        bytes: (1 << 53) + 1,
        lines: 123_456_789_012,
        records: BTreeMap::from([("instruction".into(), (1 << 53) + 3), ("blank".into(), 1)]),
        unparsed: 1,
        unparsed_lines: vec![42],
        unparsed_details: vec![UnparsedLine {
            line: 42,
            column: 5,
            reason: "unknown register \"q99\"".into(),
            text: "  R q99 0 <- not real ✗".into(),
        }],
        cores: vec!["cpu0".into(), "cpu1<b>".into()],
        unparsed_words: BTreeMap::from([("XYZ".into(), (1 << 53) + 5)]),
        short_register_values: Default::default(),
        unknown_register_values: Default::default(),
    };
    for msg in [
        ToPage::Ready,
        ToPage::Progress {
            done: 1 << 40,
            total: (1 << 40) + 17,
        },
        ToPage::Event(PageEvent::Stats(Box::new(stats))),
        ToPage::Failed {
            message: "NotReadableError".into(),
        },
        ToPage::Panicked {
            message: "boom".into(),
        },
        // Answers as the page gets them, several to a message: highlighted
        // rows whose text holds what JSON must escape, positions beyond 2^53.
        ToPage::Answer {
            answers: vec![
                (
                    u32::MAX,
                    Reply::Rows(RowsReply {
                        first: (1 << 53) + 5,
                        total_rows: u64::MAX,
                        rows: vec![
                            Row::Line {
                                line: (1 << 53) + 7,
                                node: 3,
                                first_of_node: true,
                                text: "1 clk IT \"quoted\" \\ tab\t é ✗ \u{1}".into(),
                                spans: vec![Span {
                                    start: 0,
                                    end: 1,
                                    hl: Hl::Time,
                                }],
                                branch_symbol: Some("<main>".into()),
                                source: None,
                                function: None,
                                capability: None,
                            },
                            Row::Fold {
                                call: 1,
                                call_node: 2,
                                entry_node: 3,
                                lines: 4,
                                function: u64::MAX,
                                name: String::new(),
                            },
                        ],
                    }),
                ),
                (0, Reply::Locate(None)),
                (7, Reply::Error("not indexed yet".into())),
            ],
        },
        ToPage::Event(PageEvent::ElfFailed(
            "cut.elf: malformed ELF section headers".into(),
        )),
        ToPage::Event(PageEvent::Progress(tarmac_lens_core::protocol::Progress {
            done_bytes: 5 << 30,
            total_bytes: 6 << 30,
            lines: 1 << 33,
            nodes: 7,
            complete: false,
            index_bytes: 1 << 40,
            stopped: Some("indexing stopped at line 8589934592: budget".into()),
        })),
    ] {
        let sent = structured_clone(&encode(&msg).unwrap());
        assert_eq!(decode::<ToPage>(sent).unwrap(), msg);
    }
}

#[wasm_bindgen_test]
fn a_file_crosses_as_itself() {
    let bytes = b"1 clk IT (1) 00008000 e3a00000 A svc_se : MOV r0,#0\n";
    let parts = Array::of1(&Uint8Array::from(&bytes[..]));
    let file = web_sys::File::new_with_u8_array_sequence(&parts, "t.tarmac").unwrap();
    let sent = structured_clone(&encode(&ToWorker::Index { file }).unwrap());
    let ToWorker::Index { file } = decode::<ToWorker>(sent).unwrap() else {
        panic!("an Index message came back as another message");
    };
    assert!(file.is_instance_of::<web_sys::File>());
    assert_eq!(file.name(), "t.tarmac");
    assert_eq!(file.size() as usize, bytes.len());
}

#[wasm_bindgen_test]
fn garbage_is_rejected_not_misread() {
    assert!(decode::<ToPage>(JsValue::from_str("hello")).is_err());
    assert!(decode::<ToWorker>(JsValue::from_f64(3.0)).is_err());
}
