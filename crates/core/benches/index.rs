//! Indexing and query benchmark (`cargo bench --bench index`). Not a timed
//! test: it prints figures. It builds a trace of `TL_BENCH_MB` megabytes
//! (default 100) by concatenating the traces in tests/data, indexes it from
//! disk, and measures random queries.
//!
//! Prints one JSON line (bytes, lines, instructions, seconds, mb_per_s,
//! scan_mb_per_s, index_bytes, index_bytes_per_trace_byte, query
//! percentiles in milliseconds) and a readable summary.

// The benchmark reads a file from disk; there is nothing to measure in wasm32.
#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    use tarmac_lens_core::{
        AccessKind, FileSource, Index, IndexOptions, LineReader, ParseOptions, Parser, RecordKind,
        RegClass, RegId, TraceIdentity, TraceSource, Watched,
    };

    fn inputs() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
        let mut v = Vec::new();
        for dir in ["ttu/samples", "tracegen"] {
            for e in std::fs::read_dir(root.join(dir)).expect("tests/data present") {
                let p = e.expect("dir entry").path();
                if p.extension().is_some_and(|x| x == "tarmac") {
                    v.push(p);
                }
            }
        }
        v.sort();
        v
    }

    fn make_trace(mb: u64) -> PathBuf {
        let path = std::env::temp_dir().join(format!("tarmac-lens-bench-{}M.tarmac", mb));
        let want = mb << 20;
        if std::fs::metadata(&path).is_ok_and(|m| m.len() >= want) {
            return path;
        }
        let parts: Vec<Vec<u8>> = inputs()
            .iter()
            .map(|p| std::fs::read(p).expect("readable"))
            .collect();
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
        let mut written = 0u64;
        'outer: loop {
            for p in &parts {
                f.write_all(p).expect("write");
                written += p.len() as u64;
                if written >= want {
                    break 'outer;
                }
            }
        }
        f.flush().expect("flush");
        path
    }

    fn percentile(v: &mut [f64], p: f64) -> f64 {
        v.sort_by(|a, b| a.total_cmp(b));
        v[((v.len() as f64 - 1.0) * p).round() as usize]
    }

    /// Deterministic xorshift, so runs are comparable.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n.max(1)
        }
    }

    pub fn run() {
        // `cargo bench` passes `--bench`; ignore arguments.
        let mb: u64 = std::env::var("TL_BENCH_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100);
        let path = std::env::var("TL_BENCH_TRACE")
            .map(PathBuf::from)
            .unwrap_or_else(|_| make_trace(mb));
        let len = std::fs::metadata(&path).expect("trace").len();

        // Baseline: a bare scan counting instruction lines, like `grep -c ' IT '`.
        let t = Instant::now();
        let mut src = FileSource::open(&path).expect("open");
        let mut buf = vec![0u8; 1 << 20];
        let mut off = 0;
        let mut its = 0usize;
        while off < len {
            let n = src.read_at(off, &mut buf).expect("read");
            its += memchr::memmem::find_iter(&buf[..n], b" IT ").count();
            off += n as u64;
        }
        let scan_s = t.elapsed().as_secs_f64();

        // The parser alone: every line split and parsed, nothing indexed, so
        // the rest of the indexing time is the engine's and the index's.
        let t = Instant::now();
        let mut lines = LineReader::new(FileSource::open(&path).expect("open"));
        let mut parser = None;
        let mut unparsed = 0usize;
        while let Some(line) = lines.next_line().expect("read") {
            let p = parser
                .get_or_insert_with(|| Parser::for_sample(ParseOptions::default(), line.text));
            unparsed += matches!(p.parse_line(line.text).kind, RecordKind::Unparsed(_)) as usize;
        }
        let parse_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let mut src = FileSource::open(&path).expect("open");
        let index = Index::build(&mut src, IndexOptions::default(), |_| {}).expect("index");
        let secs = t.elapsed().as_secs_f64();
        let s = index.summary();
        let resident = index.resident_bytes();
        let t = Instant::now();
        let file_bytes = index.to_bytes(TraceIdentity { len, mtime: 0 }).len();
        let save_ms = t.elapsed().as_secs_f64() * 1e3;

        // The timeline strip's question: the deepest call nesting in each of
        // 2000 buckets, over every call.
        let t = Instant::now();
        let bounds: Vec<u64> = (0..=2000)
            .map(|i| tarmac_lens_core::bucket_start(i, 2000, s.nodes))
            .collect();
        let depth = tarmac_lens_core::depth_per_bucket(index.calls(), &bounds);
        let timeline_ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(depth.len(), 2000);

        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let n = 200;
        let (mut state_ms, mut prev_reg_ms, mut prev_mem_ms, mut line_ms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut watch_reg_ms, mut watch_page_ms, mut watch_read_ms, mut watch_cold_ms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let sp64 = RegId::new(RegClass::Xsp, 0);
        let x0 = RegId::new(RegClass::X, 0);
        for _ in 0..n {
            let node = rng.below(s.nodes);
            let t = Instant::now();
            let regs = index.registers_after(&mut src, node).expect("regs");
            let sp = regs
                .value(tarmac_lens_core::XSP, 8)
                .or_else(|| regs.value(13 * 8, 4))
                .unwrap_or(0);
            let _ = index
                .memory_after(&mut src, node, sp.saturating_sub(128), 256)
                .expect("memory");
            state_ms.push(t.elapsed().as_secs_f64() * 1e3);

            let t = Instant::now();
            let reg = if rng.below(2) == 0 { sp64 } else { x0 };
            let _ = index.prev_reg_write(&mut src, node, reg).expect("prev reg");
            prev_reg_ms.push(t.elapsed().as_secs_f64() * 1e3);

            let t = Instant::now();
            let _ = index
                .prev_mem_write(&mut src, node, sp & !7, 8)
                .expect("prev mem");
            prev_mem_ms.push(t.elapsed().as_secs_f64() * 1e3);

            let t = Instant::now();
            let _ = index
                .node_at_line(&mut src, 1 + rng.below(s.lines))
                .expect("line");
            line_ms.push(t.elapsed().as_secs_f64() * 1e3);

            // Watchpoints from here, either way: a register, the 4 KiB
            // page of the stack (any access, reads), and memory no node
            // touches (the slow path: every interval's summary, no replay).
            let page = Watched::Mem {
                addr: sp & !0xfff,
                len: 0x1000,
            };
            let cold = Watched::Mem {
                addr: 0x7654_3210_0000,
                len: 0x1000,
            };
            let forward = rng.below(2) == 0;
            let mut watch = |what, kind, out: &mut Vec<f64>| {
                let t = Instant::now();
                let _ = if forward {
                    index.next_access(&mut src, node, what, kind)
                } else {
                    index.prev_access(&mut src, node, what, kind)
                }
                .expect("watch");
                out.push(t.elapsed().as_secs_f64() * 1e3);
            };
            watch(Watched::Reg(reg), AccessKind::Any, &mut watch_reg_ms);
            watch(page, AccessKind::Any, &mut watch_page_ms);
            watch(page, AccessKind::Read, &mut watch_read_ms);
            watch(cold, AccessKind::Any, &mut watch_cold_ms);
        }
        let v = serde_json::json!({
            "trace": path.display().to_string(),
            "bytes": s.bytes,
            "lines": s.lines,
            "instructions": s.instructions,
            "it_lines": its,
            "calls": s.calls,
            "seconds": secs,
            "mb_per_s": s.bytes as f64 / 1e6 / secs,
            "scan_mb_per_s": len as f64 / 1e6 / scan_s,
            "parse_mb_per_s": len as f64 / 1e6 / parse_s,
            "unparsed_lines": unparsed,
            "index_bytes": resident,
            "index_bytes_per_trace_byte": resident as f64 / s.bytes as f64,
            "index_file_bytes": file_bytes,
            "index_file_ms": save_ms,
            "timeline_ms": timeline_ms,
            "state_query_ms_p50": percentile(&mut state_ms, 0.5),
            "state_query_ms_p99": percentile(&mut state_ms, 0.99),
            "prev_reg_write_ms_p50": percentile(&mut prev_reg_ms, 0.5),
            "prev_reg_write_ms_p99": percentile(&mut prev_reg_ms, 0.99),
            "prev_mem_write_ms_p50": percentile(&mut prev_mem_ms, 0.5),
            "prev_mem_write_ms_p99": percentile(&mut prev_mem_ms, 0.99),
            "line_lookup_ms_p50": percentile(&mut line_ms, 0.5),
            "line_lookup_ms_p99": percentile(&mut line_ms, 0.99),
            "watch_reg_ms_p50": percentile(&mut watch_reg_ms, 0.5),
            "watch_reg_ms_p99": percentile(&mut watch_reg_ms, 0.99),
            "watch_stack_page_ms_p50": percentile(&mut watch_page_ms, 0.5),
            "watch_stack_page_ms_p99": percentile(&mut watch_page_ms, 0.99),
            "watch_stack_page_reads_ms_p50": percentile(&mut watch_read_ms, 0.5),
            "watch_stack_page_reads_ms_p99": percentile(&mut watch_read_ms, 0.99),
            "watch_untouched_ms_p50": percentile(&mut watch_cold_ms, 0.5),
            "watch_untouched_ms_p99": percentile(&mut watch_cold_ms, 0.99),
        });
        println!("{}", v);
        eprintln!(
            "indexed {:.1} MB in {:.3} s: {:.0} MB/s (bare scan {:.0} MB/s); index {:.1} MB = {:.4} bytes per trace byte",
            s.bytes as f64 / 1e6,
            secs,
            s.bytes as f64 / 1e6 / secs,
            len as f64 / 1e6 / scan_s,
            resident as f64 / 1e6,
            resident as f64 / s.bytes as f64
        );
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::run();
}
