//! Prints where a register or memory got the value it holds at a line: the
//! node (an instruction with its register and memory lines) that last wrote
//! it, at or before that line's node, and the call stack there.
//!
//! ```text
//! cargo run -p tarmac-lens-core --example where_written -- TRACE LINE x9
//! cargo run -p tarmac-lens-core --example where_written -- TRACE LINE 0xffff0 [LEN]
//! ```
//!
//! The index keeps, per stretch of trace, which registers and memory were
//! written, so the [`Write`](WriteQ) question finds the last write without reading
//! the trace before it; [`NodeLines`] then reads that node's lines back and
//! [`CallStack`] lists the calls active there. `session.ask` gives each
//! question's own type of answer.

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use std::error::Error;
use std::io::Write;
use std::path::Path;

use tarmac_lens_core::{
    protocol::{CallStack, Locate, NodeLines, Write as WriteQ, WriteTarget},
    FileSource, ParseOptions, Session,
};

/// Writes where `target` got its value at line `line` (1-based) of the trace
/// at `path`: `written at line N (time T, pc P)`, that node's lines
/// (`LINE: TEXT`, writes of the target marked `*`), then the calls active
/// there, outermost first; or `not written by line L`.
pub fn run(
    path: &Path,
    line: u64,
    target: WriteTarget,
    out: &mut dyn Write,
) -> Result<(), Box<dyn Error>> {
    let mut session = Session::open(FileSource::open(path)?, ParseOptions::default())?;
    while !session.index_step(16 << 20)?.complete {}

    let Some(at) = session.ask(Locate::Line(line))? else {
        return Err(format!("the trace has no line {line}").into());
    };
    let found = session.ask(WriteQ {
        node: at.node,
        target: target.clone(),
        forward: false,
    })?;
    let Some(writer) = found else {
        writeln!(out, "not written by line {line}")?;
        return Ok(());
    };
    writeln!(
        out,
        "written at line {} (time {}, pc {})",
        writer.first_line,
        writer.time,
        writer.pc.map_or("none".into(), |pc| format!("{pc:#x}"))
    )?;

    let lines = session.ask(NodeLines { node: writer.node })?;
    for l in lines {
        let writes = !l.read && l.target.as_ref().is_some_and(|t| same(t, &target));
        let mark = if writes { '*' } else { ' ' };
        writeln!(out, "{mark} {}: {}", l.line, l.text)?;
    }

    let stack = session.ask(CallStack { node: writer.node })?;
    for frame in stack {
        // `frame.name` is the callee's symbol once an ELF image is loaded
        // (`Session::load_elf`), empty without one.
        let callee = if frame.name.is_empty() {
            format!("{:#x}", frame.function)
        } else {
            frame.name
        };
        writeln!(
            out,
            "in a call to {callee} made at node {}",
            frame.call_node
        )?;
    }
    Ok(())
}

/// Whether a line's target is the one asked about: the same register name
/// (not an alias: `w9` is not `x9`), or memory overlapping the range.
fn same(line: &WriteTarget, asked: &WriteTarget) -> bool {
    match (line, asked) {
        (WriteTarget::Register(a), WriteTarget::Register(b)) => a.eq_ignore_ascii_case(b),
        (WriteTarget::Memory { addr: a, len: m }, WriteTarget::Memory { addr: b, len: n }) => {
            *a < b.saturating_add(*n) && *b < a.saturating_add(*m)
        }
        _ => false,
    }
}

/// A target from the command line: `0x…` with an optional length is
/// memory, anything else a register name.
fn target(args: &[String]) -> Option<WriteTarget> {
    let hex = args[0].strip_prefix("0x")?;
    let addr = u64::from_str_radix(hex, 16).ok()?;
    let len = match args.get(1) {
        Some(len) => len.parse().ok()?,
        None => 1,
    };
    Some(WriteTarget::Memory { addr, len })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(3..=4).contains(&args.len()) {
        usage()
    }
    let Ok(line) = args[1].parse() else { usage() };
    let target = if args[2].starts_with("0x") {
        target(&args[2..]).unwrap_or_else(|| usage())
    } else if args.len() == 3 {
        WriteTarget::Register(args[2].clone())
    } else {
        usage()
    };
    let path = Path::new(&args[0]);
    if let Err(e) = run(path, line, target, &mut std::io::stdout().lock()) {
        eprintln!("where_written: {e}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("usage: where_written TRACE LINE REGISTER | TRACE LINE 0xADDR [LEN]");
    std::process::exit(2)
}
