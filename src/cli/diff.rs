//! `tarmac-lens diff`, for people and for CI: like `cmp` and `diff`, its
//! exit status says the answer (0 the traces agree, 1 they diverge, 2 it
//! could not tell), `-q` prints nothing, `--json` gives the divergences
//! with both sides' fields, and `--ignore`/`--ignore-mem` leave out
//! differences known to be benign.

use std::path::PathBuf;

use clap::Args;

use tarmac_lens_core::{diff, diff::Ignore, report::callinfo, ParseOptions, SymbolTable};

use super::input::{self, display_name, Mode};
use super::Common;

/// Exit status when the traces agree.
const SAME: i32 = 0;
/// Exit status when they diverge.
const DIVERGED: i32 = 1;
/// Exit status when the comparison could not be made.
pub const TROUBLE: i32 = 2;

#[derive(Args)]
pub struct DiffArgs {
    /// The trace to compare with TRACE (read with the same options,
    /// its dialect detected on its own; `-` for standard input).
    #[arg(value_name = "OTHER")]
    other: PathBuf,
    /// Stop after this many divergences.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max: usize,
    /// Print the divergences as one JSON document (schema in docs/cli.md).
    #[arg(long)]
    json: bool,
    /// Registers whose differences do not count (comma-separated, repeatable;
    /// names as the trace writes them: x3, w3, cpsr, d1, lr, sp).
    #[arg(long, value_name = "REG,...", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Memory whose differences do not count: START..END (END excluded),
    /// START:LENGTH, or an ELF symbol with --image (repeatable; addresses
    /// as `callinfo` takes them: 0x1000, main+0x10).
    #[arg(long = "ignore-mem", value_name = "RANGE")]
    ignore_mem: Vec<String>,
}

/// Runs the command: prints the answer and returns the exit status.
pub fn run(common: &Common, args: &DiffArgs) -> i32 {
    match compare(common, args) {
        Ok(true) => DIVERGED,
        Ok(false) => SAME,
        Err(msg) => {
            eprintln!("tarmac-lens: {msg}");
            TROUBLE
        }
    }
}

/// Whether the traces diverge.
fn compare(common: &Common, args: &DiffArgs) -> Result<bool, String> {
    // Options first: a typo should not wait for two traces to be read.
    let image = common.image()?;
    let ignore = ignore_set(args, image.as_ref())?;
    if input::is_stdin(&common.trace) && input::is_stdin(&args.other) {
        return Err("only one of the two traces can be standard input".into());
    }
    let a = common.open_engine()?;
    let parse_b = ParseOptions {
        dialect: None,
        ..common.parse_options()
    };
    let b = input::Cache::default().open(&args.other, parse_b, Mode::Stream, common.quiet)?;
    let report = diff::diff_ignoring(
        a,
        common.parse_options(),
        b,
        parse_b,
        args.max,
        &ignore,
        |_, _| {},
    )
    .map_err(|e| e.to_string())?;
    let (name_a, name_b) = (display_name(&common.trace), display_name(&args.other));
    super::warn_unparsed(common, &report.unparsed_a);
    super::warn_unparsed_in(common, &name_b, &report.unparsed_b);
    if !common.quiet {
        let text = if args.json {
            diff::render_json(&report, &name_a, &name_b)
        } else {
            diff::render(&report, &name_a, &name_b)
        };
        super::write_stdout(&text)?;
    }
    Ok(!report.divergences.is_empty())
}

fn ignore_set(args: &DiffArgs, image: Option<&SymbolTable>) -> Result<Ignore, String> {
    let mut ignore = Ignore::default();
    for name in &args.ignore {
        ignore
            .register(name)
            .map_err(|e| format!("--ignore: {e}"))?;
    }
    for range in &args.ignore_mem {
        let (start, len) =
            memory_range(range, image).map_err(|e| format!("--ignore-mem {range}: {e}"))?;
        ignore.memory(start, len);
    }
    Ok(ignore)
}

/// `START..END`, `START:LENGTH` or a symbol's extent.
fn memory_range(range: &str, image: Option<&SymbolTable>) -> Result<(u64, u64), String> {
    let addr = |s: &str| -> Result<u64, String> {
        callinfo::resolve(s.trim(), image)
            .map(|t| t.addr())
            .map_err(|e| e.to_string())
    };
    if let Some((a, b)) = range.split_once("..") {
        let (start, end) = (addr(a)?, addr(b)?);
        if end <= start {
            return Err(format!(
                "the end 0x{end:x} is not after the start 0x{start:x}"
            ));
        }
        return Ok((start, end - start));
    }
    if let Some((a, n)) = range.split_once(':') {
        let len = addr(n)?;
        if len == 0 {
            return Err("the length is 0".into());
        }
        return Ok((addr(a)?, len));
    }
    match callinfo::resolve(range.trim(), image).map_err(|e| e.to_string())? {
        callinfo::Target::Symbol { addr, size, .. } if size > 0 => Ok((addr, size)),
        _ => Err(
            "not a range: START..END or START:LENGTH (or a symbol with a size, with --image)"
                .into(),
        ),
    }
}
