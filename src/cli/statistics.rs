//! The statistics reports, each from one pass over the trace
//! (`report::stats`): `mix`, `levels`, `exceptions`, `functions`, `loops`,
//! `cfg` and `cache-tlb`, as text or, with `--json`, as the report's value.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde::Serialize;

use tarmac_lens_core::report::stats::{Report, Statistics};

use super::{engine_options, write_stdout, Common};

/// One statistics command.
#[derive(Subcommand)]
pub enum StatsCommand {
    /// Instruction mix: executed instructions by class (load, store,
    /// branch, ALU, multiply/divide, floating point, SIMD, system,
    /// exception, hint, undecoded) and by mnemonic, condition-failed
    /// apart; overall, per exception level and per function.
    Mix {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
    },
    /// Instructions and trace time per exception level and security
    /// state (M-profile: thread or handler mode), and the changes of mode.
    Levels {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
    },
    /// Each exception and interrupt taken (event line, where it was taken,
    /// its handler's first instruction, its return, time and instructions
    /// inside, nesting, entry registers in words), and per vector the
    /// count, time inside and interrupt latency.
    Exceptions {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
    },
    /// Per function: calls, inclusive and own time and instructions with
    /// min/mean/max per call, and the same by caller.
    Functions {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
        /// Take the time and instructions of exceptions taken inside a call
        /// out of it (default: counted in it, as time passed).
        #[arg(long)]
        exclude_exceptions: bool,
    },
    /// Per conditional branch site the times taken and not taken; per loop
    /// (found by its back-edges) its entries, iterations per entry and the
    /// time and instructions inside.
    Loops {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
    },
    /// The executed control-flow graph of a function (basic blocks with
    /// execution counts, edges with counts) as Graphviz DOT.
    Cfg {
        #[command(flatten)]
        common: Common,
        /// The function: an ELF symbol (with --image) or an address.
        #[arg(long, value_name = "NAME")]
        function: String,
        /// Print the graph as JSON instead of DOT.
        #[arg(long)]
        json: bool,
        /// Write to FILE instead of standard output.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Translation and cache events (TTW/TTU, TLB/WALKCACHE, CACHE lines):
    /// per kind, counts by their fields and the first events decoded.
    CacheTlb {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        out: Output,
        /// Events of each kind listed with their fields.
        #[arg(long, value_name = "N", default_value_t = 20)]
        max: usize,
    },
}

/// How a report is printed.
#[derive(Args)]
pub struct Output {
    /// Print the report as one JSON value instead of a table.
    #[arg(long)]
    json: bool,
}

impl StatsCommand {
    pub fn common(&self) -> &Common {
        match self {
            StatsCommand::Mix { common, .. }
            | StatsCommand::Levels { common, .. }
            | StatsCommand::Exceptions { common, .. }
            | StatsCommand::Functions { common, .. }
            | StatsCommand::Loops { common, .. }
            | StatsCommand::Cfg { common, .. }
            | StatsCommand::CacheTlb { common, .. } => common,
        }
    }
}

fn compute(common: &Common) -> Result<Statistics, String> {
    let image = common.image()?;
    let stats = Statistics::compute(
        common.open_engine()?,
        common.parse_options(),
        engine_options(common, false),
        image,
    )
    .map_err(|e| e.to_string())?;
    super::warn_unparsed(common, stats.unparsed());
    Ok(stats)
}

fn print<T: Serialize>(
    out: &Output,
    value: &T,
    stats: &Statistics,
    report: Report,
) -> Result<(), String> {
    if out.json {
        let mut s = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        s.push('\n');
        write_stdout(&s)
    } else {
        write_stdout(&stats.text(&report).map_err(|e| e.to_string())?)
    }
}

fn write_to(output: Option<&Path>, text: &str) -> Result<(), String> {
    match output {
        Some(p) => std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display())),
        None => write_stdout(text),
    }
}

/// Prints the text each report's page tab downloads
/// (`Statistics::text`), or with `--json` its value.
pub fn run(cmd: &StatsCommand) -> Result<(), String> {
    let stats = compute(cmd.common())?;
    match cmd {
        StatsCommand::Mix { out, .. } => print(out, &stats.mix(), &stats, Report::Mix),
        StatsCommand::Levels { out, .. } => print(out, &stats.levels(), &stats, Report::Levels),
        StatsCommand::Exceptions { out, .. } => {
            print(out, &stats.exceptions(), &stats, Report::Exceptions)
        }
        StatsCommand::Functions {
            out,
            exclude_exceptions,
            ..
        } => {
            let exceptions_in_calls = !exclude_exceptions;
            let value = stats.functions(exceptions_in_calls);
            print(
                out,
                &value,
                &stats,
                Report::Functions {
                    exceptions_in_calls,
                },
            )
        }
        StatsCommand::Loops { out, .. } => print(out, &stats.loops(), &stats, Report::Loops),
        StatsCommand::Cfg {
            function,
            json,
            output,
            ..
        } => {
            let text = if *json {
                let r = stats.cfg(function).map_err(|e| e.to_string())?;
                let mut s = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
                s.push('\n');
                s
            } else {
                stats
                    .text(&Report::Cfg {
                        function: function.clone(),
                    })
                    .map_err(|e| e.to_string())?
            };
            write_to(output.as_deref(), &text)
        }
        StatsCommand::CacheTlb { out, max, .. } => {
            print(out, &stats.memsys(), &stats, Report::CacheTlb { max: *max })
        }
    }
}
