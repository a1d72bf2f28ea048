//! The report worker's parts in a worker: the reports computed over a
//! `Blob` read in slices (as `worker/report.rs` reads the dropped file)
//! print the reference texts, and the report messages survive postMessage.
use js_sys::{Array, Function, Reflect, Uint8Array};
use tarmac_lens::web::reading::blob_source::BlobSource;
use tarmac_lens::web::shared::protocol::{decode, encode, OpenOptions, ToPage, ToWorker};
use tarmac_lens::web::shared::report_protocol::{
    ReportEvent, ReportFile, ReportQuery, ReportReply, ReportRequest, TextDone, Tree,
};
use tarmac_lens_core::{
    report::{ProfileSort, Progressed, Reports, TextKind},
    EngineOptions, ParseOptions, SliceSource, SymbolTable,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::Blob;

const TRACE: &[u8] = include_bytes!("data/tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac");
const ELF: &[u8] = include_bytes!("data/tracegen/quicksort-thumb-O2-fastmodel-2M.elf");
const CALLTREE: &str = include_str!("data/tracegen/quicksort-thumb-O2-fastmodel-2M.calltree.ref");
const PROFILE: &str = include_str!("data/tracegen/quicksort-thumb-O2-fastmodel-2M.profile.ref");

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
fn reports_over_a_blob_print_the_reference_texts_and_report_progress() {
    let mut seen = Vec::new();
    let source = Progressed {
        inner: BlobSource::new(blob(TRACE)).unwrap(),
        on_read: |done: u64, total: u64| seen.push((done, total)),
    };
    let image = SymbolTable::from_elf_bytes(ELF, 0).unwrap();
    let r = Reports::compute(
        source,
        ParseOptions::default(),
        EngineOptions::default(),
        Some(image),
    )
    .unwrap();
    assert_eq!(r.text(TextKind::Calltree).unwrap(), CALLTREE);
    assert_eq!(r.text(TextKind::Profile).unwrap(), PROFILE);
    // Progress rises to the whole file.
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
    assert_eq!(seen.last(), Some(&(TRACE.len() as u64, TRACE.len() as u64)));
    // The same answers as over the bytes in memory.
    let native = Reports::compute(
        SliceSource(TRACE),
        ParseOptions::default(),
        EngineOptions::default(),
        Some(SymbolTable::from_elf_bytes(ELF, 0).unwrap()),
    )
    .unwrap();
    assert_eq!(
        r.profile(ProfileSort::Exclusive, true, 0, 100),
        native.profile(ProfileSort::Exclusive, true, 0, 100)
    );
    assert_eq!(r.flame(0), native.flame(0));
    let mut vcd = Vec::new();
    r.write_vcd(|| BlobSource::new(blob(TRACE)), &mut vcd)
        .unwrap();
    let mut want = Vec::new();
    native
        .write_vcd(|| Ok(SliceSource(TRACE)), &mut want)
        .unwrap();
    assert_eq!(vcd, want);
}

#[wasm_bindgen_test]
fn report_messages_cross_postmessage() {
    let file = web_sys::File::new_with_u8_array_sequence(
        &Array::of1(&Uint8Array::from(&b"trace"[..])),
        "t.tarmac",
    )
    .unwrap();
    let dropped = ReportFile::Blob {
        blob: file.clone().into(),
        name: file.name(),
    };
    let by_url = ReportFile::Url {
        url: "https://example.com/traces/t.elf".into(),
        cross_origin: true,
        name: "t.elf".into(),
    };
    for (trace, elf) in [
        (dropped.clone(), None),
        (dropped.clone(), Some(dropped.clone())),
        (by_url.clone(), Some(by_url.clone())),
    ] {
        let msg = ToWorker::Report(ReportRequest::Start {
            trace: trace.clone(),
            elf: elf.clone(),
            load_offset: -16,
            options: OpenOptions::default(),
        });
        let back = decode::<ToWorker>(structured_clone(&encode(&msg).unwrap())).unwrap();
        let ToWorker::Report(ReportRequest::Start {
            trace: t,
            elf: e,
            load_offset,
            ..
        }) = back
        else {
            panic!("not a report start: {back:?}");
        };
        assert_eq!(load_offset, -16);
        for (got, sent) in [(Some(t), Some(trace)), (e, elf)] {
            match (got, sent) {
                (
                    Some(ReportFile::Blob { blob, name }),
                    Some(ReportFile::Blob { name: sent, .. }),
                ) => {
                    assert_eq!(name, sent);
                    // The same file, not a copy of its bytes: still a File.
                    assert_eq!(blob.size(), 5.0);
                    assert_eq!(blob.dyn_into::<web_sys::File>().unwrap().name(), "t.tarmac");
                }
                (got, sent) => assert_eq!(got, sent),
            }
        }
    }
    let ask = ToWorker::Report(ReportRequest::Ask {
        id: 7,
        query: ReportQuery::Tree(Tree {
            parent: Some(vec![0, 3]),
            offset: 200,
            limit: 200,
        }),
    });
    let back = decode::<ToWorker>(structured_clone(&encode(&ask).unwrap())).unwrap();
    assert!(matches!(
        back,
        ToWorker::Report(ReportRequest::Ask { id: 7, query: ReportQuery::Tree(Tree { ref parent, offset: 200, limit: 200 }) }) if parent.as_deref() == Some(&[0, 3][..])
    ));
    for event in [
        ReportEvent::Text {
            id: 3,
            chunk: "o t:1 l:18 pc:0x10000 - \u{e9}\n".into(),
        },
        ReportEvent::Answer {
            id: 3,
            reply: ReportReply::Text(TextDone { bytes: u64::MAX }),
        },
    ] {
        let msg = ToPage::Report(event);
        assert_eq!(
            decode::<ToPage>(structured_clone(&encode(&msg).unwrap())).unwrap(),
            msg
        );
    }
}
