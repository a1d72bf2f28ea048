//! The examples in `examples/` run on checked-in traces and print what the
//! trace's text says (read here line by line, without the core), or what
//! the reference tools printed for the same trace.
use std::collections::BTreeMap;
use std::path::Path;

// `main` is for `cargo run --example`: unused here.
#[allow(dead_code)]
#[path = "../examples/custom_report.rs"]
mod custom_report;
#[allow(dead_code)]
#[path = "../examples/registers_at_line.rs"]
mod registers_at_line;
#[allow(dead_code)]
#[path = "../examples/streaming_stats.rs"]
mod streaming_stats;
#[allow(dead_code)]
#[path = "../examples/where_written.rs"]
mod where_written;

const TRACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/ttu/quicksort.tarmac"
);

#[test]
fn prints_the_core_registers_after_a_line() {
    let mut out = Vec::new();
    registers_at_line::run(Path::new(TRACE), 1025, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let value = |name: &str| {
        out.lines()
            .find_map(|l| l.split_once(' ').filter(|(n, _)| *n == name))
            .map(|(_, v)| v.trim().to_ascii_uppercase())
            .unwrap_or_else(|| panic!("no {name} in:\n{out}"))
    };
    // Line 1025 is `453 clk R X10 0000000000000066`, in the node of
    // `453 clk IT (453) 000080a8 38696a8a O EL3h_s : LDRB w10,[x20,x9]`.
    assert_eq!(value("x10"), "0000000000000066");
    assert_eq!(value("pc"), "00000000000080A8");
    // Earlier writes still hold: `450 clk R X9 000000000000000B`,
    // `451 clk R cpsr 200003cd`.
    assert_eq!(value("x9"), "000000000000000B");
    assert_eq!(value("psr"), "200003CD");
    // 31 x registers, sp, pc and psr: an AArch64 trace.
    assert_eq!(out.lines().count(), 34, "{out}");
}

#[test]
fn a_line_past_the_end_is_an_error() {
    let err = registers_at_line::run(Path::new(TRACE), 99_999, &mut Vec::new()).unwrap_err();
    assert_eq!(err.to_string(), "the trace has no line 99999");
}

/// A trace of the tracegen AArch64 quicksort, with its ELF image and the
/// profile Tarmac Trace Utilities printed for it.
const QUICKSORT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/tracegen/quicksort-aarch64-O2-fastmodel-2M"
);

fn path(ext: &str) -> String {
    format!("{QUICKSORT}.{ext}")
}

/// The lines of a trace file: (1-based number, whitespace-separated words).
fn lines_of(path: &str) -> Vec<(u64, Vec<String>)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            (
                i as u64 + 1,
                l.split_whitespace().map(String::from).collect(),
            )
        })
        .collect()
}

/// The instruction address of an `IT`/`IS` line of the `IT (n) ADDR ...` form.
fn instruction_pc(words: &[String]) -> Option<u64> {
    matches!(words.get(2)?.as_str(), "IT" | "IS")
        .then(|| u64::from_str_radix(&words[4], 16).unwrap())
}

/// `(address, size)` of an `MW<size> ADDR[:PHYS] ...` line.
fn memory_write(words: &[String]) -> Option<(u64, u64)> {
    let size = words.get(2)?.strip_prefix("MW")?.parse().unwrap();
    let addr = words[3].split(':').next().unwrap();
    Some((u64::from_str_radix(addr, 16).unwrap(), size))
}

fn run_where_written(line: u64, target: WriteTarget) -> String {
    let mut out = Vec::new();
    where_written::run(Path::new(TRACE), line, target, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

use tarmac_lens_core::protocol::WriteTarget;

#[test]
fn where_written_finds_the_last_register_write() {
    // The last line at or before line 1025 that writes x9 (or its w9 half).
    let lines = lines_of(TRACE);
    let last = lines[..1025]
        .iter()
        .rev()
        .find(|(_, w)| w.len() > 3 && w[2] == "R" && (w[3] == "X9" || w[3] == "W9"))
        .unwrap()
        .0;
    let out = run_where_written(1025, WriteTarget::Register("x9".into()));
    assert!(out.contains(&format!("\n* {last}: ")), "{last}:\n{out}");
    // The node starts at the instruction line just before the write.
    let node_start = lines[..last as usize]
        .iter()
        .rev()
        .find(|(_, w)| instruction_pc(w).is_some())
        .unwrap()
        .0;
    assert!(
        out.starts_with(&format!("written at line {node_start} (")),
        "{out}"
    );
}

#[test]
fn where_written_finds_the_last_memory_write() {
    // An 8-byte range; a write of any byte of it counts.
    let (addr, len) = (0xffff4, 8);
    let last = lines_of(TRACE)[..1025]
        .iter()
        .rev()
        .find(|(_, w)| memory_write(w).is_some_and(|(a, n)| a < addr + len && addr < a + n))
        .unwrap()
        .0;
    let out = run_where_written(1025, WriteTarget::Memory { addr, len });
    assert!(out.contains(&format!("\n* {last}: ")), "{last}:\n{out}");
    // Both halves are written by one node: both marked.
    assert_eq!(out.matches("\n* ").count(), 2, "{out}");
}

#[test]
fn where_written_says_when_nothing_was_written() {
    let out = run_where_written(
        1025,
        WriteTarget::Memory {
            addr: 0x1234_5678,
            len: 4,
        },
    );
    assert_eq!(out, "not written by line 1025\n");
}

#[test]
fn custom_report_counts_what_the_trace_text_says() {
    let symbols =
        tarmac_lens_core::SymbolTable::from_elf_bytes(&std::fs::read(path("elf")).unwrap(), 0)
            .unwrap();
    let mut functions: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut write_sizes: BTreeMap<usize, u64> = BTreeMap::new();
    for (_, words) in lines_of(&path("tarmac")) {
        if let Some(pc) = instruction_pc(&words) {
            let name = symbols.find_by_address(pc).unwrap().0.display_name();
            let row = functions.entry(name).or_default();
            if words[2] == "IT" {
                row.0 += 1;
            } else {
                row.1 += 1;
            }
        }
        if let Some((_, size)) = memory_write(&words) {
            *write_sizes.entry(size as usize).or_default() += 1;
        }
    }
    let report =
        custom_report::report(Path::new(&path("tarmac")), Some(Path::new(&path("elf")))).unwrap();
    assert_eq!(report.functions, functions);
    assert_eq!(report.write_sizes, write_sizes);
    assert_eq!(write_sizes.len(), 2, "MW4 and MW8 lines: {write_sizes:?}");
}

#[test]
fn custom_report_agrees_with_the_reference_profile_on_leaf_functions() {
    // The reference profile's time is a function's clocks, callees
    // included, and this trace takes one clock per instruction: for a
    // function that calls nothing it is its instruction count.
    let profile = std::fs::read_to_string(path("profile.ref")).unwrap();
    let time = |name: &str| -> u64 {
        profile
            .lines()
            .find_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.get(3) == Some(&name)).then(|| w[2].parse().unwrap())
            })
            .unwrap()
    };
    let report =
        custom_report::report(Path::new(&path("tarmac")), Some(Path::new(&path("elf")))).unwrap();
    for leaf in ["tg_rand", "cmp_ascending", "swap", "memcpy"] {
        let (executed, failed) = report.functions[leaf];
        assert_eq!(executed + failed, time(leaf), "{leaf}");
    }
}

#[test]
fn custom_report_without_an_elf_counts_per_address() {
    let mut out = Vec::new();
    custom_report::run(Path::new(&path("tarmac")), None, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    let report = custom_report::report(Path::new(&path("tarmac")), None).unwrap();
    let total: u64 = report.functions.values().map(|(e, f)| e + f).sum();
    let instructions = lines_of(&path("tarmac"))
        .iter()
        .filter(|(_, w)| instruction_pc(w).is_some())
        .count() as u64;
    assert_eq!(total, instructions);
    assert!(report.functions.keys().all(|k| k.starts_with("0x")));
    // 20 rows, then how many more.
    let more = report.functions.len() - 20;
    assert!(out.contains(&format!("\n... {more} more\n")), "{out}");
}

/// A reader that gives a few bytes at a time, as a pipe may.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(777);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn streaming_stats_counts_a_small_trace() {
    let trace = "10 clk IT (1) 00008000 e3a00000 A svc_s : MOV r0,#0\n\
                 10 clk R r0 00000000\n\
                 11 clk IS (2) 00008004 0a000001 A svc_s : BEQ {pc}+0xc\n\
                 12 clk IT (3) 00008008 e5801000 A svc_s : STR r1,[r0,#0]\n\
                 12 clk MW4 00000000 00000000\n\
                 not a trace line\n";
    let stats = streaming_stats::compute(Trickle(trace.as_bytes())).unwrap();
    assert_eq!(stats.dialect, "tarmac");
    assert_eq!(stats.lines, 6);
    assert_eq!(stats.bytes, trace.len() as u64);
    assert_eq!(stats.count("instruction"), 3);
    assert_eq!(stats.count("register"), 1);
    assert_eq!(stats.count("memory"), 1);
    assert_eq!(stats.unparsed, 1);
    assert_eq!(stats.unparsed_lines, [6]);
}

#[test]
fn streaming_stats_of_a_stream_are_those_of_the_file() {
    let bytes = std::fs::read(path("tarmac")).unwrap();
    let mut out = Vec::new();
    streaming_stats::run(Trickle(&bytes), true, &mut out).unwrap();
    let streamed: tarmac_lens_core::Stats = serde_json::from_slice(&out).unwrap();
    // Read at offsets, as the CLI reads a file.
    let file = tarmac_lens_core::compute_stats(
        tarmac_lens_core::FileSource::open(Path::new(&path("tarmac"))).unwrap(),
        Default::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(streamed, file);
    // And what the text says, word by word.
    let lines = lines_of(&path("tarmac"));
    let count = |f: &dyn Fn(&str) -> bool| {
        lines
            .iter()
            .filter(|(_, w)| w.get(2).is_some_and(|w| f(w)))
            .count() as u64
    };
    assert_eq!(streamed.lines, lines.len() as u64);
    assert_eq!(streamed.bytes, bytes.len() as u64);
    assert_eq!(
        streamed.count("instruction"),
        count(&|w| w == "IT" || w == "IS")
    );
    assert_eq!(streamed.count("register"), count(&|w| w == "R"));
    assert_eq!(
        streamed.count("memory"),
        count(&|w| w.starts_with("MR") || w.starts_with("MW"))
    );
    assert_eq!(streamed.unparsed, 0);
}

#[test]
fn a_stream_is_not_read_again_past_its_start() {
    use tarmac_lens_core::TraceSource;
    let bytes = vec![b'\n'; 100_000];
    let mut source = streaming_stats::ReadSource::new(&bytes[..]);
    let mut buf = vec![0; 50_000];
    assert_eq!(source.read_at(0, &mut buf).unwrap(), 50_000);
    // The start again: kept.
    assert_eq!(source.read_at(0, &mut buf[..100]).unwrap(), 100);
    // Past the start, behind the stream: gone.
    assert!(source.read_at(40_000, &mut buf).is_err());
    // Forward, to the end.
    assert_eq!(source.read_at(50_000, &mut buf).unwrap(), 50_000);
    assert_eq!(source.read_at(100_000, &mut buf).unwrap(), 0);
}
