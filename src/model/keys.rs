//! Key bindings of the trace browser, one table per kind of pane. The same
//! tables drive the keyboard and the F1 help, so the help cannot drift from
//! what the keys do.

use crate::model::layout::LayoutMsg;
use crate::model::registry::{Opens, Slot, PANES};
use tarmac_lens_core::protocol::FoldOp;

pub use super::pane_kind::{PaneKind, RegKind};

/// What a key (or a palette entry) asks the browser to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// The command palette (Ctrl-K, Ctrl-Shift-P).
    Palette,
    /// Focus the next pane (`Tab`).
    NextPane,
    /// Focus the previous pane (`Shift-Tab`).
    PrevPane,
    /// The keys overlay (`F1`).
    Help,
    /// Show or hide a register pane of this kind.
    ToggleRegisters(RegKind),
    /// The source pane (`s`).
    ToggleSource,
    /// Source stepping in the source pane: the next line to run (`j`), the
    /// one that ran before (`k`), over a call (`o`), out of it (`u`).
    SourceNext,
    /// The source line that ran before (`k`).
    SourcePrev,
    /// The next line of this function, calls run over (`o`).
    SourceOver,
    /// The caller's next line after this call returns (`u`).
    SourceOut,
    /// Next (`e`) or previous (`E`) event from the active view's position.
    NextEvent {
        /// The next event, not the previous one.
        forward: bool,
    },
    /// The timeline strip (`T`).
    ToggleTimeline,
    /// Bookmark the position, or unmark it (`b`).
    ToggleBookmark,
    /// Next (`'`) or previous (`"`) bookmark from the active view's position.
    NextBookmark {
        /// The next bookmark, not the previous one.
        forward: bool,
    },
    // Trace pane.
    /// The next instruction; a folded call is one step (Down).
    StepDown,
    /// The previous instruction (Up).
    StepUp,
    /// A screenful down, or a memory pane's height.
    PageDown,
    /// A screenful up, or a memory pane's height.
    PageUp,
    /// The start of the trace.
    Home,
    /// The end of the trace, as far as it is indexed.
    End,
    /// Put the position in the middle, top, bottom in turn (`Ctrl-L`).
    Recentre,
    /// Fold or unfold calls around the position.
    Fold(FoldOp),
    /// Go to a line number, asked for (`l`).
    GotoLine,
    /// Go to a time, asked for (`t`).
    GotoTime,
    /// The next or previous visit of a PC, asked for (`p`, `P`).
    FindPc {
        /// The next visit, not the previous one.
        forward: bool,
    },
    /// The last PC search again, forwards or backwards (`;`, `,`).
    RepeatPc {
        /// Forwards, not backwards.
        forward: bool,
    },
    /// Opens the search bar (`/` forwards, `?` backwards).
    Search {
        /// Forwards from the position (`/`), not backwards (`?`).
        forward: bool,
    },
    /// The next search result in the search's direction (`n`), or the
    /// other way (`N`).
    SearchNext {
        /// The search's own direction (`n`), not the other (`N`).
        same_way: bool,
    },
    /// Open a memory pane at an address expression (`m`).
    OpenMemory,
    /// Syntax highlighting on or off (`F6`).
    ToggleSyntax,
    /// Branch targets as symbols on or off (`F7`).
    ToggleSymbols,
    /// The `file:line` column of the trace rows (`L`).
    ToggleSourceColumn,
    /// The function column of the trace rows (`H`).
    ToggleFunctionColumn,
    /// Highlight the lines of the instruction before the position, in turn
    /// (`a`).
    Annotate,
    // The Reports panel (`components/reports/`).
    /// Show or hide the Reports panel (`R`).
    Reports,
    /// The Reports panel's flame graph (`F`).
    FlameGraph,
    /// The call at the position in the reports' call tree (`g`).
    RevealCall,
    // Trace (annotated line), register and memory panes.
    /// The previous write of the highlighted line or the selection (Return).
    PreviousWrite,
    // Register and memory panes.
    /// Move the pane's selection up.
    Up,
    /// Move the pane's selection down.
    Down,
    /// Move the pane's selection left.
    Left,
    /// Move the pane's selection right.
    Right,
    /// Lock the pane to a line, asked for (`l`).
    LockLine,
    /// Lock the pane to a time, asked for (`t`).
    LockTime,
    /// Unlock the pane, or lock it to what it shows (`Ctrl-L`).
    ToggleLock,
    /// Close the pane (`x`, Delete).
    Close,
    /// The symbolic reading of the selected register's value (`a`).
    Symbolic,
    /// Mark what the instruction wrote, or what changed since the last
    /// position (`c`).
    ToggleRegMark,
    /// The memory pane's previous changed byte (`[`).
    PrevChanged,
    /// The memory pane's next changed byte (`]`).
    NextChanged,
    /// Highlight the memory changed since another line, asked for (`d`).
    CompareLine,
    /// The previous write of the aligned bytes of this width around the
    /// selected byte (`1 2 4 8`).
    WriteOfWidth(u8),
    /// The memory pane one row shorter (`<`).
    Shorter,
    /// The memory pane one row taller (`>`).
    Taller,
    /// Splitters and areas (`model::layout`).
    Layout(crate::model::layout::LayoutMsg),
    /// The focused pane's kind to the other area (`A`).
    MovePane,
    /// Watch the selected register or byte of the focused register or
    /// memory pane, or else a register or memory range typed in (`W`).
    WatchPrompt,
    /// The watch's next (`)`) or previous (`(`) access from the position.
    WatchStep {
        /// The next access, not the previous one.
        forward: bool,
    },
    /// Where a value condition next becomes true, asked for (`c`).
    ConditionPrompt,
    /// The last condition's next (`>`) or previous (`<`) hit.
    ConditionStep {
        /// The next hit, not the previous one.
        forward: bool,
    },
    /// Where the selected register's or byte's value came from, else a
    /// register or memory typed in (`y`).
    WhyPrompt,
    /// Show or hide a pane kind living in its own folder (its registry
    /// line's keys).
    TogglePane(Slot),
}

/// A line of a key table: its keys, its help, and the command they run.
pub struct Binding {
    /// `KeyboardEvent.key` values; a `C-` prefix means with Ctrl.
    pub keys: &'static [&'static str],
    /// How the help shows the keys.
    pub label: &'static str,
    /// What the help says the keys do.
    pub help: &'static str,
    /// What the keys run.
    pub command: Command,
}

const fn bind(
    keys: &'static [&'static str],
    label: &'static str,
    help: &'static str,
    command: Command,
) -> Binding {
    Binding {
        keys,
        label,
        help,
        command,
    }
}

/// The keys every pane takes.
pub const GLOBAL: &[Binding] = &[
    bind(
        &["Tab"],
        "Tab",
        "focus the next pane (Shift-Tab: previous)",
        Command::NextPane,
    ),
    bind(
        &["S-Tab"],
        "Shift-Tab",
        "focus the previous pane",
        Command::PrevPane,
    ),
    bind(&["F1", "F10"], "F1", "this help", Command::Help),
    bind(
        &["C-k", "C-S-p"],
        "Ctrl-K",
        "command palette: every command, and go to a line, time or PC",
        Command::Palette,
    ),
    bind(
        &["r"],
        "r",
        "show/hide the core registers",
        Command::ToggleRegisters(RegKind::Core),
    ),
    bind(
        &["S"],
        "S",
        "show/hide single-precision FP registers",
        Command::ToggleRegisters(RegKind::Single),
    ),
    bind(
        &["D"],
        "D",
        "show/hide double-precision FP registers",
        Command::ToggleRegisters(RegKind::Double),
    ),
    bind(
        &["V"],
        "V",
        "show/hide NEON vector registers",
        Command::ToggleRegisters(RegKind::Neon),
    ),
    bind(
        &["M"],
        "M",
        "show/hide MVE vector registers",
        Command::ToggleRegisters(RegKind::Mve),
    ),
    bind(
        &["Z"],
        "Z",
        "show/hide SVE vector registers",
        Command::ToggleRegisters(RegKind::Sve),
    ),
    bind(
        &["w"],
        "w",
        "show/hide the registers the position changed",
        Command::ToggleRegisters(RegKind::Changed),
    ),
    bind(
        &["s"],
        "s",
        "show/hide the source pane (file and line from the ELF's DWARF, per-line counts)",
        Command::ToggleSource,
    ),
    bind(
        &["e"],
        "e",
        "next event",
        Command::NextEvent { forward: true },
    ),
    bind(
        &["E"],
        "E",
        "previous event",
        Command::NextEvent { forward: false },
    ),
    bind(
        &["T"],
        "T",
        "show/hide the timeline (call depth, events, mode changes; click or drag to move)",
        Command::ToggleTimeline,
    ),
    bind(
        &["'"],
        "'",
        "next bookmark",
        Command::NextBookmark { forward: true },
    ),
    bind(
        &["\""],
        "\"",
        "previous bookmark",
        Command::NextBookmark { forward: false },
    ),
    bind(
        &["R"],
        "R",
        "show/hide the reports: call tree, profile, flame graph",
        Command::Reports,
    ),
    bind(
        &["F"],
        "F",
        "the flame graph in the reports",
        Command::FlameGraph,
    ),
    bind(
        &["C-S-ArrowLeft"],
        "Ctrl-Shift-Left",
        "widen the side area (or drag its splitter)",
        Command::Layout(LayoutMsg::SideBy(1)),
    ),
    bind(
        &["C-S-ArrowRight"],
        "Ctrl-Shift-Right",
        "narrow the side area",
        Command::Layout(LayoutMsg::SideBy(-1)),
    ),
    bind(
        &["C-S-ArrowUp"],
        "Ctrl-Shift-Up",
        "make the bottom area taller (or drag its splitter)",
        Command::Layout(LayoutMsg::BottomBy(1)),
    ),
    bind(
        &["C-S-ArrowDown"],
        "Ctrl-Shift-Down",
        "make the bottom area shorter",
        Command::Layout(LayoutMsg::BottomBy(-1)),
    ),
    bind(
        &["C-S-Backspace"],
        "Ctrl-Shift-Backspace",
        "reset the layout: areas' sizes, where each pane sits",
        Command::Layout(LayoutMsg::Reset),
    ),
    bind(
        &["W"],
        "W",
        "watch a register or memory range: the selection of a register or memory pane, or one typed (x5, [sp:0x40], buf:64); list its reads and writes",
        Command::WatchPrompt,
    ),
    bind(
        &[")"],
        ")",
        "the watch's next access from the position",
        Command::WatchStep { forward: true },
    ),
    bind(
        &["("],
        "(",
        "the watch's previous access from the position",
        Command::WatchStep { forward: false },
    ),
    bind(
        &["y"],
        "y",
        "why this value? the tree of writes that made the selected register's or byte's value (or one typed: x5, [sp:8]); arrows open steps, Enter goes to a writer",
        Command::WhyPrompt,
    ),
];

/// The keys of the pane kinds whose registry line shows and hides them
/// (`registry::Opens::Toggle`), made from that line.
const TOGGLES: [Binding; toggles()] = {
    let mut out = [const { bind(&[], "", "", Command::Help) }; toggles()];
    let (mut i, mut n) = (0, 0);
    while i < PANES.len() {
        if let Opens::Toggle { help, .. } = PANES[i].opens {
            let keys = PANES[i].keys;
            out[n] = bind(keys, keys[0], help, Command::TogglePane(Slot::ALL[i]));
            n += 1;
        }
        i += 1;
    }
    out
};

const fn toggles() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < PANES.len() {
        if let Opens::Toggle { .. } = PANES[i].opens {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The trace view's keys.
pub const TRACE: &[Binding] = &[
    bind(
        &["ArrowDown"],
        "Down",
        "next instruction (a folded call is one step)",
        Command::StepDown,
    ),
    bind(&["ArrowUp"], "Up", "previous instruction", Command::StepUp),
    bind(&["PageDown"], "PgDn", "a screenful down", Command::PageDown),
    bind(&["PageUp"], "PgUp", "a screenful up", Command::PageUp),
    bind(&["Home"], "Home", "start of the trace", Command::Home),
    bind(
        &["End"],
        "End",
        "end of the trace (indexed so far)",
        Command::End,
    ),
    bind(
        &["C-l"],
        "Ctrl-L",
        "put the position in the middle, top, bottom",
        Command::Recentre,
    ),
    bind(
        &["-", "_"],
        "-",
        "fold the call containing the position",
        Command::Fold(FoldOp::FoldCall),
    ),
    bind(
        &["+", "="],
        "+",
        "unfold the folded call after the position",
        Command::Fold(FoldOp::UnfoldCall),
    ),
    bind(
        &["["],
        "[",
        "fold every call made by the current function",
        Command::Fold(FoldOp::FoldChildren),
    ),
    bind(
        &["]"],
        "]",
        "unfold everything inside the current function",
        Command::Fold(FoldOp::UnfoldInside),
    ),
    bind(
        &["{"],
        "{",
        "fold everything",
        Command::Fold(FoldOp::FoldAll),
    ),
    bind(
        &["}"],
        "}",
        "unfold everything",
        Command::Fold(FoldOp::UnfoldAll),
    ),
    bind(&["l"], "l", "go to a line number", Command::GotoLine),
    bind(&["t"], "t", "go to a time", Command::GotoTime),
    bind(
        &["p"],
        "p",
        "next visit of a PC (address expression)",
        Command::FindPc { forward: true },
    ),
    bind(
        &["P"],
        "P",
        "previous visit of a PC",
        Command::FindPc { forward: false },
    ),
    bind(
        &[";"],
        ";",
        "repeat the PC search forwards",
        Command::RepeatPc { forward: true },
    ),
    bind(
        &[","],
        ",",
        "repeat the PC search backwards",
        Command::RepeatPc { forward: false },
    ),
    bind(
        &["/"],
        "/",
        "search the trace text (plain or regex, by record kind, in a line range)",
        Command::Search { forward: true },
    ),
    bind(
        &["?"],
        "?",
        "search the trace text backwards from the position",
        Command::Search { forward: false },
    ),
    bind(
        &["n"],
        "n",
        "next search result (in the search's direction)",
        Command::SearchNext { same_way: true },
    ),
    bind(
        &["N"],
        "N",
        "previous search result",
        Command::SearchNext { same_way: false },
    ),
    bind(
        &["m"],
        "m",
        "open a memory pane at an address expression",
        Command::OpenMemory,
    ),
    bind(
        &["a"],
        "a",
        "highlight the lines of the instruction before the position, in turn",
        Command::Annotate,
    ),
    bind(
        &["Enter"],
        "Return",
        "previous write of the highlighted line's register or memory",
        Command::PreviousWrite,
    ),
    bind(
        &["F6"],
        "F6",
        "syntax highlighting on/off",
        Command::ToggleSyntax,
    ),
    bind(
        &["F7"],
        "F7",
        "branch targets as symbols on/off (with an ELF)",
        Command::ToggleSymbols,
    ),
    bind(
        &["L"],
        "L",
        "source file:line column on/off (with an ELF built with -g; also on hover)",
        Command::ToggleSourceColumn,
    ),
    bind(
        &["H"],
        "H",
        "function column on/off (with an ELF): the function of each instruction",
        Command::ToggleFunctionColumn,
    ),
    bind(
        &["g"],
        "g",
        "show the call at the position in the reports' call tree",
        Command::RevealCall,
    ),
    bind(
        &["b"],
        "b",
        "bookmark the position with an optional note, or remove its bookmark",
        Command::ToggleBookmark,
    ),
    bind(
        &["c"],
        "c",
        "next point where a value condition becomes true (x5 == 0, [sp+8:4] > 100, pc == main && x0 == 1)",
        Command::ConditionPrompt,
    ),
    bind(
        &[">"],
        ">",
        "the condition's next hit from the position",
        Command::ConditionStep { forward: true },
    ),
    bind(
        &["<"],
        "<",
        "the condition's previous hit from the position",
        Command::ConditionStep { forward: false },
    ),
];

const PANE_COMMON: &[Binding] = &[
    bind(&["ArrowUp"], "Up", "move the selection up", Command::Up),
    bind(
        &["ArrowDown"],
        "Down",
        "move the selection down",
        Command::Down,
    ),
    bind(
        &["ArrowLeft"],
        "Left",
        "move the selection left",
        Command::Left,
    ),
    bind(
        &["ArrowRight"],
        "Right",
        "move the selection right",
        Command::Right,
    ),
    bind(
        &["Enter"],
        "Return",
        "previous write of the selection",
        Command::PreviousWrite,
    ),
    bind(&["l"], "l", "lock the pane to a line", Command::LockLine),
    bind(&["t"], "t", "lock the pane to a time", Command::LockTime),
    bind(
        &["C-l"],
        "Ctrl-L",
        "unlock (or lock to what is shown)",
        Command::ToggleLock,
    ),
    bind(&["Delete", "x"], "x", "close the pane", Command::Close),
    bind(
        &["A"],
        "A",
        "move this kind of pane to the other area (side or bottom)",
        Command::MovePane,
    ),
];

/// The register panes' keys.
pub const REGISTERS: &[Binding] = &[
    bind(
        &["a"],
        "a",
        "symbolic reading of the selected register's value",
        Command::Symbolic,
    ),
    bind(
        &["c"],
        "c",
        "mark the registers changed since the last position, or (again) those the instruction wrote",
        Command::ToggleRegMark,
    ),
];

/// The memory panes' keys.
pub const MEMORY: &[Binding] = &[
    bind(
        &["PageDown"],
        "PgDn",
        "scroll down a pane's height",
        Command::PageDown,
    ),
    bind(
        &["PageUp"],
        "PgUp",
        "scroll up a pane's height",
        Command::PageUp,
    ),
    bind(&["["], "[", "previous changed byte", Command::PrevChanged),
    bind(&["]"], "]", "next changed byte", Command::NextChanged),
    bind(
        &["d"],
        "d",
        "compare with another line (highlight changes since)",
        Command::CompareLine,
    ),
    bind(&["<"], "<", "one row shorter", Command::Shorter),
    bind(&[">"], ">", "one row taller", Command::Taller),
    bind(
        &["1"],
        "1",
        "previous write of the byte",
        Command::WriteOfWidth(1),
    ),
    bind(
        &["2"],
        "2",
        "previous write of the aligned 2 bytes",
        Command::WriteOfWidth(2),
    ),
    bind(
        &["4"],
        "4",
        "previous write of the aligned 4 bytes",
        Command::WriteOfWidth(4),
    ),
    bind(
        &["8"],
        "8",
        "previous write of the aligned 8 bytes",
        Command::WriteOfWidth(8),
    ),
];

/// The source pane's keys.
pub const SOURCE: &[Binding] = &[
    bind(
        &["j", "ArrowDown"],
        "j",
        "step to the next source line that runs",
        Command::SourceNext,
    ),
    bind(
        &["k", "ArrowUp"],
        "k",
        "step back to the source line that ran before",
        Command::SourcePrev,
    ),
    bind(
        &["o"],
        "o",
        "step over: the next line of this function, calls run over",
        Command::SourceOver,
    ),
    bind(
        &["u"],
        "u",
        "step out: the caller's next line after this call returns",
        Command::SourceOut,
    ),
    bind(
        &["n"],
        "n",
        "next execution of the chosen line (or this one)",
        Command::SearchNext { same_way: true },
    ),
    bind(
        &["N"],
        "N",
        "previous execution of the chosen line (or this one)",
        Command::SearchNext { same_way: false },
    ),
];

/// The bindings of a pane, most specific first.
pub fn tables(pane: PaneKind) -> Vec<&'static [Binding]> {
    match pane {
        PaneKind::Trace => vec![TRACE, GLOBAL, &TOGGLES],
        PaneKind::Registers => vec![REGISTERS, PANE_COMMON, GLOBAL, &TOGGLES],
        PaneKind::Memory => vec![MEMORY, PANE_COMMON, GLOBAL, &TOGGLES],
        PaneKind::Source => vec![SOURCE, PANE_COMMON, GLOBAL, &TOGGLES],
    }
}

/// The key as the tables spell it: `KeyboardEvent.key`, `C-` with Ctrl,
/// `C-S-` with Ctrl and Shift (`C-S-ArrowLeft`: named keys keep their
/// case), `S-Tab` for Shift-Tab.
pub fn key_name(key: &str, ctrl: bool, shift: bool) -> String {
    if ctrl && shift && key.chars().count() == 1 {
        format!("C-S-{}", key.to_lowercase())
    } else if ctrl && shift && (key.starts_with("Arrow") || key == "Backspace") {
        format!("C-S-{key}")
    } else if ctrl && key.chars().count() == 1 {
        format!("C-{}", key.to_lowercase())
    } else if shift && key == "Tab" {
        "S-Tab".to_string()
    } else {
        key.to_string()
    }
}

/// The command a key (as [`key_name`] spells it) runs in a kind of pane, if
/// any.
pub fn command(pane: PaneKind, key: &str) -> Option<Command> {
    tables(pane)
        .into_iter()
        .flat_map(|t| t.iter())
        .find(|b| b.keys.contains(&key))
        .map(|b| b.command)
}
