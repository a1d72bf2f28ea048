//! The report worker's EP and program-flow parts in a worker: computed over
//! a `Blob` read in slices (as `worker/report.rs` reads the dropped file),
//! they answer as over the bytes in memory, the flow text written from a
//! `Blob` is the same, and their messages survive postMessage.
use js_sys::{Array, Function, Reflect, Uint8Array};
use tarmac_lens::web::reading::blob_source::BlobSource;
use tarmac_lens::web::shared::protocol::{decode, encode, ToPage, ToWorker};
use tarmac_lens::web::shared::report_protocol::{
    EpByPc, EpFlow, FlowBlocks, ReportEvent, ReportQuery, ReportReply, ReportRequest, ReportStatus,
};
use tarmac_lens_core::{
    read_sample,
    report::{report_kind, EpReports, EpSort, FlowReports, ReportKind},
    ParseOptions, SliceSource,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Blob;

const EP: &[u8] = include_bytes!("data/ep/sploop-loop.ept.txt");
const BRANCHES: &[u8] = b"1 clk FD (1) 00001000 00002000 A\n\
2 clk E 00002004 00000001 IRQ\n\
5 clk FI (5) 00002010 00003000 T\n\
6 clk FR (9) 00003004 00002008 A\n";

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("Blob from bytes")
}

fn structured_clone(value: &JsValue) -> JsValue {
    let global = js_sys::global();
    let clone: Function = Reflect::get(&global, &"structuredClone".into())
        .unwrap()
        .dyn_into()
        .expect("structuredClone is a function");
    clone.call1(&global, value).expect("value is cloneable")
}

#[wasm_bindgen_test]
fn ep_and_flow_reports_over_a_blob_answer_as_in_memory() {
    let mut src = BlobSource::new(blob(EP)).unwrap();
    let sample = read_sample(&mut src).unwrap();
    assert_eq!(
        report_kind(&sample, ParseOptions::default()),
        ReportKind::Ep
    );
    let r = EpReports::compute(src, ParseOptions::default()).unwrap();
    let native = EpReports::compute(SliceSource(EP), ParseOptions::default()).unwrap();
    assert_eq!(r.summary(), native.summary());
    assert_eq!(r.text(), native.text());
    assert_eq!(
        r.by_pc(EpSort::Stalls, true, 3, 10),
        native.by_pc(EpSort::Stalls, true, 3, 10)
    );
    assert_eq!(r.flow(400, 200), native.flow(400, 200));

    let f = FlowReports::compute(
        BlobSource::new(blob(BRANCHES)).unwrap(),
        ParseOptions::default(),
        None,
    )
    .unwrap();
    let native =
        FlowReports::compute(SliceSource(BRANCHES), ParseOptions::default(), None).unwrap();
    assert_eq!(f.summary(), native.summary());
    assert_eq!(f.blocks(0, 10), native.blocks(0, 10));
    let mut text = Vec::new();
    f.write_text(BlobSource::new(blob(BRANCHES)).unwrap(), &mut text)
        .unwrap();
    let mut want = Vec::new();
    native.write_text(SliceSource(BRANCHES), &mut want).unwrap();
    assert_eq!(text, want);
    assert!(String::from_utf8(text)
        .unwrap()
        .contains("(an exception came in between)"));
}

#[wasm_bindgen_test]
fn ep_and_flow_messages_cross_postmessage() {
    for query in [
        ReportQuery::from(EpByPc {
            sort: EpSort::Packets,
            descending: false,
            offset: 500,
            limit: 500,
        }),
        EpFlow {
            offset: 200,
            limit: 200,
        }
        .into(),
        FlowBlocks {
            offset: 0,
            limit: 200,
        }
        .into(),
    ] {
        let ask = ToWorker::Report(ReportRequest::Ask {
            id: 9,
            query: query.clone(),
        });
        let back = decode::<ToWorker>(structured_clone(&encode(&ask).unwrap())).unwrap();
        match back {
            ToWorker::Report(ReportRequest::Ask { id: 9, query: q }) => assert_eq!(q, query),
            other => panic!("{other:?}"),
        }
    }
    let ep = EpReports::compute(SliceSource(EP), ParseOptions::default()).unwrap();
    let flow = FlowReports::compute(SliceSource(BRANCHES), ParseOptions::default(), None).unwrap();
    for event in [
        ReportEvent::Status(ReportStatus::ReadyEp(ep.summary())),
        ReportEvent::Status(ReportStatus::ReadyFlow(flow.summary())),
        ReportEvent::Answer {
            id: 1,
            reply: ReportReply::EpByPc(ep.by_pc(EpSort::Cycles, true, 0, 5)),
        },
        ReportEvent::Answer {
            id: 2,
            reply: ReportReply::EpFlow(ep.flow(0, 5)),
        },
        ReportEvent::Answer {
            id: 3,
            reply: ReportReply::FlowBlocks(flow.blocks(0, 5)),
        },
    ] {
        let msg = ToPage::Report(event);
        assert_eq!(
            decode::<ToPage>(structured_clone(&encode(&msg).unwrap())).unwrap(),
            msg
        );
    }
}
