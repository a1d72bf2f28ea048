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

use serde::{Deserialize, Serialize};
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

// What `read` takes from the file: the fields a merge needs, typed, so
// serde checks each one's kind; the derived figures beside them are
// skipped, and the indices between lists are checked after.

#[derive(Deserialize)]
struct Head {
    format: Option<String>,
    version: Option<u64>,
}

#[derive(Deserialize)]
struct ImageIn {
    file: String,
    fnv1a64: String,
    load_offset: i64,
    dwarf: bool,
}

#[derive(Deserialize)]
struct FileIn {
    file: String,
    lines: Vec<LineIn>,
}

#[derive(Deserialize)]
struct LineIn {
    line: u32,
    traces: Vec<u64>,
}

#[derive(Deserialize)]
struct FunctionIn {
    name: String,
    traces: Vec<u64>,
}

#[derive(Deserialize)]
struct InsnIn {
    pc: String,
    size: u8,
    kind: String,
    in_image: bool,
    file: Option<u64>,
    line: Option<u32>,
    function: Option<u64>,
    executed: u64,
    failed: u64,
    taken: u64,
    fallthrough: u64,
}

#[derive(Deserialize)]
struct CoverageIn {
    format: String,
    version: u64,
    image: ImageIn,
    traces: Vec<String>,
    files: Vec<FileIn>,
    functions: Vec<FunctionIn>,
    instructions: Vec<InsnIn>,
}

/// A list of trace indices, each below `traces`.
fn traces_of(list: Vec<u64>, at: &str, traces: usize) -> Result<Vec<u32>> {
    list.into_iter()
        .map(|t| {
            u32::try_from(t)
                .ok()
                .filter(|&t| (t as usize) < traces)
                .ok_or_else(|| bad(format!("{at}: trace {t} is not one of the {traces} traces")))
        })
        .collect()
}

/// `Some(index)` of an optional index into a list of `len`.
fn index_of(i: Option<u64>, key: &str, at: &str, len: usize) -> Result<Option<usize>> {
    i.map(|i| {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < len)
            .ok_or_else(|| bad(format!("{at}: \"{key}\" {i} indexes nothing")))
    })
    .transpose()
}

pub(crate) fn read(text: &str) -> Result<Coverage> {
    let parsed = serde_json::from_str::<CoverageIn>(text);
    // Another JSON file, or another version of ours, is named as such, not
    // by the first field it lacks; the first head that fits says which.
    let head = match &parsed {
        Ok(v) => Head {
            format: Some(v.format.clone()),
            version: Some(v.version),
        },
        Err(_) => serde_json::from_str::<Head>(text).map_err(|e| bad(format!("JSON: {e}")))?,
    };
    if head.format.as_deref() != Some(FORMAT) {
        return Err(bad("no \"format\": \"tarmac-lens coverage\""));
    }
    if let Some(version) = head.version.filter(|&v| v != VERSION) {
        return Err(Error::Coverage(format!(
            "coverage result of format version {version}; this tarmac-lens reads version {VERSION}"
        )));
    }
    let v = parsed.map_err(|e| bad(format!("{e}")))?;
    let image = ImageId {
        digest: u64::from_str_radix(&v.image.fnv1a64, 16)
            .map_err(|_| bad("image: bad \"fnv1a64\""))?,
        name: v.image.file,
        load_offset: v.image.load_offset,
        dwarf: v.image.dwarf,
    };
    let traces: BTreeMap<u32, String> = (0u32..).zip(v.traces).collect();
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
    for (i, f) in v.files.into_iter().enumerate() {
        let at = format!("files[{i}]");
        let file = intern(&f.file);
        for (j, l) in f.lines.into_iter().enumerate() {
            let at = format!("{at}.lines[{j}]");
            lines.insert((file.clone(), l.line), traces_of(l.traces, &at, count)?);
        }
        files.push(file);
    }
    let mut functions = BTreeMap::new();
    let mut function_names = Vec::new();
    for (i, f) in v.functions.into_iter().enumerate() {
        let at = format!("functions[{i}]");
        let name = intern(&f.name);
        functions.insert(name.clone(), traces_of(f.traces, &at, count)?);
        function_names.push(name);
    }
    let mut insns = BTreeMap::new();
    for (i, x) in v.instructions.into_iter().enumerate() {
        let at = format!("instructions[{i}]");
        let pc =
            x.pc.strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| bad(format!("{at}: \"pc\" {} is no hex address", x.pc)))?;
        let kind = Kind::from_name(&x.kind).ok_or_else(|| bad(format!("{at}: kind {}", x.kind)))?;
        let line = match (index_of(x.file, "file", &at, files.len())?, x.line) {
            (None, _) => None,
            (Some(f), Some(n)) => Some((files[f].clone(), n)),
            (Some(_), None) => return Err(bad(format!("{at}: a file without a line"))),
        };
        let function = index_of(x.function, "function", &at, function_names.len())?
            .map(|f| function_names[f].clone());
        insns.insert(
            pc,
            Insn {
                size: x.size,
                kind,
                in_image: x.in_image,
                line,
                function,
                counts: Outcomes {
                    executed: x.executed,
                    failed: x.failed,
                    taken: x.taken,
                    fallthrough: x.fallthrough,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal() -> serde_json::Value {
        json!({
            "format": FORMAT,
            "version": VERSION,
            "image": {"file": "a.elf", "fnv1a64": "00000000000000ff", "load_offset": 0, "dwarf": true},
            "traces": ["t0", "t1"],
            "files": [{"file": "a.c", "lines": [{"line": 3, "traces": [1], "executed": 9}]}],
            "functions": [{"name": "main", "traces": [0, 1]}],
            "instructions": [{
                "pc": "0x8000", "size": 4, "kind": "plain", "in_image": true,
                "file": 0, "line": 3, "function": 0,
                "executed": 2, "failed": 1, "taken": 0, "fallthrough": 0
            }],
        })
    }

    fn error_of(v: &serde_json::Value) -> String {
        match read(&v.to_string()) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("read {v}"),
        }
    }

    #[test]
    fn a_result_reads_back_with_its_places_and_traces() {
        let cov = read(&minimal().to_string()).expect("reads");
        assert_eq!(cov.image.digest, 0xff);
        assert_eq!(cov.traces.len(), 2);
        let insn = &cov.insns[&0x8000];
        assert_eq!(insn.line.as_ref().map(|l| (&*l.0, l.1)), Some(("a.c", 3)));
        assert_eq!(insn.function.as_deref(), Some("main"));
        assert_eq!((insn.counts.executed, insn.counts.failed), (2, 1));
        assert_eq!(cov.lines.values().next(), Some(&vec![1]));
    }

    #[test]
    fn another_file_or_version_is_named_before_any_field() {
        assert!(error_of(&json!({"name": "x"})).contains("no \"format\""));
        assert!(read("[1, 2").unwrap_err().to_string().contains("JSON:"));
        let mut v = minimal();
        v["version"] = json!(2);
        v.as_object_mut().unwrap().remove("files");
        assert!(error_of(&v).contains("format version 2"));
    }

    #[test]
    fn a_field_of_the_wrong_kind_or_an_index_to_nothing_is_said() {
        let mut v = minimal();
        v["instructions"][0]["executed"] = json!("many");
        assert!(error_of(&v).contains("invalid type"), "{}", error_of(&v));
        let mut v = minimal();
        v["instructions"][0]["function"] = json!(5);
        assert!(error_of(&v).contains("instructions[0]: \"function\" 5 indexes nothing"));
        let mut v = minimal();
        v["functions"][0]["traces"] = json!([2]);
        assert!(error_of(&v).contains("functions[0]: trace 2 is not one of the 2 traces"));
        let mut v = minimal();
        v["instructions"][0]["line"] = serde_json::Value::Null;
        assert!(error_of(&v).contains("a file without a line"));
    }
}
