//! Lines the parser did not understand, with the reason, so that parser gaps
//! and corrupt traces are visible instead of silently skipped.

use yew::prelude::*;

use crate::web::page::i18n::{number, t, tf, tn, use_lang};

use tarmac_lens_core::{UnparsedLine, ValueNote};

#[derive(Properties, PartialEq)]
pub struct UnparsedListProps {
    /// All unparsed lines in the trace.
    pub total: u64,
    /// The first of them (the stats keep a bounded number).
    pub lines: Vec<UnparsedLine>,
    /// The file has no lines at all.
    #[prop_or_default]
    pub empty: bool,
    /// Unparsed lines counted by their event word (`""`: the other types).
    #[prop_or_default]
    pub by_word: std::collections::BTreeMap<String, u64>,
    /// Register values with fewer digits than their register holds.
    #[prop_or_default]
    pub short_registers: ValueNote,
    /// Register values of dashes alone: nothing known.
    #[prop_or_default]
    pub unknown_registers: ValueNote,
}

/// Lines read, but with less than they should say: as `stats` says it.
fn value_notes(props: &UnparsedListProps) -> Html {
    let notes = [
        ("short-registers", props.short_registers, "{} register value shorter than the register (zero-extended, or unchanged after dashes), first at line {}", "{} register values shorter than the register (zero-extended, or unchanged after dashes), first at line {}"),
        ("unknown-registers", props.unknown_registers, "{} register value unknown (all dashes: nothing set), first at line {}", "{} register values unknown (all dashes: nothing set), first at line {}"),
    ];
    if notes.iter().all(|(_, n, _, _)| n.count == 0) {
        return html! {};
    }
    html! {
        <ul class="value-notes" data-testid="value-notes" style="margin:0 0 0.5rem;padding-left:1.25rem;">
            { for notes.iter().filter(|(_, n, _, _)| n.count > 0).map(|&(name, n, one, many)| html! {
                <li data-note={name} data-count={n.count.to_string()} data-line={n.first_line.to_string()}>{
                    tn(n.count, one, many, &[&number(n.count), &n.first_line])
                }</li>
            }) }
        </ul>
    }
}

#[function_component(UnparsedList)]
pub fn unparsed_list(props: &UnparsedListProps) -> Html {
    use_lang();
    if props.empty {
        return html! {
            <p class="unparsed-none" data-testid="unparsed-none">{ t("This file is empty.") }</p>
        };
    }
    if props.total == 0 {
        return html! {
            <>
                <p class="unparsed-none" data-testid="unparsed-none">{ t("Every line was understood.") }</p>
                { value_notes(props) }
            </>
        };
    }
    let heading = if (props.lines.len() as u64) < props.total {
        tf(
            "Unparsed lines: {} (first {} shown)",
            &[&number(props.total), &number(props.lines.len() as u64)],
        )
    } else {
        tf("Unparsed lines: {}", &[&number(props.total)])
    };
    let mut words: Vec<(&String, &u64)> = props.by_word.iter().collect();
    words.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    html! {
        <section class="unparsed" data-testid="unparsed" data-total={props.total.to_string()}>
            <h2 style="font-size:1rem;margin:0 0 0.5rem;">{ heading }</h2>
            { value_notes(props) }
            // One unknown type makes many lines: counted by type first.
            if !words.is_empty() {
                <ul class="unparsed-words" data-testid="unparsed-words" style="margin:0 0 0.5rem;padding-left:1.25rem;">
                    { for words.iter().map(|(w, n)| html! {
                        <li data-word={w.to_string()}>{
                            if w.is_empty() {
                                tn(**n, "{} line of other types unread", "{} lines of other types unread", &[&number(**n)])
                            } else {
                                tn(**n, "{} line of type “{}” unread", "{} lines of type “{}” unread", &[&number(**n), w])
                            }
                        }</li>
                    }) }
                </ul>
            }
            <ol style="list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:0.5rem;">
                { for props.lines.iter().map(|u| html! {
                    <li key={u.line} data-line={u.line.to_string()} class="unparsed-line">
                        <div>
                            <span class="line-number" style="font-weight:bold;">{ tf("line {}", &[&u.line]) }</span>
                            { tf(", column {}: ", &[&(u.column + 1)]) }
                            <span class="reason">{ u.reason.clone() }</span>
                        </div>
                        <pre style="margin:0.15rem 0 0;white-space:pre-wrap;word-break:break-all;">
                            <code>{ u.text.clone() }</code>
                        </pre>
                    </li>
                }) }
            </ol>
        </section>
    }
}
