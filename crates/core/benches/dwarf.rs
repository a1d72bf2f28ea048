//! Source-line benchmark (`cargo bench -p tarmac-lens-core --bench dwarf`).
//! Not a timed test: it prints figures.
//!
//! - DWARF load: [`DebugInfo::from_elf_bytes`] on a big ELF with full debug
//!   info (`TL_BIG_ELF`, else built once in the temporary directory by
//!   `scripts/make_big_elf.sh`: 410 units, about 50 MB), then the first
//!   lookup of one function in every 16 (each parses its unit's line table
//!   and function tree), the same lookups again, and every line table read
//!   whole (`lines_with_code`, what `lines` asks).
//! - Per-line counts: [`source_lines::count_pcs`] and
//!   [`source_lines::attribute`] over a `TL_BENCH_MB` megabyte trace
//!   (default 1024) made by repeating
//!   `tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac`, next to the
//!   parser alone over the same bytes.

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::Arc;
    use std::time::Instant;

    use tarmac_lens_core::{
        report::source_lines, DebugInfo, FileSource, LineReader, ParseOptions, Parser, SymbolTable,
    };

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn big_elf() -> Option<PathBuf> {
        if let Ok(p) = std::env::var("TL_BIG_ELF") {
            return Some(PathBuf::from(p));
        }
        let path = std::env::temp_dir().join("tarmac-lens-bench-big.elf");
        if path.exists() {
            return Some(path);
        }
        let status = Command::new(root().join("scripts/make_big_elf.sh"))
            .arg(&path)
            .status();
        match status {
            Ok(s) if s.success() => Some(path),
            _ => {
                println!("dwarf load: skipped (no TL_BIG_ELF and scripts/make_big_elf.sh failed)");
                None
            }
        }
    }

    fn load(path: &Path) {
        let data: Arc<[u8]> = std::fs::read(path).expect("big ELF").into();
        let t = Instant::now();
        let info = DebugInfo::from_elf_bytes(data.clone(), 0)
            .expect("readable DWARF")
            .expect("the big ELF has DWARF");
        let open_ms = t.elapsed().as_secs_f64() * 1e3;
        let symbols = SymbolTable::from_elf_bytes(&data, 0).expect("symbols");
        let pcs: Vec<u64> = symbols
            .symbols()
            .iter()
            .filter(|s| s.size > 0)
            .step_by(16)
            .map(|s| s.addr + s.size / 2)
            .collect();
        let t = Instant::now();
        let mut found = 0usize;
        for pc in &pcs {
            found += usize::from(!info.frames(*pc).expect("frames").is_empty());
        }
        let first_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        for pc in &pcs {
            info.frames(*pc).expect("frames");
        }
        let again_ms = t.elapsed().as_secs_f64() * 1e3;
        // Every line table whole, as `lines` reads them for never-run lines.
        let fresh = DebugInfo::from_elf_bytes(data.clone(), 0)
            .expect("readable DWARF")
            .expect("the big ELF has DWARF");
        let t = Instant::now();
        let lines: usize = fresh.lines_with_code().values().map(|l| l.len()).sum();
        let all_lines_ms = t.elapsed().as_secs_f64() * 1e3;
        println!(
            "{{\"elf_bytes\":{},\"units\":{},\"open_ms\":{open_ms:.1},\"lookups\":{},\"found\":{found},\"first_lookups_ms\":{first_ms:.1},\"again_ms\":{again_ms:.1},\"lines_with_code\":{lines},\"all_lines_ms\":{all_lines_ms:.1}}}",
            data.len(),
            info.units(),
            pcs.len()
        );
        println!(
            "dwarf load: {:.1} MB ELF, {} units: opened in {open_ms:.1} ms; {} first lookups {first_ms:.1} ms, again {again_ms:.1} ms; every line table {all_lines_ms:.1} ms",
            data.len() as f64 / 1e6,
            info.units(),
            pcs.len()
        );
    }

    fn make_trace(base: &Path, mb: u64) -> PathBuf {
        let path = std::env::temp_dir().join(format!("tarmac-lens-bench-lines-{mb}M.tarmac"));
        let want = mb << 20;
        if std::fs::metadata(&path).is_ok_and(|m| m.len() >= want) {
            return path;
        }
        let part = std::fs::read(base).expect("trace");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("temp file"));
        let mut written = 0u64;
        while written < want {
            f.write_all(&part).expect("write");
            written += part.len() as u64;
        }
        f.flush().expect("flush");
        path
    }

    fn counts() {
        let mb: u64 = std::env::var("TL_BENCH_MB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1024);
        let base = root().join("tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M");
        let trace = make_trace(&base.with_extension("tarmac"), mb);
        let len = std::fs::metadata(&trace).expect("trace").len();

        let t = Instant::now();
        let mut lines = LineReader::new(FileSource::open(&trace).expect("open"));
        let mut parser = None;
        while let Some(line) = lines.next_line().expect("read") {
            let p = parser
                .get_or_insert_with(|| Parser::for_sample(ParseOptions::default(), line.text));
            p.parse_line(line.text);
        }
        let parse_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let pcs = source_lines::count_pcs(
            FileSource::open(&trace).expect("open"),
            ParseOptions::default(),
            |_| {},
        )
        .expect("count");
        let count_s = t.elapsed().as_secs_f64();
        let elf = std::fs::read(base.with_extension("elf")).expect("elf");
        let t = Instant::now();
        let info = DebugInfo::from_elf_bytes(elf.as_slice().into(), 0)
            .expect("DWARF")
            .expect("has DWARF");
        let symbols = SymbolTable::from_elf_bytes(&elf, 0).expect("symbols");
        let lines = source_lines::attribute(&pcs, &info, Some(&symbols)).expect("attribute");
        let attribute_ms = t.elapsed().as_secs_f64() * 1e3;
        let mb_f = len as f64 / 1e6;
        println!(
            "{{\"trace_bytes\":{len},\"parse_s\":{parse_s:.2},\"count_s\":{count_s:.2},\"count_mb_per_s\":{:.0},\"distinct_pcs\":{},\"files\":{},\"attribute_ms\":{attribute_ms:.1}}}",
            mb_f / count_s,
            pcs.len(),
            lines.files.len()
        );
        println!(
            "line counts: {mb_f:.0} MB: parse alone {parse_s:.2} s ({:.0} MB/s); per-PC counts {count_s:.2} s ({:.0} MB/s); {} PCs to lines in {attribute_ms:.1} ms",
            mb_f / parse_s,
            mb_f / count_s,
            pcs.len()
        );
    }

    pub fn run() {
        if let Some(elf) = big_elf() {
            load(&elf);
        }
        counts();
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    bench::run();
}
