#![cfg(target_arch = "wasm32")]
//! What parsing and indexing cost in V8's wasm, where the page's workers
//! run them: `cargo bench --target wasm32-unknown-unknown --features web
//! --bench wasm_core` (headless Chromium through wasm-bindgen-test-runner,
//! in a dedicated worker as the page's indexing is). Not a test: it prints
//! criterion's time per pass over a 6.7 MB Fast Models trace held in wasm
//! memory (so no browser file reading is in it), and the trace's line count
//! to turn that into nanoseconds per line; a second run prints the change
//! against the first. The native figures are `cargo bench --bench index`.

use std::time::Duration;

use tarmac_lens_core::{Index, IndexOptions, LineReader, ParseOptions, Parser, SliceSource};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

/// The checked-in 1.7 MB trace four times over: long enough that a pass
/// takes tens of milliseconds, short enough to stay in memory anywhere.
fn trace() -> Vec<u8> {
    const PART: &[u8] =
        include_bytes!("../../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let trace = PART.repeat(4);
    let lines = trace.iter().filter(|&&b| b == b'\n').count();
    console_log!("trace: {} bytes, {lines} lines", trace.len());
    trace
}

/// Ten samples of a pass each: a pass is tens of milliseconds.
fn configured() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

/// Lines split and parsed, nothing indexed: the parser's share.
#[wasm_bindgen_bench]
fn parse(_: &mut Criterion) {
    let trace = trace();
    configured().bench_function("parse", |b| {
        b.iter(|| {
            let mut lines = LineReader::new(SliceSource(&trace));
            let mut parser = None;
            let mut times = 0u64;
            while let Some(line) = lines.next_line().expect("in memory") {
                let p = parser
                    .get_or_insert_with(|| Parser::for_sample(ParseOptions::default(), line.text));
                times = times.wrapping_add(p.parse_line(line.text).time);
            }
            times
        });
    });
}

/// The whole index, as one worker builds it.
#[wasm_bindgen_bench]
fn index(_: &mut Criterion) {
    let trace = trace();
    configured().bench_function("index", |b| {
        b.iter(|| {
            Index::build(&mut SliceSource(&trace), IndexOptions::default(), |_| {})
                .expect("the trace indexes")
                .summary()
                .lines
        });
    });
}

/// The whole index as the page's session worker builds it: in steps of
/// 256 KiB, counting the statistics the page shows. Against `index`, what
/// the session adds per line.
#[wasm_bindgen_bench]
fn session(_: &mut Criterion) {
    let trace = trace();
    configured().bench_function("session", |b| {
        b.iter(|| {
            let mut s =
                tarmac_lens_core::Session::open(SliceSource(&trace), ParseOptions::default())
                    .expect("opens");
            while !s.index_step(256 << 10).expect("in memory").complete {}
            s.progress().lines
        });
    });
}

/// DWARF in the worker: the big ELF of `benches/dwarf.rs` opened, then
/// opened with a first lookup in one function of every 16 (each parses
/// its unit's line table). Built in only on request, as the image is some
/// 50 MB: `RUSTFLAGS="-C target-feature=+simd128 --cfg tl_big_elf"
/// TL_BIG_ELF=/abs/path.elf cargo bench -p tarmac-lens-core --target
/// wasm32-unknown-unknown --bench wasm_core`.
#[cfg(tl_big_elf)]
#[wasm_bindgen_bench]
fn dwarf(_: &mut Criterion) {
    use std::sync::Arc;
    use tarmac_lens_core::{DebugInfo, SymbolTable};
    static ELF: &[u8] = include_bytes!(env!("TL_BIG_ELF"));
    let data: Arc<[u8]> = ELF.into();
    console_log!("big ELF: {} bytes", ELF.len());
    configured().bench_function("dwarf open", |b| {
        b.iter(|| {
            DebugInfo::from_elf_bytes(data.clone(), 0)
                .expect("readable")
                .expect("has DWARF")
                .units()
        });
    });
    let symbols = SymbolTable::from_elf_bytes(ELF, 0).expect("symbols");
    let pcs: Vec<u64> = symbols
        .symbols()
        .iter()
        .filter(|s| s.size > 0)
        .step_by(16)
        .map(|s| s.addr + s.size / 2)
        .collect();
    console_log!("{} lookups", pcs.len());
    configured().bench_function("dwarf open and first lookups", |b| {
        b.iter(|| {
            let info = DebugInfo::from_elf_bytes(data.clone(), 0)
                .expect("readable")
                .expect("has DWARF");
            pcs.iter()
                .filter(|pc| !info.frames(**pc).expect("frames").is_empty())
                .count()
        });
    });
}
