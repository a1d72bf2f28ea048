//! What the browse view says about a file that is not a trace (or is an
//! empty one) before anything else: such a file still opens, its lines
//! counted and listed as unparsed in the Summary, but rows of binary
//! garbage must not pass for a trace: a file that is not text (a picture,
//! an archive, random bytes) gets the notice and no rows at all
//! ([`shows_no_rows`]); text in no trace format keeps its rows, which may
//! tell a person what it is.

use yew::prelude::*;

use crate::web::page::i18n::{number, t, tf, use_lang};
use tarmac_lens_core::{FileKind, Stats};

#[derive(Properties, PartialEq)]
pub struct FileNoticeProps {
    pub name: AttrValue,
    /// What the worker found the file to be, once it has looked.
    pub kind: Option<FileKind>,
    /// The statistics, once the whole file is read.
    pub stats: Option<std::rc::Rc<Stats>>,
    /// Shows the list of unparsed lines (the Summary tab).
    pub on_show_unparsed: Callback<()>,
}

pub use crate::model::page::shows_no_rows;

/// Whether most lines that could hold records hold none: text in a
/// dialect (or of a tool) that is not read, or not a trace at all.
pub fn mostly_unparsed(stats: &Stats) -> bool {
    let neutral = stats.count("blank") + stats.count("comment") + stats.count("header");
    let candidates = stats.lines.saturating_sub(neutral);
    stats.unparsed >= 10 && stats.unparsed * 2 > candidates
}

#[function_component(FileNotice)]
pub fn file_notice(props: &FileNoticeProps) -> Html {
    use_lang();
    let name = props.name.as_str();
    let headline = match &props.kind {
        Some(FileKind::Empty) => {
            return html! {
                <div class="file-notice" role="status" data-testid="file-notice" data-kind="empty">
                    <strong>{ t("This file is empty.") }</strong>
                    { " " }
                    { t("There is nothing to browse: was the trace still being written?") }
                </div>
            };
        }
        Some(FileKind::Compressed { format, tool }) => tf(
            "{} is a {}-compressed file, not a Tarmac trace. Decompress it first ({} {}) and open the result.",
            &[&name, format, tool, &name],
        ),
        Some(FileKind::Archive { format }) => tf(
            "{} is a {} archive, not a Tarmac trace. Extract the trace from it first.",
            &[&name, format],
        ),
        Some(FileKind::Document { format }) => {
            tf("{} is a {} file, not a Tarmac trace.", &[&name, &t(lookup_format(format))])
        }
        Some(FileKind::Elf) => tf(
            "{} is an ELF executable, not a Tarmac trace. Give it as the trace's ELF image (for symbols) and open the trace itself.",
            &[&name],
        ),
        Some(FileKind::Binary) => tf(
            "{} holds binary data, not a Tarmac trace (a text file).",
            &[&name],
        ),
        Some(FileKind::NotATrace(e)) => tf(
            "{} does not look like a Tarmac trace: line {} (\"{}\") is in no trace format.",
            &[&name, &number(e.line), &e.text],
        ),
        Some(FileKind::Trace) | None => match &props.stats {
            Some(s) if mostly_unparsed(s) => tf(
                "Most lines of {} were not understood: is it a Tarmac trace, or one in a form Tarmac Lens does not read yet?",
                &[&name],
            ),
            _ => return html! {},
        },
    };
    let kind = match &props.kind {
        Some(FileKind::Compressed { .. }) => "compressed",
        Some(FileKind::Archive { .. }) => "archive",
        Some(FileKind::Document { .. }) => "document",
        Some(FileKind::Elf) => "elf",
        Some(FileKind::Binary) => "binary",
        Some(FileKind::NotATrace(_)) => "text",
        _ => "mostly-unparsed",
    };
    let show = props.on_show_unparsed.reform(|_: MouseEvent| ());
    html! {
        <div
            class="file-notice problem"
            role="alert"
            data-testid="file-notice"
            data-kind={kind}
        >
            <strong>{ headline }</strong>
            if let Some(s) = &props.stats {
                { " " }
                <span data-testid="file-notice-unparsed">
                    { tf("{} of its {} lines were not understood.", &[&number(s.unparsed), &number(s.lines)]) }
                </span>
                { " " }
                <button type="button" class="link" data-testid="show-unparsed" onclick={show}>
                    { t("See the list") }
                </button>
            }
        </div>
    }
}

/// The format names [`tarmac_lens_core::sniff`] gives, as catalogue keys.
fn lookup_format(format: &str) -> &'static str {
    match format {
        "PNG image" => "PNG image",
        "JPEG image" => "JPEG image",
        "GIF image" => "GIF image",
        "WebP image" => "WebP image",
        "PDF" => "PDF",
        _ => "document",
    }
}
