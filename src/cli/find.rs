//! `tarmac-lens find TRACE 'CONDITION'`: the nodes where a value condition
//! on registers and memory becomes true (grammar in README.md and
//! `tarmac_lens_core::condition`). Like `diff`, its exit status is the
//! answer: 0 found, 1 not found, 2 could not tell.

use clap::Args;
use serde_json::json;

use tarmac_lens_core::{Condition, ExprContext, FileSource, SymbolTable, TraceSource};

use super::{display_name, index, Common};

/// Exit status with hits.
const FOUND: i32 = 0;
/// Exit status without.
const NONE: i32 = 1;
/// Exit status when the search could not be made.
pub const TROUBLE: i32 = 2;

#[derive(Args)]
pub struct FindArgs {
    /// The condition: `x5 == 0`, `cpsr & 0x80`, `[sp+8:4] == 0xdeadbeef`,
    /// `pc == main+0x20 && x0 == 1` (grammar in README.md).
    #[arg(value_name = "CONDITION", allow_hyphen_values = true)]
    condition: String,
    /// Only the first node where it becomes true (the default).
    #[arg(long, conflicts_with_all = ["all", "max"])]
    first: bool,
    /// Every node where it becomes true.
    #[arg(long, conflicts_with = "max")]
    all: bool,
    /// At most N nodes.
    #[arg(long, value_name = "N")]
    max: Option<usize>,
    /// Search after (with --backward: before) the node holding line LINE
    /// (default: from the start, or with --backward from the end).
    #[arg(long, value_name = "LINE")]
    from: Option<u64>,
    /// Search towards the start of the trace, nearest first.
    #[arg(long)]
    backward: bool,
    /// Print the hits as one JSON document (schema in docs/cli.md).
    #[arg(long)]
    json: bool,
}

/// Symbols of the image, if any; registers are the condition's own.
struct Names<'a>(Option<&'a SymbolTable>);

impl ExprContext for Names<'_> {
    fn register(&self, _: &str) -> Option<u64> {
        None
    }
    fn symbol(&self, name: &str) -> Option<u64> {
        self.0?.address_of(name)
    }
}

/// Runs the command: prints the hits and returns the exit status.
pub fn run(common: &Common, args: &FindArgs) -> i32 {
    match find(common, args) {
        Ok(true) => FOUND,
        Ok(false) => NONE,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            TROUBLE
        }
    }
}

fn hex(v: Option<u64>) -> String {
    v.map_or_else(|| "?".into(), |v| format!("{v:#x}"))
}

fn find(common: &Common, args: &FindArgs) -> Result<bool, String> {
    let image = common.image()?;
    let cond = Condition::parse(&args.condition, &Names(image.as_ref()))
        .map_err(|e| format!("condition '{}': {e}", args.condition))?;
    let index = index::obtain(common)?.index;
    let mut source = common.open_random()?;
    let name = display_name(&common.trace);
    let from = match args.from {
        None => None,
        Some(line) => Some(
            index
                .node_at_line(&mut source, line)
                .map_err(|e| format!("{name}: --from {line}: {e}"))?
                .at
                .node,
        ),
    };
    let max = if args.all {
        usize::MAX
    } else {
        args.max.unwrap_or(1)
    };
    // Threads replay intervals, each reading a plain file on its own.
    let mut extra: Vec<Box<dyn TraceSource + Send>> = Vec::new();
    let plain = matches!(source, super::input::Opened::File(_));
    if plain && common.jobs() > 1 {
        for _ in 0..common.jobs() {
            let file = FileSource::open(&common.trace).map_err(|e| format!("{name}: {e}"))?;
            extra.push(Box::new(file));
        }
    }
    let hits = index
        .find_condition_parallel(&mut source, &mut extra, &cond, from, !args.backward, max)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut text = String::new();
    let mut rows = Vec::new();
    for hit in &hits {
        let n = &hit.node;
        let operands = index
            .condition_operands(&mut source, &cond, n)
            .map_err(|e| format!("{name}: {e}"))?;
        let pc = n.has_instruction().then_some(n.at.pc);
        let function = match (&image, pc) {
            (Some(i), Some(pc)) => Some(i.symbolic_address(pc, false)).filter(|f| !f.is_empty()),
            _ => None,
        };
        if args.json {
            let ops: serde_json::Map<String, serde_json::Value> = operands
                .iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.map_or(serde_json::Value::Null, |v| json!(format!("{v:#x}"))),
                    )
                })
                .collect();
            rows.push(json!({
                "node": n.at.node,
                "line": n.at.line,
                "time": n.own_time,
                "pc": pc.map(|p| format!("{p:#x}")),
                "function": function,
                "operands": ops,
            }));
        } else {
            text.push_str(&format!("line {} time {}", n.at.line, n.own_time));
            match pc {
                Some(pc) => text.push_str(&format!(" pc {pc:#x}")),
                None => text.push_str(" pc -"),
            }
            if let Some(f) = &function {
                text.push_str(&format!(" {f}"));
            }
            text.push(':');
            for (k, v) in &operands {
                text.push_str(&format!(" {k}={}", hex(*v)));
            }
            text.push('\n');
        }
    }
    if args.json {
        let doc = json!({
            "condition": args.condition,
            "direction": if args.backward { "backward" } else { "forward" },
            "hits": rows,
        });
        text = format!("{doc}\n");
    }
    if !common.quiet {
        super::write_stdout(&text)?;
    }
    Ok(!hits.is_empty())
}
