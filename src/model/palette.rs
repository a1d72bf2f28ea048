//! The command palette (Ctrl-K, Ctrl-Shift-P): every command of the focused
//! pane's key tables, found by a fuzzy match on its name or key, and "go
//! to" entries made from what is typed: a number goes to a line or time
//! (listed first); `@expr`, a hex address or an expression with an
//! operator, to the next time the PC is there (first); other text lists
//! the PC entry after the commands it matches.
//! It lists the same tables that drive the keys and the F1 help, so the
//! three cannot drift.

use super::{Model, PromptFor};
use crate::i18n::{t, tf};
use crate::model::keys::{self, Command, PaneKind};

/// An open palette: what is typed, and which entry is selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Palette {
    pub text: String,
    pub selected: usize,
    /// The pane whose commands it lists: the one focused when it opened.
    pub pane: Option<PaneKind>,
}

/// What an entry does.
#[derive(Clone, Debug, PartialEq)]
pub enum PaletteAction {
    Run(Command),
    /// What was typed, as the answer to this prompt.
    Prompt(PromptFor, String),
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
        out.extend(scored.into_iter().map(|(_, _, e)| e));
        if !pc_first {
            out.extend(pc_entry);
        }
        out
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
