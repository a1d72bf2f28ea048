//! Figures of the compressed-trace adaptors (`tarmac_lens_core::compressed`)
//! on one `.gz` or `.zst` file: the pass that builds the access-point
//! table (MB/s of decompressed output, and `gzip -dc`/`zstd -dc` on the
//! same file for comparison), the latency of 64 KiB reads at random
//! offsets (p50, p99 over 200), and the table's bytes per trace byte.
//! For a gzip file, then what a page jump costs: a [`Session`] restored
//! over the file with its saved table and index (the opening timed: it
//! reads the sample), then 200 jumps to random lines, each what the page
//! asks for one (the node at the line, its row, a screenful of rows
//! around it, the registers there); p50, p99.
//!
//! ```text
//! cargo run --release -p tarmac-lens-core --example compressed_bench -- trace.tarmac.gz [SPACING_MIB]
//! ```
//!
//! `SPACING_MIB` sets the gzip access points' spacing (default
//! [`DEFAULT_SPACING`]).

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::time::Instant;

use tarmac_lens_core::{
    compressed::{sniff, Format, GzipSource, ZstdSource, DEFAULT_SPACING},
    protocol::{Locate, RegMark, Registers, RowOfNode, Rows},
    FileSource, ParseOptions, Result, Session, TraceIdentity, TraceSource,
};

fn main() -> Result<()> {
    let path = std::env::args_os()
        .nth(1)
        .expect("usage: compressed_bench FILE.gz|FILE.zst");
    let path = std::path::Path::new(&path);
    let spacing = std::env::args().nth(2).map_or(DEFAULT_SPACING, |m| {
        m.parse::<u64>().expect("SPACING_MIB: a number") << 20
    });
    let mut file = FileSource::open(path)?;
    let mut head = [0u8; 4];
    file.read_at(0, &mut head)?;
    let format = sniff(&head).expect("neither gzip nor zstd");
    let compressed = file.len();

    let (tool, t0) = match format {
        Format::Gzip => ("gzip", Instant::now()),
        Format::Zstd => ("zstd", Instant::now()),
    };
    let status = std::process::Command::new(tool)
        .arg("-dc")
        .arg(path)
        .stdout(std::process::Stdio::null())
        .status();
    let tool_secs = t0.elapsed().as_secs_f64();
    let tool_ok = status.is_ok_and(|s| s.success());

    let t0 = Instant::now();
    let (mut source, table_bytes, points): (Box<dyn TraceSource>, usize, usize) = match format {
        Format::Gzip => {
            let mut s = GzipSource::with_spacing(file, spacing)?;
            s.build_table(|_| {})?;
            let t = s.table();
            let (b, n) = (t.encode().len(), t.points());
            (Box::new(s), b, n)
        }
        Format::Zstd => {
            let mut s = ZstdSource::new(file)?;
            s.build_table()?;
            let t = s.table();
            let (b, n) = (t.encode().len(), t.points());
            (Box::new(s), b, n)
        }
    };
    let build_secs = t0.elapsed().as_secs_f64();
    let len = source.len();
    let mb = len as f64 / 1e6;
    println!(
        "{}: {:.1} MB compressed, {:.1} MB of trace",
        path.display(),
        compressed as f64 / 1e6,
        mb
    );
    println!(
        "table pass: {:.2} s, {:.0} MB/s of trace; {points} access points",
        build_secs,
        mb / build_secs
    );
    if tool_ok {
        println!(
            "{tool} -dc: {:.2} s, {:.0} MB/s; the pass runs at {:.0}% of its speed",
            tool_secs,
            mb / tool_secs,
            100.0 * tool_secs / build_secs
        );
    }
    println!(
        "table: {table_bytes} bytes, {:.6} bytes per trace byte",
        table_bytes as f64 / len as f64
    );

    // Random jumps: a fixed xorshift, so runs compare.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut buf = vec![0u8; 64 << 10];
    let mut ms = Vec::new();
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let off = x % len.saturating_sub(buf.len() as u64).max(1);
        let t = Instant::now();
        let n = source.read_at(off, &mut buf)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(n, buf.len().min((len - off) as usize));
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "64 KiB read at a random offset, 200 jumps: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms[ms.len() / 2],
        ms[ms.len() * 99 / 100],
        ms[ms.len() - 1]
    );
    if format == Format::Gzip {
        page_jumps(path, spacing)?;
    }
    Ok(())
}

/// What a page jump costs on a gzip trace read in place with its saved
/// table and index: see the module documentation.
fn page_jumps(path: &std::path::Path, spacing: u64) -> Result<()> {
    let mut source = GzipSource::with_spacing(FileSource::open(path)?, spacing)?;
    source.build_table(|_| {})?;
    let table = source.table().clone();
    let parse = ParseOptions::default();
    let mut session = Session::open(source, parse)?;
    while !session.index_step(64 << 20)?.complete {}
    let id = TraceIdentity {
        len: session.progress().total_bytes,
        mtime: 0,
    };
    let lines = session.progress().lines;
    let saved = session.save(id).expect("the index is complete");
    drop(session);

    let t = Instant::now();
    let source = GzipSource::with_table(FileSource::open(path)?, table)?;
    let mut session = Session::restore(source, &saved, id, parse)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;

    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut ms = Vec::new();
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let line = 1 + x % lines;
        let t = Instant::now();
        let n = session.ask(Locate::Line(line)).unwrap();
        let n = n.unwrap_or_else(|| panic!("no node at line {line}"));
        let row = session.ask(RowOfNode {
            view: 0,
            node: n.node,
        });
        let row = row.unwrap_or_else(|e| panic!("no row for node {}: {e}", n.node));
        let rows = session.ask(Rows {
            view: 0,
            first: row.saturating_sub(20),
            count: 50,
        });
        let regs = session.ask(Registers {
            node: n.node,
            mark: RegMark::Written,
        });
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        if let Err(e) = rows.map(drop).and(regs.map(drop)) {
            panic!("line {line}: {e}");
        }
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "page: restored over the saved table and index in {open_ms:.1} ms; a jump to a random line \
         (node, row, 50 rows, registers), 200 jumps: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms \
         ({} MiB spacing)",
        ms[ms.len() / 2],
        ms[ms.len() * 99 / 100],
        ms[ms.len() - 1],
        spacing >> 20
    );
    Ok(())
}
