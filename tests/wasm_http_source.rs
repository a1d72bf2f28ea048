//! A trace read by URL from a server that serves byte ranges, through
//! `HttpSource`: every read gives exactly the file's bytes, whoever reads
//! the slices ahead (the nested worker, a request each into the buffers it
//! is given back; the nested worker into fresh buffers; this thread). The
//! server is the browser's own: a `blob:` URL answers `Range` requests as
//! a web server does. In a dedicated worker, as in the app.
use js_sys::{Array, Uint8Array};
use tarmac_lens::web::reading::compressed::format_of;
use tarmac_lens::web::reading::http_source::{self, Fetched, HttpSource, Target};
use tarmac_lens::web::reading::read_ahead::ReadAhead;
use tarmac_lens_core::TraceSource;
use wasm_bindgen_test::*;
use web_sys::Blob;

fn patterned(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

/// A `blob:` URL of `bytes`.
fn url_of(bytes: &[u8]) -> String {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let blob = Blob::new_with_u8_array_sequence(&parts).expect("Blob from bytes");
    web_sys::Url::create_object_url_with_blob(&blob).expect("a blob: URL")
}

async fn ranges_of(bytes: &[u8]) -> HttpSource {
    let target = Target {
        url: url_of(bytes),
        cross_origin: false,
    };
    match http_source::fetch(&target, |_, _| {}).await {
        Ok(Fetched::Ranges(source)) => source,
        Ok(Fetched::Whole(_)) => panic!("the blob: URL served no ranges"),
        Err(e) => panic!("{e}"),
    }
}

const LEN: usize = (12 << 20) + 12_345;

/// Reads the whole source as the line buffer does (uneven lengths, the
/// first short), waiting for slices on their way as the indexing loop
/// does, the slices read ahead by a nested worker or not (`in_a_worker`);
/// returns the bytes that were read synchronously.
async fn read_through_exactly(mut source: HttpSource, in_a_worker: bool) -> u64 {
    let data = patterned(LEN);
    let ahead = source.read_ahead().expect("read-ahead on");
    let lengths = [
        64 << 10,
        1 << 20,
        (4 << 20) - 77,
        (4 << 20) - 1,
        3 << 20,
        4 << 20,
    ];
    let (mut offset, mut i) = (0usize, 0);
    while offset < data.len() {
        let mut buf = vec![0u8; lengths[i % lengths.len()]];
        ahead.next_read_of_ready(buf.len()).await;
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        assert_eq!(n, buf.len().min(data.len() - offset), "read at {offset}");
        assert!(buf[..n] == data[offset..offset + n], "bytes at {offset}");
        offset += n;
        i += 1;
    }
    let counts = ahead.borrow().counts;
    assert_eq!(counts.ahead + counts.sync, (LEN - (64 << 10)) as u64);
    assert_eq!(ahead.borrow().in_a_worker(), in_a_worker);
    counts.sync
}

#[wasm_bindgen_test]
async fn read_ahead_by_ranges_serves_reads_exactly() {
    let source = ranges_of(&patterned(LEN)).await.with_read_ahead(0);
    // Only the first long read (1 MiB) had nothing ahead of it.
    assert!(read_through_exactly(source, true).await <= 1 << 20);
}

#[wasm_bindgen_test]
async fn read_ahead_by_ranges_without_streams_serves_reads_exactly() {
    let source = ranges_of(&patterned(LEN))
        .await
        .with_read_ahead_of(ReadAhead::without_streams(), 0);
    assert!(read_through_exactly(source, true).await <= 1 << 20);
}

#[wasm_bindgen_test]
async fn read_ahead_by_ranges_here_serves_reads_exactly() {
    let source = ranges_of(&patterned(LEN))
        .await
        .with_read_ahead_of(ReadAhead::here(), 0);
    assert!(read_through_exactly(source, false).await <= 1 << 20);
}

/// Short reads (queries) are requests of their own, exact anywhere; the
/// first bytes, which tell a compressed trace, came with the first request.
#[wasm_bindgen_test]
async fn short_reads_and_the_first_bytes() {
    let data = patterned(100_000);
    let mut source = ranges_of(&data).await;
    assert_eq!(source.len(), data.len() as u64);
    assert_eq!(format_of(&mut source).unwrap(), None);
    assert_eq!(source.requests(), 0, "the first bytes were kept");
    for (at, len) in [(0, 10), (1, 3), (99_990, 10), (99_995, 100), (50_000, 4096)] {
        let mut buf = vec![0u8; len];
        let n = source.read_at(at as u64, &mut buf).unwrap();
        let want = &data[at..(at + len).min(data.len())];
        assert_eq!(&buf[..n], want, "{len} at {at}");
    }
    assert_eq!(
        source.requests(),
        4,
        "a request for each read but the one in the first bytes"
    );
    let gz = [0x1f, 0x8b, 8, 0, 0, 0];
    let mut compressed = ranges_of(&gz).await;
    assert!(format_of(&mut compressed).unwrap().is_some());
    assert_eq!(compressed.requests(), 0);
}

/// A URL's slices grow to 32 MiB, larger than the 16 MiB buffers a
/// session's reader makes ahead for a dropped file: those make room, so the reader
/// soon fills the 32 MiB buffers handed back rather than a fresh one per
/// slice, and every byte is the slice's own.
#[wasm_bindgen_test]
async fn a_url_s_slices_replace_the_smaller_buffers_made_ahead() {
    use tarmac_lens::web::reading::read_ahead::start_spare_reader;
    const PART: usize = 8 << 20;
    const PARTS: usize = 40;
    let parts = Array::new();
    for k in 0..PARTS {
        let part = Uint8Array::new_with_length(PART as u32);
        part.fill(k as u8, 0, PART as u32);
        parts.push(&part);
    }
    let blob = Blob::new_with_u8_array_sequence(&parts).expect("Blob of parts");
    let target = Target {
        url: web_sys::Url::create_object_url_with_blob(&blob).expect("a blob: URL"),
        cross_origin: false,
    };
    let Ok(Fetched::Ranges(source)) = http_source::fetch(&target, |_, _| {}).await else {
        panic!("the blob: URL served no ranges");
    };
    start_spare_reader(true);
    let mut source = source.with_read_ahead(0);
    let ahead = source.read_ahead().expect("read-ahead on");
    let mut offset = 0;
    let mut slices = Vec::new();
    while offset < PART * PARTS {
        let mut buf = vec![0u8; (4 << 20) - 3];
        ahead.next_read_of_ready(buf.len()).await;
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        for (i, b) in buf[..n].iter().enumerate() {
            assert_eq!(*b as usize, (offset + i) / PART, "byte at {}", offset + i);
        }
        offset += n;
        slices.extend(ahead.borrow().slices());
    }
    slices.sort_unstable();
    slices.dedup();
    let fresh = ahead.borrow().fresh_buffers().expect("a nested worker");
    // 8 and 16 MiB in buffers made ahead, three or four 32 MiB ones fresh,
    // then the buffers handed back, of 320 MiB in 12 slices.
    assert!(
        fresh <= 6,
        "{fresh} of {} slices in fresh buffers",
        slices.len()
    );
}
