//! The command palette (Ctrl-K, Ctrl-Shift-P): every command of the focused
//! pane's key tables, found by a fuzzy match on its name or key, and "go
//! to" entries made from what is typed: a number goes to a line or time
//! (listed first); `@expr`, a hex address or an expression with an
//! operator, to the next time the PC is there (first); other text lists
//! the commands and the ELF image's functions whose name holds the text
//! (the session lists them, with their call counts; one lists its calls in
//! the Reports panel), then the PC entry. They are ranked by [`Match`]: a
//! name typed whole or by its start comes before a word of a command's
//! help, which comes before letters scattered through one.
//! It lists the same tables that drive the keys and the F1 help, so the
//! three cannot drift.

use super::{Answer, Model, PromptFor, ReportTab};
use crate::i18n::{number, t, tf, tn};
use crate::model::keys::{self, Command, PaneKind};
use tarmac_lens_core::protocol::{FunctionHit, Functions};

/// Functions the palette lists at most.
const FUNCTIONS: u32 = 8;

/// An open palette: what is typed, and which entry is selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Palette {
    /// What is typed.
    pub text: String,
    /// The selected entry's index.
    pub selected: usize,
    /// The pane whose commands it lists: the one focused when it opened.
    pub pane: Option<PaneKind>,
    /// The image's functions matching `functions_for` (the text typed when
    /// they were asked for).
    pub functions: Vec<FunctionHit>,
    /// The text the functions were asked for.
    pub functions_for: String,
}

/// What an entry does.
#[derive(Clone, Debug, PartialEq)]
pub enum PaletteAction {
    /// Run this command.
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
    /// What it does.
    pub action: PaletteAction,
}

/// The palette's messages: the person's typing and picks, and the session's
/// answers.
pub enum PaletteMsg {
    /// Open the palette (Ctrl-K).
    Open,
    /// What is typed, changed.
    Text(String),
    /// Move the selection by this many entries (wrapping).
    Move(i32),
    /// Run the selected entry (Return).
    Run,
    /// Run this entry (a click).
    Pick(usize),
    /// Close it without running anything.
    Close,
    /// The functions matching `text`.
    Functions {
        /// The text they were asked for: a later one drops them.
        text: String,
        /// The functions, most called first.
        reply: Answer<Vec<FunctionHit>>,
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

/// How an entry matched what is typed, best first: a name matched (a
/// function's, or a command's key) before words inside a description, so
/// that "part" finds the function `partition` before a command whose help
/// merely has a word starting so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Match {
    /// A function's name, or a command's key, is what was typed.
    Name,
    /// A function's name starts with what was typed.
    NamePrefix,
    /// Each word typed starts a word of a command's description.
    DescriptionWords,
    /// A function's name holds what was typed further in.
    InName,
    /// A command's description holds each word's letters in order.
    Letters,
}

/// Where an entry goes in the list: by how it matched, then by the fuzzy
/// score (higher first), then the shorter text (it matched more of
/// itself), then the order it came in (table order, or the session's
/// order of functions: most called first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    /// How the entry matched, which ranks first.
    pub how: Match,
    score: std::cmp::Reverse<i64>,
    len: usize,
    order: usize,
}

impl Rank {
    /// Nothing typed: the table's order.
    fn unranked(order: usize) -> Rank {
        Rank {
            how: Match::Letters,
            score: std::cmp::Reverse(0),
            len: 0,
            order,
        }
    }
}

/// Whether each word of `typed` starts a word of `text` (case-insensitive).
fn words_start(typed: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
    typed
        .to_lowercase()
        .split_whitespace()
        .all(|w| words.iter().any(|word| word.starts_with(w)))
}

/// How a command with key `key` and `descriptions` (the translated help and
/// the English one) matches `typed`; `None` if it does not.
pub fn command_rank(typed: &str, key: &str, descriptions: &[&str], order: usize) -> Option<Rank> {
    let score = descriptions
        .iter()
        .filter_map(|d| fuzzy_score(typed, d))
        .max();
    let how = if typed.eq_ignore_ascii_case(key) {
        Match::Name
    } else if descriptions.iter().any(|d| words_start(typed, d)) {
        Match::DescriptionWords
    } else if score.is_some() {
        Match::Letters
    } else {
        return None;
    };
    Some(Rank {
        how,
        score: std::cmp::Reverse(score.unwrap_or(0)),
        len: descriptions.first().map_or(0, |d| d.len()),
        order,
    })
}

/// How a function named `name` matches `typed` (case-insensitive, as the
/// session finds them); `None` if its name does not hold it.
pub fn function_rank(typed: &str, name: &str, order: usize) -> Option<Rank> {
    let (typed, lower) = (typed.to_lowercase(), name.to_lowercase());
    let how = if lower == typed {
        Match::Name
    } else if lower.starts_with(&typed) {
        Match::NamePrefix
    } else if lower.contains(&typed) {
        Match::InName
    } else {
        return None;
    };
    Some(Rank {
        how,
        score: std::cmp::Reverse(0),
        len: 0,
        order,
    })
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
        let pane = p.pane.unwrap_or(PaneKind::Trace);
        let mut ranked: Vec<(Rank, PaletteEntry)> = commands(pane)
            .into_iter()
            .enumerate()
            .filter_map(|(i, (b, cmd))| {
                let label = t(b.help).to_string();
                let rank = if text.is_empty() {
                    Rank::unranked(i)
                } else {
                    command_rank(text, b.label, &[&label, b.help], i)?
                };
                Some((
                    rank,
                    PaletteEntry {
                        label,
                        key: b.label,
                        action: PaletteAction::Run(cmd),
                    },
                ))
            })
            .collect();
        if p.functions_for == text && !text.is_empty() {
            ranked.extend(p.functions.iter().enumerate().filter_map(|(i, f)| {
                Some((
                    function_rank(text, &f.name, i)?,
                    PaletteEntry {
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
                    },
                ))
            }));
        }
        ranked.sort_by_key(|a| a.0);
        out.extend(ranked.into_iter().map(|(_, e)| e));
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
            Functions {
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
                // No functions (no image): the commands alone are offered.
                p.functions = reply.unwrap_or_default();
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
                        self.show_reports(ReportTab::Profile, true);
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

    /// Every command of the trace pane ranked for `typed` with these
    /// functions (in the session's order), best first, as labels.
    fn ranked(typed: &str, functions: &[&str]) -> Vec<String> {
        let mut all: Vec<(Rank, String)> = commands(PaneKind::Trace)
            .into_iter()
            .enumerate()
            .filter_map(|(i, (b, _))| {
                Some((
                    command_rank(typed, b.label, &[b.help], i)?,
                    b.help.to_string(),
                ))
            })
            .chain(
                functions
                    .iter()
                    .enumerate()
                    .filter_map(|(i, f)| Some((function_rank(typed, f, i)?, format!("fn {f}")))),
            )
            .collect();
        all.sort_by_key(|a| a.0);
        all.into_iter().map(|(_, l)| l).collect()
    }

    #[test]
    fn a_name_typed_whole_or_by_its_start_comes_before_words_inside_descriptions() {
        // "part" is a word start and a scattered subsequence in many helps;
        // the function is what was meant.
        let list = ranked("part", &["partition", "quicksort"]);
        assert_eq!(list[0], "fn partition", "{list:?}");
        assert!(list.len() > 1, "commands still listed: {list:?}");
        // A name typed whole comes before one it starts.
        let list = ranked("fill", &["fill_array", "fill"]);
        assert_eq!(list[..2], ["fn fill", "fn fill_array"], "{list:?}");
        // Case does not matter, as in the session's search.
        assert_eq!(ranked("Partition", &["partition"])[0], "fn partition");
        // A key typed is its command.
        assert_eq!(
            ranked("W", &[])[0],
            keys::GLOBAL.iter().find(|b| b.label == "W").unwrap().help
        );
    }

    #[test]
    fn words_starting_description_words_come_before_scattered_letters_and_names_inside() {
        // "fold every" starts two words of the `{` command's help.
        let fold = keys::TRACE.iter().find(|b| b.label == "{").unwrap().help;
        assert_eq!(ranked("fold every", &[])[0], fold);
        // "sort" inside a function name comes after a help that has the word,
        // before helps that only hold its letters.
        let rank = |how: Match| Rank {
            how,
            score: std::cmp::Reverse(0),
            len: 0,
            order: 0,
        };
        assert!(rank(Match::Name) < rank(Match::NamePrefix));
        assert!(rank(Match::NamePrefix) < rank(Match::DescriptionWords));
        assert!(rank(Match::DescriptionWords) < rank(Match::InName));
        assert!(rank(Match::InName) < rank(Match::Letters));
        assert_eq!(
            function_rank("sort", "quicksort", 0).map(|r| r.how),
            Some(Match::InName)
        );
        assert_eq!(
            command_rank("mem", "m", &["open a memory pane"], 0).map(|r| r.how),
            Some(Match::DescriptionWords)
        );
        assert_eq!(
            command_rank("opmem", "m", &["open a memory pane"], 0).map(|r| r.how),
            Some(Match::Letters)
        );
        assert_eq!(command_rank("zzz", "m", &["open a memory pane"], 0), None);
        assert_eq!(function_rank("zzz", "quicksort", 0), None);
    }
}
