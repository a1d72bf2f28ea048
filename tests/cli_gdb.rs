//! `tarmac-lens gdbserver`, driven by Debian's `gdb-multiarch` in batch
//! mode (many commands per gdb process, several gdb sessions one after
//! another per stub), on the generated traces with their ELFs (AArch64,
//! A32, Thumb) and Tarmac Trace Utilities' quicksort trace:
//! - at 200 random positions `info registers` and `x/8xw $sp` show what the
//!   core's own queries give there (`registers_after`, `memory_after` of
//!   the node before: gdb's "about to run" position);
//! - `break FUNCTION` + `continue` stops at the first run of the function's
//!   breakpoint address, inside the function's first call (the call
//!   table); `reverse-continue` from the end at its last;
//! - `watch *(int*)ADDR` + `reverse-continue` stops at the last earlier
//!   write that changed the value, as `tarmac-lens watch` lists them;
//!   `continue` just after the next one;
//! - `next` walks the function's source lines as `tarmac-lens lines` maps
//!   its instructions, in trace order, within one frame; `reverse-next`
//!   walks the same stops back;
//! - malformed and unknown packets sent raw get an error or an empty
//!   reply and the stub goes on serving; a trace with unparsed lines
//!   debugs; a multi-core trace shows its cores as threads.
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tarmac_lens_core::{
    dataflow::ImageMemory, register_location, FileSource, Index, IndexOptions, Node, RegClass,
    RegFile, RegId, SymbolTable,
};

use crate::common::{data, read, tarmac_lens, Dir};

/// The traces debugged: (trace, its ELF, AArch64).
const TRACES: &[(&str, Option<&str>, bool)] = &[
    (
        "tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac",
        Some("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf"),
        true,
    ),
    (
        "tracegen/quicksort-arm-O2-fastmodel-2M.tarmac",
        Some("tracegen/quicksort-arm-O2-fastmodel-2M.elf"),
        false,
    ),
    (
        "tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac",
        Some("tracegen/quicksort-thumb-O2-fastmodel-2M.elf"),
        false,
    ),
    ("ttu/quicksort.tarmac", None, true),
];

fn gdb_binary() -> &'static str {
    "gdb-multiarch"
}

/// A running stub, killed when dropped.
struct Stub {
    child: Child,
    port: u16,
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `gdbserver` and waits for the line saying where it listens.
fn stub(dir: &Dir, trace: &Path, elf: Option<&Path>, extra: &[&str]) -> Stub {
    let mut cmd = tarmac_lens();
    cmd.arg("gdbserver")
        .arg(trace)
        .arg("-q")
        .arg("--index")
        .arg(dir.path().join(format!(
            "{}.index",
            trace.file_name().unwrap().to_string_lossy()
        )))
        .args(extra);
    if let Some(elf) = elf {
        cmd.arg("--image").arg(elf);
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tarmac-lens starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    Stub { child, port }
}

/// Runs gdb in batch mode against the stub: `cmds` one `-ex` each (an
/// error in one does not stop the next); standard output and error
/// together.
fn gdb(dir: &Dir, port: u16, elf: Option<&Path>, cmds: &[String]) -> String {
    let out_path = dir.path().join(format!("gdb-{port}-{}.out", cmds.len()));
    let out = std::fs::File::create(&out_path).unwrap();
    let mut cmd = Command::new(gdb_binary());
    cmd.args(["-nx", "-q", "-batch"])
        .args(["-ex", "set pagination off", "-ex", "set confirm off"])
        .args(["-ex", "set width 0", "-ex", "set height 0"])
        .args(["-ex", &format!("target remote 127.0.0.1:{port}")]);
    for c in cmds {
        cmd.arg("-ex").arg(c);
    }
    cmd.args(["-ex", "detach"]);
    if let Some(elf) = elf {
        cmd.arg(elf);
    }
    let status = cmd
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "{} cannot run ({e}): scripts/install-deps.sh installs it",
                gdb_binary()
            )
        });
    let text = String::from_utf8_lossy(&read(&out_path)).into_owned();
    assert!(status.success(), "gdb failed: {text}");
    text
}

/// gdb's output split at `echo @@N` markers: piece N follows marker N.
fn pieces(text: &str) -> HashMap<usize, String> {
    let mut out = HashMap::new();
    let mut cur: Option<(usize, String)> = None;
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("@@").and_then(|n| n.trim().parse().ok()) {
            if let Some((k, t)) = cur.take() {
                out.insert(k, t);
            }
            cur = Some((n, String::new()));
        } else if let Some((_, t)) = &mut cur {
            t.push_str(line);
            t.push('\n');
        }
    }
    if let Some((k, t)) = cur {
        out.insert(k, t);
    }
    out
}

fn mark(n: usize) -> String {
    format!("echo @@{n}\\n")
}

/// `monitor info`'s figures: (line, instruction number).
fn where_(text: &str) -> Option<(u64, u64)> {
    let l = text
        .lines()
        .find(|l| l.starts_with("line ") && l.contains("instruction"))?;
    let num = |key: &str| -> Option<u64> {
        let rest = &l[l.find(key)? + key.len()..];
        rest.trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    Some((num("line ")?, num("instruction ")?))
}

struct Trace {
    path: PathBuf,
    elf: Option<PathBuf>,
    aarch64: bool,
    index: Index,
    source: FileSource,
    image: Option<ImageMemory>,
    symbols: Option<SymbolTable>,
}

fn open(t: &(&str, Option<&str>, bool)) -> Trace {
    let path = data(t.0);
    let mut source = FileSource::open(&path).unwrap();
    let index = Index::build(&mut source, IndexOptions::default(), |_| {}).unwrap();
    let elf = t.1.map(data);
    let image = elf
        .as_ref()
        .map(|e| ImageMemory::from_elf_bytes(&read(e), 0).unwrap());
    let symbols = elf
        .as_ref()
        .map(|e| SymbolTable::from_elf_bytes(&read(e), 0).unwrap());
    Trace {
        path,
        elf,
        aarch64: t.2,
        index,
        source,
        image,
        symbols,
    }
}

/// Up to `n` instruction positions drawn at random (the same ones each
/// run), past the trace's first node.
fn random_positions(tr: &mut Trace, n: usize) -> Vec<Node> {
    let instructions = tr.index.summary().instructions;
    let mut rng = Lcg(0x5eed + instructions);
    let mut positions = Vec::new();
    for _ in 0..n {
        let i = 1 + rng.below(instructions - 1);
        let node = tr.index.node_at_instruction(&mut tr.source, i).unwrap();
        if node.at.node > 0 {
            positions.push(node);
        }
    }
    positions
}

/// Deterministic pseudo-random numbers (a 64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// The value gdb should print for register `name`, or `None` for
/// `<unavailable>`.
fn expected_register(t: &Trace, regs: &RegFile, name: &str, pc: u64) -> Option<u64> {
    if name == "pc" {
        return Some(pc & !1);
    }
    let id = match name {
        "sp" if t.aarch64 => Some(RegId::new(RegClass::Xsp, 0)),
        "sp" => RegId::lookup(b"r13"),
        "lr" => RegId::lookup(b"r14"),
        n => RegId::lookup(n.as_bytes()),
    }?;
    let (o, s) = register_location(id, t.aarch64);
    let v = regs.value(o, s.min(8));
    if name == "cpsr" && !t.aarch64 {
        // The T bit follows the instruction about to run.
        let v = v.unwrap_or(0);
        return Some(if pc & 1 != 0 { v | 0x20 } else { v & !0x20 });
    }
    v
}

#[test]
fn registers_and_stack_equal_the_cores_state_at_200_positions() {
    let dir = Dir::new("gdb-regs");
    for t in TRACES {
        let mut tr = open(t);
        let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
        let positions = random_positions(&mut tr, 200);
        let mut cmds = Vec::new();
        for (k, n) in positions.iter().enumerate() {
            cmds.push(mark(k));
            cmds.push(format!("monitor line {}", n.at.line));
            cmds.push("maintenance flush register-cache".into());
            cmds.push("info registers".into());
            cmds.push("x/8xw $sp".into());
        }
        let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
        let by_mark = pieces(&out);
        let mut compared_words = 0;
        for (k, n) in positions.iter().enumerate() {
            let text = by_mark
                .get(&k)
                .unwrap_or_else(|| panic!("{}: no output for position {k}: {out}", t.0));
            let what = format!("{} line {} (node {})", t.0, n.at.line, n.at.node);
            let regs = tr
                .index
                .registers_after(&mut tr.source, n.at.node - 1)
                .unwrap();
            let mut seen = 0;
            let mut sp = None;
            for line in text.lines() {
                let mut words = line.split_whitespace();
                let (Some(name), Some(value)) = (words.next(), words.next()) else {
                    continue;
                };
                let general = (name.starts_with('x') || name.starts_with('r'))
                    && name[1..].parse::<u32>().is_ok()
                    || ["sp", "lr", "pc", "cpsr", "fpsr", "fpcr"].contains(&name);
                if !general {
                    continue;
                }
                seen += 1;
                let want = expected_register(&tr, &regs, name, n.at.pc);
                let got = if value == "<unavailable>" {
                    None
                } else {
                    Some(
                        u64::from_str_radix(value.trim_start_matches("0x"), 16)
                            .unwrap_or_else(|_| panic!("{what}: register line {line:?}")),
                    )
                };
                assert_eq!(got, want, "{what}: {name} in {line:?}");
                if name == "sp" {
                    sp = got;
                }
            }
            assert!(seen >= 17, "{what}: general registers missing: {text}");
            // x/8xw $sp: each word known in the core's memory (or the
            // image's, for bytes the trace never showed) is printed, and
            // printing stops at the first that is not, with gdb's error.
            let Some(sp) = sp else {
                assert!(text.contains("not available"), "{what}: {text}");
                continue;
            };
            let mem = tr
                .index
                .memory_after(&mut tr.source, n.at.node - 1, sp, 32)
                .unwrap();
            let mut want_words = Vec::new();
            'words: for w in 0..8 {
                let mut v = 0u32;
                for b in (0..4).rev() {
                    let i = w * 4 + b;
                    let byte = if mem.known[i] {
                        mem.bytes[i]
                    } else if let Some(x) = tr.image.as_ref().and_then(|m| m.read(sp + i as u64, 1))
                    {
                        x[0]
                    } else {
                        break 'words;
                    };
                    v = (v << 8) | u32::from(byte);
                }
                want_words.push(v);
            }
            let mut got_words = Vec::new();
            for line in text
                .lines()
                .filter(|l| l.starts_with("0x") && l.contains(':'))
            {
                let after = &line[line.find(':').unwrap() + 1..];
                for w in after.split_whitespace() {
                    if let Some(h) = w.strip_prefix("0x") {
                        got_words.push(u32::from_str_radix(h, 16).unwrap());
                    } else {
                        break;
                    }
                }
            }
            assert_eq!(got_words, want_words, "{what}: x/8xw at {sp:#x}: {text}");
            assert_eq!(
                text.contains("Cannot access memory"),
                want_words.len() < 8,
                "{what}: {text}"
            );
            compared_words += got_words.len();
        }
        assert!(compared_words > 400, "{}: few stack words known", t.0);
    }
}

/// The address gdb's `Breakpoint N at 0x...` line gives.
fn breakpoint_address(text: &str) -> u64 {
    let l = text
        .lines()
        .find(|l| l.contains("reakpoint ") && l.contains(" at 0x"))
        .unwrap_or_else(|| panic!("no breakpoint set: {text}"));
    let h = l.split(" at 0x").nth(1).unwrap();
    u64::from_str_radix(
        h.split(|c: char| !c.is_ascii_hexdigit()).next().unwrap(),
        16,
    )
    .unwrap()
}

#[test]
fn breakpoints_stop_at_a_functions_first_and_last_runs() {
    let dir = Dir::new("gdb-break");
    for t in TRACES.iter().filter(|t| t.1.is_some()) {
        let mut tr = open(t);
        let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
        let symbols = tr.symbols.take().unwrap();
        for (f, hardware) in [
            ("partition", false),
            ("swap", true),
            ("cmp_ascending", false),
        ] {
            let entry = symbols.address_of(f).unwrap() & !1;
            let set = if hardware { "hbreak" } else { "break" };
            let cmds = vec![
                mark(0),
                format!("{set} {f}"),
                "continue".into(),
                "monitor info".into(),
                mark(1),
                // To the end of the recording, then back.
                "delete".into(),
                "continue".into(),
                format!("{set} {f}"),
                "reverse-continue".into(),
                "monitor info".into(),
            ];
            let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
            let p = pieces(&out);
            let what = format!("{} {set} {f}", t.0);
            let addr = breakpoint_address(&p[&0]);
            assert!(p[&0].contains("reakpoint 1, "), "{what}: {out}");
            let first = tr
                .index
                .find_pc(&mut tr.source, 0, addr, true)
                .unwrap()
                .unwrap();
            assert_eq!(
                where_(&p[&0]).map(|w| w.0),
                Some(first.at.line),
                "{what}: {out}"
            );
            // Inside the function's first call, as the call table has it.
            let call = tr
                .index
                .calls()
                .iter()
                .find(|c| c.function & !1 == entry)
                .unwrap_or_else(|| panic!("{what}: never called"));
            assert!(call.contains(first.at.node), "{what}: {call:?} {first:?}");
            assert!(
                p[&1].contains("No more reverse-execution history"),
                "{what}: {out}"
            );
            let end = tr.index.nodes();
            let last = tr
                .index
                .find_pc(&mut tr.source, end, addr, false)
                .unwrap()
                .unwrap();
            assert_eq!(
                where_(&p[&1]).map(|w| w.0),
                Some(last.at.line),
                "{what}: {out}"
            );
            assert!(p[&1].contains("reakpoint 2, "), "{what}: {out}");
        }
    }
}

/// Every write of `[addr, addr+4)` from `tarmac-lens watch --json`, with
/// the value after it: (line, node, value, changed it).
fn writes(tr: &Trace, addr: u64) -> Vec<(u64, u64, Option<u32>, bool)> {
    let out = tarmac_lens()
        .arg("watch")
        .arg(&tr.path)
        .args(["--no-index", "--writes", "--json", "--mem"])
        .arg(format!("{addr:#x}:4"))
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut value: [Option<u8>; 4] = [None; 4];
    let mut list = Vec::new();
    for hit in doc["hits"].as_array().unwrap() {
        let before = value;
        for a in hit["accesses"].as_array().unwrap() {
            let at = u64::from_str_radix(a["addr"].as_str().unwrap().trim_start_matches("0x"), 16)
                .unwrap();
            let len = a["len"].as_u64().unwrap();
            let text = a["value"].as_str().unwrap().trim_start_matches("0x");
            // Up to 8 bytes: one little-endian number, `??` unknown.
            for i in 0..len {
                let a = at + i;
                if a < addr || a >= addr + 4 {
                    continue;
                }
                let digits = &text[(2 * (len - 1 - i)) as usize..(2 * (len - i)) as usize];
                value[(a - addr) as usize] = u8::from_str_radix(digits, 16).ok();
            }
        }
        let v = value
            .iter()
            .try_fold(0u32, |acc, b| b.map(|b| acc >> 8 | u32::from(b) << 24));
        let line = hit["line"].as_u64().unwrap();
        let node = hit["node"].as_u64().unwrap();
        list.push((line, node, v, value != before));
    }
    list
}

#[test]
fn watchpoints_stop_at_the_writes_watch_lists_both_ways() {
    let dir = Dir::new("gdb-watch");
    for t in TRACES {
        let mut tr = open(t);
        let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
        // A word the program writes many times: quicksort's array (in
        // the trace without an ELF, the bytes it sorts).
        let addr = match &tr.symbols {
            Some(sym) => sym.address_of("qs_array").unwrap() + 8,
            None => 0x8108,
        };
        let list = writes(&tr, addr);
        let changing: Vec<_> = list.iter().filter(|w| w.3).collect();
        assert!(changing.len() >= 3, "{}: {addr:#x} written {list:?}", t.0);
        let instructions = tr.index.summary().instructions;
        let mut rng = Lcg(77);
        let mut cmds = Vec::new();
        let mut starts = Vec::new();
        for k in 0..6 {
            let i = 1 + rng.below(instructions - 1);
            let n = tr.index.node_at_instruction(&mut tr.source, i).unwrap();
            starts.push(n);
            cmds.push(mark(2 * k));
            cmds.push(format!("monitor line {}", n.at.line));
            cmds.push("maintenance flush register-cache".into());
            cmds.push(format!("watch *(int*){addr:#x}"));
            cmds.push("reverse-continue".into());
            cmds.push("monitor info".into());
            cmds.push(mark(2 * k + 1));
            cmds.push("delete".into());
            cmds.push(format!("monitor line {}", n.at.line));
            cmds.push("maintenance flush register-cache".into());
            cmds.push(format!("watch *(int*){addr:#x}"));
            cmds.push("continue".into());
            cmds.push("monitor info".into());
            cmds.push("delete".into());
        }
        let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
        let p = pieces(&out);
        for (k, n) in starts.iter().enumerate() {
            let what = format!("{} from line {}", t.0, n.at.line);
            // Back: the last changing write before the position, where it
            // is about to run.
            let back = &p[&(2 * k)];
            match changing.iter().rev().find(|w| w.1 < n.at.node) {
                Some(w) => {
                    assert!(back.contains("atchpoint"), "{what}: {back}");
                    assert_eq!(where_(back).map(|x| x.0), Some(w.0), "{what} back: {back}");
                }
                None => assert!(back.contains("No more reverse-execution history"), "{what}"),
            }
            // Forward: just after the first changing write from there.
            let fwd = &p[&(2 * k + 1)];
            match changing.iter().find(|w| w.1 >= n.at.node) {
                Some(w) => {
                    let writer = tr.index.node(&mut tr.source, w.1).unwrap();
                    assert!(fwd.contains("New value"), "{what}: {fwd}");
                    assert_eq!(
                        where_(fwd).map(|x| x.1),
                        Some(writer.instructions_before() + 1),
                        "{what} forward (writer at line {}): {fwd}",
                        w.0
                    );
                }
                None => assert!(fwd.contains("No more reverse-execution history"), "{what}"),
            }
        }
    }
}

/// `tarmac-lens lines --format json`: instruction address → source line.
fn line_of_pc(tr: &Trace) -> HashMap<u64, u64> {
    let out = tarmac_lens()
        .arg("lines")
        .arg(&tr.path)
        .args(["--no-index", "--format", "json", "--image"])
        .arg(tr.elf.as_ref().unwrap())
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut map = HashMap::new();
    for f in doc["files"].as_array().unwrap() {
        for l in f["lines"].as_array().unwrap() {
            for i in l["instructions"].as_array().unwrap() {
                let pc =
                    u64::from_str_radix(i["pc"].as_str().unwrap().trim_start_matches("0x"), 16)
                        .unwrap();
                map.insert(pc & !1, l["line"].as_u64().unwrap());
            }
        }
    }
    map
}

#[test]
fn next_and_reverse_next_walk_the_functions_lines() {
    let dir = Dir::new("gdb-next");
    for t in TRACES.iter().filter(|t| t.1.is_some()) {
        let mut tr = open(t);
        let lines = line_of_pc(&tr);
        let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
        const STEPS: usize = 12;
        // Piece k: the command that reached stop k (its line shown), then
        // where it stands.
        let mut cmds = vec![
            "break partition".into(),
            mark(0),
            "continue".into(),
            "monitor info".into(),
        ];
        for k in 1..=STEPS {
            cmds.push(mark(k));
            cmds.push("next".into());
            cmds.push("monitor info".into());
        }
        for k in 1..=STEPS {
            cmds.push(mark(100 + k));
            cmds.push("reverse-next".into());
            cmds.push("monitor info".into());
        }
        let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
        let p = pieces(&out);
        let frame_of = |tr: &mut Trace, instr: u64| {
            let n = tr.index.node_at_instruction(&mut tr.source, instr).unwrap();
            let frame = tr.index.calls().stack_at(n.at.node).last().map(|c| c.id);
            (n, frame)
        };
        let stops = |keys: &[usize]| -> Vec<u64> {
            keys.iter()
                .map(|k| {
                    where_(&p[k])
                        .unwrap_or_else(|| panic!("{} #{k}: {out}", t.0))
                        .1
                })
                .collect()
        };
        let mut check = |keys: Vec<usize>, forward: bool| {
            let at = stops(&keys);
            let mut frame = None;
            let mut previous_line = None;
            for (j, &k) in keys.iter().enumerate() {
                let what = format!(
                    "{} {} #{k}",
                    t.0,
                    if forward { "next" } else { "reverse-next" }
                );
                let instr = at[j];
                let (_, f) = frame_of(&mut tr, instr);
                // One frame: a call is stepped over, both ways.
                assert_eq!(f, *frame.get_or_insert(f), "{what}: left the frame: {out}");
                if j > 0 {
                    assert_eq!(instr > at[j - 1], forward, "{what}: out of order: {out}");
                }
                // The line gdb shows is the one `lines` gives the stop's
                // pc, or, where rows of two lines share that address (gdb
                // and addr2line pick different ones), a line run in this
                // frame from the stop until the trace leaves it.
                // `LINE\tin FILE`, after the address when mid-line.
                let shown: u64 = p[&k]
                    .lines()
                    .rev()
                    .filter_map(|l| {
                        let mut f = l.split('\t');
                        let first = f.next()?;
                        let first = if first.starts_with("0x") {
                            f.next()?
                        } else {
                            first
                        };
                        first.parse().ok()
                    })
                    .next()
                    .unwrap_or_else(|| panic!("{what}: no line shown: {}", p[&k]));
                // (After the last stop: the next few instructions.)
                let until = if forward {
                    at.get(j + 1).copied()
                } else {
                    j.checked_sub(1).map(|i| at[i])
                };
                let until = until.unwrap_or(instr + 16);
                let mut run = Vec::new();
                for i in instr..until.max(instr + 1) {
                    let (n, f) = frame_of(&mut tr, i);
                    if f == frame.unwrap() {
                        run.push(lines.get(&(n.at.pc & !1)).copied().unwrap_or(0));
                    }
                }
                assert!(
                    run.first() == Some(&shown) || run.contains(&shown),
                    "{what}: line {shown} shown, lines run from there {run:?}: {out}"
                );
                // Back, gdb may stop mid-line (printing the address) in
                // optimised code whose lines interleave.
                if forward {
                    assert_ne!(
                        Some(shown),
                        previous_line,
                        "{what}: the same line again: {out}"
                    );
                }
                previous_line = Some(shown);
            }
        };
        check((0..=STEPS).collect(), true);
        check(
            std::iter::once(STEPS).chain(101..=100 + STEPS).collect(),
            false,
        );
    }
}

/// Sends one packet (`$data#checksum`, or `raw` as is) and reads until a
/// whole reply packet (or a lone `-`/`+`) arrives.
fn exchange(stream: &mut TcpStream, raw: &[u8]) -> String {
    stream.write_all(raw).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the stub closed the connection after {:?}",
            String::from_utf8_lossy(raw)
        );
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).into_owned();
        let body = text.trim_start_matches('+');
        if body == "-" {
            return text;
        }
        // Console output (`$O<hex>`) may come before the reply, in the same read or not:
        // the reply is the first complete packet that is not output.
        let mut rest = body;
        while let Some(start) = rest.find('$') {
            let Some(hash) = rest[start..].find('#') else {
                break;
            };
            let end = start + hash + 3;
            if end > rest.len() {
                break;
            }
            let payload = &rest[start + 1..start + hash];
            let output = payload.starts_with('O') && payload != "OK";
            if !output {
                return text;
            }
            rest = &rest[end..];
        }
    }
}

fn packet(body: &str) -> Vec<u8> {
    let sum = body.bytes().fold(0u8, |a, b| a.wrapping_add(b));
    format!("${body}#{sum:02x}").into_bytes()
}

#[test]
fn malformed_and_unknown_packets_get_errors_and_the_stub_serves_on() {
    let dir = Dir::new("gdb-raw");
    let trace = data(TRACES[0].0);
    let s = stub(&dir, &trace, None, &[]);
    let connect = || {
        let st = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        st.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        st
    };
    let mut st = connect();
    // Unknown packets: the empty reply.
    for body in ["qNoSuchThing", "vNoSuchThing", "j"] {
        let r = exchange(&mut st, &packet(body));
        assert!(r.ends_with("$#00"), "{body}: {r}");
    }
    // Malformed known ones: an error or empty reply, never a crash.
    for body in [
        "Xyz",
        "m",
        "mzz,4",
        "m10000",
        "m0,zz",
        "Z0,zz,4",
        "z9,0,0",
        "Hgq",
        "vCont;x",
        "p",
        "P",
        "G",
        "M0,4:zz",
        "qXfer:features:read:nope.xml:0,10",
        "qRcmd,zz",
        "qRcmd,6c696e65207a",
        "bs",
        "bc",
    ] {
        let r = exchange(&mut st, &packet(body));
        let reply = r.trim_start_matches('+');
        assert!(
            reply.starts_with("$E")
                || reply == "$#00"
                || reply.starts_with("$T")
                || reply.starts_with("$O"),
            "{body}: {r}"
        );
    }
    // Still serving this session.
    let r = exchange(&mut st, &packet("?"));
    assert!(r.contains("$T05") || r.contains("$S05"), "{r}");
    // A packet whose checksum is wrong: an error, and the session goes on.
    let r = exchange(&mut st, b"$g#00");
    assert!(r.contains("$E01"), "{r}");
    let r = exchange(&mut st, &packet("?"));
    assert!(r.contains("$T05") || r.contains("$S05"), "{r}");
    drop(st);
    // The stub serves the next session.
    let mut st = connect();
    let r = exchange(&mut st, &packet("qSupported:swbreak+;hwbreak+"));
    assert!(r.contains("ReverseStep+"), "{r}");
    assert!(s_alive(&s));
}

fn s_alive(s: &Stub) -> bool {
    std::fs::metadata(format!("/proc/{}", s.child.id())).is_ok()
}

#[test]
fn a_trace_with_unparsed_lines_still_debugs() {
    let dir = Dir::new("gdb-unparsed");
    let t = &TRACES[0];
    let text = String::from_utf8(read(&data(t.0))).unwrap();
    let mut damaged = String::new();
    for (i, line) in text.lines().enumerate() {
        damaged.push_str(line);
        damaged.push('\n');
        if i % 997 == 500 {
            damaged.push_str("this line is no Tarmac at all %%% 0xzz\n");
        }
    }
    let trace = dir.write("damaged.tarmac", damaged);
    let elf = data(t.1.unwrap());
    let s = stub(&dir, &trace, Some(&elf), &[]);
    let out = gdb(
        &dir,
        s.port,
        Some(&elf),
        &[
            "break swap".into(),
            "continue".into(),
            mark(0),
            "info registers pc".into(),
            "stepi".into(),
            "reverse-stepi".into(),
            "reverse-stepi".into(),
            mark(1),
            "info registers pc".into(),
        ],
    );
    let p = pieces(&out);
    assert!(out.contains("Breakpoint 1, swap"), "{out}");
    assert!(p[&0].contains("<swap"), "{out}");
    assert!(!p[&1].contains("<swap"), "{out}");
}

/// Two single-core traces interleaved by time, as a multi-core model
/// writes them (cpu0 quicksort, cpu1 recursion).
fn two_cores(dir: &Dir) -> PathBuf {
    let a = read(&data(
        "tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.tarmac",
    ));
    let b = read(&data(
        "multicore/recursion-aarch64-O2-fastmodel-cpu1.tarmac",
    ));
    let mut groups: Vec<(u64, usize, Vec<u8>)> = Vec::new();
    for (who, t) in [&a, &b].into_iter().enumerate() {
        for line in t.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
            let time =
                std::str::from_utf8(&line[..line.iter().position(|&c| c == b' ').unwrap_or(0)])
                    .ok()
                    .and_then(|s| s.parse().ok());
            match (time, groups.last_mut()) {
                (None, Some(g)) if g.1 == who => {
                    g.2.extend_from_slice(line);
                    g.2.push(b'\n');
                }
                (time, _) => {
                    let mut v = line.to_vec();
                    v.push(b'\n');
                    groups.push((time.unwrap_or(0), who, v));
                }
            }
        }
    }
    groups.sort_by_key(|g| (g.0, g.1));
    let bytes: Vec<u8> = groups.into_iter().flat_map(|g| g.2).collect();
    dir.write("two-cores.tarmac", bytes)
}

#[test]
fn the_cores_of_a_multi_core_trace_are_threads() {
    let dir = Dir::new("gdb-cores");
    let trace = two_cores(&dir);
    let elf = data("tracegen/quicksort-aarch64-O2-fastmodel-cpu-2M.elf");
    let swap = SymbolTable::from_elf_bytes(&read(&elf), 0)
        .unwrap()
        .address_of("swap")
        .unwrap();
    // Each core's own index, as `--cpu` builds it.
    let mut source = FileSource::open(&trace).unwrap();
    let index = |cpu: &str| {
        let mut opts = IndexOptions::default();
        opts.parse.cpu = Some(cpu.parse().unwrap());
        Index::build(&mut FileSource::open(&trace).unwrap(), opts, |_| {}).unwrap()
    };
    let cores = [index("cpu0"), index("cpu1")];
    // A breakpoint is an address: the first core to run it stops (cpu1's
    // program has code there too).
    let hits: Vec<_> = cores
        .iter()
        .map(|i| i.find_pc(&mut source, 0, swap, true).unwrap().unwrap())
        .collect();
    let first = if hits[0].at.line <= hits[1].at.line {
        0
    } else {
        1
    };
    let other = 1 - first;
    // The other core stands before its next instruction after that line.
    let there = cores[other]
        .node_at_line(&mut source, hits[first].at.line)
        .unwrap();
    let next = there.instructions_before() + u64::from(there.has_instruction());
    let other_at = cores[other].node_at_instruction(&mut source, next).unwrap();
    let s = stub(&dir, &trace, Some(&elf), &[]);
    let out = gdb(
        &dir,
        s.port,
        Some(&elf),
        &[
            mark(0),
            "info threads".into(),
            mark(1),
            "break swap".into(),
            "continue".into(),
            "monitor info".into(),
            format!("thread {}", other + 1),
            mark(2),
            "info registers pc".into(),
        ],
    );
    let p = pieces(&out);
    assert!(
        p[&0].contains("(cpu0)") && p[&0].contains("(cpu1)"),
        "{out}"
    );
    assert!(
        p[&1].contains(&format!("Thread {} hit Breakpoint 1", first + 1)),
        "{out}"
    );
    assert_eq!(
        where_(&p[&1]).map(|w| w.0),
        Some(hits[first].at.line),
        "{out}"
    );
    assert!(
        p[&1].contains(&format!("cpu{first} (thread {})", first + 1)),
        "{out}"
    );
    let pc = format!("{:#x}", other_at.at.pc & !1);
    assert!(
        p[&2]
            .lines()
            .any(|l| l.starts_with("pc") && l.contains(&pc)),
        "cpu{other} at {pc}: {out}"
    );
}

/// `--stdio`: gdb starts the stub itself over a pipe; no port at all.
#[test]
fn gdb_can_run_the_stub_over_a_pipe() {
    let dir = Dir::new("gdb-stdio");
    let t = &TRACES[1];
    let (trace, elf) = (data(t.0), data(t.1.unwrap()));
    let index = dir.path().join("a32.index");
    let out_path = dir.path().join("gdb.out");
    let out = std::fs::File::create(&out_path).unwrap();
    let target = format!(
        "target remote | {} gdbserver --stdio -q --index {} {}",
        env!("CARGO_BIN_EXE_tarmac-lens"),
        index.display(),
        trace.display()
    );
    let status = Command::new(gdb_binary())
        .args(["-nx", "-q", "-batch", "-ex", "set pagination off"])
        .args([
            "-ex",
            &target,
            "-ex",
            "stepi",
            "-ex",
            "monitor info",
            "-ex",
            "info registers pc cpsr",
        ])
        .arg(&elf)
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .status()
        .unwrap();
    let text = String::from_utf8_lossy(&read(&out_path)).into_owned();
    assert!(status.success(), "{text}");
    let mut tr = open(t);
    let second = tr.index.node_at_instruction(&mut tr.source, 1).unwrap();
    assert_eq!(where_(&text).map(|w| w.1), Some(1), "{text}");
    assert!(
        text.contains(&format!("{:#x}", second.at.pc & !1)),
        "{text}"
    );
}

/// `rwatch` back: the last earlier read that `tarmac-lens watch --reads`
/// lists, the reader about to run; `awatch` forward: just after the next
/// access of either kind.
#[test]
fn read_and_access_watchpoints_follow_the_reads_watch_lists() {
    let dir = Dir::new("gdb-rwatch");
    let t = &TRACES[0];
    let mut tr = open(t);
    let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
    let addr = tr.symbols.as_ref().unwrap().address_of("qs_array").unwrap() + 8;
    let list = |args: &[&str]| -> Vec<u64> {
        let out = tarmac_lens()
            .arg("watch")
            .arg(&tr.path)
            .args(["--no-index", "--json", "--mem", &format!("{addr:#x}:4")])
            .args(args)
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["node"].as_u64().unwrap())
            .collect()
    };
    let reads = list(&["--reads"]);
    let all = list(&[]);
    assert!(reads.len() > 5, "{reads:?}");
    let mut cmds = Vec::new();
    let mut starts = Vec::new();
    for k in 0..4 {
        let n = tr
            .index
            .node(&mut tr.source, reads[reads.len() * (k + 1) / 5] + 3)
            .unwrap();
        let n = tr
            .index
            .node_at_instruction(&mut tr.source, n.instructions_before())
            .unwrap();
        starts.push(n);
        cmds.push(mark(2 * k));
        cmds.push(format!("monitor line {}", n.at.line));
        cmds.push("maintenance flush register-cache".into());
        cmds.push(format!("rwatch *(int*){addr:#x}"));
        cmds.push("reverse-continue".into());
        cmds.push("monitor info".into());
        cmds.push("delete".into());
        cmds.push(mark(2 * k + 1));
        cmds.push(format!("monitor line {}", n.at.line));
        cmds.push("maintenance flush register-cache".into());
        cmds.push(format!("awatch *(int*){addr:#x}"));
        cmds.push("continue".into());
        cmds.push("monitor info".into());
        cmds.push("delete".into());
    }
    let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
    let p = pieces(&out);
    for (k, n) in starts.iter().enumerate() {
        let back = &p[&(2 * k)];
        let reader = reads.iter().rev().find(|&&r| r < n.at.node).unwrap();
        let reader = tr.index.node(&mut tr.source, *reader).unwrap();
        assert!(back.contains("read watchpoint"), "{back}");
        assert_eq!(
            where_(back).map(|w| w.0),
            Some(reader.at.line),
            "rwatch back from {}: {back}",
            n.at.line
        );
        let fwd = &p[&(2 * k + 1)];
        let next = all.iter().find(|&&a| a >= n.at.node).unwrap();
        let next = tr.index.node(&mut tr.source, *next).unwrap();
        assert!(fwd.contains("atchpoint"), "{fwd}");
        assert_eq!(
            where_(fwd).map(|w| w.1),
            Some(next.instructions_before() + 1),
            "awatch forward from {}: {fwd}",
            n.at.line
        );
    }
}

/// A Cortex-M trace (Armv7-M, thread and handler modes, SVCall and
/// SysTick): gdb gets the M-profile register set, its values are the core's,
/// xPSR keeps its exception number, and a breakpoint on a handler stops at
/// the handler's first run.
#[test]
fn a_cortex_m_trace_debugs_with_the_m_profile_registers() {
    let dir = Dir::new("gdb-m");
    let t = &(
        "stats/exceptions-cortex-m-O1-fastmodel.tarmac",
        Some("stats/exceptions-cortex-m-O1-fastmodel.elf"),
        false,
    );
    let mut tr = open(t);
    let s = stub(&dir, &tr.path, tr.elf.as_deref(), &[]);
    let positions = random_positions(&mut tr, 60);
    let mut cmds = Vec::new();
    for (k, n) in positions.iter().enumerate() {
        cmds.push(mark(k));
        cmds.push(format!("monitor line {}", n.at.line));
        cmds.push("maintenance flush register-cache".into());
        cmds.push("info registers".into());
    }
    let handler = "tg_timer_handler";
    cmds.extend([
        mark(1000),
        "monitor line 1".into(),
        "maintenance flush register-cache".into(),
        format!("break {handler}"),
        "continue".into(),
        "monitor info".into(),
        "info registers xpsr".into(),
    ]);
    let out = gdb(&dir, s.port, tr.elf.as_deref(), &cmds);
    let p = pieces(&out);
    let mut handler_mode_seen = false;
    for (k, n) in positions.iter().enumerate() {
        let text = p
            .get(&k)
            .unwrap_or_else(|| panic!("no output for position {k}: {out}"));
        let what = format!("line {} (node {})", n.at.line, n.at.node);
        assert!(!text.contains("cpsr"), "{what}: an A-profile cpsr: {text}");
        let regs = tr
            .index
            .registers_after(&mut tr.source, n.at.node - 1)
            .unwrap();
        let mut seen = 0;
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let (Some(name), Some(value)) = (words.next(), words.next()) else {
                continue;
            };
            let general = name.starts_with('r') && name[1..].parse::<u32>().is_ok()
                || ["sp", "lr", "pc", "xpsr"].contains(&name);
            if !general {
                continue;
            }
            seen += 1;
            let got = u64::from_str_radix(value.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| panic!("{what}: register line {line:?}"));
            let want = if name == "xpsr" {
                // The trace writes xPSR as `cpsr`; gdb's is always Thumb.
                expected_register(&tr, &regs, "cpsr", 0).map(|v| v | 1 << 24)
            } else {
                expected_register(&tr, &regs, name, n.at.pc)
            };
            assert_eq!(Some(got), want, "{what}: {name} in {line:?}");
            if name == "xpsr" && got & 0x1ff != 0 {
                handler_mode_seen = true;
            }
        }
        assert_eq!(seen, 17, "{what}: r0-r12, sp, lr, pc, xpsr: {text}");
    }
    assert!(
        handler_mode_seen,
        "no position in a handler among {}",
        positions.len()
    );
    // The handler's first run, as the trace has it; its exception number
    // (SysTick is 15) in xPSR.
    let entry = tr.symbols.as_ref().unwrap().address_of(handler).unwrap() & !1;
    let first = tr
        .index
        .find_pc(&mut tr.source, 0, entry, true)
        .unwrap()
        .unwrap();
    let stop = &p[&1000];
    assert!(stop.contains("reakpoint 1, "), "{out}");
    assert_eq!(where_(stop).map(|w| w.0), Some(first.at.line), "{out}");
    let xpsr = stop
        .lines()
        .find_map(|l| l.strip_prefix("xpsr"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| u64::from_str_radix(v.trim_start_matches("0x"), 16).ok())
        .unwrap_or_else(|| panic!("no xpsr: {stop}"));
    assert_eq!(xpsr & 0x1ff, 15, "SysTick's exception number: {stop}");
}
