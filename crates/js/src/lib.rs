//! WebAssembly bindings of [`tarmac_lens_core`] for the `tarmac-lens` npm
//! package (`npm/tarmac-lens`, assembled by `scripts/build-npm.sh`).
//!
//! The key design choice: the trace never enters wasm memory whole. A
//! [`TraceCore`] reads it through a synchronous JavaScript callback
//! `read(offset, length) -> Uint8Array`, which the package's worker backs
//! with what it was given: `FileReaderSync` on `Blob.slice()`, a ranged
//! synchronous `XMLHttpRequest`, a Node file descriptor, or a buffer kept on
//! the JavaScript side. wasm32 memory ends at 4 GiB and traces are often
//! bigger; only the index (about 3% of the trace) and the slices being read
//! live here. Reads are synchronous because the core's [`TraceSource`] is:
//! that is why all of this runs in a worker, never on a page's main thread.
//!
//! The JavaScript wrapper (`npm/tarmac-lens/lib/*.js`) owns the worker, the
//! readers and the Promise API; this crate only turns calls into
//! [`Session`] queries and the answers into plain JavaScript objects
//! (addresses as `BigInt`, other numbers as numbers).

#![deny(missing_docs)]

use js_sys::{Function, Object, Reflect, Uint8Array};
use serde::Serialize;
use tarmac_lens_core::{
    protocol::{Answerable, Locate, Memory, RegMark, Registers, Row, Rows},
    read_sample, report,
    report::{calltree, names, profile},
    EngineOptions, Error, KindFilter, ParseOptions, Search, SearchSpec, Session, SymbolTable,
    TraceSource,
};
use wasm_bindgen::prelude::*;

/// A trace read through a JavaScript `read(offset, length)` callback.
#[derive(Clone)]
struct JsSource {
    read: Function,
    len: u64,
}

impl TraceSource for JsSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> tarmac_lens_core::Result<usize> {
        let want = self.len.saturating_sub(offset).min(buf.len() as u64) as usize;
        if want == 0 {
            return Ok(0);
        }
        let got = self
            .read
            .call2(
                &JsValue::NULL,
                &JsValue::from_f64(offset as f64),
                &JsValue::from_f64(want as f64),
            )
            .map_err(|e| Error::Read(message_of(&e)))?;
        let bytes: Uint8Array = got
            .dyn_into()
            .map_err(|_| Error::Read("read(offset, length) did not return a Uint8Array".into()))?;
        let n = (bytes.length() as usize).min(want);
        bytes.subarray(0, n as u32).copy_to(&mut buf[..n]);
        Ok(n)
    }
}

/// The text of a thrown JavaScript value (an `Error`'s message).
fn message_of(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let s = serde_wasm_bindgen::Serializer::new()
        .serialize_missing_as_null(true)
        .serialize_maps_as_objects(true)
        .serialize_large_number_types_as_bigints(true);
    value
        .serialize(&s)
        .map_err(|e| JsError::new(&e.to_string()))
}

/// A plain object with these properties, in this order.
fn object<'a>(entries: impl IntoIterator<Item = (&'a str, JsValue)>) -> JsValue {
    let out = Object::new();
    for (key, value) in entries {
        // Defining a property of a fresh plain object cannot fail.
        let _ = Reflect::set(&out, &key.into(), &value);
    }
    out.into()
}

fn fail(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// The answer to a question, or its error as a thrown `Error`.
fn ask<S: TraceSource, Q: Answerable>(
    session: &mut Session<S>,
    question: Q,
) -> Result<Q::Answer, JsError> {
    session.ask(question).map_err(fail)
}

/// One trace line ([`TraceCore::rows`]).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RowOut {
    line: f64,
    text: String,
    /// The node (instruction with its register and memory lines) holding it.
    node: f64,
    first_of_node: bool,
    time: f64,
    pc: Option<u64>,
    function: Option<String>,
    source: Option<String>,
}

#[derive(Serialize)]
struct ProfileRow {
    address: u64,
    name: String,
    count: f64,
    time: u64,
}

#[derive(Serialize)]
struct Hit {
    line: f64,
    text: String,
}

/// How [`TraceCore::search`] searches; every field may be left out.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct SearchOptions {
    regex: bool,
    ignore_case: bool,
    kinds: Vec<String>,
    lines: Option<(u64, u64)>,
    max: Option<f64>,
}

/// An open trace: its browsing session, plus what the reports need (they
/// are passes of their own over the trace, as the CLI's are).
#[wasm_bindgen]
pub struct TraceCore {
    session: Session<JsSource>,
    source: JsSource,
    image: Option<SymbolTable>,
}

#[wasm_bindgen]
impl TraceCore {
    /// Opens a trace of `length` bytes read through `read(offset, length)`.
    /// Throws for a file that is no trace, with a sentence naming `name`.
    #[wasm_bindgen(constructor)]
    pub fn new(length: f64, read: Function, name: &str) -> Result<TraceCore, JsError> {
        let source = JsSource {
            read,
            len: length as u64,
        };
        let session = Session::open(source.clone(), ParseOptions::default()).map_err(fail)?;
        if let Some(problem) = session.file_kind().problem(name) {
            return Err(fail(problem));
        }
        Ok(TraceCore {
            session,
            source,
            image: None,
        })
    }

    /// Loads the trace's ELF image for symbol and source names; returns a
    /// warning if it looks like another program's (it is used anyway, as
    /// the CLI uses it).
    #[wasm_bindgen(js_name = loadElf)]
    pub fn load_elf(&mut self, bytes: Vec<u8>) -> Result<Option<String>, JsError> {
        let table = SymbolTable::from_elf_bytes(&bytes, 0).map_err(fail)?;
        let (_, warning) = self.session.load_elf(&bytes, 0, false).map_err(fail)?;
        // DWARF only adds rows' `source`: an image whose DWARF cannot be
        // read still names functions, as the CLI's reports do.
        let _ = self.session.load_debug_info(bytes.into(), 0);
        self.image = Some(table);
        Ok(warning)
    }

    /// Indexes about `budget` more bytes; returns the progress
    /// (`doneBytes`, `totalBytes`, `lines`, `complete`).
    #[wasm_bindgen(js_name = indexStep)]
    pub fn index_step(&mut self, budget: f64) -> Result<JsValue, JsError> {
        let p = self.session.index_step(budget as u64).map_err(fail)?;
        Ok(object([
            ("doneBytes", JsValue::from_f64(p.done_bytes as f64)),
            ("totalBytes", JsValue::from_f64(p.total_bytes as f64)),
            ("lines", JsValue::from_f64(p.lines as f64)),
            ("complete", JsValue::from_bool(p.complete)),
        ]))
    }

    /// Lines `first..first + count` (1-based; at most 1000) as row objects.
    pub fn rows(&mut self, first: f64, count: u32) -> Result<JsValue, JsError> {
        let question = Rows {
            view: 0,
            first: (first as u64).saturating_sub(1),
            count,
        };
        let reply = ask(&mut self.session, question)?;
        let mut out = Vec::with_capacity(reply.rows.len());
        let mut at: Option<(u64, f64, Option<u64>)> = None;
        for row in reply.rows {
            // View 0 is never folded: every row is a line.
            let Row::Line {
                line,
                node,
                first_of_node,
                text,
                function,
                source,
                ..
            } = row
            else {
                continue;
            };
            if at.is_none_or(|(n, _, _)| n != node) {
                let Some(v) = ask(&mut self.session, Locate::Node(node))? else {
                    return Err(fail(format!("no node {node}")));
                };
                at = Some((node, v.time as f64, v.pc));
            }
            let (_, time, pc) = at.unwrap_or_default();
            out.push(RowOut {
                line: line as f64,
                text,
                node: node as f64,
                first_of_node,
                time,
                pc,
                function,
                source,
            });
        }
        to_js(&out)
    }

    /// The core registers after the node holding `line`: an object from
    /// lower-case name to hex text (`?` for unknown digits), in display order.
    #[wasm_bindgen(js_name = registersAt)]
    pub fn registers_at(&mut self, line: f64) -> Result<JsValue, JsError> {
        let node = self.node_at(line)?;
        let question = Registers {
            node,
            mark: RegMark::None,
        };
        let reply = ask(&mut self.session, question)?;
        let core = reply.panels.iter().filter(|p| p.kind == "core");
        Ok(object(core.flat_map(|p| &p.cells).map(|c| {
            (c.name.as_str(), JsValue::from(c.text.as_str()))
        })))
    }

    /// Memory after the node holding `line`: `{ address, bytes, known }`
    /// (at most 4096 bytes; an unknown byte reads 0).
    #[wasm_bindgen(js_name = memoryAt)]
    pub fn memory_at(&mut self, line: f64, addr: u64, len: u32) -> Result<JsValue, JsError> {
        let node = self.node_at(line)?;
        let question = Memory {
            node,
            addr,
            len,
            compare: None,
        };
        let m = ask(&mut self.session, question)?;
        let known: js_sys::Array = m.known.iter().map(|&k| JsValue::from_bool(k)).collect();
        Ok(object([
            ("address", JsValue::from(m.addr)),
            ("bytes", Uint8Array::from(&m.bytes[..]).into()),
            ("known", known.into()),
        ]))
    }

    /// `tarmac-lens calltree` (with the ELF as `--image`): its text.
    pub fn calltree(&mut self) -> Result<String, JsError> {
        let mut analysis = self.analyse()?;
        let Some(tree) = calltree::build_taking_calls(&mut analysis) else {
            return Ok(String::new());
        };
        let image = self.image.as_ref();
        let name = |addr: u64| image.map_or(String::new(), |i| i.function_name(addr));
        Ok(calltree::render(&tree, &analysis, &name))
    }

    /// `tarmac-lens profile`: `{ text, functions: [{ address, name, count,
    /// time }] }`, `text` being the CLI's.
    pub fn profile(&mut self) -> Result<JsValue, JsError> {
        let mut analysis = self.analyse()?;
        let table = calltree::build_taking_calls(&mut analysis)
            .as_ref()
            .map(|t| profile::compute(t.root()))
            .unwrap_or_default();
        let image = self.image.as_ref();
        let name = |addr: u64| names::function_name(image, addr, true);
        let text = profile::render(&table, &name);
        let functions: Vec<ProfileRow> = table
            .iter()
            .map(|(&address, e)| ProfileRow {
                address,
                name: name(address),
                count: e.count() as f64,
                time: e.time(),
            })
            .collect();
        Ok(object([
            ("text", text.into()),
            ("functions", to_js(&functions)?),
        ]))
    }

    /// The lines matching `pattern`, as `tarmac-lens search` finds them:
    /// `[{ line, text }]`. `options`: `regex`, `ignoreCase`, `kinds`
    /// (`instructions`, `registers`, `memory`, `events`), `lines` (`[first,
    /// last]`), `max` (most lines returned).
    pub fn search(&mut self, pattern: String, options: JsValue) -> Result<JsValue, JsError> {
        let o: SearchOptions = if options.is_undefined() || options.is_null() {
            SearchOptions::default()
        } else {
            serde_wasm_bindgen::from_value(options).map_err(fail)?
        };
        let kinds = o
            .kinds
            .iter()
            .map(|k| {
                KindFilter::from_name(k).ok_or_else(|| {
                    fail(format!(
                        "unknown kind '{k}' (instructions, registers, memory, events)"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let spec = SearchSpec {
            pattern,
            regex: o.regex,
            ignore_case: o.ignore_case,
            kinds,
            lines: o.lines,
        };
        let mut source = self.source.clone();
        let sample = read_sample(&mut source).map_err(fail)?;
        let mut search =
            Search::new(&spec, source.len(), &sample, ParseOptions::default()).map_err(fail)?;
        let max = o.max.map_or(usize::MAX, |m| m as usize);
        let mut hits = Vec::new();
        while hits.len() < max {
            let progress = search
                .step(&mut source, 64 << 20, |hit, text| {
                    if hits.len() < max {
                        hits.push(Hit {
                            line: hit.line as f64,
                            text: String::from_utf8_lossy(text).into_owned(),
                        });
                    }
                })
                .map_err(fail)?;
            if progress.complete {
                break;
            }
        }
        to_js(&hits)
    }
}

impl TraceCore {
    fn node_at(&mut self, line: f64) -> Result<u64, JsError> {
        match ask(&mut self.session, Locate::Line(line.max(1.0) as u64))? {
            Some(found) => Ok(found.node),
            None => Err(fail(format!("the trace has no line {line}"))),
        }
    }

    /// The calls of the whole trace, as the CLI's call-tree reports take them.
    fn analyse(&mut self) -> Result<report::CallAnalysis, JsError> {
        let mut source = self.source.clone();
        tarmac_lens_core::check_single_core(&mut source, ParseOptions::default()).map_err(fail)?;
        report::analyse_calls(source, ParseOptions::default(), EngineOptions::default())
            .map_err(fail)
    }
}
