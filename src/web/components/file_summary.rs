//! Name, size and line count of the loaded trace.

use yew::prelude::*;

use crate::web::page::i18n::{t, tn, use_lang};

use crate::web::page::format;

#[derive(Properties, PartialEq)]
pub struct FileSummaryProps {
    pub name: AttrValue,
    pub bytes: u64,
    /// Known once the whole file has been read.
    #[prop_or_default]
    pub lines: Option<u64>,
    #[prop_or_default]
    pub dialect: Option<String>,
}

#[function_component(FileSummary)]
pub fn file_summary(props: &FileSummaryProps) -> Html {
    use_lang();
    // One line in the page's header: each value after its name, small.
    let label = |text: &'static str| {
        html! {
            <span class="summary-label" style="font-size:0.8em;opacity:0.75;margin-right:0.3em;">{ t(text) }</span>
        }
    };
    html! {
        <span class="file-summary" data-testid="file-summary" style="display:inline-flex;flex-wrap:wrap;gap:0.1rem 0.9rem;align-items:baseline;min-width:0;">
            <span style="display:inline-flex;align-items:baseline;min-width:0;max-width:100%;">
                { label("File") }
                <strong data-testid="file-name" title={props.name.clone()} style="white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:22rem;">{ props.name.clone() }</strong>
            </span>
            <span>
                { label("Size") }
                <span
                    data-testid="file-size"
                    data-bytes={props.bytes.to_string()}
                    title={tn(props.bytes, "{} byte", "{} bytes", &[&format::thousands(props.bytes)])}
                >
                    { tn(props.bytes, "{} ({} byte)", "{} ({} bytes)", &[&format::bytes(props.bytes), &format::thousands(props.bytes)]) }
                </span>
            </span>
            if let Some(lines) = props.lines {
                <span>
                    { label("Lines") }
                    <span data-testid="line-count" data-lines={lines.to_string()}>
                        { format::thousands(lines) }
                    </span>
                </span>
            }
            if let Some(dialect) = &props.dialect {
                <span>
                    { label("Dialect") }
                    <span data-testid="dialect">{ dialect.clone() }</span>
                </span>
            }
        </span>
    }
}
