//! The Reports pass's heap (`cargo bench -p tarmac-lens-core --bench
//! reports`): issue 62's tab memory, since a worker's wasm memory keeps
//! whatever peak the pass reached. Not a timed test: it prints one JSON
//! line, the pass's time, its peak heap and the heap the finished
//! [`Reports`] keep (a counting allocator: every live byte).
//!
//! `TL_BENCH_TRACE=PATH` (and `TL_BENCH_IMAGE=ELF` to name functions),
//! e.g. a `scripts/tracegen/` quicksort trace; without it `TL_BENCH_GB`
//! (default 1) of `tests/synthetic/`, three calls every 13 instructions,
//! two of them made from the tree's root.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/synthetic/mod.rs"]
mod synthetic;

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/counting/mod.rs"]
mod counting;

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    use tarmac_lens_core::{
        report::Reports, EngineOptions, FileSource, ParseOptions, SymbolTable, TraceSource,
    };

    use super::counting::{LIVE, PEAK};
    use super::synthetic::Synthetic;

    fn measure<S: TraceSource>(name: &str, source: S, image: Option<SymbolTable>) {
        let bytes = source.len();
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let t = Instant::now();
        let reports = Reports::compute(
            source,
            ParseOptions::default(),
            EngineOptions::default(),
            image,
        )
        .expect("reports pass");
        let secs = t.elapsed().as_secs_f64();
        let peak = PEAK.load(Ordering::Relaxed) - before;
        let kept = LIVE.load(Ordering::Relaxed) - before;
        let activations = reports.summary().activations;
        println!(
            "{{\"trace\":\"{name}\",\"bytes\":{bytes},\"activations\":{activations},\
             \"pass_s\":{secs:.2},\"peak_heap_mb\":{:.1},\"kept_heap_mb\":{:.1},\
             \"kept_bytes_per_activation\":{:.0}}}",
            peak as f64 / 1e6,
            kept as f64 / 1e6,
            kept as f64 / activations.max(1) as f64,
        );
    }

    pub fn run() {
        if let Ok(path) = std::env::var("TL_BENCH_TRACE") {
            let image = std::env::var("TL_BENCH_IMAGE").ok().map(|p| {
                let data = std::fs::read(&p).expect("image");
                SymbolTable::from_elf_bytes(&data, 0).expect("ELF")
            });
            let source = FileSource::open(std::path::Path::new(&path)).expect("trace");
            measure(&path, source, image);
        } else {
            let gb: f64 = std::env::var("TL_BENCH_GB")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1.0);
            let rounds = Synthetic::of_size((gb * (1u64 << 30) as f64) as u64).rounds();
            measure("synthetic", Synthetic::new(rounds), None);
        }
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::run();
}
