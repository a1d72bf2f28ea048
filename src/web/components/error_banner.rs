//! A failure the person must see (unreadable file, worker that failed).

use yew::prelude::*;

use crate::web::page::i18n::{t, use_lang};

#[derive(Properties, PartialEq)]
pub struct ErrorBannerProps {
    pub message: AttrValue,
}

#[function_component(ErrorBanner)]
pub fn error_banner(props: &ErrorBannerProps) -> Html {
    use_lang();
    html! {
        <div
            class="error"
            role="alert"
            data-testid="error"
            style="padding:0.75rem 1rem;border:2px solid #b91c1c;border-radius:0.5rem;background:#fef2f2;color:#7f1d1d;"
        >
            <strong>{ t("Could not read this trace: ") }</strong>
            { props.message.clone() }
        </div>
    }
}
