//! `tarmac-lens why TRACE --line N (REG | EXPR[:LEN])`: where a value came
//! from, as an indented tree of the writes that made it (one line per
//! step, the inputs of a step indented below it). Exit status 0 when the
//! tree was made, 2 when it could not be.

use clap::Args;

use tarmac_lens_core::{
    dataflow::{why, ImageMemory, WhyImage, WhyNode},
    Watched,
};

use super::find::TROUBLE;
use super::{display_name, index, Common};

#[derive(Args)]
pub struct WhyArgs {
    /// Where: the value after the node holding line LINE (a node that
    /// writes it is its own first step).
    #[arg(long, value_name = "LINE")]
    line: u64,
    /// What: a register (`x5`, `w3`, `r0`, `sp`, `cpsr`) or memory, an
    /// address expression and its length in bytes (default 8), e.g.
    /// `sp+8:8`, `0x1000:4`; registers in it take their values at --line.
    #[arg(value_name = "REG|EXPR[:LEN]")]
    what: String,
    /// Levels of inputs expanded below the value (deeper steps say "not
    /// expanded": ask again from their line).
    #[arg(long, value_name = "D", default_value_t = 4)]
    depth: u32,
    /// Print the tree as one JSON document (schema in docs/cli.md).
    #[arg(long)]
    json: bool,
}

/// Runs the command: prints the tree and returns the exit status.
pub fn run(common: &Common, args: &WhyArgs) -> i32 {
    match explain(common, args) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            TROUBLE
        }
    }
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
            if len == 0 || len > 4096 {
                return Err(format!("{s}: the length must be 1 to 4096 bytes"));
            }
            return Ok((e, len));
        }
    }
    Ok((s, 8))
}

fn explain(common: &Common, args: &WhyArgs) -> Result<(), String> {
    let symbols = common.image()?;
    let memory = match &common.image {
        Some(path) => {
            let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let m = ImageMemory::from_elf_bytes(&data, common.load_offset.unwrap_or(0))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Some(m)
        }
        None => None,
    };
    let index = index::obtain(common)?.index;
    let mut source = common.open_random()?;
    let name = display_name(&common.trace);
    let node = index
        .node_at_line(&mut source, args.line)
        .map_err(|e| format!("{name}: --line {}: {e}", args.line))?
        .at
        .node;
    // Only a bare name is a register: the lookup takes a name's prefix.
    let bare = (args.what.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_');
    let what = match index.register_named(&args.what).filter(|_| bare) {
        Some(reg) => Watched::Reg(reg),
        None => {
            let (expr, len) = split_len(&args.what)?;
            let addr = index
                .eval_at(&mut source, node, expr, symbols.as_ref())
                .map_err(|e| format!("{}: {e} (after line {})", args.what, args.line))?;
            Watched::Mem { addr, len }
        }
    };
    let image = WhyImage {
        symbols: symbols.as_ref(),
        memory: memory.as_ref(),
    };
    let started = std::time::Instant::now();
    let tree = why(&index, &mut source, node, what, args.depth, image)
        .map_err(|e| format!("{name}: {e}"))?;
    if common.verbose {
        let ms = started.elapsed().as_secs_f64() * 1e3;
        eprintln!(
            "tarmac-lens: a tree of {} steps in {ms:.1} ms",
            tree.count()
        );
    }
    if common.quiet {
        return Ok(());
    }
    if args.json {
        let doc = serde_json::to_string(&tree).map_err(|e| e.to_string())?;
        super::write_stdout(&format!("{doc}\n"))
    } else {
        let mut text = String::new();
        render(&tree, 0, &mut text);
        super::write_stdout(&text)
    }
}

/// One line per step: `x0 = 0x5  ← line 123 time 61 pc 0x8004 func:
/// MOV x0,#5  [immediate]`, then the addresses not followed, inputs
/// indented two spaces deeper.
fn render(n: &WhyNode, level: usize, out: &mut String) {
    out.push_str(&"  ".repeat(level));
    let value = if n.value.is_empty() { "?" } else { &n.value };
    out.push_str(&format!("{} = {value}", n.what));
    match &n.writer {
        Some(w) => {
            out.push_str(&format!("  ← line {} time {}", w.line, w.time));
            match w.pc {
                Some(pc) => out.push_str(&format!(" pc {pc:#x}")),
                None => out.push_str(" pc -"),
            }
            if let Some(f) = &n.function {
                out.push_str(&format!(" {f}"));
            }
            if let Some(i) = &n.instruction {
                out.push_str(&format!(": {i}"));
            }
        }
        None => out.push_str("  ← no earlier write"),
    }
    let label = n.source.label();
    if !label.is_empty() {
        out.push_str(&format!("  [{label}]"));
    }
    if !n.not_followed.is_empty() {
        out.push_str(&format!("  (not followed: {})", n.not_followed.join(", ")));
    }
    out.push('\n');
    for i in &n.inputs {
        render(i, level + 1, out);
    }
}
