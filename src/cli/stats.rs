//! `stats`: the trace's line and record counts, what was not understood
//! (by event word, then line by line), and register values short or
//! unknown, as a table or JSON.

use std::path::Path;
use std::time::Instant;

use tarmac_lens_core::{compute_stats, Stats, TraceSource};

use super::{display_name, write_stdout, Common};

pub(super) fn cmd_stats(common: &Common, json: bool) -> Result<(), String> {
    let source = common.open()?;
    let total = source.len();
    let bar = common.progress(total);
    let start = Instant::now();
    let stats = compute_stats(source, common.parse_options(), |done| {
        if let Some(b) = &bar {
            b.set_position(done);
        }
    })
    .map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mb_per_s = if seconds > 0.0 {
        stats.bytes as f64 / 1e6 / seconds
    } else {
        0.0
    };
    let out = if json {
        stats_json(&stats, seconds, mb_per_s)
    } else {
        stats_table(
            Path::new(&display_name(&common.trace)),
            &stats,
            seconds,
            mb_per_s,
            common.verbose,
        )
    };
    write_stdout(&out)
}

fn stats_json(stats: &Stats, seconds: f64, mb_per_s: f64) -> String {
    let mut v = serde_json::to_value(stats).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("seconds".into(), serde_json::json!(seconds));
        obj.insert("mb_per_s".into(), serde_json::json!(mb_per_s));
    }
    format!("{}\n", v)
}

fn stats_table(trace: &Path, stats: &Stats, seconds: f64, mb_per_s: f64, verbose: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "trace:    {}", trace.display());
    let _ = writeln!(s, "dialect:  {}", stats.dialect);
    let _ = writeln!(s, "bytes:    {}", stats.bytes);
    let _ = writeln!(s, "lines:    {}", stats.lines);
    let _ = writeln!(s, "records:");
    for (kind, n) in &stats.records {
        let _ = writeln!(s, "  {:<18} {:>12}", kind, n);
    }
    let _ = writeln!(s, "unparsed: {}", stats.unparsed);
    // By event word first: one unknown type makes many lines.
    let mut words: Vec<(&String, &u64)> = stats.unparsed_words.iter().collect();
    words.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (w, n) in words {
        if w.is_empty() {
            let _ = writeln!(s, "  {} lines of other types unread", thousands(*n));
        } else {
            let _ = writeln!(s, "  {} lines of type `{w}` unread", thousands(*n));
        }
    }
    let listed = if verbose {
        stats.unparsed_details.len()
    } else {
        stats.unparsed_details.len().min(20)
    };
    for u in &stats.unparsed_details[..listed] {
        let _ = writeln!(
            s,
            "  line {}: {} (column {}): {}",
            u.line, u.reason, u.column, u.text
        );
    }
    if stats.unparsed as usize > listed {
        let _ = writeln!(s, "  ... {} more", stats.unparsed as usize - listed);
    }
    let notes = [
        (
            &stats.short_register_values,
            "register values shorter than the register (zero-extended, or unchanged after dashes)",
        ),
        (
            &stats.unknown_register_values,
            "register values unknown (all dashes: nothing set)",
        ),
    ];
    for (note, what) in notes {
        if note.count > 0 {
            let _ = writeln!(
                s,
                "{} {what}, first at line {}",
                thousands(note.count),
                note.first_line
            );
        }
    }
    let _ = writeln!(s, "time:     {:.3} s ({:.1} MB/s)", seconds, mb_per_s);
    s
}

/// `4210` as `4,210`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
