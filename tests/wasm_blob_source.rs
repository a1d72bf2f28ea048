//! The browser read path: a `Blob` read in slices through `BlobSource` must
//! give exactly what the same bytes give in memory. Runs in a dedicated
//! worker because `FileReaderSync` exists only there (as in the app).
use js_sys::{Array, Uint8Array};
use tarmac_lens::web::reading::blob_source::BlobSource;
use tarmac_lens_core::{
    compute_stats, LineReader, ParseOptions, SliceSource, Stats, StatsBuilder, TraceSource,
};
use wasm_bindgen_test::*;
use web_sys::Blob;

const PARSERTEST: &[u8] = include_bytes!("data/ttu/parsertest.txt");
const QUICKSORT: &[u8] = include_bytes!("data/ttu/quicksort.tarmac");
const IMPLICIT_THUMB: &[u8] = include_bytes!("data/ttu/parsertest-implicit-thumb.txt");

/// The quicksort trace with a line no dialect reads after every 50th line,
/// some longer than a 4 KiB slice.
fn with_unparsed() -> Vec<u8> {
    let mut out = Vec::new();
    for (k, line) in QUICKSORT.split_inclusive(|&b| b == b'\n').enumerate() {
        out.extend_from_slice(line);
        if k % 50 == 49 {
            out.extend_from_slice(b"12345 clk ?? not a record\n");
        }
        if k % 500 == 499 {
            out.extend(std::iter::repeat_n(b'#', 5000));
            out.push(b'\n');
        }
    }
    out
}

fn blob(bytes: &[u8]) -> Blob {
    let parts = Array::of1(&Uint8Array::from(bytes));
    Blob::new_with_u8_array_sequence(&parts).expect("Blob from bytes")
}

fn in_memory(bytes: &[u8]) -> Stats {
    compute_stats(SliceSource(bytes), ParseOptions::default(), |_| {}).unwrap()
}

/// Stats over a Blob read in `chunk`-byte slices (much smaller than the app's
/// 1 MiB, so lines straddle many slice boundaries).
fn through_blob(bytes: &[u8], chunk: usize) -> Stats {
    let mut source = BlobSource::new(blob(bytes)).unwrap();
    let len = source.len();
    let mut sample = vec![0; 16384.min(len as usize)];
    let n = source.read_at(0, &mut sample).unwrap();
    sample.truncate(n);
    let mut builder = StatsBuilder::new(ParseOptions::default(), &sample);
    let mut reader = LineReader::with_range(source, 0, len, 1, chunk);
    while let Some(line) = reader.next_line().unwrap() {
        builder.add_line(&line);
    }
    builder.finish(len)
}

#[wasm_bindgen_test]
fn blob_stats_equal_in_memory_stats_in_small_slices() {
    let unparsed = with_unparsed();
    for bytes in [PARSERTEST, QUICKSORT, IMPLICIT_THUMB, &unparsed] {
        let expected = in_memory(bytes);
        assert!(expected.lines > 0);
        assert_eq!(expected.bytes, bytes.len() as u64);
        assert_eq!(through_blob(bytes, 4096), expected);
        assert_eq!(through_blob(bytes, 4099), expected);
    }
}

#[wasm_bindgen_test]
fn compute_over_a_blob_matches_and_reports_progress_to_the_end() {
    let mut last = 0;
    let stats = compute_stats(
        BlobSource::new(blob(QUICKSORT)).unwrap(),
        ParseOptions::default(),
        |done| last = done,
    )
    .unwrap();
    assert_eq!(stats, in_memory(QUICKSORT));
    assert_eq!(last, QUICKSORT.len() as u64);
}

#[wasm_bindgen_test]
fn unparsed_lines_survive_the_blob_path() {
    let bytes = with_unparsed();
    let stats = through_blob(&bytes, 4096);
    assert!(stats.unparsed > 0, "fixture should have unparsed lines");
    assert_eq!(stats.unparsed_lines.len(), stats.unparsed_details.len());
    assert_eq!(stats, in_memory(&bytes));
}

#[wasm_bindgen_test]
fn read_at_handles_offsets_and_the_end() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let mut source = BlobSource::new(blob(&data)).unwrap();
    assert_eq!(source.len(), data.len() as u64);

    let mut buf = [0u8; 333];
    assert_eq!(source.read_at(1234, &mut buf).unwrap(), 333);
    assert_eq!(&buf[..], &data[1234..1567]);

    // Short read at the end, nothing past it.
    assert_eq!(source.read_at(9_900, &mut buf).unwrap(), 100);
    assert_eq!(&buf[..100], &data[9_900..]);
    assert_eq!(source.read_at(10_000, &mut buf).unwrap(), 0);
    assert_eq!(source.read_at(50_000, &mut buf).unwrap(), 0);

    let empty = BlobSource::new(blob(&[])).unwrap();
    assert!(empty.is_empty());
}

/// Damaged input (tests/bad_input.rs has the native cases) read through a
/// Blob: a line over the 1 MiB line cap, CRLF, NULs, non-UTF-8 bytes and a
/// cut last line give what they give in memory.
#[wasm_bindgen_test]
fn damaged_input_through_a_blob_equals_in_memory() {
    let mut bytes = QUICKSORT[..20_000].to_vec();
    bytes.extend(std::iter::repeat_n(b'#', 3 << 20));
    bytes.extend_from_slice(b"\r\n\0\0\0 clk IT\xff\xfe\n");
    bytes.extend_from_slice(&QUICKSORT[20_000..40_000]);
    bytes.extend_from_slice(b"\r\n12 clk R X0 00000");
    let expected = in_memory(&bytes);
    assert!(expected.unparsed >= 2, "{:?}", expected.unparsed_details);
    assert_eq!(through_blob(&bytes, 4096), expected);
    assert_eq!(through_blob(&bytes, 1 << 20), expected);
}

/// 12 MiB of bytes that differ at every offset modulo a prime, so a slice
/// served from the wrong place shows.
fn patterned(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

/// Read-ahead: a sequential reader that lets the slices arrive gets its long
/// reads from them, byte for byte what a synchronous read gives, including
/// reads that straddle two slices and the short end of the file.
#[wasm_bindgen_test]
async fn read_ahead_serves_sequential_reads_exactly() {
    // The slices come from the nested reading worker, from one stream.
    let source = sequential_reads_exactly(Reading::Stream).await;
    let ahead = source.read_ahead().expect("read-ahead on");
    // 8 MiB, then 4 MiB to the end, each in a fresh buffer.
    assert_eq!(ahead.borrow().fresh_buffers(), Some(2));
}

/// The same where the browser's streams take no BYOB reader: the nested
/// worker reads each slice on its own, into a fresh buffer.
#[wasm_bindgen_test]
async fn read_ahead_without_streams_serves_reads_exactly() {
    let source = sequential_reads_exactly(Reading::Slices).await;
    let ahead = source.read_ahead().expect("read-ahead on");
    assert_eq!(ahead.borrow().fresh_buffers(), Some(2));
}

/// The same where no nested worker reads the slices: this thread does.
#[wasm_bindgen_test]
async fn read_ahead_without_a_reading_worker_serves_reads_exactly() {
    sequential_reads_exactly(Reading::Here).await;
}

/// A nested reader started before any file (as the page's workers start
/// one when they load) is what the first read-ahead reads with, and the
/// bytes are the same; the next read-ahead starts one of its own.
#[wasm_bindgen_test]
async fn a_reader_started_ahead_is_taken_and_reads_exactly() {
    use tarmac_lens::web::reading::read_ahead::{spare_reader_waiting, start_spare_reader};
    start_spare_reader(false);
    assert!(spare_reader_waiting());
    let source = sequential_reads_exactly(Reading::Stream).await;
    assert!(!spare_reader_waiting(), "the spare reader was not taken");
    let ahead = source.read_ahead().expect("read-ahead on");
    assert_eq!(ahead.borrow().fresh_buffers(), Some(2));
    sequential_reads_exactly(Reading::Stream).await;
}

/// A reader started ahead for a session makes its buffers then: the
/// slices come in them, none in a fresh one, and each slice is only the
/// first bytes of its (larger) buffer. The first [`ReadAhead`] takes it.
///
/// [`ReadAhead`]: tarmac_lens::web::reading::read_ahead::ReadAhead
#[wasm_bindgen_test]
async fn a_prefaulting_reader_fills_the_buffers_it_made() {
    use tarmac_lens::web::reading::read_ahead::{spare_reader_waiting, start_spare_reader};
    start_spare_reader(true);
    let source = sequential_reads_exactly(Reading::Stream).await;
    assert!(!spare_reader_waiting(), "the spare reader was not taken");
    let ahead = source.read_ahead().expect("read-ahead on");
    // 8 MiB, then 4 MiB to the end, each in a 16 MiB buffer made ahead.
    assert_eq!(ahead.borrow().fresh_buffers(), Some(0));
}

/// A reader started ahead that nothing took can be stopped: the next
/// read-ahead starts one of its own.
#[wasm_bindgen_test]
async fn a_spare_reader_nothing_took_can_be_stopped() {
    use tarmac_lens::web::reading::read_ahead::{
        spare_reader_waiting, start_spare_reader, stop_spare_reader,
    };
    start_spare_reader(true);
    assert!(spare_reader_waiting());
    stop_spare_reader();
    assert!(!spare_reader_waiting());
    let source = sequential_reads_exactly(Reading::Stream).await;
    let ahead = source.read_ahead().expect("read-ahead on");
    assert_eq!(ahead.borrow().fresh_buffers(), Some(2));
}

/// Once its reading has ended a session stops its nested reader (freeing
/// its buffers); reading through again starts another, with the same bytes.
#[wasm_bindgen_test]
async fn a_stopped_reader_is_replaced_when_reading_starts_again() {
    let mut source = sequential_reads_exactly(Reading::Stream).await;
    let ahead = source.read_ahead().expect("read-ahead on");
    ahead.borrow_mut().stop_reader();
    assert!(!source.reads_ahead_in_a_worker());
    assert_eq!(ahead.borrow().slices(), []);
    read_through_exactly(&mut source, true).await;
    assert_eq!(ahead.borrow().fresh_buffers(), Some(2));
}

/// A read-ahead primed before the first read (a file about to be indexed)
/// asks for its first slice at once; the reader's short first reads (the
/// line buffer's, for the first screenful) do not wait for it, and the long
/// reads after them come from it, none read twice.
#[wasm_bindgen_test]
async fn a_primed_read_ahead_asks_at_once_and_short_reads_do_not_wait() {
    let len = (12 << 20) + 999;
    let data = patterned(len);
    let mut source = BlobSource::new(blob(&data)).unwrap().with_read_ahead();
    source.read_ahead_from(0);
    let ahead = source.read_ahead().expect("read-ahead on");
    assert_eq!(ahead.borrow().slices(), vec![(0, 8 << 20)]);
    let mut offset = 0usize;
    for n in [64 << 10, 128 << 10, 256 << 10] {
        assert!(
            !ahead.would_wait_for(n),
            "a short read would wait for the slice"
        );
        let mut buf = vec![0u8; n];
        assert_eq!(source.read_at(offset as u64, &mut buf).unwrap(), n);
        assert!(buf == data[offset..offset + n], "bytes at {offset}");
        offset += n;
    }
    // Until the slice has come, a long read would wait for it.
    assert!(ahead.would_wait_for(512 << 10));
    while offset < len {
        ahead.next_read_of_ready(4 << 20).await;
        let mut buf = vec![0u8; 4 << 20];
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        assert!(n > 0);
        assert!(buf[..n] == data[offset..offset + n], "bytes at {offset}");
        offset += n;
    }
    let counts = source.read_counts();
    assert_eq!(counts.sync, 0, "{counts:?}");
    assert_eq!(counts.ahead, (len - (448 << 10)) as u64);
}

/// Who reads the slices ahead: the nested worker from one stream, the
/// nested worker a slice at a time, or this thread.
enum Reading {
    Stream,
    Slices,
    Here,
}

impl Reading {
    fn ahead_of(&self, source: BlobSource) -> BlobSource {
        match self {
            Reading::Stream => source.with_read_ahead(),
            Reading::Slices => source.with_read_ahead_without_streams(),
            Reading::Here => source.with_read_ahead_here(),
        }
    }
}

const SEQUENTIAL_LEN: usize = (12 << 20) + 12_345;

async fn sequential_reads_exactly(reading: Reading) -> BlobSource {
    let source = BlobSource::new(blob(&patterned(SEQUENTIAL_LEN))).unwrap();
    let in_a_worker = !matches!(reading, Reading::Here);
    let mut source = reading.ahead_of(source);
    read_through_exactly(&mut source, in_a_worker).await;
    source
}

/// Reads `source` (of [`patterned`] bytes) from its start to its end as the
/// line buffer does, checking every byte and that only the first read had
/// nothing ahead of it.
async fn read_through_exactly(source: &mut BlobSource, in_a_worker: bool) {
    let data = patterned(SEQUENTIAL_LEN);
    let before = source.read_counts();
    let mut offset = 0usize;
    // Uneven lengths, as the line buffer's reads are (the partial line
    // kept back shortens each).
    let lengths = [1 << 20, (4 << 20) - 77, (4 << 20) - 1, 3 << 20, 4 << 20];
    let mut i = 0;
    let mut long = 0;
    while offset < data.len() {
        source.settle().await;
        let mut buf = vec![0u8; lengths[i % lengths.len()]];
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        let expect = buf.len().min(data.len() - offset);
        assert_eq!(n, expect, "read at {offset}");
        assert!(buf[..n] == data[offset..offset + n], "bytes at {offset}");
        offset += n;
        i += 1;
        // The last, short read is below the read-ahead's threshold.
        if n >= 512 << 10 {
            long += n as u64;
        }
    }
    let after = source.read_counts();
    let (ahead, sync) = (after.ahead - before.ahead, after.sync - before.sync);
    assert_eq!(ahead + sync, long);
    // Only the first read has nothing ahead of it.
    assert_eq!(sync, 1 << 20, "{after:?}");
    assert_eq!(source.reads_ahead_in_a_worker(), in_a_worker);
}

/// The session worker's loop: it reads on while the read-ahead says the
/// next read would find its bytes there, and otherwise waits for them, so
/// nothing but the first read is read twice, whatever the slices' timing.
#[wasm_bindgen_test]
async fn a_reader_that_waits_when_told_reads_nothing_twice() {
    let len = (20 << 20) + 4321;
    let data = patterned(len);
    let mut source = BlobSource::new(blob(&data)).unwrap().with_read_ahead();
    let ahead = source.read_ahead().expect("read-ahead on");
    let mut offset = 0usize;
    let mut waits = 0;
    let mut i = 0;
    while offset < data.len() {
        if ahead.would_wait() {
            waits += 1;
            ahead.settle().await;
            continue;
        }
        // Reads that straddle the slices (8 MiB, then 16).
        let mut buf = vec![0u8; [4 << 20, (3 << 20) + 5][i % 2]];
        i += 1;
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        assert!(buf[..n] == data[offset..offset + n], "bytes at {offset}");
        offset += n;
    }
    let counts = source.read_counts();
    assert_eq!(counts.sync, 4 << 20, "{counts:?}");
    assert_eq!(counts.ahead + counts.sync, len as u64);
    // Right after the first read nothing had arrived yet.
    assert!(waits > 0);
}

/// Where each slice is a read of its own (no BYOB stream), the slices
/// asked for ahead start at 8 MiB (the first comes soon) and double up to
/// 32 MiB (each such read costs the browser CPU time of its own), reaching
/// 64 MiB past the last read; and start small again after a jump. Until a
/// slice has come, only one is asked for (slices asked for together share
/// the browser's reading, and the reader waits for the first).
#[wasm_bindgen_test]
async fn slices_read_one_by_one_grow_from_8_to_32_mib() {
    let (mut source, s) = source_of_200_mib(Reading::Slices);
    let ahead = source.read_ahead().expect("read-ahead on");
    let mut buf = vec![0u8; 4 << 20];
    source.read_at(0, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(4, 12)]);
    source.settle().await;
    source.read_at(4 << 20, &mut buf).unwrap();
    assert_eq!(
        ahead.borrow().slices(),
        [s(4, 12), s(12, 28), s(28, 60), s(60, 92)]
    );
    // Away from them: the slices asked for start over, small, one until
    // it has come.
    source.read_at(150 << 20, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(154, 162)]);
    source.read_at(154 << 20, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(154, 162)], "still on its way");
    source.settle().await;
    source.read_at(156 << 20, &mut buf).unwrap();
    assert_eq!(
        ahead.borrow().slices(),
        [s(154, 162), s(162, 178), s(178, 200)]
    );
}

/// A dropped file's one stream, read into buffers handed back, is asked for
/// in slices of 8 MiB, then 16 MiB only, reaching 32 MiB past the last
/// read: the browser's cost does not depend on the slice, and the reader
/// holds three of them.
#[wasm_bindgen_test]
async fn a_stream_is_read_ahead_in_slices_of_16_mib_at_most() {
    let (mut source, s) = source_of_200_mib(Reading::Stream);
    let ahead = source.read_ahead().expect("read-ahead on");
    let mut buf = vec![0u8; 4 << 20];
    source.read_at(0, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(4, 12)]);
    source.settle().await;
    source.read_at(4 << 20, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(4, 12), s(12, 28), s(28, 44)]);
    source.read_at(150 << 20, &mut buf).unwrap();
    assert_eq!(ahead.borrow().slices(), [s(154, 162)]);
    source.settle().await;
    source.read_at(156 << 20, &mut buf).unwrap();
    assert_eq!(
        ahead.borrow().slices(),
        [s(154, 162), s(162, 178), s(178, 194)]
    );
}

/// 200 MiB of one 8 MiB part (so the test holds no 200 MiB buffer), read
/// ahead as `reading` says, and a maker of `[a, b)` MiB ranges.
fn source_of_200_mib(reading: Reading) -> (BlobSource, impl Fn(u64, u64) -> (u64, u64)) {
    let part = Uint8Array::new_with_length(8 << 20);
    let parts = Array::new();
    for _ in 0..25 {
        parts.push(&part);
    }
    let source = BlobSource::new(Blob::new_with_u8_array_sequence(&parts).unwrap()).unwrap();
    (reading.ahead_of(source), |a: u64, b: u64| {
        (a << 20, b << 20)
    })
}

/// The nested worker reads the slices into the buffers handed back once
/// passed, not into fresh ones: after the first few, every slice
/// reuses one, and the bytes are each slice's own, never a buffer's last.
/// A jump back starts a new stream there, with the right bytes.
#[wasm_bindgen_test]
async fn slices_reuse_the_buffers_handed_back() {
    let (fresh, slices) = read_320_mib(Reading::Stream).await;
    // 8 and 16 MiB ones until the first is handed back: three (the one
    // being read from and two ahead), and the short last slice.
    assert!(fresh <= 7, "{fresh} of {slices} slices in fresh buffers");
}

/// Where the browser's streams take no BYOB reader, each slice comes in a
/// fresh buffer, with the same bytes.
#[wasm_bindgen_test]
async fn without_streams_every_slice_is_fresh() {
    let (fresh, slices) = read_320_mib(Reading::Slices).await;
    assert_eq!(fresh, slices);
}

/// Reads 320 MiB start to end, then jumps back near the start, checking
/// every byte; returns how many slices came in fresh buffers, and how many
/// came at all.
async fn read_320_mib(reading: Reading) -> (u32, u32) {
    const PART: usize = 8 << 20;
    const PARTS: usize = 40;
    // Each 8 MiB part filled with its own number, so a stale byte shows.
    let parts = Array::new();
    for k in 0..PARTS {
        let part = Uint8Array::new_with_length(PART as u32);
        part.fill(k as u8, 0, PART as u32);
        parts.push(&part);
    }
    let source = BlobSource::new(Blob::new_with_u8_array_sequence(&parts).unwrap()).unwrap();
    let mut source = reading.ahead_of(source);
    let ahead = source.read_ahead().expect("read-ahead on");
    let read_from = |source: &mut BlobSource, offset: usize| {
        let mut buf = vec![0u8; (4 << 20) - 3];
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        for (i, b) in buf[..n].iter().enumerate() {
            let at = offset + i;
            assert_eq!(*b as usize, at / PART, "byte at {at}");
        }
        n
    };
    let mut offset = 0;
    let mut slices = Vec::new();
    while offset < PART * PARTS {
        source.settle().await;
        offset += read_from(&mut source, offset);
        slices.extend(ahead.borrow().slices());
    }
    slices.sort_unstable();
    slices.dedup();
    let fresh = ahead.borrow().fresh_buffers().expect("a nested worker");
    let counts = source.read_counts();
    assert_eq!(counts.sync, (4 << 20) - 3, "{counts:?}");
    // Back near the start, where the stream has long passed.
    let mut offset = PART / 2;
    for _ in 0..3 {
        source.settle().await;
        offset += read_from(&mut source, offset);
    }
    assert!(source.read_counts().ahead > counts.ahead);
    (fresh, slices.len() as u32)
}

/// A reader that never yields, jumps, or mixes in short reads still gets
/// exactly the file's bytes (from synchronous reads where nothing arrived).
#[wasm_bindgen_test]
async fn read_ahead_never_changes_the_bytes() {
    let data = patterned((9 << 20) + 999);
    let mut source = BlobSource::new(blob(&data)).unwrap().with_read_ahead();
    let reads: [(usize, usize, bool); 8] = [
        (0, 1 << 20, false),
        ((1 << 20) + 10, 2 << 20, false),
        (100, 64, true),
        ((3 << 20) + 10, 4 << 20, true),
        (5 << 20, 1 << 20, true),
        (7 << 20, 3 << 20, true),
        (2 << 20, 1 << 20, true),
        (9 << 20, 1 << 20, false),
    ];
    for (offset, len, wait) in reads {
        if wait {
            source.settle().await;
        }
        let mut buf = vec![0u8; len];
        let n = source.read_at(offset as u64, &mut buf).unwrap();
        let expect = len.min(data.len() - offset);
        assert_eq!(n, expect, "read at {offset}");
        assert!(buf[..n] == data[offset..offset + n], "bytes at {offset}");
    }
    assert!(source.read_counts().ahead > 0);
}

/// The worker's warm-up (every sample question, on the sample trace,
/// through a `Blob`) runs to the end without an error.
#[wasm_bindgen_test]
fn the_warm_up_runs_every_query_through_a_blob() {
    tarmac_lens::web::worker::warmup::warm_up().unwrap();
}

/// The tier-up pass indexes the whole repeated sample with the session's
/// loop, and the range loop indexes some of its second half, in short
/// checkpoint intervals: a repeat joined wrongly would change the line count.
#[wasm_bindgen_test]
fn the_tier_up_pass_indexes_the_sample_over_and_over() {
    const SAMPLE: &[u8] = tarmac_lens::sample::TRACE;
    let lines = SAMPLE.iter().filter(|&&b| b == b'\n').count() as u64;
    let done = tarmac_lens::web::worker::warmup::tier_up().unwrap();
    assert_eq!(done.session_lines % lines, 0, "{done:?}");
    assert!(done.session_lines >= 32 * lines, "{done:?}");
    assert!(done.range_lines > 0, "{done:?}");
    assert!(done.range_lines <= done.session_lines / 2, "{done:?}");
    // Short intervals: the memory history builds several segment tables
    // (one per 64 intervals), so its code runs often enough to be optimised.
    assert!(done.range_intervals >= 4 * 64, "{done:?}");
}

/// An ELF image is read whole: every byte, in order, of a blob larger than
/// the read-ahead's slices would be.
#[wasm_bindgen_test]
fn read_whole_gives_every_byte_of_the_blob() {
    let data: Vec<u8> = (0..(3u32 << 20)).map(|i| (i * 7 + i / 251) as u8).collect();
    let bytes = BlobSource::read_whole(blob(&data)).unwrap();
    assert_eq!(bytes.len(), data.len());
    assert!(bytes == data);
}
