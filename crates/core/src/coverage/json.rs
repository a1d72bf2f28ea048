//! The JSON output, which is also the partial result `coverage merge`
//! reads: everything a merge needs (every instruction's counts and place,
//! every line's and function's traces) with the derived figures beside it
//! for readers. Reading takes only the first kind; the figures are
//! derived again, so a part cannot make them disagree.
//!
//! One element of an array per line, so a reader (or `diff`) sees a
//! line per source line or instruction.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use super::render::{Ratio, Tally};
use super::{Coverage, ImageId, Insn, Kind, Outcomes};
use crate::{Error, Result};

const FORMAT: &str = "tarmac-lens coverage";
const VERSION: u64 = 1;

fn ratio(r: Ratio) -> Value {
    json!({"hit": r.hit, "total": r.total})
}

fn tally(t: &Tally) -> Value {
    json!({
        "lines": ratio(t.lines),
        "functions": ratio(t.functions),
        "branches": ratio(t.branches),
        "instructions": ratio(t.instructions),
    })
}

fn hex(pc: u64) -> String {
    format!("0x{pc:x}")
}

#[derive(Serialize)]
struct LineOut<'a> {
    executed: u64,
    failed: u64,
    line: u32,
    traces: &'a [u32],
}

#[derive(Serialize)]
struct FileOut<'a> {
    branches: Vec<Value>,
    file: &'a str,
    lines: Vec<LineOut<'a>>,
    totals: Value,
}

#[derive(Serialize)]
struct FunctionOut<'a> {
    entries: u64,
    executed: u64,
    file: Option<&'a str>,
    line: Option<u32>,
    name: &'a str,
    traces: &'a [u32],
}

fn record(r: &impl Serialize) -> String {
    // Plain data with string keys: serialising cannot fail.
    serde_json::to_string(r).unwrap_or_default()
}

pub(crate) fn write(cov: &Coverage) -> String {
    let view = cov.view();
    let files: Vec<&str> = view
        .groups
        .iter()
        .filter(|g| cov.image.dwarf && !g.lines.is_empty())
        .map(|g| g.name.as_str())
        .collect();
    let file_index: BTreeMap<&str, usize> =
        files.iter().enumerate().map(|(i, f)| (*f, i)).collect();
    let function_index: BTreeMap<&str, usize> = view
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (&*f.name, i))
        .collect();
    // Typed records, their fields in the order a JSON object's sorted
    // keys come: the runs of a line or function are written as numbers
    // straight from the list, never as a `Value` each (32 bytes apiece: a
    // merge of 10,000 runs held 30 MB of them).
    let file_values: Vec<String> = view
        .groups
        .iter()
        .filter(|g| file_index.contains_key(g.name.as_str()))
        .map(|g| {
            let lines: Vec<LineOut<'_>> = g
                .lines
                .iter()
                .map(|l| LineOut {
                    executed: l.executed,
                    failed: l.failed,
                    line: l.line,
                    traces: &l.traces,
                })
                .collect();
            let branches: Vec<Value> = g
                .branches
                .iter()
                .map(|b| {
                    json!({
                        "pc": hex(b.pc),
                        "line": b.line,
                        "kind": b.kind.name(),
                        "outcomes": if b.reached { json!(b.outcomes) } else { Value::Null },
                    })
                })
                .collect();
            record(&FileOut {
                branches,
                file: &g.name,
                lines,
                totals: tally(&g.tally),
            })
        })
        .collect();
    let function_values: Vec<String> = view
        .functions
        .iter()
        .map(|f| {
            record(&FunctionOut {
                entries: f.entries,
                executed: f.executed,
                file: f.line.as_ref().map(|l| &*l.0),
                line: f.line.as_ref().map(|l| l.1),
                name: &f.name,
                traces: &f.traces,
            })
        })
        .collect();
    let insn_values: Vec<String> = cov
        .insns
        .iter()
        .map(|(&pc, i)| {
            let v = json!({
                "pc": hex(pc),
                "size": i.size,
                "kind": i.kind.name(),
                "in_image": i.in_image,
                "file": i.line.as_ref().and_then(|l| file_index.get(&*l.0)),
                "line": i.line.as_ref().map(|l| l.1),
                "function": i.function.as_ref().and_then(|f| function_index.get(&**f)),
                "executed": i.counts.executed,
                "failed": i.counts.failed,
                "taken": i.counts.taken,
                "fallthrough": i.counts.fallthrough,
            });
            v.to_string()
        })
        .collect();
    let head = [
        ("format", json!(FORMAT)),
        ("version", json!(VERSION)),
        (
            "image",
            json!({
                "file": cov.image.name,
                "fnv1a64": format!("{:016x}", cov.image.digest),
                "load_offset": cov.image.load_offset,
                "dwarf": cov.image.dwarf,
            }),
        ),
        ("traces", json!(cov.traces.values().collect::<Vec<_>>())),
        ("totals", tally(&view.totals)),
        (
            "outside_image",
            json!({"addresses": view.outside.0, "executed": view.outside.1}),
        ),
    ];
    let mut out = String::from("{\n");
    for (key, value) in head {
        out.push_str(&format!("\"{key}\": {value},\n"));
    }
    let arrays = [
        ("files", file_values),
        ("functions", function_values),
        ("instructions", insn_values),
    ];
    let last = arrays.len() - 1;
    for (n, (key, values)) in arrays.into_iter().enumerate() {
        out.push_str(&format!("\"{key}\": ["));
        for (i, v) in values.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.push_str(v);
        }
        out.push_str(if values.is_empty() { "]" } else { "\n]" });
        out.push_str(if n == last { "\n" } else { ",\n" });
    }
    out.push_str("}\n");
    out
}

fn bad(what: impl std::fmt::Display) -> Error {
    Error::Coverage(format!(
        "not a coverage result (a --json file of `coverage`): {what}"
    ))
}

fn field<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Value> {
    v.get(key).ok_or_else(|| bad(format!("{at}: no \"{key}\"")))
}

fn u64_of(v: &Value, key: &str, at: &str) -> Result<u64> {
    field(v, key, at)?
        .as_u64()
        .ok_or_else(|| bad(format!("{at}: \"{key}\" is not a count")))
}

fn str_of<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a str> {
    field(v, key, at)?
        .as_str()
        .ok_or_else(|| bad(format!("{at}: \"{key}\" is not text")))
}

fn array<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a Vec<Value>> {
    field(v, key, at)?
        .as_array()
        .ok_or_else(|| bad(format!("{at}: \"{key}\" is not a list")))
}

/// A list of trace indices, each below `traces`.
fn traces_of(v: &Value, at: &str, traces: usize) -> Result<Vec<u32>> {
    array(v, "traces", at)?
        .iter()
        .map(|t| {
            t.as_u64()
                .filter(|&t| (t as usize) < traces)
                .map(|t| t as u32)
                .ok_or_else(|| bad(format!("{at}: trace {t} is not one of the {traces} traces")))
        })
        .collect()
}

/// `Some(index)` of an optional index into a list of `len`.
fn index_of(v: &Value, key: &str, at: &str, len: usize) -> Result<Option<usize>> {
    match field(v, key, at)? {
        Value::Null => Ok(None),
        x => x
            .as_u64()
            .filter(|&i| (i as usize) < len)
            .map(|i| Some(i as usize))
            .ok_or_else(|| bad(format!("{at}: \"{key}\" {x} indexes nothing"))),
    }
}

pub(crate) fn read(text: &str) -> Result<Coverage> {
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("JSON: {e}")))?;
    if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(bad("no \"format\": \"tarmac-lens coverage\""));
    }
    let version = u64_of(&v, "version", "top")?;
    if version != VERSION {
        return Err(Error::Coverage(format!(
            "coverage result of format version {version}; this tarmac-lens reads version {VERSION}"
        )));
    }
    let image = field(&v, "image", "top")?;
    let digest = str_of(image, "fnv1a64", "image")?;
    let image = ImageId {
        name: str_of(image, "file", "image")?.to_string(),
        digest: u64::from_str_radix(digest, 16).map_err(|_| bad("image: bad \"fnv1a64\""))?,
        load_offset: field(image, "load_offset", "image")?
            .as_i64()
            .ok_or_else(|| bad("image: bad \"load_offset\""))?,
        dwarf: field(image, "dwarf", "image")?
            .as_bool()
            .ok_or_else(|| bad("image: bad \"dwarf\""))?,
    };
    let names = array(&v, "traces", "top")?;
    let mut traces = BTreeMap::new();
    for (i, n) in names.iter().enumerate() {
        let n = n
            .as_str()
            .ok_or_else(|| bad(format!("traces[{i}] is not a name")))?;
        traces.insert(i as u32, n.to_string());
    }
    let count = traces.len();
    let mut interned: HashSet<Arc<str>> = HashSet::new();
    let mut intern = |s: &str| -> Arc<str> {
        if let Some(a) = interned.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        interned.insert(a.clone());
        a
    };
    let mut files = Vec::new();
    let mut lines = BTreeMap::new();
    for (i, f) in array(&v, "files", "top")?.iter().enumerate() {
        let at = format!("files[{i}]");
        let file = intern(str_of(f, "file", &at)?);
        for (j, l) in array(f, "lines", &at)?.iter().enumerate() {
            let at = format!("{at}.lines[{j}]");
            let line = u32::try_from(u64_of(l, "line", &at)?)
                .map_err(|_| bad(format!("{at}: line out of range")))?;
            lines.insert((file.clone(), line), traces_of(l, &at, count)?);
        }
        files.push(file);
    }
    let mut functions = BTreeMap::new();
    let mut function_names = Vec::new();
    for (i, f) in array(&v, "functions", "top")?.iter().enumerate() {
        let at = format!("functions[{i}]");
        let name = intern(str_of(f, "name", &at)?);
        functions.insert(name.clone(), traces_of(f, &at, count)?);
        function_names.push(name);
    }
    let mut insns = BTreeMap::new();
    for (i, x) in array(&v, "instructions", "top")?.iter().enumerate() {
        let at = format!("instructions[{i}]");
        let pc = str_of(x, "pc", &at)?;
        let pc = pc
            .strip_prefix("0x")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
            .ok_or_else(|| bad(format!("{at}: \"pc\" {pc} is no hex address")))?;
        let kind = str_of(x, "kind", &at)?;
        let kind = Kind::from_name(kind).ok_or_else(|| bad(format!("{at}: kind {kind}")))?;
        let line = match (
            index_of(x, "file", &at, files.len())?,
            field(x, "line", &at)?,
        ) {
            (None, _) => None,
            (Some(f), l) => {
                let n = l
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(format!("{at}: a file without a line")))?;
                Some((files[f].clone(), n))
            }
        };
        let function =
            index_of(x, "function", &at, function_names.len())?.map(|f| function_names[f].clone());
        let size = u8::try_from(u64_of(x, "size", &at)?)
            .map_err(|_| bad(format!("{at}: size out of range")))?;
        insns.insert(
            pc,
            Insn {
                size,
                kind,
                in_image: field(x, "in_image", &at)?
                    .as_bool()
                    .ok_or_else(|| bad(format!("{at}: \"in_image\" is not true or false")))?,
                line,
                function,
                counts: Outcomes {
                    executed: u64_of(x, "executed", &at)?,
                    failed: u64_of(x, "failed", &at)?,
                    taken: u64_of(x, "taken", &at)?,
                    fallthrough: u64_of(x, "fallthrough", &at)?,
                },
            },
        );
    }
    Ok(Coverage {
        image,
        next_position: count as u32,
        traces,
        insns,
        lines,
        functions,
        names: interned,
    })
}
