//! How many records of each kind the trace holds.

use std::collections::BTreeMap;

use yew::prelude::*;

use crate::web::page::i18n::{number, record_kind_text, t, use_lang};

use tarmac_lens_core::RecordKind;

#[derive(Properties, PartialEq)]
pub struct CountsTableProps {
    /// Kind name -> count, as in [`tarmac_lens_core::Stats::records`].
    pub records: BTreeMap<String, u64>,
}

/// Kinds in the parser's order (header, instruction, register, ...), which
/// reads better than alphabetical; names the parser does not list (a newer
/// worker than page, say) follow so that nothing is hidden.
fn ordered(records: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
    let mut rows: Vec<(&str, u64)> = RecordKind::NAMES
        .iter()
        .filter_map(|&k| records.get(k).map(|&n| (k, n)))
        .collect();
    rows.extend(
        records
            .iter()
            .filter(|(k, _)| !RecordKind::NAMES.contains(&k.as_str()))
            .map(|(k, &n)| (k.as_str(), n)),
    );
    rows
}

/// A kind's name as the page's language says it (`register list`, `liste
/// de registres`); a name the parser does not list, as it comes.
fn kind_label(kind: &str) -> String {
    match RecordKind::NAMES.iter().find(|&&k| k == kind) {
        Some(&k) => t(record_kind_text(k)).to_string(),
        None => kind.replace('_', " "),
    }
}

#[function_component(CountsTable)]
pub fn counts_table(props: &CountsTableProps) -> Html {
    use_lang();
    let total: u64 = props.records.values().sum();
    let head = "text-align:left;padding:0.25rem 1.5rem 0.25rem 0;";
    let num = "text-align:right;padding:0.25rem 0;font-variant-numeric:tabular-nums;";
    html! {
        <table class="counts" data-testid="counts" style="border-collapse:collapse;">
            <caption style="text-align:left;font-weight:bold;padding-bottom:0.25rem;">
                { t("Records by kind") }
            </caption>
            <thead>
                <tr>
                    <th scope="col" style={head}>{ t("Kind") }</th>
                    <th scope="col" style={num}>{ t("Count") }</th>
                </tr>
            </thead>
            <tbody>
                { for ordered(&props.records).into_iter().map(|(kind, count)| html! {
                    <tr key={kind.to_string()}>
                        <th scope="row" style={head}>{ kind_label(kind) }</th>
                        <td data-kind={kind.to_string()} data-count={count.to_string()} style={num}>{ number(count) }</td>
                    </tr>
                }) }
            </tbody>
            <tfoot>
                <tr>
                    <th scope="row" style={head}>{ t("total") }</th>
                    <td data-testid="record-total" data-count={total.to_string()} style={num}>{ number(total) }</td>
                </tr>
            </tfoot>
        </table>
    }
}
