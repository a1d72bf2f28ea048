//! The reference pages in docs/ name everything the program offers: every
//! key of the browser's tables in docs/keys.md, every command and long
//! option of the CLI in docs/cli.md. A key or option added without a line
//! there fails here, so the reference cannot fall behind the code.
use std::collections::BTreeSet;
use std::path::Path;

use tarmac_lens::model::keys::{tables, PaneKind};

use crate::common::tarmac_lens;

fn doc(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The keys a Markdown table lists in its first column: "`[`, `]`" and
/// "Tab, Shift-Tab" and "`-` (or `_`)" give each key on its own.
fn listed_keys(markdown: &str) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for line in markdown.lines() {
        let Some(first) = line.strip_prefix('|').and_then(|r| r.split('|').next()) else {
            continue;
        };
        for word in first.split_whitespace() {
            let word = word.trim_start_matches('(');
            let word = word.strip_suffix(')').unwrap_or(word);
            let word = word.strip_suffix(',').unwrap_or(word);
            let word = word.trim_matches('`');
            if !word.is_empty() {
                keys.insert(word.to_string());
            }
        }
    }
    keys
}

#[test]
fn every_key_of_the_browser_is_in_docs_keys() {
    let listed = listed_keys(&doc("keys.md"));
    let mut missing = BTreeSet::new();
    for pane in [PaneKind::Trace, PaneKind::Registers, PaneKind::Memory] {
        for table in tables(pane) {
            for binding in table {
                if !listed.contains(binding.label) {
                    missing.insert(binding.label);
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys missing from docs/keys.md: {missing:?}"
    );
}

#[test]
fn the_key_scan_reads_each_way_a_table_lists_keys() {
    let keys = listed_keys("| `-` (or `_`) | x |\n| `;`, `,` | y |\n| Tab, Shift-Tab | z |\n");
    for k in ["-", "_", ";", ",", "Tab", "Shift-Tab"] {
        assert!(keys.contains(k), "{k} not read from {keys:?}");
    }
}

fn help(args: &[&str]) -> String {
    let out = tarmac_lens()
        .args(args)
        .arg("--help")
        .output()
        .expect("run tarmac-lens");
    assert!(out.status.success(), "tarmac-lens {args:?} --help failed");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// Whether `text` names `word` as a whole: not as the start of a longer
/// option (`--index` inside `--index-budget`).
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        !text[at + word.len()..]
            .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn every_command_and_option_of_the_cli_is_in_docs_cli() {
    let cli = doc("cli.md");
    let top = help(&[]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 10, "commands not found in:\n{top}");
    let mut missing = BTreeSet::new();
    for command in commands {
        if !names(&cli, &format!("`{command}")) {
            missing.insert(command.to_string());
        }
        for word in help(&[command]).split_whitespace() {
            let option = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
            if option.starts_with("--") && option != "--help" && !names(&cli, option) {
                missing.insert(format!("{command} {option}"));
            }
        }
    }
    assert!(missing.is_empty(), "missing from docs/cli.md: {missing:?}");
}

/// A synopsis's top-level words: a bracketed or parenthesised group is one
/// word, and `\|` (a Markdown table's `|`) is `|`.
fn synopsis_words(synopsis: &str) -> Vec<String> {
    let synopsis = synopsis.replace("\\|", "|");
    let mut words = Vec::new();
    let (mut word, mut depth) = (String::new(), 0i32);
    for c in synopsis.chars() {
        match c {
            '[' | '(' | '<' => depth += 1,
            ']' | ')' | '>' => depth -= 1,
            _ => {}
        }
        if c == ' ' && depth == 0 {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The positional arguments of a synopsis's words (after the command), in
/// order and without their brackets, and the options it requires (those
/// outside brackets). An option word without `=` is followed by its value.
fn arguments(words: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut positional, mut required) = (Vec::new(), Vec::new());
    let mut words = words.iter();
    while let Some(w) = words.next() {
        if w.starts_with('[') || (w.starts_with('(') && w.contains("--")) {
            continue;
        }
        if w.starts_with('-') {
            let name = w.split('=').next().unwrap_or(w);
            required.push(name.to_string());
            if !w.contains('=') {
                words.next();
            }
            continue;
        }
        let bare = w.trim_start_matches(['(', '<']).replace([')', '>'], "");
        positional.push(bare);
    }
    (positional, required)
}

/// Each command's synopsis in docs/cli.md's table gives the positional
/// arguments in the order the command takes them and the options it
/// requires, as its clap usage line says (`why` had its TRACE last, an
/// order the command refuses).
#[test]
fn each_command_synopsis_in_docs_cli_is_the_order_the_command_takes() {
    let cli = doc("cli.md");
    let mut checked = 0;
    let table = cli
        .lines()
        .skip_while(|l| !l.starts_with("## Commands"))
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'));
    for row in table {
        let Some(rest) = row.strip_prefix("| `") else {
            continue;
        };
        let Some((synopsis, _)) = rest.split_once("` |") else {
            continue;
        };
        let words = synopsis_words(synopsis);
        let command = words[0].clone();
        let usage = help(&[&command]);
        let usage = usage
            .lines()
            .find_map(|l| l.strip_prefix("Usage: tarmac-lens "))
            .unwrap_or_else(|| panic!("{command}: no usage line"));
        let clap_words = synopsis_words(usage);
        assert_eq!(clap_words[0], command);
        let (doc_positional, doc_required) = arguments(&words[1..]);
        let (clap_positional, clap_required) = arguments(&clap_words[1..]);
        assert_eq!(
            doc_positional, clap_positional,
            "docs/cli.md `{synopsis}` against clap's `{usage}`"
        );
        for option in clap_required {
            assert!(
                doc_required.contains(&option),
                "docs/cli.md `{synopsis}` lacks the required {option} (clap: `{usage}`)"
            );
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} synopses read");
}

/// The recipes of docs/embedding.md marked `example-page`, as HTML: a
/// reStructuredText recipe gives its `.. raw:: html` block, dedented.
fn embedding_recipes(markdown: &str) -> Vec<String> {
    let mut recipes = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let block: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
        if !info.split_whitespace().any(|w| w == "example-page") {
            continue;
        }
        let html: Vec<&str> = if info.starts_with("rst") {
            let start = block
                .iter()
                .position(|l| l.trim() == ".. raw:: html")
                .expect("an rst recipe is a raw html block");
            block[start + 1..]
                .iter()
                .skip_while(|l| l.trim().is_empty())
                .map(|l| l.strip_prefix("   ").unwrap_or(l))
                .collect()
        } else {
            block
        };
        recipes.push(html.join("\n"));
    }
    recipes
}

#[test]
fn the_embedding_recipes_are_the_example_page() {
    let recipes = embedding_recipes(&doc("embedding.md"));
    // The script tag, then one element per recipe: HTML, mdBook, Sphinx.
    assert_eq!(recipes.len(), 4, "{recipes:#?}");
    assert!(
        recipes
            .iter()
            .filter(|r| r.contains("<tarmac-lens-viewer"))
            .count()
            == 3
    );
    let page_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/embedding.html");
    let page = std::fs::read_to_string(&page_path).unwrap();
    for recipe in &recipes {
        assert!(
            page.contains(recipe.as_str()),
            "{} lacks this recipe of docs/embedding.md, word for word:\n{recipe}",
            page_path.display()
        );
    }
    // And the page has no viewer the docs do not show.
    assert_eq!(page.matches("<tarmac-lens-viewer").count(), 3);
}
