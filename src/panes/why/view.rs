//! The "why?" pane: the tree of writes that made a value, one row a step
//! (what, value, writer's line, instruction, function, where the value
//! came from), inputs indented under the step they fed. The tree is a
//! focusable list: the arrows move and open steps, Enter or a click goes
//! to a step's writer, the triangle opens or shuts a step.

use yew::prelude::*;

use super::{source_kind, source_label, Path, Why, WhyKey, WhyMsg};
use crate::panes::render::PaneContext;
use crate::web::page::i18n::{number, t, tf, use_lang};

/// The pane, while a view is open.
pub fn view(cx: &PaneContext) -> Option<Html> {
    let why = cx.state::<Why>()?.clone();
    cx.model.view_ref(cx.model.active_view())?;
    Some(html! {
        <WhyPane {why} on_msg={cx.own::<WhyMsg>()} on_close={cx.on_close()} tools={cx.tools.clone()} />
    })
}

#[derive(Properties, PartialEq)]
struct WhyPaneProps {
    why: Why,
    on_msg: Callback<WhyMsg>,
    on_close: Callback<()>,
    /// Layout buttons (collapse, move to the other area), before the close.
    tools: Html,
}

fn path_text(p: &Path) -> String {
    p.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

#[function_component(WhyPane)]
fn why_pane(props: &WhyPaneProps) -> Html {
    use_lang();
    let w = &props.why;
    let title = tf("Why {} after line {}", &[&w.label, &number(w.line)]);
    let close = props.on_close.reform(|_: MouseEvent| ());
    let onkeydown = {
        let on_msg = props.on_msg.clone();
        Callback::from(move |e: KeyboardEvent| {
            let key = match e.key().as_str() {
                "ArrowUp" => WhyKey::Up,
                "ArrowDown" => WhyKey::Down,
                "ArrowLeft" => WhyKey::Left,
                "ArrowRight" => WhyKey::Right,
                "Enter" => WhyKey::Enter,
                _ => return,
            };
            if e.ctrl_key() || e.alt_key() || e.meta_key() || e.shift_key() {
                return;
            }
            // The tree's keys, not the browser's (which steps the trace).
            e.prevent_default();
            e.stop_propagation();
            on_msg.emit(WhyMsg::Key(key));
        })
    };
    let rows = w.rows();
    html! {
        <section
            class="pane nav-pane why-pane"
            data-testid="why-pane"
            data-target={w.label.clone()}
            data-line={w.line.to_string()}
            role="region"
            aria-label={t("Why this value?")}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <header class="pane-header" style="display:flex;gap:0.4rem;align-items:center;padding:0.15rem 0.4rem;">
                <strong style="flex:1;" data-testid="why-title">{ title }</strong>
                { props.tools.clone() }
                <button class="close" data-testid="why-close" title={t("Close")} onclick={close}>{ "×" }</button>
            </header>
            if let Some(e) = &w.error {
                <p class="pane-empty" data-testid="why-error" style="margin:0.25rem 0.5rem;">{ e.clone() }</p>
            } else if w.root.is_none() {
                <p class="pane-empty" data-testid="why-empty" style="margin:0.25rem 0.5rem;">{ t("Looking…") }</p>
            } else {
                <ul
                    class="why-tree"
                    data-testid="why-tree"
                    role="tree"
                    tabindex="0"
                    aria-label={t("Where the value came from")}
                    {onkeydown}
                    style="list-style:none;margin:0;padding:0.2rem 0.4rem;flex:1 1 10rem;min-height:0;overflow:auto;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;"
                >
                    { for rows.iter().filter_map(|p| w.step(p).map(|s| (p, s))).map(|(path, s)| {
                        let open = w.open(path);
                        let has = !s.inputs.is_empty();
                        let more = !has && s.more.is_some();
                        let expanding = w.expanding.contains(path);
                        let selected = w.selected == *path;
                        let toggle = {
                            let p = path.clone();
                            props.on_msg.reform(move |e: MouseEvent| {
                                e.stop_propagation();
                                WhyMsg::Toggle(p.clone())
                            })
                        };
                        let go = {
                            let p = path.clone();
                            props.on_msg.reform(move |_: MouseEvent| WhyMsg::Go(p.clone()))
                        };
                        let arrow = if expanding {
                            "…"
                        } else if has && open {
                            "▾"
                        } else if has || more {
                            "▸"
                        } else {
                            " "
                        };
                        let label = source_label(&s.source);
                        let value = if s.value.is_empty() { "?".to_string() } else { s.value.clone() };
                        let line = s.writer.map(|w| w.line);
                        html! {
                            <li
                                key={path_text(path)}
                                role="treeitem"
                                aria-level={(path.len() + 1).to_string()}
                                aria-selected={selected.to_string()}
                                aria-expanded={(has || more).then(|| (has && open).to_string())}
                                class={classes!("why-step", selected.then_some("current"))}
                                data-testid="why-step"
                                data-path={path_text(path)}
                                data-what={s.what.clone()}
                                data-value={s.value.clone()}
                                data-line={line.map(|l| l.to_string())}
                                data-source={source_kind(&s.source)}
                                title={t("Go to the line that wrote it")}
                                style={format!("display:flex;gap:0.6rem;align-items:baseline;cursor:pointer;white-space:pre;padding-left:{}em;", path.len() as f32 * 1.2)}
                                onclick={go}
                            >
                                <button
                                    class="why-toggle"
                                    data-testid="why-toggle"
                                    tabindex="-1"
                                    disabled={!(has || more)}
                                    title={if has && open { t("Hide its inputs") } else { t("Show its inputs") }}
                                    onclick={toggle}
                                    style="border:none;background:none;padding:0;width:1em;cursor:pointer;"
                                >{ arrow }</button>
                                <span data-testid="why-what-value">{ format!("{} = {value}", s.what) }</span>
                                <span style="opacity:0.8;" data-testid="why-line">{
                                    match line {
                                        Some(l) => tf("line {}", &[&number(l)]),
                                        None => t("no earlier write").into(),
                                    }
                                }</span>
                                <span data-testid="why-instruction">{ s.instruction.clone().unwrap_or_default() }</span>
                                <span style="opacity:0.7;">{ s.function.clone().unwrap_or_default() }</span>
                                if !label.is_empty() {
                                    <span class="why-source" data-testid="why-source-label" style="font-style:italic;">{ format!("[{label}]") }</span>
                                }
                                if !s.not_followed.is_empty() {
                                    <span style="opacity:0.6;">{ tf("not followed: {}", &[&s.not_followed.join(", ")]) }</span>
                                }
                            </li>
                        }
                    }) }
                </ul>
            }
        </section>
    }
}
