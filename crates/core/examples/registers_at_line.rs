//! Prints the core registers after a line of a trace:
//!
//! ```text
//! cargo run -p tarmac-lens-core --example registers_at_line -- TRACE LINE
//! ```
//!
//! A first program on the core: open a trace, index it, then ask the
//! browsing session what the trace browser asks. The registers shown are
//! the state after the node (the instruction with its register and memory
//! lines) that holds the line.

// Traces are files read at offsets, which a browser has not got: native only.
#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::error::Error;
use std::io::Write;
use std::path::Path;

use tarmac_lens_core::{
    protocol::{Locate, RegMark, Registers},
    FileSource, ParseOptions, Session,
};

/// Writes `name value` for each core register after line `line` (1-based)
/// of the trace at `path`; values are hex, `?` for unknown digits.
pub fn run(path: &Path, line: u64, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let mut session = Session::open(FileSource::open(path)?, ParseOptions::default())?;
    // Indexing goes in steps so that a browser can answer questions between
    // them; here it runs to the end.
    while !session.index_step(16 << 20)?.complete {}

    let Some(found) = session.ask(Locate::Line(line))? else {
        return Err(format!("the trace has no line {line}").into());
    };
    let registers = session.ask(Registers {
        node: found.node,
        mark: RegMark::None,
    })?;
    for panel in registers.panels.iter().filter(|p| p.kind == "core") {
        for cell in &panel.cells {
            writeln!(out, "{:<4} {}", cell.name, cell.text)?;
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, line] = &args[..] else { usage() };
    let Ok(line) = line.parse() else { usage() };
    if let Err(e) = run(Path::new(path), line, &mut std::io::stdout().lock()) {
        eprintln!("registers_at_line: {e}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("usage: registers_at_line TRACE LINE");
    std::process::exit(2)
}
