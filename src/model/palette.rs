//! The command palette (Ctrl-K, Ctrl-Shift-P): every command of the focused
//! pane's key tables, found by a fuzzy match on its name or key, and "go
//! to" entries made from what is typed: a number goes to a line or time
//! (listed first); `@expr`, a hex address or an expression with an
//! operator, to the next time the PC is there (first); other text lists
//! the PC entry after the commands it matches, and the ELF image's
//! functions whose name holds the text (the session lists them, with their
//! call counts): one lists its calls in the Reports panel.
//! It lists the same tables that drive the keys and the F1 help, so the
//! three cannot drift.

use super::{layout, Model, PromptFor, ReportTab};
use crate::i18n::{number, t, tf, tn};
use crate::model::keys::{self, Command, PaneKind};
use tarmac_lens_core::browse::protocol::{FunctionHit, Query, Reply};

/// Functions the palette lists at most.
const FUNCTIONS: u32 = 8;

/// An open palette: what is typed, and which entry is selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Palette {
    pub text: String,
    pub selected: usize,
    /// The pane whose commands it lists: the one focused when it opened.
    pub pane: Option<PaneKind>,
    /// The image's functions matching `functions_for` (the text typed when
    /// they were asked for).
    pub functions: Vec<FunctionHit>,
    pub functions_for: String,
}

/// What an entry does.
#[derive(Clone, Debug, PartialEq)]
pub enum PaletteAction {
    Run(Command),
    /// What was typed, as the answer to this prompt.
    Prompt(PromptFor, String),
    /// List this function's calls (its entry address).
    Function(u64),
}

/// One line of the palette.
#[derive(Clone, Debug, PartialEq)]
pub struct PaletteEntry {
    /// The command's help text, translated.
    pub label: String,
    /// Its key as the help shows it; empty for "go to" entries.
    pub key: &'static str,
    pub action: PaletteAction,
}

pub enum PaletteMsg {
    Open,
    Text(String),
    /// Move the selection by this many entries (wrapping).
    Move(i32),
    /// Run the selected entry (Return).
    Run,
    /// Run this entry (a click).
    Pick(usize),
    Close,
    /// The functions matching `text`.
    Functions {
        text: String,
        reply: Reply,
    },
}

/// Every command the tables bind for `pane`, once each, in table order,
/// with the first key that runs it.
pub fn commands(pane: PaneKind) -> Vec<(&'static keys::Binding, Command)> {
    let mut seen: Vec<Command> = Vec::new();
    let mut out = Vec::new();
    for table in keys::tables(pane) {
        for b in table.iter() {
            if b.command == Command::Palette || seen.contains(&b.command) {
                continue;
            }
            seen.push(b.command);
            out.push((b, b.command));
        }
    }
    out
}

/// How well `query` matches `text`: each word of the query, in any order,
/// as a subsequence of `text` (case-insensitive), with more for runs and
/// word starts; `None` if a word is not there.
pub fn fuzzy_score(query: &str, text: &str) -> Option<i64> {
    let text: Vec<char> = text.to_lowercase().chars().collect();
    query
        .to_lowercase()
        .split_whitespace()
        .map(|word| {
            let word: Vec<char> = word.chars().collect();
            // Greedy from each place the word's first letter is.
            (0..text.len())
                .filter(|&i| text[i] == word[0])
                .filter_map(|i| subsequence_score(&word, &text, i))
                .max()
        })
        .sum()
}

fn subsequence_score(word: &[char], text: &[char], from: usize) -> Option<i64> {
    let mut score = 0i64;
    let mut at = from;
    let mut prev: Option<usize> = None;
    for &q in word {
        let i = (at..text.len()).find(|&i| text[i] == q)?;
        score += 1;
        if prev.is_some_and(|p| p + 1 == i) {
            score += 5;
        }
        if i == 0 || !text[i - 1].is_alphanumeric() {
            score += 3;
        }
        score -= (i - at) as i64 / 4;
        prev = Some(i);
        at = i + 1;
    }
    Some(score)
}

impl Model {
    /// The palette's entries for what is typed: "go to" entries first, then
    /// the matching commands, best first.
    pub fn palette_entries(&self) -> Vec<PaletteEntry> {
        let Some(p) = &self.palette else {
            return Vec::new();
        };
        let typed = p.text.trim();
        let view = self.active_view();
        let mut out = Vec::new();
        let (pc_first, text) = match typed.strip_prefix('@') {
            Some(expr) => (true, expr.trim()),
            None => (
                typed.starts_with("0x") || typed.contains(['+', '-', '*', '(']),
                typed,
            ),
        };
        let pc_entry = (!text.is_empty()).then(|| PaletteEntry {
            label: tf("Next time the PC is {}", &[&text]),
            key: "",
            action: PaletteAction::Prompt(
                PromptFor::FindPc {
                    view,
                    forward: true,
                },
                text.to_string(),
            ),
        });
        if pc_first {
            out.extend(pc_entry.clone());
            if typed.starts_with('@') {
                return out;
            }
        } else if crate::model::hash::number(text).is_some() {
            for (for_, label) in [
                (PromptFor::GotoLine { view }, tf("Go to line {}", &[&text])),
                (PromptFor::GotoTime { view }, tf("Go to time {}", &[&text])),
            ] {
                out.push(PaletteEntry {
                    label,
                    key: "",
                    action: PaletteAction::Prompt(for_, text.to_string()),
                });
            }
        }
        let mut scored: Vec<(i64, usize, PaletteEntry)> =
            commands(p.pane.unwrap_or(PaneKind::Trace))
                .into_iter()
                .enumerate()
                .filter_map(|(i, (b, cmd))| {
                    let label = t(b.help).to_string();
                    let score = if text.is_empty() {
                        0
                    } else {
                        fuzzy_score(text, &label)
                            .into_iter()
                            .chain(fuzzy_score(text, b.help))
                            .chain((text.eq_ignore_ascii_case(b.label)).then_some(100))
                            .max()?
                    };
                    Some((
                        score,
                        i,
                        PaletteEntry {
                            label,
                            key: b.label,
                            action: PaletteAction::Run(cmd),
                        },
                    ))
                })
                .collect();
        // Equal matches: the shorter name matched more of itself.
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(if text.is_empty() {
                    std::cmp::Ordering::Equal
                } else {
                    a.2.label.len().cmp(&b.2.label.len())
                })
                .then(a.1.cmp(&b.1))
        });
        let functions: Vec<PaletteEntry> = p
            .functions
            .iter()
            .filter(|_| p.functions_for == text && !text.is_empty())
            .map(|f| PaletteEntry {
                label: match f.calls {
                    Some(n) => tn(
                        n,
                        "Function {}: its {} call",
                        "Function {}: its {} calls",
                        &[&f.name, &number(n)],
                    ),
                    None => tf("Function {}: its calls", &[&f.name]),
                },
                key: "",
                action: PaletteAction::Function(f.addr),
            })
            .collect();
        // A function named exactly what was typed is what was meant.
        let exact = p.functions.first().is_some_and(|f| f.name == text);
        if exact {
            out.extend(functions.iter().take(1).cloned());
        }
        out.extend(scored.into_iter().map(|(_, _, e)| e));
        out.extend(functions.into_iter().skip(usize::from(exact)));
        if !pc_first {
            out.extend(pc_entry);
        }
        out
    }

    /// Asks the session for the functions whose name holds what is typed
    /// (not for a number, nor an `@` PC expression).
    fn ask_functions(&mut self) {
        let Some(p) = &self.palette else { return };
        let text = p.text.trim().to_string();
        if text.is_empty() || text.starts_with('@') || crate::model::hash::number(&text).is_some() {
            return;
        }
        let asked = text.clone();
        self.ask(
            Query::Functions {
                text,
                count: FUNCTIONS,
            },
            move |reply| super::Msg::Palette(PaletteMsg::Functions { text: asked, reply }),
        );
    }

    pub(super) fn on_palette(&mut self, msg: PaletteMsg) -> bool {
        match msg {
            PaletteMsg::Open => {
                self.palette = Some(Palette {
                    pane: Some(self.focus_kind()),
                    ..Palette::default()
                });
                self.help = false;
                self.menu = None;
            }
            PaletteMsg::Text(text) => {
                if let Some(p) = &mut self.palette {
                    p.text = text;
                    p.selected = 0;
                }
                self.ask_functions();
            }
            PaletteMsg::Functions { text, reply } => {
                let Some(p) = &mut self.palette else {
                    return false;
                };
                // An answer for what was typed before is not shown.
                if text != p.text.trim() {
                    return false;
                }
                p.functions = match reply {
                    Reply::Functions(f) => f,
                    _ => Vec::new(),
                };
                p.functions_for = text;
            }
            PaletteMsg::Move(by) => {
                let n = self.palette_entries().len() as i64;
                if let (Some(p), true) = (&mut self.palette, n > 0) {
                    p.selected = (p.selected as i64 + by as i64).rem_euclid(n) as usize;
                }
            }
            PaletteMsg::Run => {
                let selected = self.palette.as_ref().map_or(0, |p| p.selected);
                return self.on_palette(PaletteMsg::Pick(selected));
            }
            PaletteMsg::Pick(i) => {
                let entry = self.palette_entries().into_iter().nth(i);
                self.palette = None;
                self.refocus = true;
                match entry.map(|e| e.action) {
                    Some(PaletteAction::Run(cmd)) => self.run(cmd),
                    Some(PaletteAction::Prompt(for_, text)) => {
                        self.prompt = Some(for_);
                        self.on_prompt_submit(text);
                    }
                    Some(PaletteAction::Function(addr)) => {
                        let seq = self.report_calls.map_or(0, |(s, _)| s.wrapping_add(1));
                        self.report_calls = Some((seq, addr));
                        self.reports = Some(ReportTab::Profile);
                        self.into_view = Some(layout::Shown::Slot(layout::Slot::Reports));
                    }
                    None => {}
                }
            }
            PaletteMsg::Close => {
                if self.palette.take().is_none() {
                    return false;
                }
                self.refocus = true;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_matches_in_order_and_prefers_runs_and_word_starts() {
        assert!(fuzzy_score("fa", "fold all calls").is_some());
        assert!(fuzzy_score("af", "fold").is_none());
        // Words in any order, each a subsequence.
        assert!(fuzzy_score("changed reg", "show the registers the position changed").is_some());
        assert!(fuzzy_score("changed xyz", "show the registers the position changed").is_none());
        assert!(
            fuzzy_score("fold", "fold all calls").unwrap()
                > fuzzy_score("fold", "find the old line").unwrap()
        );
        assert!(fuzzy_score("mem", "open a memory pane").is_some());
        assert_eq!(fuzzy_score("", "anything"), Some(0));
    }
}
