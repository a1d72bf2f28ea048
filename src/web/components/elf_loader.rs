//! Picking the ELF image whose symbols name functions and branch targets,
//! with the load offset the reference tools take as `--load-offset`.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::web::page::i18n::{number, t, tf, tn, use_lang};

pub use crate::model::page::ElfLoad;

#[derive(Properties, PartialEq)]
pub struct ElfLoaderProps {
    /// (file, load offset).
    pub on_elf: Callback<(web_sys::File, i64)>,
    /// The load offset in use.
    #[prop_or_default]
    pub offset: i64,
    /// A new load offset, typed and valid: the image is loaded again with it.
    #[prop_or_default]
    pub on_offset: Callback<i64>,
    /// Symbols of the loaded image, once loaded.
    pub symbols: Option<usize>,
    /// Why the loaded image looks like another program's.
    #[prop_or_default]
    pub warning: Option<String>,
    /// Why the last image was refused.
    #[prop_or_default]
    pub failed: Option<String>,
}

/// `0x1000`, `-0x10`, `4096`; empty is 0.
pub fn parse_offset(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() {
        return Some(0);
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let value = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => digits.parse().ok()?,
    };
    Some(if negative { -value } else { value })
}

#[function_component(ElfLoader)]
pub fn elf_loader(props: &ElfLoaderProps) -> Html {
    use_lang();
    // The offset as typed, when it is no number (the one in use stays).
    let bad_offset = use_state(|| None::<String>);
    let onchange = {
        let on_elf = props.on_elf.clone();
        let offset = props.offset;
        let bad_offset = bad_offset.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            if bad_offset.is_none() {
                if let Some(file) = input.files().and_then(|f| f.get(0)) {
                    on_elf.emit((file, offset));
                }
            }
            input.set_value("");
        })
    };
    // Checked when the person is done typing (Return, Tab, a click away):
    // a bad offset is said at once, a good one renames with the image.
    let on_offset_change = {
        let on_offset = props.on_offset.clone();
        let bad_offset = bad_offset.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            let text = input.value();
            match parse_offset(&text) {
                Some(v) => {
                    bad_offset.set(None);
                    on_offset.emit(v);
                }
                None => bad_offset.set(Some(text)),
            }
        })
    };
    html! {
        <div class="elf-loader" data-testid="elf-loader" style="display:flex;gap:0.4rem;align-items:center;flex-wrap:wrap;">
            <label class="file-button" title={t("ELF image for symbols: ")} aria-disabled={bad_offset.is_some().to_string()}>
                { t("ELF image…") }
                <input type="file" data-testid="elf-input" style="display:none;" disabled={bad_offset.is_some()} {onchange} />
            </label>
            <label>{ t("load offset ") }<input
                type="text"
                data-testid="elf-offset"
                placeholder="0"
                size="7"
                aria-invalid={bad_offset.is_some().to_string()}
                title={t("Added to every symbol's address: 0x1000, -0x10, 4096")}
                onchange={on_offset_change}
            /></label>
            if let Some(n) = props.symbols {
                <span data-testid="elf-symbols">{ tn(n as u64, "{} symbol loaded", "{} symbols loaded", &[&number(n as u64)]) }</span>
            }
            if let Some(w) = &props.warning {
                <span class="warning-text" role="alert" data-testid="elf-warning">{ tf("Warning: {}", &[w]) }</span>
            }
            if let Some(text) = &*bad_offset {
                <span class="error-text" role="alert" data-testid="elf-offset-error">{ tf("The load offset {} is not a number (0x1000, -0x10 or 4096).", &[&format!("{text:?}")]) }</span>
            }
            if let Some(e) = &props.failed {
                <span class="error-text" role="alert" data-testid="elf-error">{ e.clone() }</span>
            }
        </div>
    }
}
