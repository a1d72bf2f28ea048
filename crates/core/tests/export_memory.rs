//! The Perfetto export's memory does not grow with the trace: the peak
//! heap of an export of a trace four times longer is the same but for
//! the one bit per node the first pass keeps (`report::export::stream`).
//!
//! A test binary of its own: its global allocator counts every live
//! byte, which other tests running beside it would disturb. The trace is
//! made on the fly (`synthetic/`), so no file of that size is needed;
//! `benches/export.rs` measures 10 GB of it the same way.

#![cfg(not(target_arch = "wasm32"))]

mod counting;
mod synthetic;

use std::sync::atomic::Ordering;

use counting::{LIVE, PEAK};

use tarmac_lens_core::{report::export::perfetto::PerfettoWriter, EngineOptions, ParseOptions};

use synthetic::{Synthetic, ROUND_INSTRUCTIONS};

/// Bytes written, kept nowhere.
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

/// The peak heap above what was live before, and the bytes written.
fn export(bytes: u64) -> (usize, u64, u64) {
    let rounds = Synthetic::of_size(bytes).rounds();
    let written = std::rc::Rc::new(std::cell::Cell::new(0));
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    {
        let w = written.clone();
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
            .unwrap();
        writer.finish().unwrap();
    }
    (
        PEAK.load(Ordering::Relaxed) - base,
        written.get(),
        rounds * ROUND_INSTRUCTIONS,
    )
}

#[test]
fn the_perfetto_exports_memory_does_not_grow_with_the_trace() {
    let (small, small_out, _) = export(4 << 20);
    let (large, large_out, nodes) = export(16 << 20);
    // The output grew with the trace (three calls a round)...
    assert!(large_out > 3 * small_out, "{small_out} -> {large_out}");
    // ...the memory by no more than the bit per node (doubled, as the
    // bits grow by doubling) and a little slack.
    let bits = (nodes / 8) as usize * 2;
    eprintln!("peak heap: 4 MiB trace {small} bytes, 16 MiB trace {large} bytes");
    assert!(
        large <= small + bits + (64 << 10),
        "peak heap {small} -> {large} bytes for 4x the trace"
    );
    assert!(large < 64 << 20, "{large} bytes");
}
