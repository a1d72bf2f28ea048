//! The Perfetto export's time and memory over a made trace of any size
//! (`cargo bench -p tarmac-lens-core --bench export`; `TL_BENCH_GB`,
//! default 1, e.g. `TL_BENCH_GB=10`). Not a timed test: it prints the
//! trace's size, the export's size, the time and the peak heap (a
//! counting allocator: every live byte, the process's whole heap).
//! The trace is `tests/synthetic/` (three calls, an exception and two
//! changes of level every 13 instructions), made as it is read: no file.

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
        report::export::perfetto::PerfettoWriter, EngineOptions, ParseOptions, TraceSource,
    };

    use super::counting::PEAK;
    use super::synthetic::{Synthetic, ROUND_INSTRUCTIONS};

    struct Count(std::rc::Rc<std::cell::Cell<u64>>);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.set(self.0.get() + buf.len() as u64);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    pub fn run() {
        let gb: f64 = std::env::var("TL_BENCH_GB")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1.0);
        let rounds = Synthetic::of_size((gb * (1u64 << 30) as f64) as u64).rounds();
        let size = Synthetic::new(rounds).len();
        let written = std::rc::Rc::new(std::cell::Cell::new(0u64));
        let w = written.clone();
        let t = Instant::now();
        let mut writer = PerfettoWriter::new(
            "synthetic",
            Box::new(move |_| Ok(Box::new(Count(w.clone())) as Box<dyn std::io::Write>)),
            None,
        );
        writer
            .core(
                "cpu",
                || Ok(Synthetic::new(rounds)),
                ParseOptions::default(),
                EngineOptions::default(),
                &|_| String::new(),
            )
            .expect("export");
        writer.finish().expect("export");
        let secs = t.elapsed().as_secs_f64();
        println!(
            "perfetto export: {:.2} GB trace ({} instructions, {} calls) -> {:.1} MB in {secs:.1} s \
             ({:.0} MB/s of trace, two passes); peak heap {:.1} MB",
            size as f64 / 1e9,
            rounds * ROUND_INSTRUCTIONS,
            rounds * 3,
            written.get() as f64 / 1e6,
            size as f64 / 1e6 / secs,
            PEAK.load(Ordering::Relaxed) as f64 / 1e6,
        );
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::run();
}
