//! The statistics' one pass and every report built from it, over a trace
//! on disk or one made on the fly (`cargo bench -p tarmac-lens-core
//! --bench statistics`). Not a timed test: it prints one JSON line, the
//! pass's and the reports' times and the throughput over the trace's
//! bytes (issue 59's budget: 300 MB/s natively on a 1 GB trace).
//!
//! Beside them, the parser alone over the same bytes: the floor under
//! the pass, and a ratio a loaded machine does not change much. Each
//! phase's CPU seconds (Linux's `/proc/self/stat`) beside its wall time:
//! on a shared machine the wall time is the share the others leave.
//!
//! `TL_BENCH_TRACE=PATH` (and `TL_BENCH_IMAGE=ELF` to name functions):
//! that file, read with positioned reads as the CLI reads it, e.g. a
//! `scripts/tracegen/` trace with exceptions. Without it, `TL_BENCH_GB`
//! (default 1) of `tests/synthetic/`: three calls, an exception and two
//! changes of level every 13 instructions, the pass's slow path.
//!
//! Beside the times, the heap (a counting allocator: every live byte) the
//! pass keeps and the peak through the pass and every report: a worker's
//! wasm memory keeps its peak (issue 62).

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
        report::stats::Statistics, EngineOptions, FileSource, LineReader, ParseOptions, Parser,
        SymbolTable, TraceSource,
    };

    use super::counting::{LIVE, PEAK};
    use super::synthetic::Synthetic;

    /// The process's user and system CPU seconds so far (0 where
    /// `/proc` is not there).
    fn cpu_s() -> f64 {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        // Fields after the command's closing parenthesis; utime and stime
        // are the 14th and 15th of the line, in ticks of 1/100 s.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<f64> = rest
            .split_whitespace()
            .skip(11)
            .take(2)
            .filter_map(|v| v.parse().ok())
            .collect();
        f.iter().sum::<f64>() / 100.0
    }

    fn measure<S: TraceSource>(name: &str, open: impl Fn() -> S, image: Option<SymbolTable>) {
        let (t, c) = (Instant::now(), cpu_s());
        let mut lines = LineReader::new(open());
        let mut parser = None;
        while let Some(line) = lines.next_line().expect("read") {
            parser
                .get_or_insert_with(|| Parser::for_sample(ParseOptions::default(), line.text))
                .parse_line(line.text);
        }
        let parse_s = t.elapsed().as_secs_f64();
        let parse_cpu = cpu_s() - c;

        let source = open();
        let bytes = source.len();
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let (t, c) = (Instant::now(), cpu_s());
        let stats = Statistics::compute(
            source,
            ParseOptions::default(),
            EngineOptions::default(),
            image,
        )
        .expect("statistics pass");
        let pass_s = t.elapsed().as_secs_f64();
        let pass_cpu = cpu_s() - c;
        let kept = LIVE.load(Ordering::Relaxed) - before;

        // Every report, rendered as the CLI prints it; the CFG of the
        // function with the most instructions of its own.
        let (t, c) = (Instant::now(), cpu_s());
        let mut text = 0usize;
        text += stats.mix().render().len();
        text += stats.levels().render().len();
        text += stats.exceptions().render(&|pc| stats.symbolic(pc)).len();
        let functions = stats.functions(true);
        text += functions.render().len();
        text += stats.functions(false).render().len();
        text += stats.loops().render().len();
        text += stats.memsys().render(20).len();
        if let Some(top) = functions
            .functions
            .iter()
            .max_by_key(|f| f.own_instructions.total)
        {
            let cfg = stats.cfg(&format!("0x{:x}", top.addr)).expect("cfg");
            text += cfg.to_dot(&|pc| stats.symbolic(pc)).len();
        }
        let reports_s = t.elapsed().as_secs_f64();
        let reports_cpu = cpu_s() - c;
        let peak = PEAK.load(Ordering::Relaxed) - before;

        let mb = bytes as f64 / 1e6;
        println!(
            "{{\"trace\":\"{name}\",\"bytes\":{bytes},\"instructions\":{},\
             \"parse_s\":{parse_s:.3},\"pass_s\":{pass_s:.3},\"reports_s\":{reports_s:.3},\
             \"parse_mb_per_s\":{:.0},\"pass_mb_per_s\":{:.0},\"all_mb_per_s\":{:.0},\
             \"parse_cpu_s\":{parse_cpu:.2},\"pass_cpu_s\":{pass_cpu:.2},\
             \"reports_cpu_s\":{reports_cpu:.2},\"pass_mb_per_cpu_s\":{:.0},\
             \"report_text_bytes\":{text},\"kept_heap_mb\":{:.1},\"peak_heap_mb\":{:.1}}}",
            stats.instructions(),
            mb / parse_s,
            mb / pass_s,
            mb / (pass_s + reports_s),
            mb / pass_cpu,
            kept as f64 / 1e6,
            peak as f64 / 1e6,
        );
    }

    pub fn run() {
        if let Ok(path) = std::env::var("TL_BENCH_TRACE") {
            let image = std::env::var("TL_BENCH_IMAGE").ok().map(|p| {
                let data = std::fs::read(&p).expect("image");
                SymbolTable::from_elf_bytes(&data, 0).expect("ELF")
            });
            let open = || FileSource::open(std::path::Path::new(&path)).expect("trace");
            measure(&path, open, image);
        } else {
            let gb: f64 = std::env::var("TL_BENCH_GB")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1.0);
            let rounds = Synthetic::of_size((gb * (1u64 << 30) as f64) as u64).rounds();
            measure("synthetic", || Synthetic::new(rounds), None);
        }
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::run();
}
