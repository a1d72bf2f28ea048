//! The trace browser's model, driven natively as a person drives the page:
//! keys and prompts in, rows, positions and pane contents out, every
//! question answered by a real `browse::Session` over a checked-in trace
//! (what the page's worker does). Expectations come from the trace text.
use std::collections::HashMap;

use tarmac_lens::model::search::{SearchForm, SearchMsg};
use tarmac_lens::model::{Config, Effect, KeyInput, Model, Msg, Pane, PaneSpec};
use tarmac_lens::panes::memory::MemoryPane;
use tarmac_lens::panes::registers::RegistersPane;
use tarmac_lens::panes::source::SourcePane;
use tarmac_lens_core::{protocol::Row, ParseOptions, Session, SliceSource};

use crate::common::{data, inserted, retimed, GARBAGE};

#[path = "browser_model/call_tree.rs"]
mod call_tree;
#[path = "browser_model/comparison.rs"]
mod comparison;
#[path = "browser_model/disassembly.rs"]
mod disassembly;
#[path = "browser_model/ep_profile.rs"]
mod ep_profile;
#[path = "browser_model/events.rs"]
mod events;
#[path = "browser_model/flame_graph.rs"]
mod flame_graph;
#[path = "browser_model/page.rs"]
mod page;
#[path = "browser_model/paged_list.rs"]
mod paged_list;
#[path = "browser_model/profile_table.rs"]
mod profile_table;
#[path = "browser_model/registry.rs"]
mod registry;
#[path = "browser_model/reports_panel.rs"]
mod reports_panel;
#[path = "browser_model/statistics_tab.rs"]
mod statistics_tab;

/// The call reports of the quicksort trace named by its ELF image, as the
/// report worker computes them (for the Reports panel's views).
fn quicksort_reports() -> tarmac_lens_core::report::Reports {
    let base = "tracegen/quicksort-aarch64-O2-fastmodel-2M";
    let trace = std::fs::read(data(&format!("{base}.tarmac"))).unwrap();
    let elf = std::fs::read(data(&format!("{base}.elf"))).unwrap();
    tarmac_lens_core::report::Reports::compute(
        SliceSource(&trace),
        ParseOptions::default(),
        tarmac_lens_core::EngineOptions::default(),
        Some(tarmac_lens_core::SymbolTable::from_elf_bytes(&elf, 0).unwrap()),
    )
    .unwrap()
}

/// The model and the session that answers it, as the page and its worker.
struct Page<'t> {
    model: Model,
    session: Session<SliceSource<'t>>,
    effects: Vec<Effect>,
    /// Questions asked so far.
    asked: usize,
    /// Questions not answered yet, in the order the worker gets them
    /// (`key_unanswered`, `answer`).
    waiting: std::collections::VecDeque<tarmac_lens::model::Ask>,
}

impl<'t> Page<'t> {
    fn open(trace: &'t [u8], config: Config) -> Page<'t> {
        let mut session = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
        while !session.index_step(1 << 20).unwrap().complete {}
        Page::on(session, config)
    }

    /// The page opened on a session as far as it has indexed.
    fn on(session: Session<SliceSource<'t>>, config: Config) -> Page<'t> {
        let model = Model::new(Config {
            progress: Some(session.progress()),
            ..config
        });
        let mut page = Page {
            model,
            session,
            effects: Vec::new(),
            asked: 0,
            waiting: Default::default(),
        };
        page.settle();
        page
    }

    /// Answers every question, and those the answers raise, in order.
    fn settle(&mut self) {
        for _ in 0..10_000 {
            self.effects.extend(self.model.take_effects());
            let mut asks: Vec<_> = self.waiting.drain(..).collect();
            asks.extend(self.model.take_asks());
            if asks.is_empty() {
                return;
            }
            for ask in asks {
                self.reply(ask);
            }
        }
        panic!("the model never stops asking");
    }

    fn key(&mut self, key: &str) {
        self.model.key(&KeyInput::plain(key));
        self.settle();
    }

    /// `key` pressed while the worker has not answered yet: its questions
    /// wait behind those already waiting.
    fn key_unanswered(&mut self, key: &str) {
        self.model.key(&KeyInput::plain(key));
        self.waiting.extend(self.model.take_asks());
    }

    /// The worker answers the first `n` waiting questions; the questions
    /// the answers raise wait behind the rest.
    fn answer(&mut self, n: usize) {
        for _ in 0..n {
            let ask = self.waiting.pop_front().expect("a question waiting");
            self.reply(ask);
            self.waiting.extend(self.model.take_asks());
        }
    }

    /// The session's answer to `ask`, given to the model.
    fn reply(&mut self, ask: tarmac_lens::model::Ask) {
        self.asked += 1;
        let reply = self.session.answer(ask.query);
        if let Some(then) = ask.then {
            self.model.update(then(reply));
        }
    }

    fn send(&mut self, msg: Msg) {
        self.model.update(msg);
        self.settle();
    }

    /// `key` opens the prompt, `text` is typed and Return pressed.
    fn prompt(&mut self, key: &str, text: &str) {
        self.key(key);
        assert!(self.model.prompt.is_some(), "{key} opens the prompt");
        self.send(Msg::PromptSubmit(text.into()));
    }

    fn line(&self) -> u64 {
        self.model.views[0].cursor.expect("a position").first_line
    }

    /// The core register pane's values by name, and the names marked.
    fn registers(&self) -> (HashMap<String, String>, Vec<String>) {
        let panel = self
            .model
            .panes
            .iter()
            .find_map(|p| registers_of(p)?.panel.as_ref().filter(|p| p.kind == "core"))
            .expect("a core register pane");
        let values = panel
            .cells
            .iter()
            .map(|c| (c.name.clone(), c.text.clone()))
            .collect();
        let marked = panel
            .cells
            .iter()
            .filter(|c| c.changed)
            .map(|c| c.name.clone())
            .collect();
        (values, marked)
    }

    /// Loads an ELF image's symbols, as the page does once its worker has.
    fn load_elf(&mut self, elf: &[u8]) {
        self.session.load_elf(elf, 0, false).unwrap();
        let progress = self.session.progress();
        self.model.on_progress(Some(&progress), true);
        self.settle();
    }

    fn status(&self) -> &str {
        self.model.status.as_deref().unwrap_or("")
    }
}

/// The trace's lines, and the line numbers of its instructions.
fn text_of(trace: &[u8]) -> (Vec<String>, Vec<u64>) {
    let lines: Vec<String> = String::from_utf8_lossy(trace)
        .lines()
        .map(str::to_string)
        .collect();
    let instructions = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() > 2 && (w[2] == "IT" || w[2] == "IS")
        })
        .map(|(i, _)| i as u64 + 1)
        .collect();
    (lines, instructions)
}

/// Register values (lower-case hex) after line `upto` of the trace text.
fn registers_at(lines: &[String], upto: u64) -> HashMap<String, String> {
    let mut regs = HashMap::new();
    for l in &lines[..upto as usize] {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() > 4 && w[2] == "R" {
            regs.insert(w[3].to_lowercase(), w[4].replace('_', "").to_lowercase());
        }
    }
    regs
}

#[test]
fn keys_step_through_the_instructions_the_trace_lists() {
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    // The start: the trace's first node; the rows are there.
    assert!(page.model.started);
    let rows = page.model.views[0].rows.as_ref().expect("rows");
    assert!(
        rows.rows.len() > 20 && rows.total_rows > 4000,
        "{} rows of {}",
        rows.rows.len(),
        rows.total_rows
    );
    // Down steps one instruction at a time (no folds yet).
    page.prompt("l", &instructions[0].to_string());
    for (k, want) in instructions.iter().enumerate().take(30).skip(1) {
        page.key("ArrowDown");
        assert_eq!(page.line(), *want, "Down number {k}");
    }
    page.key("ArrowUp");
    assert_eq!(page.line(), instructions[28]);
    page.key("End");
    assert_eq!(page.line(), *instructions.last().unwrap());
    page.key("Home");
    assert_eq!(page.model.views[0].cursor.unwrap().node, 0);
    // Every move was written to the URL's fragment but the first.
    assert!(page
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Fragment(f) if f == &format!("#line={}", instructions[5]))));
}

#[test]
fn the_help_stays_open_while_its_keys_scroll_it_and_escape_closes_it() {
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.prompt("l", &instructions[10].to_string());
    let at = page.line();
    page.key("F1");
    assert!(page.model.help, "F1 opens the help");
    // The page gives the focus back once drawn (as `Browser::rendered` does).
    page.model.refocus = false;
    // The keys that scroll are the browser's (it scrolls the help, which
    // has the focus): the help stays, the position does not move.
    for key in [
        "ArrowDown",
        "PageDown",
        "End",
        "ArrowUp",
        "PageUp",
        "Home",
        " ",
    ] {
        let outcome = page.model.key(&KeyInput::plain(key));
        page.settle();
        assert!(
            !outcome.handled,
            "{key:?} is left to the browser to scroll the help"
        );
        assert!(page.model.help, "{key:?} leaves the help open");
    }
    // Other keys do nothing behind it.
    for key in ["j", "l", "x", "Tab"] {
        let outcome = page.model.key(&KeyInput::plain(key));
        page.settle();
        assert!(outcome.handled, "{key:?} is kept from the page");
        assert!(page.model.help, "{key:?} leaves the help open");
    }
    assert!(
        page.model.prompt.is_none(),
        "l opened no prompt behind the help"
    );
    assert_eq!(page.line(), at, "nothing moved behind the help");
    page.key("Escape");
    assert!(!page.model.help, "Escape closes it");
    assert!(page.model.refocus, "the focus goes back to the pane");
    page.key("F1");
    page.key("F1");
    assert!(!page.model.help, "F1 again closes it");
    page.key("ArrowDown");
    assert_eq!(
        page.line(),
        instructions[11],
        "the keys are the trace's again"
    );
}

#[test]
fn a_trace_opened_already_indexed_draws_its_timeline_and_a_click_goes_where_it_points() {
    use tarmac_lens::model::ViewMsg;
    use tarmac_lens_core::node_at;
    // As `serve` opens it (or the index cache): indexed whole before the
    // browser starts, so no progress ever comes.
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    assert!(page.model.complete);
    let timeline = page
        .model
        .nav
        .timeline_data
        .clone()
        .expect("the timeline was asked for at once");
    let nodes = page.session.progress().nodes;
    assert_eq!(timeline.nodes, nodes);
    assert!(
        timeline.depth.iter().any(|&d| d > 1),
        "calls drawn: {:?}",
        &timeline.depth[..8]
    );
    // A click at 80% of the strip: the node there, far into the trace.
    let node = node_at(0.8, timeline.nodes);
    page.send(Msg::View(0, ViewMsg::GoTo { node }));
    let line = page.line();
    assert!(
        line > *instructions.last().unwrap() * 7 / 10,
        "80% of the strip went to line {line} of {}",
        lines.len()
    );
    assert!(instructions.contains(&line));
}

#[test]
fn the_core_registers_are_the_values_the_trace_wrote_and_mark_what_the_instruction_wrote() {
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    for &k in &[40usize, 400, 3000] {
        let at = instructions[k];
        page.prompt("l", &at.to_string());
        assert_eq!(page.line(), at);
        let end = instructions[k + 1] - 1;
        let want = registers_at(&lines, end);
        let (shown, marked) = page.registers();
        for n in 0..=30 {
            if let Some(v) = want.get(&format!("x{n}")) {
                assert_eq!(
                    &shown[&format!("x{n}")],
                    &format!("{v:0>16}"),
                    "x{n} after line {end}"
                );
            }
        }
        // Marked: the x registers this instruction's R lines wrote.
        let mut wrote: Vec<String> = lines[at as usize..end as usize]
            .iter()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.len() > 4 && w[2] == "R").then(|| w[3].to_lowercase().replace('w', "x"))
            })
            .filter(|r| r.starts_with('x') && r[1..].parse::<u8>().is_ok())
            .collect();
        wrote.sort();
        let mut marked: Vec<String> = marked.into_iter().filter(|r| r.starts_with('x')).collect();
        marked.sort();
        assert_eq!(marked, wrote, "marked registers at line {at}");
    }
}

#[test]
fn the_changed_registers_pane_lists_what_each_instruction_wrote_and_follows_the_cursor() {
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.key("w");
    let changed = |page: &Page| -> Vec<(String, String)> {
        page.model
            .panes
            .iter()
            .find_map(|p| {
                registers_of(p)?
                    .panel
                    .as_ref()
                    .filter(|p| p.kind == "changed")
            })
            .expect("the changed registers pane (w)")
            .cells
            .iter()
            .map(|c| (c.name.clone(), c.text.clone()))
            .collect()
    };
    let mut with_writes = 0;
    for k in (30..instructions.len() - 1).step_by(97).take(40) {
        let at = instructions[k];
        page.prompt("l", &at.to_string());
        let end = instructions[k + 1] - 1;
        // The general-purpose registers this instruction's R lines wrote,
        // by their 64-bit names, with the value written.
        let mut want: Vec<(String, String)> = lines[at as usize..end as usize]
            .iter()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.len() > 4 && w[2] == "R").then(|| (w[3].to_lowercase(), w[4].replace('_', "")))
            })
            .filter_map(|(r, v)| {
                let n = r.strip_prefix('x').or_else(|| r.strip_prefix('w'))?;
                n.parse::<u8>().ok()?;
                Some((format!("x{n}"), v.to_lowercase()))
            })
            .collect();
        want.dedup();
        let shown = changed(&page);
        with_writes += usize::from(!want.is_empty());
        let mut got: Vec<(String, String)> = shown
            .into_iter()
            .filter(|(n, _)| n.starts_with('x'))
            .collect();
        got.sort();
        want.sort();
        for (name, value) in &want {
            let shown = &got
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} written at line {at} but not listed: {got:?}"))
                .1;
            assert!(
                shown.ends_with(value.trim_start_matches('0')),
                "{name} at line {at}: {shown} vs {value}"
            );
        }
        assert_eq!(
            got.len(),
            want.len(),
            "listed at line {at}: {got:?}, wrote {want:?}"
        );
    }
    assert!(with_writes > 20, "{with_writes} positions wrote registers");
    // `w` again closes it.
    page.key("w");
    assert!(page
        .model
        .panes
        .iter()
        .all(|p| registers_of(p).is_none_or(|r| r.kind.panel() != "changed")));
}

#[test]
fn a_fold_hides_a_call_behind_one_row_and_a_step_passes_over_it() {
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let elf = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.elf")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.load_elf(&elf);
    // The first BL, and its callee's first instruction.
    let bl = instructions
        .iter()
        .copied()
        .find(|&l| lines[l as usize - 1].contains(" BL "))
        .unwrap();
    page.prompt("l", &bl.to_string());
    page.key("ArrowDown");
    let inside = page.line();
    assert!(inside > bl);
    let rows_before = page.model.views[0].total_rows;
    page.key("-");
    // The position moved to the call, the call is one row now.
    assert_eq!(page.line(), bl);
    assert!(page.model.views[0].total_rows < rows_before);
    let rows = page.model.views[0].rows.as_ref().unwrap();
    assert!(
        rows.rows
            .iter()
            .any(|r| matches!(r, Row::Fold { name, .. } if !name.is_empty())),
        "a named fold row"
    );
    // Down steps over the folded call to where it returned.
    page.key("ArrowDown");
    assert!(
        page.line() > inside + 10,
        "stepped over the call: line {}",
        page.line()
    );
    page.key("}");
    assert_eq!(page.model.views[0].total_rows, rows_before);
}

#[test]
fn a_search_lists_what_the_text_holds_and_n_moves_to_each() {
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (lines, _) = text_of(&trace);
    let want: Vec<u64> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains("x19"))
        .map(|(i, _)| i as u64 + 1)
        .collect();
    let mut page = Page::open(&trace, Config::default());
    page.key("/");
    assert!(page.model.search.open);
    page.send(Msg::Search(SearchMsg::Submit(SearchForm {
        pattern: "x19".into(),
        ..SearchForm::default()
    })));
    assert!(
        page.model.search.status.done,
        "{:?}",
        page.model.search.status
    );
    assert_eq!(page.model.search.status.matches, want.len() as u64);
    // The view went to the first result; n steps on.
    let node_of = |page: &Page, line: u64| {
        let c = page.model.views[0].cursor.unwrap();
        c.first_line <= line && line < c.first_line + c.lines
    };
    assert!(node_of(&page, want[0]), "at the first result");
    page.key("n");
    assert!(node_of(&page, want[1]), "at the second result");

    // Keys quicker than the worker: n, n, the first move answered, then
    // N. N steps back from the result the view is on its way to, not
    // from where the first move left it.
    let a = page.model.search.current.unwrap();
    let (b, c) = (a + 1, a + 2);
    let hits = page.model.search.hits.clone();
    assert!(
        hits[a].line < hits[b].line && !node_of(&page, hits[b].line),
        "the next result is in another node"
    );
    page.key_unanswered("n");
    page.key_unanswered("n");
    page.answer(1);
    assert!(node_of(&page, hits[b].line), "the first move arrived");
    assert!(
        !node_of(&page, hits[c].line),
        "the third result is in another node"
    );
    page.key_unanswered("N");
    page.settle();
    assert_eq!(page.model.search.current, Some(b));
    assert!(
        node_of(&page, hits[b].line),
        "N from the result on its way: at line {}, expected {} (results {a}, {b}, {c} at {:?})",
        page.line(),
        hits[b].line,
        [hits[a].line, hits[b].line, hits[c].line]
    );
    page.key("Escape");
    assert!(!page.model.search.open, "Esc closes the bar");
}

#[test]
fn lines_past_the_end_and_bad_fragments_are_said_so() {
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.prompt("l", &instructions[10].to_string());
    page.prompt("l", "999999");
    assert_eq!(
        page.status(),
        format!(
            "Line 999,999 is past the end: the trace ends at line {}.",
            tarmac_lens::i18n::number(lines.len() as u64)
        )
    );
    assert_eq!(page.line(), instructions[10], "the position stays");
    page.prompt("l", &(instructions[10] + 1).to_string());
    assert_eq!(
        page.status(),
        format!(
            "Line {} is part of the instruction at line {}.",
            instructions[10] + 1,
            instructions[10]
        )
    );
    page.send(Msg::HashChanged("line=abc".into()));
    assert!(
        page.status().contains("\"abc\" is not a line number"),
        "{}",
        page.status()
    );
    assert_eq!(page.line(), instructions[10]);
    assert!(page
        .effects
        .iter()
        .any(|e| matches!(e, Effect::GotoFailed(m) if m.contains("past the end"))));
}

/// The position's time, as the header shows it.
fn time(page: &Page) -> u64 {
    page.model.views[0].cursor.expect("a position").time
}

/// Lines the parser does not understand lend nothing: garbage that starts
/// with a timestamp later than the lines around it neither takes the next
/// instruction in (its line, its time) nor is the position a line in it
/// snaps to.
#[test]
fn garbage_with_a_timestamp_lends_the_next_instruction_neither_its_line_nor_its_time() {
    let one = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let trace = inserted(&one, 15000, GARBAGE);
    let mut page = Page::open(&trace, Config::default());
    page.prompt("l", "15006");
    assert_eq!((page.line(), time(&page)), (15006, 7532));
    page.prompt("l", "15003");
    assert_eq!(
        page.status(),
        "Line 15,003 is part of the instruction at line 15,000."
    );
    assert_eq!((page.line(), time(&page)), (15000, 7531));
    page.prompt("t", "7532");
    assert_eq!(page.line(), 15006);
}

/// A trace whose time goes back (a run at even times, then one at odd
/// times from the start): each position shows the time its line gives, and
/// `t` and `#t=` go to the first line that gives a time, however far the
/// time went back before it.
#[test]
fn times_that_go_back_are_shown_as_written_and_t_goes_to_the_first_line_with_one() {
    let one = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let first_run = one.iter().filter(|&&b| b == b'\n').count() as u64;
    let mut trace = retimed(&one, |n| 2 * n);
    trace.extend_from_slice(&retimed(&one, |n| 2 * n + 1));
    let mut page = Page::open(&trace, Config::default());
    // Line 15001 of each run is the load at 7532.
    page.prompt("l", &(first_run + 15001).to_string());
    assert_eq!(time(&page), 15065);
    page.prompt("l", "1");
    page.prompt("t", "15065");
    assert_eq!(page.line(), first_run + 15001);
    page.prompt("t", "15064");
    assert_eq!(page.line(), 15001);
    page.send(Msg::HashChanged("t=15065".into()));
    assert_eq!((page.line(), time(&page)), (first_run + 15001, 15065));
}

#[test]
fn the_embedded_viewer_opens_the_panes_its_url_names_and_a_fragment_position() {
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let at = instructions[100];
    let page = Page::open(
        &trace,
        Config {
            panes: Some(vec![PaneSpec::Memory("sp".into())]),
            compact: true,
            fragment: format!("line={at}"),
            ..Config::default()
        },
    );
    assert_eq!(page.line(), at);
    assert!(
        !page
            .model
            .shown(tarmac_lens::model::layout::Slot::named("stack").unwrap()),
        "no room for the call stack"
    );
    let memory = page.model.panes.iter().find_map(|p| {
        p.body
            .state
            .as_any()
            .downcast_ref::<MemoryPane>()?
            .memory
            .as_ref()
    });
    assert!(
        memory.is_some_and(|m| m.bytes.len() >= 16),
        "a memory pane at sp, with contents"
    );
    assert!(page.asked > 5);
}

#[test]
fn a_browser_made_over_a_trace_already_indexed_draws_its_timeline() {
    // The compared trace's browser is made when the comparison ends, its
    // trace indexed by then: no progress comes after to ask for it.
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let page = Page::open(&trace, Config::default());
    let nodes = page.session.progress().nodes;
    assert!(page.model.nav.timeline, "the timeline strip is shown");
    let timeline = page
        .model
        .nav
        .timeline_data
        .as_ref()
        .expect("the timeline asked for at once");
    assert_eq!(timeline.nodes, nodes, "the whole trace");
    assert!(
        timeline.depth.iter().any(|&d| d > 0),
        "quicksort's calls are drawn: {:?}",
        timeline.depth
    );
}

#[test]
fn a_memory_pane_asked_at_sp_opens_once_sp_has_a_value() {
    // At quicksort's first instruction nothing has written sp yet.
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let sp_written = lines
        .iter()
        .position(|l| l.contains(" R SP_EL") || l.ends_with(" R SP"))
        .expect("the trace writes sp") as u64
        + 1;
    // The instruction whose lines hold that write.
    let writer = *instructions
        .iter()
        .rev()
        .find(|&&i| i <= sp_written)
        .unwrap();
    let mut page = Page::open(
        &trace,
        Config {
            panes: Some(vec![PaneSpec::Memory("sp".into())]),
            compact: true,
            ..Config::default()
        },
    );
    let memory_open = |page: &Page| {
        page.model
            .panes
            .iter()
            .any(|p| p.body.state.as_any().is::<MemoryPane>())
    };
    assert!(page.line() < sp_written);
    assert!(!memory_open(&page));
    assert!(
        page.status().contains("opens where it has a value"),
        "{}",
        page.status()
    );
    // Step: the pane opens at the instruction that writes sp, not before.
    while !memory_open(&page) && page.line() < writer {
        page.key("ArrowDown");
    }
    assert_eq!(page.line(), writer);
    assert!(memory_open(&page), "the pane opened at line {writer}");
}

#[test]
fn the_palette_lists_every_command_of_the_key_tables_and_runs_what_is_typed() {
    use tarmac_lens::model::keys::{tables, Command, PaneKind};
    use tarmac_lens::model::palette::{PaletteAction, PaletteMsg};
    let trace = std::fs::read(data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    let ctrl = |key: &str, shift: bool| KeyInput {
        key: key.into(),
        ctrl: true,
        shift,
        ..KeyInput::default()
    };
    // Every command of the focused pane's tables, once, and no other.
    let listed = |page: &Page| -> Vec<Command> {
        let mut v: Vec<Command> = page
            .model
            .palette_entries()
            .into_iter()
            .filter_map(|e| match e.action {
                PaletteAction::Run(c) => Some(c),
                PaletteAction::Prompt(..) | PaletteAction::Function(_) => None,
            })
            .collect();
        v.sort_by_key(|c| format!("{c:?}"));
        v
    };
    let from_tables = |pane: PaneKind| -> Vec<Command> {
        let mut v: Vec<Command> = tables(pane)
            .into_iter()
            .flat_map(|t| t.iter().map(|b| b.command))
            .filter(|c| *c != Command::Palette)
            .collect();
        v.sort_by_key(|c| format!("{c:?}"));
        v.dedup();
        v
    };
    page.model.key(&ctrl("k", false));
    page.settle();
    assert!(page.model.palette.is_some(), "Ctrl-K opens the palette");
    assert_eq!(listed(&page), from_tables(PaneKind::Trace));
    page.send(Msg::Palette(PaletteMsg::Close));
    assert!(page.model.palette.is_none());
    // Ctrl-Shift with a letter no table binds is Ctrl with it: Ctrl-L.
    let recentred = page.model.views[0].recentre;
    let outcome = page.model.key(&ctrl("L", true));
    page.settle();
    assert!(outcome.handled, "Ctrl-Shift-L recentres as Ctrl-L does");
    assert_ne!(page.model.views[0].recentre, recentred);
    // From the register pane: its commands too; Ctrl-Shift-P opens it as well.
    page.key("Tab");
    assert_eq!(page.model.focus_kind(), PaneKind::Registers);
    page.model.key(&ctrl("P", true));
    page.settle();
    assert_eq!(listed(&page), from_tables(PaneKind::Registers));
    page.send(Msg::Palette(PaletteMsg::Close));
    page.key("Tab");
    assert_eq!(page.model.focus_kind(), PaneKind::Trace);

    // Part of a name, then Return: the best match runs.
    let rows_before = page.model.views[0].total_rows;
    page.model.key(&ctrl("k", false));
    page.send(Msg::Palette(PaletteMsg::Text("fold every".into())));
    let first = page.model.palette_entries().remove(0);
    assert_eq!(first.key, "{", "{first:?}");
    page.send(Msg::Palette(PaletteMsg::Run));
    assert!(page.model.palette.is_none(), "running closes it");
    assert!(
        page.model.views[0].total_rows < rows_before / 2,
        "fold all: {} rows of {rows_before}",
        page.model.views[0].total_rows
    );
    page.key("}");
    assert_eq!(page.model.views[0].total_rows, rows_before);

    // A number: go to that line; the arrows choose among the entries.
    let target = instructions[1234];
    page.model.key(&ctrl("k", false));
    page.send(Msg::Palette(PaletteMsg::Text(target.to_string())));
    assert!(page.model.palette_entries()[0].label.contains("line"));
    page.send(Msg::Palette(PaletteMsg::Move(1)));
    page.send(Msg::Palette(PaletteMsg::Move(-1)));
    page.send(Msg::Palette(PaletteMsg::Run));
    assert_eq!(page.line(), target);

    // A hex address: the next time the PC is there comes first.
    let (lines, _) = text_of(&trace);
    let pc_of = |line: u64| -> String {
        let w: Vec<&str> = lines[line as usize - 1].split_whitespace().collect();
        w[4].to_lowercase()
    };
    let pc = pc_of(instructions[1300]);
    let want = instructions
        .iter()
        .copied()
        .find(|&l| l > target && pc_of(l) == pc)
        .unwrap();
    page.model.key(&ctrl("k", false));
    page.send(Msg::Palette(PaletteMsg::Text(format!("0x{pc}"))));
    assert!(matches!(
        page.model.palette_entries()[0].action,
        PaletteAction::Prompt(..)
    ));
    page.send(Msg::Palette(PaletteMsg::Run));
    assert_eq!(page.line(), want, "next time the PC is 0x{pc}");
    // Plain words: the commands they match first, the PC entry last.
    page.model.key(&ctrl("k", false));
    page.send(Msg::Palette(PaletteMsg::Text("memory".into())));
    let entries = page.model.palette_entries();
    assert!(matches!(entries[0].action, PaletteAction::Run(_)));
    assert!(matches!(
        entries.last().unwrap().action,
        PaletteAction::Prompt(..)
    ));
    page.send(Msg::Palette(PaletteMsg::Close));
    let target = want;

    // Nothing matches: no command listed, and Esc closes.
    page.model.key(&ctrl("k", false));
    page.send(Msg::Palette(PaletteMsg::Text("zzzzqqq".into())));
    assert!(page
        .model
        .palette_entries()
        .iter()
        .all(|e| matches!(e.action, PaletteAction::Prompt(..))));
    page.model.key(&KeyInput::plain("Escape"));
    assert!(page.model.palette.is_none());
    assert_eq!(page.line(), target, "closing ran nothing");
}

/// The source pane's file and line, as the model shows them.
fn source_here(page: &Page) -> Option<(String, Option<u32>)> {
    let (_, pane) = source_pane(page)?;
    pane.here().map(|(f, l)| (f.to_string(), l))
}

/// The first source pane: its id and state.
fn source_pane(page: &Page) -> Option<(u32, SourcePane)> {
    page.model.panes.iter().find_map(|p| {
        let s = p.body.state.as_any().downcast_ref::<SourcePane>()?;
        Some((p.id, s.clone()))
    })
}

/// A pane's state, if it is a register pane.
fn registers_of(p: &Pane) -> Option<&RegistersPane> {
    p.body.state.as_any().downcast_ref()
}

/// tracegen's hash program, with its ELF (DWARF lines) beside it.
const HASH: &str = "tracegen/lines/hash-aarch64-O2-fastmodel.tarmac";

/// A page on `trace` (`HASH`) with its first 512 KiB indexed and its ELF
/// loaded.
fn partly_indexed(trace: &[u8]) -> Page<'_> {
    let elf = std::fs::read(data(HASH).with_extension("elf")).unwrap();
    let mut session = Session::open(SliceSource(trace), ParseOptions::default()).unwrap();
    session.index_step(512 << 10).unwrap();
    session.load_debug_info(elf.into(), 0).unwrap();
    assert!(!session.progress().complete, "a part is indexed");
    Page::on(session, Config::default())
}

#[test]
fn the_source_pane_s_counts_grow_as_indexing_goes_on() {
    use tarmac_lens_core::protocol::{FileCountsReply, LineCounts};
    let trace = std::fs::read(data(HASH)).unwrap();
    let mut page = partly_indexed(&trace);
    // Into the program's C code (the start-up code runs once), the pane
    // open there.
    page.prompt("l", "3000");
    page.key("s");
    let (file, _) = source_here(&page).expect("a source line at 3000");
    assert!(file.ends_with(".c"), "{file}");
    let total = |c: &FileCountsReply| c.lines.iter().map(|l| l.1).sum::<u64>();
    let (_, pane) = source_pane(&page).expect("a source pane");
    let partial = pane.counts.expect("the file's counts so far");
    assert!(!partial.complete);
    // Indexing ends: the counts are asked again, and are the whole trace's.
    while !page.session.index_step(1 << 20).unwrap().complete {}
    let progress = page.session.progress();
    page.model.on_progress(Some(&progress), false);
    page.settle();
    let (_, pane) = source_pane(&page).expect("a source pane");
    let whole = pane.counts.expect("the file's counts");
    let oracle = page
        .session
        .ask(LineCounts {
            file: whole.file.clone(),
        })
        .unwrap();
    assert!(whole.complete);
    assert_eq!(whole, oracle);
    assert!(
        total(&whole) > total(&partial),
        "the counts grew: {} {} {}",
        total(&whole),
        total(&partial),
        whole.file
    );
}

/// What the registers and memory show at a position is decided by the
/// trace up to it: more of the index asks them nothing again, while the
/// source pane's counts are asked again.
#[test]
fn registers_and_memory_are_not_asked_again_as_indexing_goes_on() {
    let trace = std::fs::read(data(HASH)).unwrap();
    let mut page = partly_indexed(&trace);
    page.prompt("l", "3000");
    page.prompt("m", "sp");
    page.key("s");
    let panes = &page.model.panes;
    assert!(panes.iter().any(|p| registers_of(p).is_some()));
    assert!(panes
        .iter()
        .any(|p| p.body.state.as_any().is::<MemoryPane>()));
    page.session.index_step(1 << 20).unwrap();
    let progress = page.session.progress();
    page.model.on_progress(Some(&progress), false);
    let asked: Vec<&str> = page
        .model
        .take_asks()
        .iter()
        .map(|a| a.query.name())
        .collect();
    assert!(
        asked.contains(&"Source"),
        "the source pane is asked again: {asked:?}"
    );
    assert!(
        !asked.iter().any(|q| matches!(*q, "Registers" | "Memory")),
        "{asked:?}"
    );
}

#[test]
fn the_source_pane_follows_the_position_counts_lines_and_steps_by_line() {
    use tarmac_lens::model::PaneMsg;
    use tarmac_lens::panes::source::SourceMsg;
    let trace_path = data("tracegen/lines/recursion-aarch64-O1-fastmodel.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let mut page = Page::open(&trace, Config::default());
    // Without DWARF the pane says what to load.
    page.key("s");
    let (id, pane) = source_pane(&page).expect("a source pane");
    assert!(pane.text(&page.model.sources).unwrap_err().contains("ELF"));
    page.key("x");
    assert!(page
        .model
        .panes
        .iter()
        .all(|p| p.body.slot().name() != "source"));
    page.session.load_debug_info(elf.clone().into(), 0).unwrap();
    // The page says the image changed: rows come again, with `file:line`.
    let progress = page.session.progress();
    page.model.on_progress(Some(&progress), true);
    page.settle();
    // Into the program: a line with code in recursion.c.
    page.prompt("l", "400");
    let rows = page.model.views[0].rows.clone().unwrap();
    let current = page.model.views[0].cursor.unwrap().first_line;
    let source = rows
        .rows
        .iter()
        .find_map(|r| match r {
            Row::Line { line, source, .. } if *line == current => source.clone(),
            _ => None,
        })
        .expect("the instruction row has its file:line");
    page.key("s");
    let (id2, pane) = source_pane(&page).expect("a source pane");
    assert_ne!(id, id2);
    let (file, line) = source_here(&page).expect("a source line at 400");
    let info = tarmac_lens_core::DebugInfo::from_elf_bytes(elf.into(), 0)
        .unwrap()
        .unwrap();
    let pc = page.model.views[0].cursor.unwrap().pc.unwrap();
    let loc = info.frames(pc).unwrap()[0].location.clone().unwrap();
    assert_eq!((file.clone(), line), (loc.file.clone(), loc.line));
    assert_eq!(source, loc.to_string());
    // No text yet: the pane names the file it wants; given, it shows it.
    let wanted = pane.text(&page.model.sources).unwrap_err();
    assert!(wanted.contains(&file), "{wanted}");
    let name = file.rsplit('/').next().unwrap().to_string();
    page.send(Msg::SourceFiles(vec![
        ("other/dir/main.c".into(), "int main;\n".into()),
        (format!("src/{name}"), "the text\n".into()),
    ]));
    let (_, pane) = source_pane(&page).expect("a source pane");
    assert_eq!(&*pane.text(&page.model.sources).unwrap(), "the text\n");
    // The gutter: each line's count is the CLI's.
    let l = line.unwrap();
    let (executed, _) = pane.count(l).expect("the current line has code");
    assert!(executed > 0);
    // `j` steps to the next line that runs; `k` back.
    let before = page.model.views[0].cursor.unwrap().node;
    page.key("j");
    let after = page.model.views[0].cursor.unwrap().node;
    assert!(after > before);
    assert_ne!(source_here(&page).unwrap(), (file.clone(), line));
    page.key("k");
    assert!(page.model.views[0].cursor.unwrap().node <= before);
    // A clicked line lists its executions, `n` goes to the next.
    page.send(Msg::Pane(
        id2,
        PaneMsg::Own(Box::new(SourceMsg::PickLine { line: l })),
    ));
    let (_, pane) = source_pane(&page).expect("a source pane");
    let hits = pane.hits.expect("executions listed");
    if !hits.more {
        assert_eq!(hits.hits.len() as u64, executed);
    }
    page.send(Msg::Pane(
        id2,
        PaneMsg::Own(Box::new(SourceMsg::PickHit {
            node: hits.hits[0].node.node,
        })),
    ));
    assert_eq!(
        page.model.views[0].cursor.unwrap().node,
        hits.hits[0].node.node
    );
    page.key("n");
    if hits.hits.len() > 1 {
        assert_eq!(
            page.model.views[0].cursor.unwrap().node,
            hits.hits[1].node.node
        );
    }
}

#[test]
fn a_src_fragment_goes_to_the_first_execution_of_the_line() {
    use tarmac_lens_core::protocol::{HitsReply, LineCounts, LineHits};
    let trace_path = data("tracegen/lines/recursion-aarch64-O1-fastmodel.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let mut session = Session::open(SliceSource(&trace), ParseOptions::default()).unwrap();
    while !session.index_step(1 << 20).unwrap().complete {}
    session.load_debug_info(elf.into(), 0).unwrap();
    // The first line of recursion.c that ran, and where it first ran.
    let c = session
        .ask(LineCounts {
            file: "recursion.c".into(),
        })
        .unwrap();
    let line = c.lines.iter().find(|l| l.1 > 0).unwrap().0;
    let HitsReply { hits, .. } = session
        .ask(LineHits {
            file: "programs/recursion.c".into(),
            line,
            after: None,
            count: 1,
        })
        .unwrap();
    let first = hits[0].node.node;
    let config = Config {
        fragment: format!("src=recursion.c:{line}"),
        ..Config::default()
    };
    let mut page = Page::on(session, config);
    assert_eq!(page.model.views[0].cursor.unwrap().node, first);
    // A line that never ran is said so to the host.
    page.send(Msg::HashChanged("src=recursion.c:1".into()));
    assert!(page
        .effects
        .iter()
        .any(|e| matches!(e, Effect::GotoFailed(m) if m.contains("recursion.c:1"))));
    page.send(Msg::HashChanged("src=recursion.c:x".into()));
    assert!(page
        .model
        .status
        .as_deref()
        .unwrap_or("")
        .contains("not a line number"));
}

#[test]
fn source_files_are_matched_by_their_longest_common_tail() {
    use tarmac_lens::model::source::source_urls;
    let mut model = Model::new(Config::default());
    model.add_source_files(vec![
        ("fw/other/hash.c".into(), "other".into()),
        ("fw/src/hash.c".into(), "right".into()),
        ("main.c".into(), "main".into()),
    ]);
    assert_eq!(
        &*model.sources.find("/build/fw/src/hash.c").unwrap(),
        "right"
    );
    assert_eq!(&*model.sources.find("./main.c").unwrap(), "main");
    assert!(model.sources.find("/build/fw/src/rt.c").is_none());
    assert_eq!(
        source_urls("https://docs.example/src/", "/build/a/fw/src/hash.c"),
        vec![
            (
                "https://docs.example/src/a/fw/src/hash.c".to_string(),
                "a/fw/src/hash.c".to_string()
            ),
            (
                "https://docs.example/src/fw/src/hash.c".into(),
                "fw/src/hash.c".into()
            ),
            (
                "https://docs.example/src/src/hash.c".into(),
                "src/hash.c".into()
            ),
            ("https://docs.example/src/hash.c".into(), "hash.c".into()),
        ]
    );
}

#[test]
fn with_an_elf_each_instruction_row_names_its_function() {
    let trace_path = data("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let mut page = Page::open(&trace, Config::default());
    page.load_elf(&elf);
    page.key("H");
    assert!(page.model.function_column);
    let symbols = tarmac_lens_core::SymbolTable::from_elf_bytes(&elf, 0).unwrap();
    let rows = page.model.views[0].rows.clone().unwrap();
    let mut named = 0;
    for r in &rows.rows {
        if let Row::Line {
            text,
            function: Some(f),
            ..
        } = r
        {
            // The row's PC, from its text, names the same function.
            let pc = text
                .split_whitespace()
                .find(|w| w.len() == 8 && w.chars().all(|c| c.is_ascii_hexdigit()))
                .map(|w| u64::from_str_radix(w, 16).unwrap())
                .unwrap();
            let (sym, _) = symbols.find_by_address(pc).unwrap();
            assert_eq!(*f, sym.display_name(), "{text}");
            named += 1;
        }
    }
    assert!(named > 10, "{named} rows named");
}

#[test]
fn the_layout_moves_panes_between_areas_resizes_them_and_is_kept() {
    use tarmac_lens::model::layout::{Area, Layout, LayoutMsg, Slot, SIDE_PX, STEP_PX};
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let kept = |page: &Page| {
        page.effects.iter().rev().find_map(|e| match e {
            Effect::SaveLayout(text) => Some(text.clone()),
            _ => None,
        })
    };
    let ctrl_shift = |key: &str| KeyInput {
        key: key.into(),
        ctrl: true,
        shift: true,
        ..KeyInput::default()
    };
    let mut page = Page::open(&trace, Config::default());
    assert_eq!(page.model.layout, Layout::default());
    assert_eq!(kept(&page), None, "nothing to keep before a change");
    // Ctrl-Shift-Left widens the side area, and the page is told to keep it.
    page.model.key(&ctrl_shift("ArrowLeft"));
    page.settle();
    assert_eq!(page.model.layout.side_px, SIDE_PX + STEP_PX);
    let text = kept(&page).expect("the layout is kept");
    assert_eq!(Layout::parse(&text), page.model.layout);
    // In the side area the core registers have two columns: Down moves two
    // cells; `A` (in the register pane) moves them under the views, where
    // they have four.
    page.key("Tab");
    let selected = |page: &Page| registers_of(&page.model.panes[0]).unwrap().selected;
    page.key("ArrowDown");
    assert_eq!(selected(&page), 2);
    page.key("A");
    assert_eq!(page.model.layout.area(Slot::REGISTERS), Area::Bottom);
    page.key("ArrowDown");
    assert_eq!(selected(&page), 6);
    // A page opened later starts from what was kept.
    let text = kept(&page).unwrap();
    let again = Page::open(
        &trace,
        Config {
            layout: text,
            ..Config::default()
        },
    );
    assert_eq!(again.model.layout, page.model.layout);
    // Ctrl-Shift-Backspace starts over.
    page.model.key(&ctrl_shift("Backspace"));
    page.settle();
    assert_eq!(page.model.layout, Layout::default());
    let stack = Slot::named("stack").unwrap();
    page.send(Msg::Layout(LayoutMsg::Collapse(stack)));
    assert!(page.model.layout.collapsed(stack));
}

/// The bookmarks' lines and notes, in order.
fn bookmarks(page: &Page) -> Vec<(u64, String)> {
    page.model
        .bookmarks
        .list
        .iter()
        .map(|b| (b.line, b.note.clone()))
        .collect()
}

#[test]
fn b_bookmarks_the_position_with_a_note_and_the_keys_and_pane_go_there() {
    use tarmac_lens::model::{BookmarkMsg, PromptFor};
    let trace_path = data("tracegen/quicksort-thumb-O2-fastmodel-2M.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let (_, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.load_elf(&elf);
    let symbols = tarmac_lens_core::SymbolTable::from_elf_bytes(&elf, 0).unwrap();
    let (a, b, c) = (instructions[10], instructions[300], instructions[50]);
    let mut times = Vec::new();
    let mut functions = Vec::new();
    for (line, note) in [(a, "first & #1, = ~ é"), (b, ""), (c, "  middle  ")] {
        page.prompt("l", &line.to_string());
        let cursor = page.model.views[0].cursor.unwrap();
        times.push(cursor.time);
        let (sym, _) = symbols.find_by_address(cursor.pc.unwrap()).unwrap();
        functions.push(sym.display_name());
        page.key("b");
        assert_eq!(page.model.prompt, Some(PromptFor::BookmarkNote { line }));
        page.send(Msg::PromptSubmit(note.into()));
    }
    assert_eq!(
        bookmarks(&page),
        [
            (a, "first & #1, = ~ é".to_string()),
            (c, "middle".to_string()),
            (b, String::new())
        ]
    );
    let list = &page.model.bookmarks.list;
    assert_eq!(
        list.iter().map(|b| b.time).collect::<Vec<_>>(),
        [Some(times[0]), Some(times[2]), Some(times[1])]
    );
    assert_eq!(
        list.iter().map(|b| b.function.clone()).collect::<Vec<_>>(),
        [
            functions[0].clone(),
            functions[2].clone(),
            functions[1].clone()
        ]
    );
    // Kept by the page, and in the URL next to the position.
    assert!(page.effects.contains(&Effect::Bookmarks));
    let want =
        format!("#line={c}&bm={a}~first%20%26%20%231%2C%20%3D%20%7E%20%C3%A9,{c}~middle,{b}");
    assert!(
        page.effects.contains(&Effect::Fragment(want.clone())),
        "{want} in {:?}",
        page.effects
    );
    // ' and " go from bookmark to bookmark, and say when there is none.
    page.key("Home");
    page.key("'");
    assert_eq!(page.line(), a);
    page.key("'");
    assert_eq!(page.line(), c);
    page.key("\"");
    assert_eq!(page.line(), a);
    page.key("\"");
    assert_eq!(page.line(), a);
    assert_eq!(page.status(), "No earlier bookmark.");
    // B shows the pane; a pick there goes to the bookmark.
    page.key("B");
    assert!(page
        .model
        .shown(tarmac_lens::model::layout::Slot::named("bookmarks").unwrap()));
    page.send(Msg::Bookmark(BookmarkMsg::Jump { line: b }));
    assert_eq!(page.line(), b);
    // b again removes it; a note edited in the pane is kept.
    page.key("b");
    assert!(page.model.prompt.is_none());
    assert_eq!(
        page.status(),
        format!("Bookmark at line {} removed.", tarmac_lens::i18n::number(b))
    );
    page.send(Msg::Bookmark(BookmarkMsg::Note {
        line: c,
        note: "renamed".into(),
    }));
    assert_eq!(
        bookmarks(&page),
        [
            (a, "first & #1, = ~ é".to_string()),
            (c, "renamed".to_string())
        ]
    );
    // A gutter click bookmarks a row that is not the position.
    page.send(Msg::Bookmark(BookmarkMsg::Toggle {
        line: instructions[5],
    }));
    page.send(Msg::PromptSubmit(String::new()));
    let gutter = page.model.bookmarks.get(instructions[5]).unwrap();
    assert!(gutter.time.is_some() && gutter.note.is_empty());
    assert_eq!(page.line(), b, "the gutter does not move the position");
}

#[test]
fn bookmarks_from_the_url_storage_and_imports_merge_and_bad_ones_are_named() {
    use tarmac_lens::model::bookmarks::{to_json, Bookmark};
    use tarmac_lens::model::BookmarkMsg;
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let (a, b, c) = (instructions[20], instructions[40], instructions[60]);
    // A link in a fresh profile: a position, two bookmarks (one given by a
    // line inside its instruction's lines) and one that is not a line.
    let mut page = Page::open(
        &trace,
        Config {
            fragment: format!("line={c}&bm={a}~hello%20there,abc,{}", b + 1),
            ..Config::default()
        },
    );
    assert_eq!(page.line(), c, "the position is the link's");
    assert_eq!(
        bookmarks(&page),
        [(a, "hello there".to_string()), (b, String::new())]
    );
    assert!(page.model.bookmarks.list.iter().all(|b| b.time.is_some()));
    assert!(
        page.status().contains("\"abc\" is not a line number"),
        "{}",
        page.status()
    );
    // What the page kept for the trace merges: no line twice, no note lost.
    let kept = to_json(
        "quicksort.tarmac",
        &[
            Bookmark {
                note: "kept".into(),
                ..Bookmark::at(b)
            },
            Bookmark::at(a),
        ],
    );
    page.send(Msg::Bookmark(BookmarkMsg::Stored(kept)));
    assert_eq!(
        bookmarks(&page),
        [(a, "hello there".to_string()), (b, "kept".to_string())]
    );
    // An import adds what is new and names what it could not read.
    page.send(Msg::Bookmark(BookmarkMsg::Import(format!(
        r#"{{"format": "tarmac-lens-bookmarks", "bookmarks": [{{"line": {a}}}, {{"line": {c}, "note": "imported"}}, {{"note": "no line"}}]}}"#
    ))));
    assert_eq!(
        page.status(),
        "Imported 2 bookmarks (1 new). Not read: bookmark 3 has no line number"
    );
    assert_eq!(bookmarks(&page).len(), 3);
    for bad in ["not json at all", r#"{"bookmarks": [{"line": 3}]}"#] {
        page.send(Msg::Bookmark(BookmarkMsg::Import(bad.into())));
        assert!(
            page.status()
                .starts_with("Cannot import the bookmarks: it is not"),
            "{}",
            page.status()
        );
    }
    assert_eq!(bookmarks(&page).len(), 3, "a bad import drops nothing");
    // A link's bookmark past the end of the trace is said and not kept.
    page.send(Msg::HashChanged(format!("line={c}&bm=999999~gone")));
    assert_eq!(
        page.status(),
        "The bookmark at line 999,999 was removed: the trace has no such line."
    );
    assert_eq!(bookmarks(&page).len(), 3);
    assert_eq!(page.line(), c);
}

#[test]
fn the_palette_lists_the_elf_functions_with_their_call_counts_and_lists_a_ones_calls() {
    use tarmac_lens::model::palette::{PaletteAction, PaletteMsg};
    use tarmac_lens::model::ReportTab;
    let trace_path = data("tracegen/quicksort-aarch64-O2-fastmodel-2M.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let mut page = Page::open(&trace, Config::default());
    page.load_elf(&elf);
    let symbols = tarmac_lens_core::SymbolTable::from_elf_bytes(&elf, 0).unwrap();
    let quicksort = symbols
        .symbols()
        .iter()
        .find(|s| s.name == "quicksort")
        .expect("quicksort in the ELF")
        .addr;
    // Brute force: the instruction lines at quicksort's entry
    // (`IT (n) 000104b0 ...`).
    let entry = format!(") {quicksort:08x} ");
    let entered = String::from_utf8_lossy(&trace)
        .lines()
        .filter(|l| l.contains(" IT ") || l.contains(" IS "))
        .filter(|l| l.contains(&entry))
        .count() as u64;
    assert!(entered > 10, "quicksort entered {entered} times");
    page.send(Msg::Palette(PaletteMsg::Open));
    page.send(Msg::Palette(PaletteMsg::Text("quicksort".into())));
    let entries = page.model.palette_entries();
    // The function named exactly so comes first, with its count.
    let first = &entries[0];
    assert_eq!(first.action, PaletteAction::Function(quicksort));
    assert_eq!(
        first.label,
        format!(
            "Function quicksort: its {} calls",
            tarmac_lens::i18n::number(entered)
        )
    );
    // Part of a name lists it too; a number does not.
    page.send(Msg::Palette(PaletteMsg::Text("sort".into())));
    assert!(page
        .model
        .palette_entries()
        .iter()
        .any(|e| e.action == PaletteAction::Function(quicksort)));
    // The start of a name comes before the commands whose help has a word
    // starting so ("part": a watch "part of" nothing, the function first).
    let partition = symbols
        .symbols()
        .iter()
        .find(|s| s.name == "partition")
        .expect("partition in the ELF")
        .addr;
    page.send(Msg::Palette(PaletteMsg::Text("part".into())));
    let entries = page.model.palette_entries();
    assert_eq!(
        entries[0].action,
        PaletteAction::Function(partition),
        "{:?}",
        entries.iter().map(|e| &e.label).collect::<Vec<_>>()
    );
    assert!(entries
        .iter()
        .any(|e| matches!(e.action, PaletteAction::Run(_))));
    page.send(Msg::Palette(PaletteMsg::Text("1234".into())));
    assert!(!page
        .model
        .palette_entries()
        .iter()
        .any(|e| matches!(e.action, PaletteAction::Function(_))));
    // Return on it: the Reports panel's profile lists its calls.
    page.send(Msg::Palette(PaletteMsg::Text("quicksort".into())));
    page.send(Msg::Palette(PaletteMsg::Run));
    assert!(page.model.palette.is_none());
    let reports = page
        .model
        .pane_state::<tarmac_lens::panes::reports::Reports>();
    assert_eq!(reports.map(|r| r.tab), Some(ReportTab::Profile));
    assert_eq!(page.model.report_calls.map(|c| c.1), Some(quicksort));
}

#[test]
fn a_resize_keeps_the_rows_shown_and_a_cursor_in_sight_stays_there() {
    use tarmac_lens::model::ViewMsg;
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (_, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    page.send(Msg::View(0, ViewMsg::Resized { px: 600.0 }));
    page.prompt("l", &instructions[2000].to_string());
    let in_sight = |page: &Page, px: f64| {
        let v = &page.model.views[0];
        let row = v.cursor_row.expect("the cursor's row");
        let rows = (px / tarmac_lens::model::view_state::ROW_PX).floor() as u64;
        row >= v.top && row < v.top + rows
    };
    assert!(in_sight(&page, 600.0));
    // Much shorter (a bottom area opened): the cursor is still in sight.
    let seq = page.model.views[0].scroll_seq;
    page.send(Msg::View(0, ViewMsg::Resized { px: 60.0 }));
    assert!(in_sight(&page, 60.0), "top {}", page.model.views[0].top);
    assert!(
        page.model.views[0].scroll_seq > seq,
        "the scrollbar follows"
    );
    // Scrolled away from the cursor, a resize leaves the rows where they are.
    page.send(Msg::View(
        0,
        ViewMsg::Viewport {
            top: 10,
            px: 60.0,
            follow: false,
        },
    ));
    page.send(Msg::View(0, ViewMsg::Resized { px: 300.0 }));
    assert_eq!(page.model.views[0].top, 10);
}

/// The Coverage tab's rows show a file at a line in the source pane
/// (opened if there is none), with that file's counts, until the position
/// moves; then the pane follows the position again.
#[test]
fn a_file_shown_from_elsewhere_stays_until_the_position_moves() {
    let trace_path = data("tracegen/lines/recursion-aarch64-O1-fastmodel.tarmac");
    let trace = std::fs::read(&trace_path).unwrap();
    let elf = std::fs::read(trace_path.with_extension("elf")).unwrap();
    let mut page = Page::open(&trace, Config::default());
    page.session.load_debug_info(elf.into(), 0).unwrap();
    let progress = page.session.progress();
    page.model.on_progress(Some(&progress), true);
    page.settle();
    page.prompt("l", "400");
    let (at_file, at_line) = {
        page.key("s");
        let here = source_here(&page).expect("a source line at 400");
        page.key("x");
        here
    };
    assert!(page
        .model
        .panes
        .iter()
        .all(|p| p.body.slot().name() != "source"));
    // A line that never ran (no count), in the same file.
    page.send(Msg::ShowSource {
        file: at_file.clone(),
        line: 1,
    });
    let (id, pane) = source_pane(&page).expect("a source pane");
    assert_eq!(page.model.focus, tarmac_lens::model::Focus::Pane(id));
    assert_eq!(source_here(&page), Some((at_file.clone(), Some(1))));
    let counts = pane.counts.as_ref().expect("the file's counts");
    assert_eq!(counts.file, at_file);
    assert_eq!(pane.count(1), None);
    // A pane refreshed at the same position keeps it.
    page.send(Msg::ShowSource {
        file: at_file.clone(),
        line: 2,
    });
    assert_eq!(source_here(&page), Some((at_file.clone(), Some(2))));
    // A move (there and back): the position's line again.
    page.send(Msg::Focus(tarmac_lens::model::Focus::View(0)));
    page.prompt("l", "500");
    page.prompt("l", "400");
    assert_eq!(source_here(&page), Some((at_file, at_line)));
}

/// The watch pane lists what the trace text shows touching the range, and
/// `)` / `(` move to the accesses around the position.
#[test]
fn the_watch_pane_lists_every_access_the_text_shows_and_steps_between_them() {
    use tarmac_lens::model::pane_state::PaneAction;
    use tarmac_lens::model::registry::Slot;
    use tarmac_lens::model::Focus;
    use tarmac_lens::model::PaneMsg;
    use tarmac_lens::panes::watch::{Watch, WatchMsg};
    use tarmac_lens_core::protocol::AccessKind;
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (lines, _) = text_of(&trace);
    // Accesses of [0x8100, 0x8110), credited to the instruction line before.
    let mut want: Vec<(u64, String)> = Vec::new();
    let mut at = 0;
    for (i, l) in lines.iter().enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.get(2) {
            Some(&"IT") | Some(&"IS") => at = i as u64 + 1,
            Some(t) if t.starts_with("MR") || t.starts_with("MW") => {
                let size: u64 = t[2..].parse().unwrap();
                let addr = u64::from_str_radix(w[3].split(':').next().unwrap(), 16).unwrap();
                if addr < 0x8110 && 0x8100 < addr + size {
                    let k = if t.starts_with("MR") { "r" } else { "w" };
                    match want.last_mut() {
                        Some((n, kind)) if *n == at => {
                            if !kind.contains(k) {
                                *kind = "rw".into();
                            }
                        }
                        _ => want.push((at, k.into())),
                    }
                }
            }
            _ => {}
        }
    }
    assert!(want.len() > 50);
    let mut page = Page::open(&trace, Config::default());
    page.prompt("W", "[0x8100:16]");
    // What the pane's render sends it.
    let watch_msg = |page: &mut Page, msg: PaneMsg| {
        let slot = Slot::named("watch").unwrap();
        let id = page.model.pane_of(slot).expect("the watch pane").id;
        page.send(Msg::Pane(id, msg));
    };
    let own = |m: WatchMsg| PaneMsg::Own(Box::new(m));
    let listed = |page: &Page| -> Vec<(u64, String)> {
        let w = page.model.pane_state::<Watch>().expect("a watch");
        (w.hits.iter())
            .map(|h| (h.node.first_line, h.kind.clone()))
            .collect()
    };
    assert_eq!(listed(&page), want);
    let w = page.model.pane_state::<Watch>().unwrap();
    assert_eq!(w.label, "[0x8100:16]");
    assert!(w.listed(page.model.indexed_nodes, page.model.complete));
    // `)` and `(` from a line between two accesses.
    let (a, b) = (want[20].0, want[21].0);
    page.prompt("l", &(a + 1).to_string());
    page.key(")");
    assert_eq!(page.line(), b);
    page.key("(");
    assert_eq!(page.line(), a);
    // The position's access is the one the list marks; a click on another
    // goes there.
    let w = page.model.pane_state::<Watch>().unwrap();
    let node = page.model.views[0].cursor.unwrap().node;
    assert_eq!(w.index_of(node), Some(20));
    assert_eq!(w.index_of(node + 1), None, "{node} + 1 is not an access");
    let far = w.hits[want.len() - 1].node.node;
    watch_msg(&mut page, own(WatchMsg::Pick(far)));
    assert_eq!(page.line(), want[want.len() - 1].0);
    // Reads only.
    watch_msg(&mut page, own(WatchMsg::Kind(AccessKind::Read)));
    let reads: Vec<_> = want
        .iter()
        .filter(|(_, k)| k.contains('r'))
        .cloned()
        .collect();
    let got = listed(&page);
    assert_eq!(
        got.iter().map(|h| h.0).collect::<Vec<_>>(),
        reads.iter().map(|h| h.0).collect::<Vec<_>>()
    );
    assert!(got.iter().all(|(_, k)| k == "r"));
    // `W` in a register pane watches its selection (its writes, here).
    let pane = page
        .model
        .panes
        .iter()
        .find(|p| registers_of(p).is_some())
        .map(|p| p.id)
        .expect("a register pane");
    page.send(Msg::Focus(Focus::Pane(pane)));
    watch_msg(&mut page, own(WatchMsg::Kind(AccessKind::Write)));
    page.key("W");
    let w = page.model.pane_state::<Watch>().unwrap();
    let name = w.label.to_uppercase();
    let writes = lines
        .iter()
        .filter(|l| l.split_whitespace().nth(3) == Some(name.as_str()))
        .count();
    assert!(writes > 0, "{name}");
    assert_eq!(w.hits.len(), writes, "{name}");
    // Back in the trace view, `W` asks; a bad range is said so.
    let view = page.model.views[0].id;
    page.send(Msg::Focus(Focus::View(view)));
    page.prompt("W", "buf:0");
    assert!(page.status().contains("length is 0"), "{}", page.status());
    watch_msg(&mut page, PaneMsg::Action(PaneAction::Close));
    assert!(page.model.pane_state::<Watch>().is_none());
    page.key(")");
    assert!(
        page.status().contains("Nothing is watched"),
        "{}",
        page.status()
    );
}

/// `c` asks for a value condition and goes where it next becomes true (as
/// the trace text's register writes say), `>` and `<` to the next and
/// previous times; the end of the hits, a text that is not a condition
/// (its column) and a stopped search are said so.
#[test]
fn the_condition_prompt_goes_where_the_text_says_it_becomes_true() {
    use tarmac_lens::model::condition::CondMsg;
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (lines, _) = text_of(&trace);
    // `x0 > 0x40 && x1 != 0` after each instruction's lines: where it turns
    // true, the instruction's line.
    let (mut x0, mut x1): (Option<u64>, Option<u64>) = (None, None);
    let mut want = Vec::new();
    let (mut node_line, mut before, mut now) = (1u64, false, false);
    for (i, l) in lines.iter().enumerate() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if matches!(w.get(2), Some(&"IT") | Some(&"IS")) {
            if now && !before {
                want.push(node_line);
            }
            (before, node_line) = (now, i as u64 + 1);
        }
        if w.get(2) == Some(&"R") {
            let v = w.get(4).and_then(|v| u64::from_str_radix(v, 16).ok());
            match w.get(3) {
                Some(&"X0") => x0 = v,
                Some(&"X1") => x1 = v,
                _ => {}
            }
        }
        now = x0.is_some_and(|v| v > 0x40) && x1.is_some_and(|v| v != 0);
    }
    if now && !before {
        want.push(node_line);
    }
    assert!(want.len() >= 4, "{want:?}");
    let cond = "x0 > 0x40 && x1 != 0";
    let mut page = Page::open(&trace, Config::default());
    page.prompt("c", cond);
    assert_eq!(page.line(), want[0], "{}", page.status());
    assert!(page.status().contains(&format!("line {}", want[0])));
    page.key(">");
    assert_eq!(page.line(), want[1]);
    page.key(">");
    assert_eq!(page.line(), want[2]);
    page.key("<");
    assert_eq!(page.line(), want[1]);
    // Past the last, and before the first: nothing, the position stays.
    let last = *want.last().unwrap();
    page.prompt("l", &last.to_string());
    page.key(">");
    assert_eq!(page.line(), last);
    assert!(page.status().contains("does not become true after"));
    page.prompt("l", &want[0].to_string());
    page.key("<");
    assert_eq!(page.line(), want[0]);
    assert!(page.status().contains("does not become true before"));
    // Not a condition: where, and why.
    page.prompt("c", "x0 = 1");
    let bad = page.model.condition.invalid.clone().expect("an error");
    assert_eq!(bad.column, 4);
    assert!(bad.message.contains("'='"), "{}", bad.message);
    assert_eq!(page.line(), want[0]);
    // A search stopped before its answer: the answer is dropped.
    page.model.key(&KeyInput::plain("c"));
    page.model.update(Msg::PromptSubmit(cond.into()));
    assert!(page.model.condition.running.is_some());
    page.model.key(&KeyInput::plain("Escape"));
    assert!(page.model.condition.running.is_none());
    page.settle();
    assert_eq!(page.line(), want[0], "a stopped search does not move");
    assert!(page.status().contains("stopped"), "{}", page.status());
    // Stopping twice does nothing more.
    assert!(!page.model.update(Msg::Condition(CondMsg::Stop)));
    // The prompt recalls what it was given, oldest first, each once; the
    // line prompt keeps its own.
    page.key("c");
    assert_eq!(page.model.prompt_history(), ["x0 = 1", cond]);
    page.key("Escape");
    page.key("l");
    let lines: Vec<String> = vec![last.to_string(), want[0].to_string()];
    assert_eq!(page.model.prompt_history(), lines.as_slice());
}

/// `y` on a register pane's selection opens the "why?" pane on the tree
/// the worker answers; the arrows open a step the tree left for later (its
/// subtree is the one a follow-up question gives), Enter goes to a step's
/// writer; in the trace view `y` asks for what to explain.
#[test]
fn y_explains_the_selected_register_and_the_tree_grows_and_goes_to_writers() {
    use tarmac_lens::model::pane_state::PaneAction;
    use tarmac_lens::model::registry::Slot;
    use tarmac_lens::model::{Focus, PaneMsg};
    use tarmac_lens::panes::why::{Why, WhyKey, WhyMsg, MORE_DEPTH};
    // What the pane's render sends it.
    let why_msg = |page: &mut Page, msg: PaneMsg| {
        let slot = Slot::named("why").unwrap();
        let id = page.model.pane_of(slot).expect("the why pane").id;
        page.send(Msg::Pane(id, msg));
    };
    let own = |m: WhyMsg| PaneMsg::Own(Box::new(m));
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let (lines, instructions) = text_of(&trace);
    let mut page = Page::open(&trace, Config::default());
    let pane = page
        .model
        .panes
        .iter()
        .find(|p| registers_of(p).is_some())
        .map(|p| p.id)
        .expect("a register pane");
    // An instruction past the start writing a register from others, whose
    // tree leaves a step for later.
    let mut found = None;
    for &at in instructions.iter().skip(200).step_by(7).take(60) {
        let l = &lines[at as usize];
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.get(2) != Some(&"R") || !lines[at as usize - 1].contains("ADD") {
            continue;
        }
        let reg = w[3].to_lowercase();
        page.prompt("l", &at.to_string());
        page.send(Msg::Focus(Focus::Pane(pane)));
        let (values, _) = page.registers();
        let p = registers_of(page.model.pane_ref(pane).unwrap())
            .and_then(|r| r.panel.as_ref())
            .unwrap();
        let index = p.cells.iter().position(|c| c.name == reg).unwrap();
        // Selected as the arrows select (a click also goes to its write).
        let state = &mut page.model.pane_mut(pane).unwrap().body.state;
        state
            .as_any_mut()
            .downcast_mut::<RegistersPane>()
            .unwrap()
            .selected = index;
        page.key("y");
        let why = page.model.pane_state::<Why>().expect("the why pane");
        assert_eq!((why.label.as_str(), why.line), (reg.as_str(), at));
        let root = why.root.as_ref().expect("a tree");
        assert_eq!(root.writer.map(|w| w.line), Some(at), "{reg} at {at}");
        assert_eq!(root.value, format!("0x{}", values[&reg]), "{reg} at {at}");
        let rows = why.rows();
        if let Some(p) = rows.iter().find(|p| why.step(p).unwrap().more.is_some()) {
            found = Some((at, p.clone()));
            break;
        }
        let view = page.model.views[0].id;
        page.send(Msg::Focus(Focus::View(view)));
    }
    let (at, path) = found.expect("a tree with a step left for later");
    // Down to that step, then Right opens it.
    while page.model.pane_state::<Why>().unwrap().selected != path {
        let before = page.model.pane_state::<Why>().unwrap().selected.clone();
        why_msg(&mut page, own(WhyMsg::Key(WhyKey::Down)));
        assert_ne!(
            page.model.pane_state::<Why>().unwrap().selected,
            before,
            "Down moves"
        );
    }
    let more = (page.model.pane_state::<Why>().unwrap().step(&path).unwrap())
        .more
        .clone()
        .unwrap();
    let shown_before = page.model.pane_state::<Why>().unwrap().rows().len();
    why_msg(&mut page, own(WhyMsg::Key(WhyKey::Right)));
    let why = page.model.pane_state::<Why>().unwrap();
    let grown = why.step(&path).unwrap().clone();
    let want = *page
        .session
        .ask(tarmac_lens_core::protocol::WhyQuery {
            depth: MORE_DEPTH,
            ..more
        })
        .unwrap();
    assert_eq!(grown, want);
    if !grown.inputs.is_empty() {
        assert_eq!(why.rows().len(), shown_before + grown.count() - 1);
        // Left shuts it again, Right then goes to its first input.
        why_msg(&mut page, own(WhyMsg::Key(WhyKey::Left)));
        assert_eq!(
            page.model.pane_state::<Why>().unwrap().rows().len(),
            shown_before
        );
        why_msg(&mut page, own(WhyMsg::Key(WhyKey::Right)));
        why_msg(&mut page, own(WhyMsg::Key(WhyKey::Right)));
        let mut first = path.clone();
        first.push(0);
        assert_eq!(page.model.pane_state::<Why>().unwrap().selected, first);
    }
    // Enter goes to the selected step's writer.
    let why = page.model.pane_state::<Why>().unwrap();
    let sel = why.selected.clone();
    let writer = why.step(&sel).unwrap().writer.expect("a writer").line;
    assert!(writer < at);
    why_msg(&mut page, own(WhyMsg::Key(WhyKey::Enter)));
    assert_eq!(page.line(), writer);
    assert!(
        lines[writer as usize - 1].contains(" IT "),
        "an instruction line"
    );
    // A click on the root goes back to the position's writer.
    why_msg(&mut page, own(WhyMsg::Go(Vec::new())));
    assert_eq!(page.line(), at);
    // In the trace view `y` asks; memory by expression, a bad one is said.
    let view = page.model.views[0].id;
    page.send(Msg::Focus(Focus::View(view)));
    page.prompt("y", "[sp:8]");
    let why = page.model.pane_state::<Why>().unwrap();
    assert!(
        why.label.starts_with("[0x") && why.label.ends_with(":8]"),
        "{}",
        why.label
    );
    assert!(why.root.is_some() || why.error.is_some());
    page.prompt("y", "buf:0");
    assert!(page.status().contains("length is 0"), "{}", page.status());
    why_msg(&mut page, PaneMsg::Action(PaneAction::Close));
    assert!(page.model.pane_state::<Why>().is_none());
}

/// A row's menu offers the `monitor line N` that stands `tarmac-lens
/// gdbserver` at that row's instruction; picking it copies the command
/// (an effect the page carries out) and says so.
#[test]
fn a_rows_menu_copies_the_gdb_command_for_its_line() {
    use tarmac_lens::model::{MenuAction, ViewMsg};
    let trace = std::fs::read(data("ttu/quicksort.tarmac")).unwrap();
    let mut page = Page::open(&trace, Config::default());
    let rows = page.model.views[0].rows.clone().expect("rows");
    let row = rows
        .rows
        .iter()
        .filter(|r| matches!(r, Row::Line { .. }))
        .nth(12)
        .cloned()
        .expect("a line row");
    let Row::Line { line, .. } = &row else {
        unreachable!()
    };
    let line = *line;
    page.send(Msg::View(0, ViewMsg::RowContext { row, x: 10, y: 20 }));
    let menu = page.model.menu.as_ref().expect("a menu");
    let label = format!("Copy for gdb: monitor line {line}");
    let at = menu
        .items
        .iter()
        .position(|(l, _)| *l == label)
        .unwrap_or_else(|| panic!("{label} not in {:?}", menu.items));
    assert_eq!(
        menu.items[at].1,
        MenuAction::Copy(format!("monitor line {line}"))
    );
    page.effects.clear();
    page.send(Msg::MenuPick(at));
    assert!(page.model.menu.is_none());
    assert!(page
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Copy(t) if *t == format!("monitor line {line}"))));
    assert_eq!(page.status(), format!("Copied: monitor line {line}"));
}
