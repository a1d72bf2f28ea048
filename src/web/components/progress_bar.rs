//! Progress of the running job: bar, percentage, throughput and time left.

use yew::prelude::*;

use crate::web::page::i18n::{tf, use_lang};

use crate::web::page::format;

#[derive(Properties, PartialEq)]
pub struct ProgressBarProps {
    pub done: u64,
    pub total: u64,
    pub elapsed_ms: f64,
}

#[function_component(ProgressBar)]
pub fn progress_bar(props: &ProgressBarProps) -> Html {
    use_lang();
    let percent = format::percent(props.done, props.total);
    html! {
        <div class="progress" data-testid="progress" data-percent={percent.to_string()} style="flex:1 1 16rem;min-width:12rem;">
            <progress
                max={props.total.max(1).to_string()}
                value={props.done.to_string()}
                style="width:100%;height:0.8rem;"
            />
            <div style="display:flex;justify-content:space-between;gap:0.75rem;font-size:0.85rem;">
                <span data-testid="progress-percent">{ tf("Reading… {}%", &[&percent]) }</span>
                <span data-testid="progress-rate">{ format::rate(props.done, props.elapsed_ms) }</span>
                <span data-testid="progress-eta">{ format::time_left(props.done, props.total, props.elapsed_ms) }</span>
            </div>
        </div>
    }
}
