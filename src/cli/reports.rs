//! The batch reports that mirror the reference tools one for one:
//! `profile`, `flamegraph`, `callinfo`, `vcd` and `truncate`.

use std::io::Write;
use std::path::Path;

use tarmac_lens_core::{
    report,
    report::{callinfo, calltree, flamegraph, names, profile, truncate, vcd},
    TraceSource,
};

use super::{engine_options, write_stdout, write_stdout_bytes, Common};

/// Writes `text` to `output`, or to standard output.
fn write_output(output: Option<&Path>, text: &[u8]) -> Result<(), String> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| format!("{}: {}", path.display(), e)),
        None => write_stdout_bytes(text),
    }
}

fn call_tree(common: &Common) -> Result<Option<calltree::CallTree>, String> {
    let mut analysis = report::analyse_calls(
        common.open_engine()?,
        common.parse_options(),
        engine_options(common, false),
    )
    .map_err(|e| e.to_string())?;
    super::warn_unparsed(common, &analysis.unparsed);
    Ok(calltree::build_taking_calls(&mut analysis))
}

pub(super) fn cmd_profile(common: &Common, no_offsets: bool, lines: bool) -> Result<(), String> {
    let image = common.image()?;
    let dwarf = super::lines::beside_names(common, lines)?;
    let tree = call_tree(common)?;
    let table = tree
        .as_ref()
        .map(|t| profile::compute(t.root()))
        .unwrap_or_default();
    // The reference tool names every row through the root call tree, so
    // --no-offsets applies to all of them.
    let name = |addr: u64| {
        let name = names::function_name(image.as_ref(), addr, !no_offsets);
        super::lines::with_location(name, dwarf.as_ref(), addr)
    };
    write_stdout(&profile::render(&table, &name))
}

pub(super) fn cmd_flamegraph(
    common: &Common,
    no_offsets: bool,
    output: Option<&Path>,
) -> Result<(), String> {
    let image = common.image()?;
    let tree = call_tree(common)?;
    let text = match &tree {
        Some(tree) => {
            let name = |addr: u64, is_root: bool| {
                names::function_name(image.as_ref(), addr, !(no_offsets && is_root))
            };
            flamegraph::render(tree.root(), &name)
        }
        None => String::new(),
    };
    write_output(output, text.as_bytes())
}

pub(super) fn cmd_callinfo(common: &Common, args: &[String]) -> Result<(), String> {
    let image = common.image()?;
    // Resolve every argument before the (possibly long) pass over the trace.
    let targets = args
        .iter()
        .map(|a| callinfo::resolve(a, image.as_ref()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let addrs: Vec<u64> = targets.iter().map(|t| t.addr()).collect();
    let visits = callinfo::find_visits(
        common.open_engine()?,
        common.parse_options(),
        engine_options(common, false),
        &addrs,
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    for (t, v) in targets.iter().zip(&visits) {
        out.push_str(&callinfo::render(t, v));
    }
    write_stdout(&out)
}

pub(super) fn cmd_truncate(common: &Common, output: Option<&Path>) -> Result<(), String> {
    if common.image.is_some() {
        return Err("truncate does not use an ELF image (--image)".into());
    }
    // Two passes: find the cut, then copy up to it.
    common.open_random()?;
    let cut = truncate::find_cut(common.open_engine()?, common.parse_options())
        .map_err(|e| e.to_string())?;
    for w in &cut.warnings {
        eprintln!("tarmac-lens: {}: {}", common.trace.display(), w);
    }
    // Copy in chunks: the kept part of a runaway trace can be huge.
    let mut source = common.open_engine()?;
    let mut sink: Box<dyn Write> = match output {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path).map_err(|e| format!("{}: {}", path.display(), e))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    let result = (|| -> Result<(), String> {
        while done < cut.keep_bytes {
            let want = (cut.keep_bytes - done).min(buf.len() as u64) as usize;
            let n = source
                .read_at(done, &mut buf[..want])
                .map_err(|e| e.to_string())?;
            if n == 0 {
                return Err(format!(
                    "{}: file shrank while reading",
                    common.trace.display()
                ));
            }
            sink.write_all(&buf[..n])
                .map_err(|e| format!("writing output: {}", e))?;
            done += n as u64;
        }
        if cut.add_newline {
            sink.write_all(b"\n")
                .map_err(|e| format!("writing output: {}", e))?;
        }
        sink.flush().map_err(|e| format!("writing output: {}", e))
    })();
    match result {
        // A closed pipe (`| head`) is not an error worth reporting.
        Err(e) if e.contains("Broken pipe") => Ok(()),
        Err(e) => Err(e),
        Ok(()) => match cut.error {
            Some(e) => Err(format!("{}: {}", common.trace.display(), e)),
            None => Ok(()),
        },
    }
}

pub(super) fn cmd_vcd(
    common: &Common,
    no_offsets: bool,
    output: Option<&Path>,
    no_date: bool,
    use_tarmac_timestamps: bool,
) -> Result<(), String> {
    if output.is_none() && super::input::is_stdin(&common.trace) {
        return Err("vcd of standard input needs -o FILE (there is no TRACE.vcd to write)".into());
    }
    // Three passes: calls, the instruction set, the changes.
    common.open_random()?;
    let image = common.image()?;
    let tree = call_tree(common)?;
    // The reference tool names every change through the root call tree, so
    // --no-offsets applies to all of them.
    let name = |addr: u64| names::function_name(image.as_ref(), addr, !no_offsets);
    let functions = tree
        .as_ref()
        .map(|t| vcd::function_changes(t.root(), &name))
        .unwrap_or_default();
    let aarch64 = vcd::is_aarch64(common.open_engine()?, common.parse_options())
        .map_err(|e| e.to_string())?;
    let path = match output {
        Some(p) => p.to_path_buf(),
        None => {
            let mut p = common.trace.clone().into_os_string();
            p.push(".vcd");
            p.into()
        }
    };
    let file = std::fs::File::create(&path).map_err(|e| format!("{}: {}", path.display(), e))?;
    let mut w = std::io::BufWriter::new(file);
    let opts = vcd::VcdOptions {
        date: if no_date { None } else { Some(asctime_now()) },
        use_tarmac_timestamps,
    };
    let report = vcd::write(
        common.open_engine()?,
        common.parse_options(),
        engine_options(common, false),
        aarch64,
        functions,
        opts,
        &mut w,
    )
    .map_err(|e| e.to_string())?;
    w.flush()
        .map_err(|e| format!("{}: {}", path.display(), e))?;
    if report.backwards_count > 0 && !common.quiet {
        let name = common.trace.display();
        eprintln!(
            "tarmac-lens: warning: {name}: {} line(s) have a timestamp earlier than one before them; \
             VCD time cannot go back, so each is held at the latest time before it",
            report.backwards_count
        );
        for b in &report.backwards {
            eprintln!(
                "tarmac-lens: {name}:{}: timestamp {} is before {}; held at {}",
                b.line, b.time, b.held_at, b.held_at
            );
        }
    }
    Ok(())
}

/// The current time in C's `asctime` layout (`Thu Nov 21 06:55:00 2024`),
/// in UTC: the reference tool uses local time, but a date line is only
/// informative and UTC needs no time-zone database.
fn asctime_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:2} {:02}:{:02}:{:02} {}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        year
    )
}
