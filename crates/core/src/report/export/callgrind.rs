//! Callgrind's profile format (valgrind.org/docs/manual/cl-format.html),
//! which KCachegrind and QCachegrind open. The one event is
//! `Instructions`: an instruction executed (or failing its condition)
//! costs 1. Cost is per instruction address, and per source line too when
//! the image has DWARF (`positions: instr line`); each function's calls
//! are `cfn=`/`calls=` lines with the number of activations and their
//! inclusive cost. Functions are the activations' entry addresses, named
//! as `profile` names them.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use super::{walk, Act, Calls, ExportReport, Sink};
use crate::debuginfo::DebugInfo;
use crate::engine::EngineOptions;
use crate::parse::ParseOptions;
use crate::report::calltree::Activation;
use crate::source::TraceSource;
use crate::{Error, Result};

/// Per function (entry address) and instruction address, instructions run.
#[derive(Default)]
struct Costs {
    own: BTreeMap<u64, BTreeMap<u64, u64>>,
    /// (caller, call instruction, callee) → (calls, inclusive cost).
    edges: BTreeMap<(u64, u64, u64), (u64, u64)>,
    /// Open activations: instructions run before each.
    open: Vec<u64>,
}

impl Sink for Costs {
    fn enter(&mut self, open: &[Act], _ts: u64, instructions: u64) -> Result<()> {
        if let Some(a) = open.last() {
            // A function that ran no instruction of its own is still listed.
            self.own.entry(a.pc).or_default();
        }
        self.open.push(instructions);
        Ok(())
    }

    fn leave(&mut self, open: &[Act], _ts: u64, instructions: u64) -> Result<()> {
        // The walk leaves the innermost activation: the one entered last.
        let Some(before) = self.open.pop() else {
            return Ok(());
        };
        if let [.., parent, act] = open {
            let e = self
                .edges
                .entry((parent.pc, act.call_pc, act.pc))
                .or_default();
            e.0 += 1;
            e.1 += instructions.saturating_sub(before);
        }
        Ok(())
    }

    fn instruction(&mut self, open: &[Act], pc: u64, _ts: u64) {
        if let Some(a) = open.last() {
            *self.own.entry(a.pc).or_default().entry(pc).or_default() += 1;
        }
    }

    fn instant(&mut self, _ts: u64, _name: &str, _category: &str) -> Result<()> {
        Ok(())
    }
}

/// Source positions of addresses, looked up once each.
struct Places<'d> {
    dwarf: Option<&'d DebugInfo>,
    seen: HashMap<u64, (String, u32)>,
}

impl Places<'_> {
    fn of(&mut self, pc: u64) -> (String, u32) {
        let Some(dwarf) = self.dwarf else {
            return ("???".into(), 0);
        };
        self.seen
            .entry(pc)
            .or_insert_with(|| {
                // The Thumb bit is no part of the address DWARF knows.
                match dwarf.location(pc & !1) {
                    Ok(Some(l)) => (l.file, l.line.unwrap_or(0)),
                    _ => ("???".into(), 0),
                }
            })
            .clone()
    }
}

/// Walks the trace with the tree of `root` (none for a trace without
/// instructions) and writes its Callgrind
/// profile. `command` is the `cmd:` line (the trace's name); `name`
/// names functions (empty: their address); with `dwarf`, positions
/// carry source lines.
#[allow(clippy::too_many_arguments)]
pub fn write<S: TraceSource>(
    source: S,
    parse_opts: ParseOptions,
    engine_opts: EngineOptions,
    root: Option<Activation<'_>>,
    command: &str,
    name: &dyn Fn(u64) -> String,
    dwarf: Option<&DebugInfo>,
    out: &mut dyn Write,
) -> Result<ExportReport> {
    let mut costs = Costs::default();
    // Cost is counted in instructions: the trace's times play no part.
    let report = walk(
        source,
        parse_opts,
        engine_opts,
        Calls::Tree(root),
        false,
        &mut costs,
    )?;
    render(&costs, &report, command, name, dwarf, out).map_err(Error::Write)?;
    Ok(report)
}

/// Names have no line breaks in the format; a name is the rest of its line.
fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn render(
    costs: &Costs,
    report: &ExportReport,
    command: &str,
    name: &dyn Fn(u64) -> String,
    dwarf: Option<&DebugInfo>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let fname = |pc: u64| {
        let n = name(pc);
        one_line(&if n.is_empty() { format!("0x{pc:x}") } else { n })
    };
    let mut places = Places {
        dwarf,
        seen: HashMap::new(),
    };
    let lines = dwarf.is_some();
    let pos = |pc: u64, places: &mut Places<'_>| -> (String, String) {
        if lines {
            let (file, line) = places.of(pc);
            (file, format!("0x{pc:x} {line}"))
        } else {
            ("???".into(), format!("0x{pc:x}"))
        }
    };
    writeln!(out, "# callgrind format")?;
    writeln!(out, "version: 1")?;
    writeln!(out, "creator: tarmac-lens")?;
    writeln!(out, "cmd: {}", one_line(command))?;
    writeln!(
        out,
        "positions: {}",
        if lines { "instr line" } else { "instr" }
    )?;
    writeln!(out, "events: Instructions")?;
    writeln!(out, "summary: {}", report.instructions)?;
    for (&func, own) in &costs.own {
        let (file, _) = pos(func, &mut places);
        writeln!(out)?;
        writeln!(out, "fl={}", one_line(&file))?;
        writeln!(out, "fn={}", fname(func))?;
        let mut current = file.clone();
        let mut in_file = |f: String, out: &mut dyn Write| -> std::io::Result<()> {
            if f != current {
                // Code of another file in this function: inlined.
                writeln!(out, "fi={}", one_line(&f))?;
                current = f;
            }
            Ok(())
        };
        for (&pc, &n) in own {
            let (f, p) = pos(pc, &mut places);
            in_file(f, out)?;
            writeln!(out, "{p} {n}")?;
        }
        for (&(_, call_pc, callee), &(calls, inclusive)) in
            costs.edges.range((func, 0, 0)..=(func, u64::MAX, u64::MAX))
        {
            let (callee_file, target) = pos(callee, &mut places);
            let (f, at) = pos(call_pc, &mut places);
            in_file(f, out)?;
            writeln!(out, "cfl={}", one_line(&callee_file))?;
            writeln!(out, "cfn={}", fname(callee))?;
            writeln!(out, "calls={calls} {target}")?;
            writeln!(out, "{at} {inclusive}")?;
        }
    }
    writeln!(out)?;
    writeln!(out, "totals: {}", report.instructions)?;
    out.flush()
}
