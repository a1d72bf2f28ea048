//! A report the CLI does not have, from one pass of the engine over a trace:
//! instructions per function (executed, and failed their condition) and
//! memory writes by size.
//!
//! ```text
//! cargo run -p tarmac-lens-core --example custom_report -- TRACE [ELF]
//! ```
//!
//! The [`Engine`] is the machine model behind the index and every report:
//! fed each line's parsed record in order, it keeps registers, memory,
//! nodes and calls, and tells an [`Observer`] what happens. A report is an
//! observer that counts what it wants. With an ELF image, addresses are
//! named by the function holding them ([`SymbolTable::find_by_address`]);
//! without one, each instruction address is its own row. Only the 20
//! busiest rows are printed.

// Traces are files read at offsets, which a browser has not got: native only.
#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, HashMap};
use std::error::Error;
use std::io::Write;
use std::path::Path;

use tarmac_lens_core::{
    read_sample, Effect, Engine, EngineOptions, FileSource, LineReader, Observer, ParseOptions,
    Parser, SymbolTable, TraceSource,
};

/// Rows printed.
const ROWS: usize = 20;

/// What the pass counted.
#[derive(Debug, Default)]
pub struct Report {
    /// Per function name (per address in hex without an ELF, `?` for an
    /// address no symbol holds): instructions executed, and instructions
    /// that failed their condition.
    pub functions: BTreeMap<String, (u64, u64)>,
    /// Bytes written by one access -> how many such writes.
    pub write_sizes: BTreeMap<usize, u64>,
}

/// The observer: counts per address while the trace streams by; names are
/// looked up once per address at the end, not once per instruction.
#[derive(Default)]
struct Counter {
    by_pc: HashMap<u64, (u64, u64)>,
    write_sizes: BTreeMap<usize, u64>,
}

impl Observer for Counter {
    fn instruction(&mut self, pc: u64, effect: Effect) {
        let counts = self.by_pc.entry(pc).or_default();
        match effect {
            Effect::Executed => counts.0 += 1,
            _ => counts.1 += 1,
        }
    }

    fn mem_write(&mut self, _node: u64, _addr: u64, bytes: &[u8]) {
        *self.write_sizes.entry(bytes.len()).or_default() += 1;
    }
}

/// Runs the engine over every line of `source`, telling `observer`.
fn one_pass(
    mut source: impl TraceSource,
    opts: ParseOptions,
    observer: &mut dyn Observer,
) -> tarmac_lens_core::Result<()> {
    // The dialect (Fast Models, Armulator, ...) is told from the first bytes.
    let sample = read_sample(&mut source)?;
    let mut parser = Parser::for_sample(opts, &sample);
    let mut engine = Engine::new(EngineOptions {
        big_endian: opts.big_endian,
        ..EngineOptions::default()
    });
    let mut lines = LineReader::new(source);
    let mut next_line = 1;
    while let Some(line) = lines.next_line()? {
        let record = parser.parse_line(line.text);
        engine.feed(&line, &record, observer);
        next_line = line.number + 1;
    }
    // Closes the last node.
    engine.finish(lines.position(), next_line, observer);
    Ok(())
}

/// Counts the trace at `trace`, naming functions from the ELF at `elf`.
pub fn report(trace: &Path, elf: Option<&Path>) -> Result<Report, Box<dyn Error>> {
    let symbols = match elf {
        Some(path) => Some(SymbolTable::from_elf_bytes(&std::fs::read(path)?, 0)?),
        None => None,
    };
    let mut counter = Counter::default();
    one_pass(
        FileSource::open(trace)?,
        ParseOptions::default(),
        &mut counter,
    )?;

    let mut functions: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (pc, (executed, failed)) in counter.by_pc {
        let name = match &symbols {
            Some(table) => table
                .find_by_address(pc)
                .map_or_else(|| "?".to_string(), |(symbol, _)| symbol.display_name()),
            None => format!("{pc:#x}"),
        };
        let row = functions.entry(name).or_default();
        row.0 += executed;
        row.1 += failed;
    }
    Ok(Report {
        functions,
        write_sizes: counter.write_sizes,
    })
}

/// Prints [`report`]'s counts: the busiest functions first, then the
/// write sizes.
pub fn run(trace: &Path, elf: Option<&Path>, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let report = report(trace, elf)?;
    let mut rows: Vec<_> = report.functions.iter().collect();
    rows.sort_by(|a, b| (b.1 .0 + b.1 .1).cmp(&(a.1 .0 + a.1 .1)).then(a.0.cmp(b.0)));
    writeln!(out, "{:>10} {:>10}  function", "executed", "failed")?;
    for (name, (executed, failed)) in rows.iter().take(ROWS) {
        writeln!(out, "{executed:>10} {failed:>10}  {name}")?;
    }
    if rows.len() > ROWS {
        writeln!(out, "... {} more", rows.len() - ROWS)?;
    }
    writeln!(out, "\n{:>10}  memory writes", "bytes")?;
    for (size, count) in &report.write_sizes {
        writeln!(out, "{size:>10}  {count}")?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (trace, elf) = match &args[..] {
        [trace] => (trace, None),
        [trace, elf] => (trace, Some(Path::new(elf))),
        _ => {
            eprintln!("usage: custom_report TRACE [ELF]");
            std::process::exit(2)
        }
    };
    if let Err(e) = run(Path::new(trace), elf, &mut std::io::stdout().lock()) {
        eprintln!("custom_report: {e}");
        std::process::exit(1);
    }
}
