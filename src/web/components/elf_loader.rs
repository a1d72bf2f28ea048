//! Picking the ELF image whose symbols name functions and branch targets,
//! with the load offset the reference tools take as `--load-offset`.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::web::i18n::{t, tf, use_lang};

#[derive(Properties, PartialEq)]
pub struct ElfLoaderProps {
    /// (file, load offset).
    pub on_elf: Callback<(web_sys::File, i64)>,
    /// Symbols of the loaded image, once loaded.
    pub symbols: Option<usize>,
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
    let offset = use_node_ref();
    let error = use_state(|| None::<String>);
    let onchange = {
        let offset = offset.clone();
        let on_elf = props.on_elf.clone();
        let error = error.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target_dyn_into::<HtmlInputElement>() else {
                return;
            };
            let text = offset
                .cast::<HtmlInputElement>()
                .map(|i| i.value())
                .unwrap_or_default();
            let Some(load) = parse_offset(&text) else {
                error.set(Some(tf("bad load offset {}", &[&format!("{text:?}")])));
                return;
            };
            error.set(None);
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                on_elf.emit((file, load));
            }
            input.set_value("");
        })
    };
    html! {
        <div class="elf-loader" data-testid="elf-loader" style="display:flex;gap:0.5rem;align-items:center;flex-wrap:wrap;">
            <label>{ t("ELF image for symbols: ") }<input type="file" data-testid="elf-input" {onchange} /></label>
            <label>{ t("load offset ") }<input type="text" data-testid="elf-offset" ref={offset} placeholder="0" size="10" /></label>
            if let Some(n) = props.symbols {
                <span data-testid="elf-symbols">{ tf("{} symbols loaded", &[&n]) }</span>
            }
            if let Some(e) = &*error {
                <span class="error-text">{ e }</span>
            }
            if let Some(e) = &props.failed {
                <span class="error-text" role="alert" data-testid="elf-error">{ e.clone() }</span>
            }
        </div>
    }
}
