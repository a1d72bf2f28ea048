//! Bookmarks: positions a person marked (`b`, or a click in a row's
//! gutter), each with an optional note. They are kept per trace by the
//! page (`localStorage`, JSON as exported) and travel in the URL's
//! fragment (`#bm=`), so a shared link shows them; the two merge, one
//! bookmark per line.
//!
//! A bookmark is anchored at its node's first line: lines are what the
//! index finds exactly and what a person reads in the trace, whereas node
//! numbers shift with the dialect's grouping. Its time and function are
//! what the trace says there, asked of the session when not known (a
//! bookmark from a URL carries only its line and note).

use serde_json::{json, Value};

use crate::i18n::{t, tf};

/// One bookmark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bookmark {
    /// The first line of the bookmarked node, 1-based.
    pub line: u64,
    /// Its timestamp, `None` until the session says.
    pub time: Option<u64>,
    /// The function the instruction is in (with an ELF), else empty.
    pub function: String,
    /// The person's note, empty for none.
    pub note: String,
}

impl Bookmark {
    /// A bookmark at `line`, with no note and nothing known of it yet.
    pub fn at(line: u64) -> Bookmark {
        Bookmark {
            line,
            time: None,
            function: String::new(),
            note: String::new(),
        }
    }
}

/// What the JSON export says it is: an import of anything else is refused
/// by name rather than guessed at.
pub const FORMAT: &str = "tarmac-lens-bookmarks";

/// The bookmarks of the open trace, sorted by line, one per line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bookmarks {
    /// The bookmarks, sorted by line.
    pub list: Vec<Bookmark>,
}

impl Bookmarks {
    /// The bookmark at `line`, if there is one.
    pub fn get(&self, line: u64) -> Option<&Bookmark> {
        self.find(line).ok().map(|i| &self.list[i])
    }

    /// The bookmark at `line`, to change.
    pub fn get_mut(&mut self, line: u64) -> Option<&mut Bookmark> {
        self.find(line).ok().map(|i| &mut self.list[i])
    }

    fn find(&self, line: u64) -> Result<usize, usize> {
        self.list.binary_search_by_key(&line, |b| b.line)
    }

    /// Adds `b` unless its line has one; whether it was added.
    pub fn add(&mut self, b: Bookmark) -> bool {
        match self.find(b.line) {
            Ok(_) => false,
            Err(at) => {
                self.list.insert(at, b);
                true
            }
        }
    }

    /// Removes the bookmark at `line`; it, if there was one.
    pub fn remove(&mut self, line: u64) -> Option<Bookmark> {
        self.find(line).ok().map(|i| self.list.remove(i))
    }

    /// Merges bookmarks from elsewhere (storage, the URL, an import): one
    /// per line. On a line both have, what is here stays, its gaps (no
    /// note, no time, no function) filled from the incoming one, so
    /// merging the same list twice changes nothing and no note is lost to
    /// an empty one. Returns how many lines are new.
    pub fn merge(&mut self, incoming: Vec<Bookmark>) -> usize {
        let mut added = 0;
        for b in incoming {
            match self.find(b.line) {
                Ok(i) => {
                    let here = &mut self.list[i];
                    if here.note.is_empty() {
                        here.note = b.note;
                    }
                    if here.time.is_none() {
                        here.time = b.time;
                    }
                    if here.function.is_empty() {
                        here.function = b.function;
                    }
                }
                Err(at) => {
                    self.list.insert(at, b);
                    added += 1;
                }
            }
        }
        added
    }

    /// The first bookmark after `line` (`forward`) or before it.
    pub fn next_from(&self, line: u64, forward: bool) -> Option<&Bookmark> {
        if forward {
            self.list.iter().find(|b| b.line > line)
        } else {
            self.list.iter().rev().find(|b| b.line < line)
        }
    }
}

/// Characters a note keeps as they are in the URL; everything else is
/// percent-encoded (UTF-8 bytes), `~` and `,` included as they separate.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if plain(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| tf("a bad %-escape at \"{}\"", &[&&text[i..]]))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| t("a note that is not UTF-8").to_string())
}

/// The `bm=` value: `LINE[~NOTE],LINE…`, the note percent-encoded. Time
/// and function are left out (the session knows them) to keep links short.
pub fn to_fragment(list: &[Bookmark]) -> String {
    list.iter()
        .map(|b| {
            if b.note.is_empty() {
                b.line.to_string()
            } else {
                format!("{}~{}", b.line, encode(&b.note))
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a `bm=` value: the bookmarks read, and what could not be (each
/// entry on its own: a bad one does not lose the good ones).
pub fn from_fragment(value: &str) -> (Vec<Bookmark>, Vec<String>) {
    let mut found = Vec::new();
    let mut bad = Vec::new();
    for entry in value.split(',').filter(|e| !e.is_empty()) {
        let (line, note) = entry.split_once('~').unwrap_or((entry, ""));
        let line = match line.parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => {
                bad.push(tf("\"{}\": \"{}\" is not a line number", &[&entry, &line]));
                continue;
            }
        };
        match decode(note) {
            Ok(note) => found.push(Bookmark {
                note,
                ..Bookmark::at(line)
            }),
            Err(why) => bad.push(format!("\"{entry}\": {why}")),
        }
    }
    (found, bad)
}

/// The `bm=` value of a fragment (with or without `#`), if it has one.
pub fn in_hash(hash: &str) -> Option<&str> {
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    hash.split('&').find_map(|part| part.strip_prefix("bm="))
}

/// A fragment holding `position` (`#line=N`, or none) and the bookmarks.
pub fn hash_with(position: Option<&str>, list: &[Bookmark]) -> String {
    let position = position.map(|p| p.trim_start_matches('#'));
    match (position, list.is_empty()) {
        (Some(p), true) => format!("#{p}"),
        (Some(p), false) => format!("#{p}&bm={}", to_fragment(list)),
        (None, false) => format!("#bm={}", to_fragment(list)),
        // Nothing to keep: the URL without a fragment.
        (None, true) => String::new(),
    }
}

/// The JSON export (and what the page keeps in `localStorage`).
pub fn to_json(trace: &str, list: &[Bookmark]) -> String {
    let entries: Vec<Value> = list
        .iter()
        .map(|b| {
            let mut e = json!({ "line": b.line });
            if let Some(t) = b.time {
                e["time"] = json!(t);
            }
            if !b.function.is_empty() {
                e["function"] = json!(b.function);
            }
            if !b.note.is_empty() {
                e["note"] = json!(b.note);
            }
            e
        })
        .collect();
    let doc = json!({
        "format": FORMAT,
        "version": 1,
        "trace": trace,
        "bookmarks": entries,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// Reads a JSON export: the bookmarks and the entries that could not be
/// read (by number, saying why); an error if the text is not an export at
/// all.
pub fn from_json(text: &str) -> Result<(Vec<Bookmark>, Vec<String>), String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| tf("it is not JSON ({})", &[&e]))?;
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(tf(
            "it is not a bookmarks export (no \"format\": \"{}\")",
            &[&FORMAT],
        ));
    }
    let entries = doc
        .get("bookmarks")
        .and_then(Value::as_array)
        .ok_or_else(|| t("it has no \"bookmarks\" list").to_string())?;
    let mut found = Vec::new();
    let mut bad = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(line) = e.get("line").and_then(Value::as_u64).filter(|&l| l > 0) else {
            bad.push(tf("bookmark {} has no line number", &[&(i + 1)]));
            continue;
        };
        let text = |key: &str| {
            e.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        found.push(Bookmark {
            line,
            time: e.get("time").and_then(Value::as_u64),
            function: text("function"),
            note: text("note"),
        });
    }
    Ok((found, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bm(line: u64, note: &str) -> Bookmark {
        Bookmark {
            note: note.into(),
            ..Bookmark::at(line)
        }
    }

    #[test]
    fn notes_with_separators_and_unicode_round_trip_through_the_fragment() {
        let list = vec![
            bm(5, ""),
            bm(12, "a & b # c, d = e ~ f"),
            bm(40, "café → 関数 🐛"),
            bm(41, "100% sure; ?x=1/2+3"),
        ];
        let value = to_fragment(&list);
        // Nothing in it that a fragment or its `&`/`=` pairs would split on.
        assert!(
            value
                .bytes()
                .all(|b| plain(b) || matches!(b, b'%' | b'~' | b',')),
            "{value}"
        );
        let (back, bad) = from_fragment(&value);
        assert_eq!(back, list);
        assert!(bad.is_empty());
        // And inside a whole fragment, next to a position.
        let hash = hash_with(Some("#line=7"), &list);
        assert_eq!(
            crate::model::hash::parse(&hash),
            Some(crate::model::hash::HashTarget::Line(7))
        );
        assert_eq!(from_fragment(in_hash(&hash).unwrap()).0, list);
    }

    #[test]
    fn a_bad_fragment_entry_is_named_and_the_good_ones_kept() {
        let (found, bad) = from_fragment("3,abc,9~ok%20then,0,11~%zz,12~%E2%82");
        assert_eq!(found, vec![bm(3, ""), bm(9, "ok then")]);
        assert_eq!(bad.len(), 4, "{bad:?}");
        assert!(bad[0].contains("\"abc\" is not a line number"), "{bad:?}");
        assert!(bad[1].contains("\"0\" is not a line number"), "{bad:?}");
        assert!(bad[2].contains("bad %-escape"), "{bad:?}");
        assert!(bad[3].contains("not UTF-8"), "{bad:?}");
    }

    #[test]
    fn the_hash_holds_the_position_the_bookmarks_or_both() {
        let list = vec![bm(2, "x")];
        assert_eq!(hash_with(Some("#line=4"), &[]), "#line=4");
        assert_eq!(hash_with(Some("#line=4"), &list), "#line=4&bm=2~x");
        assert_eq!(hash_with(None, &list), "#bm=2~x");
        assert_eq!(hash_with(None, &[]), "");
        assert_eq!(in_hash("#line=4&bm=2~x"), Some("2~x"));
        assert_eq!(in_hash("bm=2"), Some("2"));
        assert_eq!(in_hash("#line=4"), None);
    }

    #[test]
    fn json_round_trips_and_other_files_are_refused_by_name() {
        let list = vec![
            Bookmark {
                line: 10,
                time: Some(77),
                function: "main".into(),
                note: "\"quoted\" & ünïcode".into(),
            },
            bm(20, ""),
        ];
        let text = to_json("trace.tarmac", &list);
        assert_eq!(from_json(&text), Ok((list, vec![])));
        let not_json = from_json("line 1").unwrap_err();
        assert!(not_json.contains("not JSON"), "{not_json}");
        let other = from_json(r#"{"bookmarks": []}"#).unwrap_err();
        assert!(other.contains("not a bookmarks export"), "{other}");
        let no_list = from_json(r#"{"format": "tarmac-lens-bookmarks"}"#).unwrap_err();
        assert!(no_list.contains("no \"bookmarks\" list"), "{no_list}");
        let (found, bad) = from_json(
            r#"{"format": "tarmac-lens-bookmarks", "bookmarks": [{"line": 3}, {"note": "x"}, {"line": "4"}, {"line": 5, "note": "y"}]}"#,
        )
        .unwrap();
        assert_eq!(found, vec![bm(3, ""), bm(5, "y")]);
        assert_eq!(
            bad,
            vec![
                "bookmark 2 has no line number",
                "bookmark 3 has no line number"
            ]
        );
    }

    #[test]
    fn merging_keeps_one_per_line_and_fills_gaps_without_losing_notes() {
        let mut b = Bookmarks::default();
        assert!(b.add(bm(30, "here")));
        assert!(!b.add(bm(30, "again")), "one per line");
        b.add(bm(10, ""));
        let added = b.merge(vec![
            Bookmark {
                time: Some(5),
                ..bm(10, "from the link")
            },
            bm(30, "from the link"),
            bm(20, "new"),
        ]);
        assert_eq!(added, 1);
        let lines: Vec<u64> = b.list.iter().map(|x| x.line).collect();
        assert_eq!(lines, [10, 20, 30]);
        assert_eq!(b.get(10).unwrap().note, "from the link");
        assert_eq!(b.get(10).unwrap().time, Some(5));
        assert_eq!(b.get(30).unwrap().note, "here");
        let again = b.clone();
        assert_eq!(b.merge(again.list.clone()), 0);
        assert_eq!(b, again);
        assert_eq!(b.next_from(10, true).unwrap().line, 20);
        assert_eq!(b.next_from(15, false).unwrap().line, 10);
        assert!(b.next_from(30, true).is_none());
        assert_eq!(b.remove(20).unwrap().note, "new");
        assert!(b.get(20).is_none());
    }
}
