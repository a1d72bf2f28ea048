//! `coverage`: an image's coverage by many traces, each read once by one
//! of `--jobs` threads and folded in as it finishes (so memory is the
//! program's size whatever the number of traces), and `coverage merge`,
//! which joins the `--json` results of separate runs. The work is the
//! core's (`tarmac_lens_core::coverage`); threads stay here, as the core
//! also runs in the page.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use clap::{Args, Subcommand};

use tarmac_lens_core::coverage::{count_trace, Coverage, Image, TraceCounts};
use tarmac_lens_core::parse::{CpuName, Dialect, ParseOptions};

use super::input::{self, Mode};
use super::{display_name, parse_c_integer, parse_dialect, write_stdout};

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    about = "Function, source-line, instruction and branch coverage of an ELF image by \
             traces: a summary on standard output, --lcov and --json files; \
             `coverage merge PART...` joins the --json results of separate runs"
)]
pub struct CoverageArgs {
    #[command(subcommand)]
    merge: Option<Merge>,
    /// Trace files to read (each once).
    #[arg(value_name = "TRACE", required = true)]
    traces: Vec<PathBuf>,
    /// ELF image of the traced program: its code is what is covered.
    #[arg(long, value_name = "ELF", required = true)]
    image: Option<PathBuf>,
    /// Offset from ELF addresses to their addresses in the traces (C integer syntax).
    #[arg(long, value_name = "OFFSET", value_parser = parse_c_integer, allow_hyphen_values = true)]
    load_offset: Option<i64>,
    /// Traces read at a time, one thread each (default: the available cores, at most 8).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Instruction lines without an instruction-set state are Thumb.
    #[arg(long)]
    implicit_thumb: bool,
    /// The traced CPU is little-endian (default).
    #[arg(long, overrides_with = "bi")]
    li: bool,
    /// The traced CPU is big-endian.
    #[arg(long, overrides_with = "li")]
    bi: bool,
    /// Force the traces' dialect: tarmac, armulator or ti-ep (default: detect).
    #[arg(long, value_name = "NAME", value_parser = parse_dialect)]
    dialect: Option<Dialect>,
    /// In multi-core traces, cover this core's instructions (the `<cpu>` field).
    #[arg(long, value_name = "CPU")]
    cpu: Option<CpuName>,
    #[command(flatten)]
    out: Outputs,
}

#[derive(Subcommand)]
enum Merge {
    /// Join the --json results of separate coverage runs (of the same
    /// image), in the order given: the outputs one run over all their
    /// traces, in that order, gives.
    Merge {
        /// --json files written by `coverage` (or by `coverage merge`).
        #[arg(value_name = "PART", required = true)]
        parts: Vec<PathBuf>,
        #[command(flatten)]
        out: Outputs,
    },
}

#[derive(Args)]
struct Outputs {
    /// Write an lcov tracefile (for genhtml, CI coverage services) to FILE.
    #[arg(long, value_name = "FILE")]
    lcov: Option<PathBuf>,
    /// Write the coverage as JSON to FILE: per line and function, which
    /// traces ran it; also the partial result `coverage merge` reads.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// No warnings about unparsed lines.
    #[arg(short, long)]
    quiet: bool,
}

pub(super) fn run(args: CoverageArgs) -> Result<(), String> {
    match args.merge {
        Some(Merge::Merge { parts, out }) => merge(&parts, &out),
        None => cover(&args),
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the outputs asked for and the summary; then says how many
/// inputs failed, which makes the status non-zero.
fn finish(
    cov: &Coverage,
    out: &Outputs,
    failed: usize,
    inputs: usize,
    noun: &str,
) -> Result<(), String> {
    if let Some(path) = &out.lcov {
        write_file(path, &cov.to_lcov().map_err(|e| e.to_string())?)?;
    }
    if let Some(path) = &out.json {
        write_file(path, &cov.to_json())?;
    }
    write_stdout(&cov.to_text())?;
    if failed > 0 {
        return Err(format!(
            "{failed} of {inputs} {noun} could not be read (named above); \
             the outputs cover the other {}",
            inputs - failed
        ));
    }
    Ok(())
}

fn count_one(path: &Path, opts: ParseOptions) -> Result<TraceCounts, String> {
    // Plain, compressed or piped, read once as it comes.
    let mut source = input::Cache::default().open(path, opts, Mode::Stream, true)?;
    let name = display_name(path);
    tarmac_lens_core::cores::check_single_core(&mut source, opts)
        .map_err(|e| format!("{name}: {e}"))?;
    count_trace(source, opts).map_err(|e| format!("{name}: {e}"))
}

fn cover(args: &CoverageArgs) -> Result<(), String> {
    let Some(image_path) = &args.image else {
        return Err("coverage needs --image ELF: its code is what the traces cover".into());
    };
    let opts = ParseOptions {
        implicit_thumb: args.implicit_thumb,
        big_endian: args.bi,
        dialect: args.dialect,
        cpu: args.cpu,
        instruction_form: None,
    };
    let traces = &args.traces;
    if traces.iter().filter(|p| input::is_stdin(p)).count() > 1 {
        return Err("standard input (`-`) can be read once: give it as one trace at most".into());
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
        .clamp(1, traces.len().max(1));
    let next = AtomicUsize::new(0);
    // A bounded queue: a finished trace waits for the fold, so counts in
    // memory stay a few traces' worth however many there are.
    let (tx, rx) = mpsc::sync_channel::<(usize, Result<TraceCounts, String>)>(jobs);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = traces.get(i) else {
                    break;
                };
                if tx.send((i, count_one(path, opts))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // The image is read while the first traces are.
        let built = std::fs::read(image_path)
            .map_err(|e| e.to_string())
            .and_then(|data| {
                let image = Image::from_elf_bytes(
                    &display_name(image_path),
                    Arc::from(data),
                    args.load_offset.unwrap_or(0),
                )
                .map_err(|e| e.to_string())?;
                if args.out.lcov.is_some() && !image.has_dwarf() {
                    return Err(
                        "no DWARF line information (built without -g, or stripped): \
                         --lcov needs source lines; the summary and --json give addresses"
                            .to_string(),
                    );
                }
                let cov = Coverage::new(&image).map_err(|e| e.to_string())?;
                Ok((image, cov))
            })
            .map_err(|e| format!("{}: {e}", image_path.display()));
        let (image, mut cov) = match built {
            Ok(b) => b,
            Err(e) => {
                next.store(traces.len(), Ordering::Relaxed);
                drop(rx);
                return Err(e);
            }
        };
        let mut failed = 0;
        for (i, result) in rx {
            let name = display_name(&traces[i]);
            let folded = result.and_then(|counts| {
                warn_unparsed(args.out.quiet, &name, &counts);
                let reached = cov
                    .add_trace(i as u32, &name, &counts, &image)
                    .map_err(|e| format!("{name}: {e}"))?;
                if reached.in_image == 0 && reached.outside > 0 && !args.out.quiet {
                    eprintln!(
                        "tarmac-lens: warning: {name}: none of the {} addresses it ran is \
                         in {}'s code (another program, or --load-offset missing?)",
                        reached.outside,
                        image_path.display()
                    );
                }
                Ok(())
            });
            if let Err(e) = folded {
                eprintln!("tarmac-lens: {e}");
                failed += 1;
            }
        }
        finish(&cov, &args.out, failed, traces.len(), "traces")
    })
}

fn warn_unparsed(quiet: bool, name: &str, counts: &TraceCounts) {
    let u = &counts.unparsed;
    if u.count == 0 || quiet {
        return;
    }
    eprintln!(
        "tarmac-lens: warning: {name}: {} line(s) could not be parsed and were skipped",
        u.count
    );
    for (line, reason) in &u.first {
        eprintln!("tarmac-lens: {name}:{line}: {reason}");
    }
}

fn merge(parts: &[PathBuf], out: &Outputs) -> Result<(), String> {
    let mut acc: Option<Coverage> = None;
    let mut failed = 0;
    for path in parts {
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Coverage::from_json(&text).map_err(|e| e.to_string()))
            .and_then(|part| match &mut acc {
                None => {
                    acc = Some(part);
                    Ok(())
                }
                Some(a) => a.merge(part).map_err(|e| e.to_string()),
            });
        if let Err(e) = read {
            eprintln!("tarmac-lens: {}: {e}", path.display());
            failed += 1;
        }
    }
    let Some(cov) = acc else {
        return Err("no part could be read".into());
    };
    finish(&cov, out, failed, parts.len(), "parts")
}
