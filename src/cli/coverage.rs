//! `coverage`: an image's coverage by many traces, each read once by one
//! of `--jobs` threads and folded in as it finishes (so memory is the
//! program's size whatever the number of traces); `coverage merge`,
//! which joins the `--json` results of separate runs a part at a time;
//! `coverage combine`, a set expression over named parts; `coverage
//! which`, the runs that ran a line, function or address; `coverage
//! minimize`, a greedy cover of the runs. The work is the core's
//! (`tarmac_lens_core::coverage`); threads stay here, as the core also
//! runs in the page.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use clap::{Args, Subcommand};

use tarmac_lens_core::{
    coverage::{count_trace, Coverage, Image, Target, TraceCounts},
    CpuName, Dialect, ParseOptions,
};

use super::input::{self, Mode};
use super::{display_name, parse_c_integer, parse_dialect, write_stdout};

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    about = "Function, source-line, instruction and branch coverage of an ELF image by \
             traces: a summary on standard output, --lcov, --json and --drcov files; \
             `coverage merge PART...` joins the --json results of separate runs, \
             `coverage combine EXPR NAME=PART...` combines them as sets, \
             `coverage which` lists the runs that ran a line, function or address, \
             `coverage minimize` picks runs that keep the coverage (greedy)"
)]
pub struct CoverageArgs {
    #[command(subcommand)]
    command: Option<PartsCommand>,
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
    /// Write the basic blocks the traces reached as drcov (lighthouse,
    /// Cartographer, bncov) to FILE, the image as its module.
    #[arg(long, value_name = "FILE")]
    drcov: Option<PathBuf>,
    /// Write one drcov file per trace into DIR (`NAME.drcov`, NAME the
    /// trace's file name).
    #[arg(long, value_name = "DIR")]
    drcov_each: Option<PathBuf>,
    #[command(flatten)]
    out: Outputs,
}

/// What `coverage` does with --json results.
#[derive(Subcommand)]
enum PartsCommand {
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
    /// Combine --json results as sets, by an expression over names given
    /// to them (`'(a|b)-c' a=PART b=PART c=PART`): Python's set
    /// operators and precedence, `-` difference, `&` intersection, `^`
    /// symmetric difference, `|` union. A line is in the result when the
    /// expression holds for the parts that ran it.
    Combine {
        /// The expression.
        #[arg(value_name = "EXPR")]
        expr: String,
        /// The parts, each NAME=PART (a --json file).
        #[arg(value_name = "NAME=PART", required = true)]
        parts: Vec<String>,
        #[command(flatten)]
        out: Outputs,
    },
    /// The runs (traces) of --json results that ran a source line, a
    /// function or the code at an address, one name a line.
    Which {
        /// --json files (merged in order first).
        #[arg(value_name = "PART", required = true)]
        parts: Vec<PathBuf>,
        /// A source line: FILE:LINE (the end of its path is enough).
        #[arg(long, value_name = "FILE:LINE", group = "target")]
        line: Option<String>,
        /// A function, by name.
        #[arg(long, value_name = "NAME", group = "target")]
        function: Option<String>,
        /// An address: answered by its source line (its function where it
        /// has none): runs are kept per line, not per instruction.
        #[arg(long, value_name = "ADDR", value_parser = parse_c_integer, group = "target")]
        address: Option<i64>,
    },
    /// Runs (traces) of --json results that together cover every line
    /// all of them cover, picked by a greedy cover: the run adding the
    /// most lines first, and so on. Not always the smallest such set.
    Minimize {
        /// --json files (merged in order first).
        #[arg(value_name = "PART", required = true)]
        parts: Vec<PathBuf>,
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
    match args.command {
        Some(PartsCommand::Merge { parts, out }) => merge(&parts, &out),
        Some(PartsCommand::Combine { expr, parts, out }) => combine(&expr, &parts, &out),
        Some(PartsCommand::Which {
            parts,
            line,
            function,
            address,
        }) => which(&parts, line, function, address),
        Some(PartsCommand::Minimize { parts }) => minimize(&parts),
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
    tarmac_lens_core::check_single_core(&mut source, opts).map_err(|e| format!("{name}: {e}"))?;
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
        if let Some(dir) = &args.drcov_each {
            if let Err(e) = std::fs::create_dir_all(dir) {
                next.store(traces.len(), Ordering::Relaxed);
                drop(rx);
                return Err(format!("{}: {e}", dir.display()));
            }
        }
        let module = module_path(image_path);
        for (i, result) in rx {
            let name = display_name(&traces[i]);
            let folded = result.and_then(|counts| {
                warn_unparsed(args.out.quiet, &name, &counts);
                if let Some(dir) = &args.drcov_each {
                    // The trace alone, as a coverage of its own.
                    let mut one = Coverage::new(&image).map_err(|e| e.to_string())?;
                    one.add_trace(0, &name, &counts, &image)
                        .map_err(|e| format!("{name}: {e}"))?;
                    let file_name = traces[i]
                        .file_name()
                        .map_or_else(|| "stdin".into(), |n| n.to_string_lossy().into_owned());
                    let path = dir.join(format!("{file_name}.drcov"));
                    write_drcov(&one, &image, &module, &path)?;
                }
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
        if let Some(path) = &args.drcov {
            write_drcov(&cov, &image, &module, path)?;
        }
        finish(&cov, &args.out, failed, traces.len(), "traces")
    })
}

/// The image's path as drcov's module table gives it: absolute, as the
/// tools match it against the binary they show (by its file name).
fn module_path(image: &Path) -> String {
    std::fs::canonicalize(image)
        .unwrap_or_else(|_| image.to_path_buf())
        .display()
        .to_string()
}

fn write_drcov(cov: &Coverage, image: &Image, module: &str, path: &Path) -> Result<(), String> {
    let mut bytes = Vec::new();
    cov.to_drcov(image, module, &mut bytes)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// `export --format drcov`: one trace's reached basic blocks, with the
/// image (`--image`, required) as the module.
pub(super) fn export_drcov(common: &super::Common, output: Option<&Path>) -> Result<(), String> {
    let Some(image_path) = &common.image else {
        return Err("drcov needs --image ELF: its code is the module the blocks are in".into());
    };
    let opts = common.parse_options();
    let mut source = common.open()?;
    let name = display_name(&common.trace);
    tarmac_lens_core::check_single_core(&mut source, opts).map_err(|e| format!("{name}: {e}"))?;
    let counts = count_trace(source, opts).map_err(|e| format!("{name}: {e}"))?;
    warn_unparsed(common.quiet, &name, &counts);
    let data = std::fs::read(image_path).map_err(|e| format!("{}: {e}", image_path.display()))?;
    let image = Image::from_elf_bytes(
        &display_name(image_path),
        Arc::from(data),
        common.load_offset.unwrap_or(0),
    )
    .map_err(|e| format!("{}: {e}", image_path.display()))?;
    let mut cov = Coverage::new(&image).map_err(|e| e.to_string())?;
    let reached = cov
        .add_trace(0, &name, &counts, &image)
        .map_err(|e| format!("{name}: {e}"))?;
    if reached.outside > 0 && !common.quiet {
        eprintln!(
            "tarmac-lens: warning: {name}: {} address(es) it ran are outside {}'s code: \
             no module holds them, so the drcov file leaves them out",
            reached.outside,
            image_path.display()
        );
    }
    let module = module_path(image_path);
    match output {
        Some(path) => write_drcov(&cov, &image, &module, path),
        None => {
            let mut bytes = Vec::new();
            cov.to_drcov(&image, &module, &mut bytes)
                .map_err(|e| e.to_string())?;
            super::write_stdout_bytes(&bytes)
        }
    }
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

/// Reads one --json part.
fn read_part(path: &Path) -> Result<Coverage, String> {
    std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| Coverage::from_json(&text).map_err(|e| e.to_string()))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The parts merged in order; any part that cannot be read or merged is
/// an error (the commands that answer from it answer nothing).
fn merged_strictly(parts: &[PathBuf]) -> Result<Coverage, String> {
    let mut acc: Option<Coverage> = None;
    for path in parts {
        let part = read_part(path)?;
        match &mut acc {
            None => acc = Some(part),
            Some(a) => a
                .merge(part)
                .map_err(|e| format!("{}: {e}", path.display()))?,
        }
    }
    acc.ok_or_else(|| "no part given".to_string())
}

fn combine(expr: &str, parts: &[String], out: &Outputs) -> Result<(), String> {
    let mut named = Vec::new();
    for p in parts {
        let Some((name, path)) = p.split_once('=') else {
            return Err(format!(
                "`{p}`: give each part as NAME=PART (a --json file of `coverage`)"
            ));
        };
        if named.iter().any(|(n, _): &(String, PathBuf)| n == name) {
            return Err(format!("part `{name}` is given twice"));
        }
        named.push((name.to_string(), PathBuf::from(path)));
    }
    // Every part is read before anything is written: a bad one (of
    // another image, cut short, not a result) leaves no output.
    let mut read = Vec::new();
    for (name, path) in &named {
        read.push((name.clone(), read_part(path)?));
    }
    let cov = Coverage::combine(expr, read).map_err(|e| e.to_string())?;
    finish(&cov, out, 0, parts.len(), "parts")
}

fn which(
    parts: &[PathBuf],
    line: Option<String>,
    function: Option<String>,
    address: Option<i64>,
) -> Result<(), String> {
    let target = match (line, function, address) {
        (Some(l), _, _) => {
            let (file, n) = l
                .rsplit_once(':')
                .and_then(|(f, n)| Some((f, n.parse::<u32>().ok()?)))
                .ok_or_else(|| format!("--line {l}: give FILE:LINE"))?;
            Target::Line(file.to_string(), n)
        }
        (None, Some(f), _) => Target::Function(f),
        (None, None, Some(a)) => Target::Address(a as u64),
        (None, None, None) => {
            return Err(
                "coverage which needs --line FILE:LINE, --function NAME or --address ADDR".into(),
            )
        }
    };
    let cov = merged_strictly(parts)?;
    let runs = cov.runs(&target).map_err(|e| e.to_string())?;
    let mut text = format!(
        "# {} run(s) of {} ran {}\n",
        runs.traces.len(),
        cov.trace_count(),
        runs.by
    );
    for t in &runs.traces {
        text.push_str(t);
        text.push('\n');
    }
    write_stdout(&text)
}

fn minimize(parts: &[PathBuf]) -> Result<(), String> {
    let cov = merged_strictly(parts)?;
    let cover = cov.greedy_cover();
    let mut text = format!(
        "# greedy cover (not always the smallest set): {} of {} run(s) cover the {} {} all of them cover\n",
        cover.picks.len(),
        cov.trace_count(),
        cover.total,
        cover.unit
    );
    for (name, added) in &cover.picks {
        text.push_str(&format!("{name}\t+{added}\n"));
    }
    write_stdout(&text)
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
