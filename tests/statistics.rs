//! The statistics reports (`report::stats`, the CLI's `mix`, `levels`,
//! `exceptions`, `functions`, `loops`, `cfg`, `cache-tlb`) against
//! independent oracles: objdump's disassembly classified by a Python
//! script, the trace text itself, the `profile` and `calltree` reports,
//! the generated programs' loop bounds and exceptions (known by
//! construction: `scripts/tracegen/`), and hand-written traces.
use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

use tarmac_lens_core::{
    report::stats::Statistics,
    report::{ProfileSort, Reports},
    EngineOptions, FileSource, ParseOptions, SymbolTable,
};

use crate::common::{self, cli_text, data, oracle, tarmac_lens};

const A64_EXC: &str = "stats/exceptions-aarch64-O1-fastmodel";
const M_EXC: &str = "stats/exceptions-cortex-m-O1-fastmodel";
const CLASSES: [&str; 11] = [
    "load",
    "store",
    "branch",
    "alu",
    "muldiv",
    "float",
    "simd",
    "system",
    "exception",
    "hint",
    "undecoded",
];

fn path(base: &str, ext: &str) -> String {
    data(&format!("{base}.{ext}")).to_str().unwrap().to_string()
}

/// A report's `--json` with the trace's ELF.
fn json(command: &str, base: &str) -> Value {
    let text = cli_text(&[
        command,
        "--json",
        &path(base, "tarmac"),
        "--image",
        &path(base, "elf"),
    ]);
    serde_json::from_str(&text).unwrap()
}

fn stats(base: &str) -> Statistics {
    let image = SymbolTable::from_elf_bytes(&std::fs::read(path(base, "elf")).unwrap(), 0).unwrap();
    Statistics::compute(
        FileSource::open(&data(&format!("{base}.tarmac"))).unwrap(),
        ParseOptions::default(),
        EngineOptions::default(),
        Some(image),
    )
    .unwrap()
}

/// The trace's lines, 1-based.
fn lines(base: &str) -> Vec<String> {
    let text = std::fs::read_to_string(data(&format!("{base}.tarmac"))).unwrap();
    std::iter::once(String::new())
        .chain(text.lines().map(str::to_string))
        .collect()
}

#[test]
fn the_mix_by_class_equals_objdump_s_classified_by_an_independent_script() {
    let python = oracle("python3", "python3");
    for base in [
        "tracegen/quicksort-aarch64-O2-fastmodel-2M",
        "tracegen/quicksort-arm-O2-fastmodel-2M",
        "tracegen/quicksort-thumb-O2-fastmodel-2M",
        "tracegen/lines/hash-aarch64-O2-fastmodel",
        "tracegen/lines/hash-thumb-O2-fastmodel",
        "tracegen/lines/recursion-arm-O1-fastmodel",
        A64_EXC,
        M_EXC,
    ] {
        let tool = if base.contains("aarch64") {
            oracle("aarch64-linux-gnu-objdump", "binutils-aarch64-linux-gnu")
        } else {
            oracle("arm-none-eabi-objdump", "binutils-arm-none-eabi")
        };
        let out = Command::new(python)
            .arg(data("../oracles/mix_oracle.py"))
            .args([path(base, "tarmac"), path(base, "elf"), tool.to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want: BTreeMap<String, (u64, u64)> =
            serde_json::from_slice::<BTreeMap<String, Vec<u64>>>(&out.stdout)
                .unwrap()
                .into_iter()
                .map(|(k, v)| (k, (v[0], v[1])))
                .collect();
        let mix = json("mix", base);
        let overall = &mix["overall"];
        let mut got = BTreeMap::new();
        for (i, c) in CLASSES.iter().enumerate() {
            let e = overall["executed"][i].as_u64().unwrap();
            let f = overall["failed"][i].as_u64().unwrap();
            if e + f > 0 {
                got.insert(c.to_string(), (e, f));
            }
        }
        assert_eq!(got, want, "{base}: class -> (executed, failed)");
        // The other views add up to the whole.
        for view in ["by_level", "by_function"] {
            for (i, _) in CLASSES.iter().enumerate() {
                let sum: u64 = mix[view]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g["counts"]["executed"][i].as_u64().unwrap())
                    .sum();
                assert_eq!(
                    sum,
                    overall["executed"][i].as_u64().unwrap(),
                    "{base} {view}"
                );
            }
        }
        let by_mnemonic: u64 = mix["by_mnemonic"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["executed"].as_u64().unwrap() + m["failed"].as_u64().unwrap())
            .sum();
        let all: u64 = want.values().map(|(e, f)| e + f).sum();
        assert_eq!(by_mnemonic, all, "{base}: by mnemonic");
    }
}

/// Exception event lines by grep: `E` lines other than resets and mode
/// changes.
fn exception_lines(base: &str) -> Vec<u64> {
    lines(base)
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.contains(" E ")
                && l.contains("CoreEvent_")
                && !l.contains("CoreEvent_Reset")
                && !l.contains("ModeChange")
        })
        .map(|(i, _)| i as u64)
        .collect()
}

#[test]
fn every_exception_event_line_is_an_exception_taken_and_returned() {
    for base in [A64_EXC, M_EXC] {
        let r = json("exceptions", base);
        let want = exception_lines(base);
        let got: Vec<u64> = r["list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["line"].as_u64().unwrap())
            .collect();
        assert_eq!(got, want, "{base}");
        assert_eq!(r["taken"].as_u64().unwrap(), want.len() as u64);
        let text = lines(base);
        for t in r["list"].as_array().unwrap() {
            // Each returned, and its handler's first line is the first
            // instruction after the event line.
            let line = t["line"].as_u64().unwrap() as usize;
            let handler = t["handler"]["line"].as_u64().unwrap() as usize;
            assert!(handler > line);
            assert!(
                text[line + 1..handler].iter().all(|l| !l.contains(" IT ")),
                "{base}: an instruction between line {line} and its handler"
            );
            assert!(text[handler].contains(" IT "), "{base}:{handler}");
            assert!(
                t["resume"].is_object(),
                "{base}: #{} did not return",
                t["id"]
            );
        }
        // Per vector, the counts add up.
        let sum: u64 = r["vectors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["count"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, want.len() as u64);
    }
}

#[test]
fn the_generated_exceptions_are_the_ones_the_program_makes() {
    // AArch64, two iterations: SVC #1, SVC #2 and SMC #3 each, and the
    // timer's interrupt: inside SVC #2's handler (nested) and elsewhere.
    let r = json("exceptions", A64_EXC);
    let vectors: BTreeMap<String, &Value> = r["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["name"].as_str().unwrap().to_string(), v))
        .collect();
    assert_eq!(vectors["CURRENT_SPx_SYNC"]["count"], 4);
    assert_eq!(vectors["LOWER_64_SYNC"]["count"], 2);
    assert_eq!(
        vectors["CURRENT_SPx_SYNC"]["vector"],
        "Current EL with SPx, Synchronous, +0x200"
    );
    let list = r["list"].as_array().unwrap();
    let by_id: BTreeMap<u64, &Value> = list
        .iter()
        .map(|t| (t["id"].as_u64().unwrap(), t))
        .collect();
    let mut nested = 0;
    for t in list {
        if t["depth"] == 1 {
            nested += 1;
            assert_eq!(t["name"], "CURRENT_SPx_IRQ");
            let parent = by_id[&t["parent"].as_u64().unwrap()];
            assert_eq!(parent["name"], "CURRENT_SPx_SYNC");
            let esr = parent["registers"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["name"] == "ESR_EL1")
                .unwrap();
            // The nesting SVC is SVC #2, the one that unmasks interrupts.
            assert_eq!(esr["value"], 0x5600_0002u64);
            assert!(esr["meaning"]
                .as_str()
                .unwrap()
                .starts_with("EC 0x15 SVC instruction execution in AArch64 state"));
            assert!(esr["meaning"].as_str().unwrap().contains("imm16 0x0002"));
        }
        if t["name"] == "LOWER_64_SYNC" {
            assert_eq!(t["handler_mode"], "EL3h_s");
            assert_eq!(t["from_mode"], "EL1h_ns");
        }
    }
    assert_eq!(
        nested,
        vectors["CURRENT_SPx_IRQ"]["nested"].as_u64().unwrap()
    );
    assert!(nested >= 2);

    // M-profile: SVCall twice a run (one per iteration), SysTick otherwise,
    // nested only inside SVCall.
    let r = json("exceptions", M_EXC);
    for t in r["list"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert!(name == "SVCALL" || name == "SYSTICK", "{name}");
        assert_eq!(t["interrupt"], name == "SYSTICK");
        if t["depth"] == 1 {
            assert_eq!(name, "SYSTICK");
        }
        assert_eq!(t["handler_mode"], "handler");
    }
}

#[test]
fn latency_and_time_inside_of_one_cortex_m_interrupt_by_hand() {
    // The trace's first SysTick, read from its text:
    //   line 363 `231 clk E 000100bc 0000000f CoreEvent_SYSTICK` (the event),
    //   line 367 `244 clk IT (151) 000100ec ... T handler : LDR` (the
    //            handler's first instruction: 244 - 231 = 13 of latency),
    //   line 453 `312 clk IT (191) 00010104 4770 T handler : BX lr` (its
    //            return, instruction 191: 41 instructions from 151),
    //   line 471 `323 clk IT (192) 000100bc ... T thread` (execution
    //            resumes where it was taken: 323 - 244 = 79 inside).
    let text = lines(M_EXC);
    assert!(text[363].starts_with("231 clk E 000100bc 0000000f CoreEvent_SYSTICK"));
    assert!(text[367].starts_with("244 clk IT (151) 000100ec"));
    assert!(text[453].starts_with("312 clk IT (191) 00010104 4770 T handler : BX"));
    assert!(text[471].starts_with("323 clk IT (192) 000100bc"));
    let r = json("exceptions", M_EXC);
    let first = &r["list"][0];
    assert_eq!(first["line"], 363);
    assert_eq!(first["handler"]["line"], 367);
    assert_eq!(first["return_instruction"]["line"], 453);
    assert_eq!(first["resume"]["line"], 471);
    let s = stats(M_EXC);
    let t = &s.exceptions().list[0];
    assert_eq!(t.latency(), Some(13));
    assert_eq!(t.time_inside(), Some(79));
    assert_eq!(t.instructions_inside(), Some(41));
    let regs: BTreeMap<&str, &str> = t
        .registers
        .iter()
        .filter_map(|r| Some((r.name.as_str(), r.meaning.as_deref()?)))
        .collect();
    assert_eq!(
        regs["r14"],
        "EXC_RETURN: return to Thread mode on MSP, basic frame"
    );
    assert_eq!(regs["cpsr"], "nzcv, exception 15 (SysTick)");
}

#[test]
fn time_by_level_adds_up_and_counts_the_changes_of_mode() {
    let r = json("levels", A64_EXC);
    let modes: BTreeMap<String, &Value> = r["modes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["context"]["mode"].as_str().unwrap().to_string(), m))
        .collect();
    assert_eq!(modes.len(), 2);
    assert_eq!(modes["EL3h_s"]["context"]["level"], 3);
    assert_eq!(modes["EL3h_s"]["context"]["security"], "Secure");
    assert_eq!(modes["EL1h_ns"]["context"]["security"], "NonSecure");
    // Instructions per mode by grep.
    let text = lines(A64_EXC);
    for (mode, m) in &modes {
        let n = text
            .iter()
            .filter(|l| l.contains(" IT ") || l.contains(" IS "))
            .filter(|l| l.contains(&format!(" {mode} :")))
            .count() as u64;
        assert_eq!(m["instructions"].as_u64().unwrap(), n, "{mode}");
    }
    let sum: u64 = modes.values().map(|m| m["time"].as_u64().unwrap()).sum();
    assert_eq!(sum, r["time"].as_u64().unwrap());
    // The boot's drop to EL1 and two SMCs' returns; two SMCs.
    let changes: BTreeMap<(String, String), u64> = r["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                (
                    t["from"].as_str().unwrap().into(),
                    t["to"].as_str().unwrap().into(),
                ),
                t["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(changes[&("EL3h_s".into(), "EL1h_ns".into())], 3);
    assert_eq!(changes[&("EL1h_ns".into(), "EL3h_s".into())], 2);

    let r = json("levels", M_EXC);
    let by_level: BTreeMap<String, u64> = r["by_level"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().into(),
                l["instructions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by_level.keys().collect::<Vec<_>>(), ["Handler", "Thread"]);
    // Thread to handler once per exception taken from thread mode: the
    // ModeChange lines say which.
    let to_handler = lines(M_EXC)
        .iter()
        .filter(|l| l.contains("handler 00000019 CoreEvent_ModeChange"))
        .count() as u64;
    let t = r["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["from"] == "thread")
        .unwrap();
    assert_eq!(t["count"].as_u64().unwrap(), to_handler);
}

/// Per function entry address: (calls, [exit time - entry time per call]),
/// from the `calltree` text.
fn calltree_times(base: &str) -> BTreeMap<u64, Vec<u64>> {
    let text = cli_text(&["calltree", &path(base, "tarmac")]);
    let mut out: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("o ") else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let t = |s: &str| s.strip_prefix("t:").unwrap().parse::<u64>().unwrap();
        let pc = u64::from_str_radix(f[2].strip_prefix("pc:0x").unwrap(), 16).unwrap();
        let (entry, exit) = (t(f[0]), t(f[4]));
        if exit >= entry {
            out.entry(pc).or_default().push(exit - entry);
        }
    }
    out
}

#[test]
fn function_counts_and_instructions_equal_the_profile_and_spans_the_call_tree() {
    for base in [
        "tracegen/quicksort-aarch64-O2-fastmodel-2M",
        "tracegen/quicksort-arm-O2-fastmodel-2M",
        "tracegen/quicksort-thumb-O2-fastmodel-2M",
        A64_EXC,
        M_EXC,
    ] {
        let image =
            SymbolTable::from_elf_bytes(&std::fs::read(path(base, "elf")).unwrap(), 0).unwrap();
        let reports = Reports::compute(
            FileSource::open(&data(&format!("{base}.tarmac"))).unwrap(),
            ParseOptions::default(),
            EngineOptions::default(),
            Some(image),
        )
        .unwrap();
        let profile = reports.profile(ProfileSort::Address, false, 0, 500).rows;
        let r = stats(base).functions(true);
        assert_eq!(r.functions.len(), profile.len(), "{base}");
        let by_addr: BTreeMap<u64, _> = r.functions.iter().map(|f| (f.addr, f)).collect();
        for p in &profile {
            let f = by_addr[&p.addr];
            assert_eq!(f.calls, p.count, "{base} {}", p.name);
            assert_eq!(f.total_instructions, p.instructions, "{base} {}", p.name);
            assert_eq!(
                f.own_instructions.total, p.own_instructions,
                "{base} {}",
                p.name
            );
        }
        // The CLI's profile counts too.
        let text = cli_text(&["profile", &path(base, "tarmac")]);
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let addr = u64::from_str_radix(f[0].strip_prefix("0x").unwrap(), 16).unwrap();
            assert_eq!(
                by_addr[&addr].calls,
                f[1].parse::<u64>().unwrap(),
                "{base} {line}"
            );
        }
        // Min and max per call are the call tree's.
        for (pc, times) in calltree_times(base) {
            let f = by_addr[&pc];
            if f.open > 0 {
                continue;
            }
            assert_eq!(f.time.min, *times.iter().min().unwrap(), "{base} 0x{pc:x}");
            assert_eq!(f.time.max, *times.iter().max().unwrap(), "{base} 0x{pc:x}");
            assert_eq!(f.time.count, times.len() as u64);
        }
    }
}

#[test]
fn exceptions_in_calls_are_counted_or_taken_out_as_asked_and_said() {
    let s = stats(A64_EXC);
    let counted = s.functions(true);
    let out = s.functions(false);
    assert!(counted
        .render()
        .contains("Exceptions inside calls: counted in them"));
    assert!(out
        .render()
        .contains("Exceptions inside calls: taken out of them"));
    let exc = s.exceptions();
    // The outermost exceptions' time, by the exceptions report.
    let outer: u64 = exc
        .list
        .iter()
        .filter(|t| t.depth == 0)
        .map(|t| t.time_inside().unwrap())
        .sum();
    assert_eq!(counted.exception_time, outer);
    let f = |r: &tarmac_lens_core::report::stats::functions::FunctionsReport, name: &str| {
        r.functions.iter().find(|f| f.name == name).unwrap().clone()
    };
    // tg_main holds every exception after the boot.
    let (a, b) = (f(&counted, "tg_main"), f(&out, "tg_main"));
    assert_eq!(a.total_time - b.total_time, outer);
    // The handlers' calls, without the exceptions, have the exception as
    // their caller.
    let callers: Vec<&str> = out
        .callers
        .iter()
        .filter(|c| c.name == "tg_timer_handler")
        .map(|c| c.caller.as_str())
        .collect();
    assert!(
        callers.contains(&"[exception CURRENT_SPx_IRQ]"),
        "{callers:?}"
    );
    assert!(counted
        .callers
        .iter()
        .all(|c| !c.caller.starts_with("[exception")));
}

#[test]
fn loop_iterations_are_the_programs_loop_bounds() {
    // exceptions.c: work() loops WORK_LOOP = 64 times, SVC #2's handler
    // SVC_SPIN = 40, the timer's TICK_LOOP = 8; tg_main runs 2 iterations.
    for base in [A64_EXC, M_EXC] {
        let r = json("loops", base);
        let by_function: BTreeMap<String, &Value> = r["loops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let f = l["function"].as_str().unwrap();
                (f.split(" + ").next().unwrap().to_string(), l)
            })
            .collect();
        let iterations = |f: &str| {
            let l = by_function[f];
            let it = &l["iterations"];
            (
                it["min"].as_u64().unwrap(),
                it["max"].as_u64().unwrap(),
                it["count"].as_u64().unwrap(),
            )
        };
        assert_eq!(iterations("work"), (64, 64, 2), "{base}");
        assert_eq!(iterations("tg_timer_handler").0, 8, "{base}");
        assert_eq!(iterations("tg_timer_handler").1, 8, "{base}");
        assert_eq!(iterations("tg_main"), (2, 2, 1), "{base}");
        let spin = r["loops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| {
                l["function"]
                    .as_str()
                    .unwrap()
                    .starts_with("tg_svc_handler")
                    && l["iterations"]["max"] == 40
            })
            .unwrap_or_else(|| panic!("{base}: no loop of 40 in the SVC handler"));
        assert_eq!(spin["iterations"]["min"], 40);
    }
    // quicksort.c: QS_N = 96 elements filled, copied and checked (95 pairs).
    let r = json("loops", "tracegen/quicksort-aarch64-O2-fastmodel-2M");
    for (f, n) in [
        ("fill.constprop.0", 96),
        ("memcpy", 96),
        ("is_sorted.constprop.0", 95),
    ] {
        let l = r["loops"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["function"].as_str().unwrap().starts_with(f))
            .unwrap();
        assert_eq!(l["iterations"]["min"], n, "{f}");
        assert_eq!(l["iterations"]["max"], n, "{f}");
    }
}

#[test]
fn branch_outcomes_add_up_to_the_executions_in_the_trace() {
    for base in [
        "tracegen/quicksort-aarch64-O2-fastmodel-2M",
        "tracegen/quicksort-thumb-O2-fastmodel-2M",
        A64_EXC,
        M_EXC,
    ] {
        let text = lines(base);
        let mut reached: BTreeMap<u64, u64> = BTreeMap::new();
        for l in &text {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() > 4 && (f[2] == "IT" || f[2] == "IS") {
                *reached
                    .entry(u64::from_str_radix(f[4], 16).unwrap())
                    .or_default() += 1;
            }
        }
        let r = json("loops", base);
        let branches = r["branches"].as_array().unwrap();
        assert!(!branches.is_empty());
        for b in branches {
            let pc = b["pc"].as_u64().unwrap() & !1;
            let all = b["taken"].as_u64().unwrap() + b["not_taken"].as_u64().unwrap();
            assert_eq!(all, reached[&pc], "{base} 0x{pc:x}");
        }
    }
}

#[test]
fn the_cfg_of_a_function_is_its_blocks_and_edges_with_counts() {
    let base = "tracegen/quicksort-aarch64-O2-fastmodel-2M";
    let dot = cli_text(&[
        "cfg",
        "--function",
        "partition",
        &path(base, "tarmac"),
        "--image",
        &path(base, "elf"),
    ]);
    assert!(dot.starts_with("digraph \"partition\" {"), "{dot}");
    assert!(
        dot.contains("\"entry\" -> \"0x10280\" [label=\"20\"]"),
        "{dot}"
    );
    let s = stats(base);
    let g = s.cfg("partition").unwrap();
    // Each block runs as often as edges lead into it.
    for b in &g.blocks {
        let into: u64 = g
            .edges
            .iter()
            .filter(|e| e.to == tarmac_lens_core::report::stats::cfg::Target::Block(b.start))
            .map(|e| e.count)
            .sum();
        let entries = if b.start == g.blocks[0].start {
            g.entries
        } else {
            0
        };
        assert_eq!(into + entries, b.count, "block 0x{:x}", b.start);
    }
    // And out of it (returns and jumps out of the function included).
    for b in &g.blocks {
        let out: u64 = g
            .edges
            .iter()
            .filter(|e| e.from == b.start)
            .map(|e| e.count)
            .sum();
        assert_eq!(out, b.count, "block 0x{:x}", b.start);
    }
    // Its instructions are the trace's.
    let text = lines(base);
    let n = text
        .iter()
        .filter(|l| l.contains(" IT ") || l.contains(" IS "))
        .filter(|l| {
            let a = u64::from_str_radix(l.split_whitespace().nth(4).unwrap(), 16).unwrap();
            (g.start..g.end).contains(&a)
        })
        .count() as u64;
    let by_blocks: u64 = g.blocks.iter().map(|b| b.count * b.instructions).sum();
    assert_eq!(by_blocks, n);
}

#[test]
fn translation_and_cache_events_are_counted_and_decoded() {
    let base = "stats/hand/cache-tlb";
    let r: Value =
        serde_json::from_str(&cli_text(&["cache-tlb", "--json", &path(base, "tarmac")])).unwrap();
    let text = lines(base);
    let grep = |w: &str| text.iter().filter(|l| l.contains(w)).count() as u64;
    let count = |kind: &str| {
        r["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["kind"] == kind)
            .map_or(0, |t| t["count"].as_u64().unwrap())
    };
    assert_eq!(count("TableWalk"), grep(" TTW "));
    assert_eq!(count("Tlb"), grep(" TLB "));
    assert_eq!(count("CacheLine"), grep(" LINE "));
    assert_eq!(count("CacheMaintenance"), grep("MAINTENANCE"));
    let walk = &r["tables"][0]["events"][0]["fields"];
    let fields: BTreeMap<&str, &str> = walk
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f[0].as_str().unwrap(), f[1].as_str().unwrap()))
        .collect();
    assert_eq!(fields["stage:level"], "1:3");
    assert_eq!(fields["result"], "BLOCK");
    assert_eq!(fields["AP"], "1");
    assert_eq!(fields["descriptor"], "0x16000463");
    // A trace with none says so.
    let none = cli_text(&[
        "cache-tlb",
        &path("tracegen/quicksort-arm-O2-fastmodel-2M", "tarmac"),
    ]);
    assert!(none.starts_with("No translation or cache events in this trace"));
}

#[test]
fn bad_input_is_said_not_hidden() {
    // An encoding no decoder reads is counted as undecoded.
    let r: Value = serde_json::from_str(&cli_text(&[
        "mix",
        "--json",
        &path("stats/hand/undecoded", "tarmac"),
    ]))
    .unwrap();
    assert_eq!(r["overall"]["executed"][10], 1);
    assert_eq!(r["undecoded"][0][2], 0x0200_0000u64);
    let text = cli_text(&["mix", &path("stats/hand/undecoded", "tarmac")]);
    assert!(text.contains("undecoded                 1"), "{text}");
    assert!(text.contains("A64 0x1004: 02000000"), "{text}");
    // A trace without exceptions says so.
    let text = cli_text(&[
        "exceptions",
        &path("tracegen/quicksort-aarch64-O2-fastmodel-2M", "tarmac"),
    ]);
    assert!(
        text.starts_with("No exceptions or interrupts taken in this trace"),
        "{text}"
    );
    // An exception class the decoder does not know is shown as its number.
    let text = cli_text(&["exceptions", &path("stats/hand/unknown-esr", "tarmac")]);
    assert!(
        text.contains("ESR_EL1 = 0xfc000000: EC 0x3f (not a class the decoder knows)"),
        "{text}"
    );
    assert!(text.contains("returned by line 11 pc 0x204"), "{text}");
}

#[test]
fn calltree_lists_the_calls_still_open_where_a_trace_stops() {
    // The quicksort trace cut at line 1500, inside fill() (called by
    // run_iteration, called by tg_main): a simulation that hung there.
    let base = "tracegen/quicksort-aarch64-O2-fastmodel-2M";
    let text: String = lines(base)[1..=1500]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = common::Dir::new("stats-open");
    let cut = dir.write("cut.tarmac", text);
    let (cut, elf) = (cut.to_str().unwrap(), path(base, "elf"));
    let tree = cli_text(&["calltree", cut, "--image", &elf]);
    let with_open = cli_text(&["calltree", "--open", cut, "--image", &elf]);
    // The tree itself is unchanged (the reference tool's); the stack follows.
    let rest = with_open.strip_prefix(&tree).expect("the tree first");
    assert_eq!(
        rest.lines().collect::<Vec<_>>(),
        [
            "Calls still open at the end of the trace (3, outermost first):",
            "- t:402 l:771 pc:0x1002c -> t:403 l:773 pc:0x10060 : tg_main",
            "  - t:416 l:803 pc:0x10094 -> t:417 l:805 pc:0x10050 : run_iteration",
            "    - t:421 l:815 pc:0x1055c -> t:422 l:817 pc:0x103e0 : fill.constprop.0",
        ]
    );
    // The lines named are the calls (BL) and the callees' first instructions.
    let t = lines(base);
    for (call, entry) in [(771, 773), (803, 805), (815, 817)] {
        assert!(t[call].contains(" BL "), "{}", t[call]);
        assert!(t[entry].contains(" IT "), "{}", t[entry]);
    }
    // Without --open, standard error says there is a stack to list.
    let out = tarmac_lens().args(["calltree", cut]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("3 call(s) still open at the end of the trace (--open lists them)"));
    // A whole trace has none.
    let whole = cli_text(&["calltree", "--open", &path(base, "tarmac")]);
    assert!(whole.ends_with("No calls still open at the end of the trace\n"));
}
