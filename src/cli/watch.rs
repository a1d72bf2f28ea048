//! `tarmac-lens watch TRACE (--reg R | --mem EXPR[:LEN])`: the nodes that
//! read or write a register or a memory range, either every one in a line
//! range or the next (previous) ones from a line. Hits are printed as they
//! are found. Like `find`, the exit status is the answer: 0 found, 1 not
//! found, 2 could not tell.

use clap::Args;
use serde_json::json;

use tarmac_lens_core::{
    value_text, AccessHit, AccessKind, Index, MemAccessed, SymbolTable, TraceSource, Watched,
};

use super::find::TROUBLE;
use super::{display_name, index, Common};

#[derive(Args)]
pub struct WatchArgs {
    /// The register watched (`x5`, `w3`, `r0`, `sp`, `cpsr`, `q1`, `z0`...):
    /// every node that writes any byte of it, or whose instruction reads
    /// it (decoded from its encoding).
    #[arg(
        long,
        value_name = "REG",
        conflicts_with = "mem",
        required_unless_present = "mem"
    )]
    reg: Option<String>,
    /// The memory watched: an address expression (`buf`, `sp+8`, `0x1000`,
    /// `main+0x20`) and its length in bytes (default 1), e.g. `sp:0x40`,
    /// `buf:64`. Registers in it take their values where --at says.
    #[arg(long, value_name = "EXPR[:LEN]")]
    mem: Option<String>,
    /// Reads only (memory loads; the registers an instruction reads).
    #[arg(long, conflicts_with = "writes")]
    reads: bool,
    /// Writes only.
    #[arg(long)]
    writes: bool,
    /// Only nodes holding lines A to B (`A..B`, `A..`, `..B`; default: all).
    #[arg(long, value_name = "A..B", conflicts_with = "from")]
    lines: Option<String>,
    /// Instead of a list: the accesses after (with --backward: before) the
    /// node holding line LINE, nearest first (--max, default 1, of them).
    #[arg(long, value_name = "LINE")]
    from: Option<u64>,
    /// With --from: search towards the start of the trace.
    #[arg(long, requires = "from")]
    backward: bool,
    /// At most N nodes.
    #[arg(long, value_name = "N")]
    max: Option<usize>,
    /// Where the registers of --mem are read: after the node holding line
    /// LINE (default: the line of --from, or the first line of --lines).
    #[arg(long, value_name = "LINE")]
    at: Option<u64>,
    /// Print the hits as one JSON document (schema in docs/cli.md).
    #[arg(long)]
    json: bool,
}

/// Runs the command: prints the hits and returns the exit status.
pub fn run(common: &Common, args: &WatchArgs) -> i32 {
    match watch(common, args) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            TROUBLE
        }
    }
}

/// `A..B`, `A..`, `..B` (1-based, inclusive).
fn line_range(s: &str) -> Result<(Option<u64>, Option<u64>), String> {
    let bad = || format!("--lines {s}: not a range of lines A..B");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let num = |t: &str| -> Result<Option<u64>, String> {
        match t.trim() {
            "" => Ok(None),
            t => t.parse().map(Some).map_err(|_| bad()),
        }
    };
    let (a, b) = (num(a)?, num(b)?);
    if let (Some(a), Some(b)) = (a, b) {
        if b < a {
            return Err(format!("--lines {s}: the last line is before the first"));
        }
    }
    Ok((a, b))
}

/// `EXPR[:LEN]`: the length is taken only when what follows the last
/// colon is a number, so a scoped symbol name keeps its colons.
fn split_len(s: &str) -> Result<(&str, u64), String> {
    if let Some((e, n)) = s.rsplit_once(':') {
        let n = n.trim();
        let parsed = match n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => n.parse().ok(),
        };
        if let Some(len) = parsed {
            if len == 0 {
                return Err(format!("--mem {s}: the length is 0"));
            }
            return Ok((e, len));
        }
    }
    Ok((s, 1))
}

fn watch(common: &Common, args: &WatchArgs) -> Result<bool, String> {
    let image = common.image()?;
    let index = index::obtain(common)?.index;
    let mut source = common.open_random()?;
    let name = display_name(&common.trace);
    let fail = |e: tarmac_lens_core::Error| format!("{name}: {e}");
    let node_of = |source: &mut dyn TraceSource, line: u64, what: &str| {
        index
            .node_at_line(source, line)
            .map(|n| n.at.node)
            .map_err(|e| format!("{name}: {what} {line}: {e}"))
    };
    let (first, last) = match &args.lines {
        None => (None, None),
        Some(s) => line_range(s)?,
    };
    let nodes = index.summary().nodes;
    if nodes == 0 {
        return Ok(false);
    }
    let lo = match first {
        Some(l) => node_of(&mut source, l, "--lines")?,
        None => 0,
    };
    let hi = match last {
        Some(l) => node_of(&mut source, l, "--lines")?,
        None => nodes - 1,
    };
    let from = match args.from {
        Some(l) => Some(node_of(&mut source, l, "--from")?),
        None => None,
    };
    let what = match (&args.reg, &args.mem) {
        (Some(r), _) => Watched::Reg(
            index
                .register_named(r)
                .ok_or_else(|| format!("--reg {r}: not a register name"))?,
        ),
        (None, Some(m)) => {
            let (expr, len) = split_len(m)?;
            let at = match args.at {
                Some(l) => node_of(&mut source, l, "--at")?,
                None => from.unwrap_or(lo),
            };
            let addr = index
                .eval_at(&mut source, at, expr, image.as_ref())
                .map_err(|e| {
                    format!(
                        "--mem {m}: {e} (after line {}; --at LINE picks where)",
                        line_of(&index, &mut source, at)
                    )
                })?;
            Watched::Mem { addr, len }
        }
        (None, None) => return Err("--reg or --mem is needed".into()),
    };
    let kind = if args.reads {
        AccessKind::Read
    } else if args.writes {
        AccessKind::Write
    } else {
        AccessKind::Any
    };
    let big_endian = common.parse_options().big_endian;
    let show = |h: &AccessHit| describe(h, what, image.as_ref(), big_endian, args.json);
    let mut rows = Vec::new();
    let mut found = 0usize;
    let mut out = |h: AccessHit| -> Result<(), String> {
        let row = show(&h);
        if args.json {
            rows.push(row);
        } else if !common.quiet {
            super::write_stdout(row.as_str().unwrap_or_default())?;
        }
        Ok(())
    };
    match from {
        Some(mut node) => {
            let max = args.max.unwrap_or(1);
            while found < max {
                let hit = if args.backward {
                    index.prev_access(&mut source, node, what, kind)
                } else {
                    index.next_access(&mut source, node, what, kind)
                };
                let Some(h) = hit.map_err(fail)? else { break };
                node = h.node.at.node;
                found += 1;
                out(h)?;
            }
        }
        None => {
            let max = args.max.unwrap_or(usize::MAX);
            let mut trouble = Ok(());
            index
                .accesses(
                    &mut source,
                    what,
                    kind,
                    lo..=hi,
                    &mut |h| {
                        found += 1;
                        trouble = out(h);
                        trouble.is_ok() && found < max
                    },
                    &mut |_| true,
                )
                .map_err(fail)?;
            trouble?;
        }
    }
    if args.json {
        let target = match what {
            Watched::Reg(_) => json!({ "reg": args.reg }),
            Watched::Mem { addr, len } => json!({ "addr": format!("{addr:#x}"), "len": len }),
        };
        let doc = json!({
            "watch": target,
            "kind": kind_word(kind),
            "hits": rows,
        });
        if !common.quiet {
            super::write_stdout(&format!("{doc}\n"))?;
        }
    }
    if found == 0 && !common.quiet {
        let target = match what {
            Watched::Reg(_) => args.reg.clone().unwrap_or_default(),
            Watched::Mem { addr, len } => format!("[{addr:#x}:{len}]"),
        };
        eprintln!("tarmac-lens: no {} of {target}", kind_word(kind));
    }
    Ok(found > 0)
}

fn kind_word(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
        AccessKind::Any => "access",
    }
}

fn line_of(index: &Index, source: &mut dyn TraceSource, node: u64) -> u64 {
    index.node(source, node).map_or(0, |n| n.at.line)
}

/// A hit as a text line, or as a JSON object (as a `Value`).
fn describe(
    h: &AccessHit,
    what: Watched,
    image: Option<&SymbolTable>,
    big_endian: bool,
    json: bool,
) -> serde_json::Value {
    let n = &h.node;
    let pc = n.has_instruction().then_some(n.at.pc);
    let function = match (image, pc) {
        (Some(i), Some(pc)) => Some(i.symbolic_address(pc, false)).filter(|f| !f.is_empty()),
        _ => None,
    };
    let kind = h.kind_text();
    let access = |a: &MemAccessed| {
        let v = value_text(&a.bytes, &a.known, big_endian);
        (if a.write { "W" } else { "R" }, a.addr, a.bytes.len(), v)
    };
    let reg_value = h
        .reg
        .as_ref()
        .map(|(b, k)| value_text(&b[..b.len().min(8)], k, false));
    if json {
        let mem: Vec<_> = h
            .mem
            .iter()
            .map(|a| {
                let (d, addr, len, v) = access(a);
                json!({ "access": d, "addr": format!("{addr:#x}"), "len": len, "value": v })
            })
            .collect();
        let mut row = json!({
            "node": n.at.node,
            "line": n.at.line,
            "time": n.own_time,
            "pc": pc.map(|p| format!("{p:#x}")),
            "function": function,
            "access": kind,
        });
        match what {
            Watched::Mem { .. } => row["accesses"] = json!(mem),
            Watched::Reg(_) => row["value"] = json!(reg_value),
        }
        return row;
    }
    let mut text = format!("line {} time {}", n.at.line, n.own_time);
    match pc {
        Some(pc) => text.push_str(&format!(" pc {pc:#x}")),
        None => text.push_str(" pc -"),
    }
    if let Some(f) = &function {
        text.push_str(&format!(" {f}"));
    }
    text.push_str(&format!(": {kind} {}", h.detail(big_endian)));
    text.push('\n');
    serde_json::Value::String(text)
}
