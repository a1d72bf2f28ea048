//! The trace comparison: a trace chosen with the header's "Compare with
//! another trace…" (`compare`), the comparison run in a worker of its own (`page/diff_client.rs`),
//! its divergences listed, and the two traces browsed side by side — the
//! open trace's browser and a second, detached one on the other file, each
//! moved to the selected divergence's line. The main browser is rendered
//! here so that it can be moved and laid out next to the other.

use std::rc::Rc;

use yew::prelude::*;

use super::{Browser, ElfLoad, ProgressBar, Session};
use crate::model::comparison::{CompareMsg, CompareState, Comparison};
use crate::web::page::client::{worker_url, TraceClient};
use crate::web::page::diff_client::DiffJob;
use crate::web::page::i18n::{number, t, tf, tn, Lang};
use crate::web::page::url_options;
use tarmac_lens_core::{
    diff::{hex, Difference, Divergence, Step},
    protocol::Progress,
};

/// Divergences listed at most (the CLI's `--max` for the page).
pub const MAX_DIVERGENCES: u32 = 100;

#[derive(Properties, PartialEq)]
pub struct DiffViewProps {
    /// The open trace, when it is a dropped file (a URL cannot be compared).
    pub file: Option<web_sys::File>,
    pub session: Session,
    pub progress: Option<Progress>,
    pub elf: Option<ElfLoad>,
    /// Why the page refused the ELF image given, if it did.
    #[prop_or_default]
    pub elf_error: Option<String>,
    #[prop_or_default]
    pub lang: Lang,
    /// The trace to compare with, numbered per choice (choosing the same
    /// file again compares again).
    #[prop_or_default]
    pub compare: Option<(u32, web_sys::File)>,
}

pub enum Msg {
    Compare(CompareMsg<Session, DiffJob>),
    Select(usize),
    Close,
}

/// Renders `model::comparison` and starts its workers.
pub struct DiffView {
    model: Comparison<Session, DiffJob>,
}

impl DiffView {
    fn start(&mut self, ctx: &Context<Self>, other: web_sys::File) {
        self.model.update(CompareMsg::Close);
        let Some(file) = ctx.props().file.clone() else {
            return;
        };
        let seq = self.model.seq;
        self.model.update(CompareMsg::Start {
            name: other.name(),
            total: file.size() as u64 + other.size() as u64,
            now_ms: crate::web::shared::timing::now(),
        });
        let options = url_options::open_options();
        let link = ctx.link().clone();
        let started = DiffJob::start(
            &worker_url(),
            file,
            other.clone(),
            options,
            MAX_DIVERGENCES,
            move |msg| {
                link.send_message(Msg::Compare(CompareMsg::Job {
                    seq,
                    msg,
                    now_ms: crate::web::shared::timing::now(),
                }))
            },
        );
        match started {
            Ok(job) => self.model.update(CompareMsg::Worker(job)),
            Err(e) => {
                self.model.update(CompareMsg::StartFailed(e));
                return;
            }
        };
        // The other trace is opened for browsing at once: its index is
        // ready sooner for the side-by-side view.
        let link = ctx.link().clone();
        let opened = TraceClient::open(other, options, move |event| {
            link.send_message(Msg::Compare(CompareMsg::Other { seq, event }))
        });
        self.model.update(match opened {
            Ok(client) => {
                client.load_elf_of(&ctx.props().session.client);
                CompareMsg::OtherOpened(Session {
                    client,
                    job: 1_000_000 + seq,
                })
            }
            Err(e) => CompareMsg::StartFailed(e),
        });
    }
}

impl Component for DiffView {
    type Message = Msg;
    type Properties = DiffViewProps;

    fn create(_ctx: &Context<Self>) -> Self {
        DiffView {
            model: Comparison::default(),
        }
    }

    fn changed(&mut self, ctx: &Context<Self>, old: &DiffViewProps) -> bool {
        if ctx.props().session != old.session {
            // Another trace was opened: the comparison was with the old one.
            self.model.update(CompareMsg::Close);
        }
        if ctx.props().elf != old.elf && ctx.props().elf.is_some() {
            // Another image for the open trace: the compared one takes it too.
            if let Some(other) = &self.model.other {
                other.client.load_elf_of(&ctx.props().session.client);
            }
        }
        let compare = ctx.props().compare.clone();
        if compare.as_ref().map(|c| c.0) != old.compare.as_ref().map(|c| c.0) {
            if let Some((_, file)) = compare {
                self.start(ctx, file);
            }
        }
        true
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        self.model.update(match msg {
            Msg::Compare(msg) => msg,
            Msg::Select(i) => CompareMsg::Select(i),
            Msg::Close => CompareMsg::Close,
        })
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let props = ctx.props();
        let link = ctx.link();
        let model = &self.model;
        let side_by_side = model.side_by_side();
        html! {
            <section class="diff" data-testid="diff" style="display:flex;flex-direction:column;gap:0.3rem;flex:1 1 auto;min-height:0;">
                if let Some(name) = &model.other_name {
                <div class="diff-bar" style="display:flex;gap:0.75rem;align-items:center;flex-wrap:wrap;flex:none;">
                        <span data-testid="diff-other">{ tf("compared with {}", &[name]) }</span>
                        <button data-testid="diff-close" onclick={link.callback(|_| Msg::Close)}>
                            { t("Close comparison") }
                        </button>
                </div>
                }
                { self.view_state(ctx) }
                <div class="diff-views" style="display:flex;gap:0.5rem;flex:1 1 auto;min-height:0;">
                    <div data-testid="diff-view-a" style="flex:1 1 50%;min-width:0;display:flex;flex-direction:column;">
                        <Browser
                            session={props.session.clone()}
                            progress={props.progress.clone()}
                            elf={props.elf}
                            elf_error={props.elf_error.clone()}
                            lang={props.lang}
                            goto={model.goto_a()}
                            diverged_lines={Rc::new(model.marked_a())}
                        />
                    </div>
                    if let Some(other) = model.other.clone().filter(|_| side_by_side) {
                        <div data-testid="diff-view-b" style="flex:1 1 50%;min-width:0;display:flex;flex-direction:column;">
                            <Browser
                                session={other}
                                progress={model.other_progress.clone()}
                                elf={model.other_elf}
                                lang={props.lang}
                                goto={model.goto_b()}
                                detached={true}
                                diverged_lines={Rc::new(model.marked_b())}
                            />
                        </div>
                    }
                </div>
            </section>
        }
    }
}

impl DiffView {
    fn view_state(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let model = &self.model;
        match &model.state {
            CompareState::Idle => html! {},
            CompareState::Running { done, total } => html! {
                <div data-testid="diff-progress">
                    <span>{ t("Comparing the traces…") }</span>
                    <ProgressBar done={*done} total={*total} elapsed_ms={model.now_ms - model.started_ms} />
                </div>
            },
            CompareState::Failed(message) => html! {
                <p class="error-text" role="alert" data-testid="diff-error">
                    { tf("The comparison failed: {}", &[message]) }
                </p>
            },
            CompareState::Done {
                compared,
                divergences,
                ..
            } if divergences.is_empty() => html! {
                <p data-testid="diff-result" data-divergences="0" data-compared={compared.to_string()}>
                    { tn(*compared, "No divergence in {} instruction.", "No divergence in {} instructions.", &[&number(*compared)]) }
                </p>
            },
            CompareState::Done {
                compared,
                divergences,
                capped,
            } => {
                let n = divergences.len();
                let i = model.selected;
                let count = if *capped {
                    tn(
                        n as u64,
                        "at least {} divergence",
                        "at least {} divergences",
                        &[&number(n as u64)],
                    )
                } else {
                    tn(
                        n as u64,
                        "{} divergence",
                        "{} divergences",
                        &[&number(n as u64)],
                    )
                };
                html! {
                    <div data-testid="diff-result" data-divergences={n.to_string()} data-compared={compared.to_string()}
                        style="display:flex;flex-direction:column;gap:0.4rem;">
                        <div style="display:flex;gap:0.5rem;align-items:center;flex-wrap:wrap;">
                            <button data-testid="diff-prev" disabled={i == 0}
                                onclick={link.callback(move |_| Msg::Select(i.saturating_sub(1)))}>
                                { t("Previous divergence") }
                            </button>
                            <button data-testid="diff-next" disabled={i + 1 >= n}
                                onclick={link.callback(move |_| Msg::Select(i + 1))}>
                                { t("Next divergence") }
                            </button>
                            <span data-testid="diff-count">
                                { tf("Divergence {} of {}", &[&(i + 1), &count]) }
                            </span>
                        </div>
                        { divergences.get(i).map(view_divergence).unwrap_or_default() }
                        <ol class="divergence-list" data-testid="diff-list"
                            style="margin:0;padding-left:2rem;max-height:6.5rem;overflow:auto;font-family:monospace;">
                            { for divergences.iter().enumerate().map(|(k, d)| {
                                let current = k == i;
                                html! {
                                    <li data-testid="diff-item" aria-current={current.then_some("true")}
                                        style={if current { "font-weight:bold;cursor:pointer;" } else { "cursor:pointer;" }}
                                        onclick={link.callback(move |_| Msg::Select(k))}>
                                        { summary(d) }
                                    </li>
                                }
                            }) }
                        </ol>
                    </div>
                }
            }
        }
    }
}

/// A divergence in one line of the list: instruction, lines, fields.
fn summary(d: &Divergence) -> String {
    let line = |s: &Option<Step>| s.as_ref().map_or("-".to_string(), |s| s.line.to_string());
    let fields: Vec<String> = d
        .differences
        .iter()
        .map(|diff| match diff {
            Difference::Pc => "pc".to_string(),
            Difference::Encoding => t("encoding").to_string(),
            Difference::Register { name, .. } => name.clone(),
            Difference::Memory { addr, .. } => tf("memory 0x{} (written)", &[&format!("{addr:x}")]),
            Difference::Read { addr, .. } => tf("memory 0x{} (read)", &[&format!("{addr:x}")]),
            Difference::Ended => t("end of trace").to_string(),
        })
        .collect();
    tf(
        "instruction {}, lines {} / {}: {}",
        &[
            &(d.instruction + 1),
            &line(&d.a),
            &line(&d.b),
            &fields.join(", "),
        ],
    )
}

/// One divergence: where it is in each trace and the fields that differ,
/// with both values.
fn view_divergence(d: &Divergence) -> Html {
    let step = |s: &Option<Step>| match s {
        Some(s) => s.to_string(),
        None => t("(trace ended)").to_string(),
    };
    let line = |s: &Option<Step>| s.as_ref().map(|s| s.line.to_string());
    let row = |field: String, a: String, b: String| {
        html! {
            <tr data-testid="diff-field" class="diff-field">
                <th scope="row" class="field" style="text-align:left;padding-right:0.5rem;">{ field }</th>
                <td class="a" style="font-family:monospace;padding:0 1rem 0 0.5rem;">{ a }</td>
                <td class="b" style="font-family:monospace;padding:0 0.5rem;">{ b }</td>
            </tr>
        }
    };
    let rows: Vec<Html> = d
        .differences
        .iter()
        .map(|diff| match diff {
            Difference::Pc => {
                let pc = |s: &Option<Step>| {
                    s.as_ref()
                        .map_or(String::new(), |s| format!("0x{:x}", s.pc))
                };
                row("pc".into(), pc(&d.a), pc(&d.b))
            }
            Difference::Encoding => {
                let enc = |s: &Option<Step>| {
                    s.as_ref().map_or(String::new(), |s| {
                        format!("{:0w$x}", s.encoding, w = usize::from(s.width / 4))
                    })
                };
                row(t("encoding").into(), enc(&d.a), enc(&d.b))
            }
            Difference::Register { name, a, b } => row(name.clone(), hex(a), hex(b)),
            Difference::Memory { addr, a, b } => row(
                tf("memory 0x{} (written)", &[&format!("{addr:x}")]),
                hex(a),
                hex(b),
            ),
            Difference::Read { addr, a, b } => {
                let some = |v: &Vec<u8>| hex(&v.iter().map(|&x| Some(x)).collect::<Vec<_>>());
                row(
                    tf("memory 0x{} (read)", &[&format!("{addr:x}")]),
                    some(a),
                    some(b),
                )
            }
            Difference::Ended => {
                let ended = tn(
                    d.instruction,
                    "ends after {} instruction",
                    "ends after {} instructions",
                    &[&number(d.instruction)],
                );
                let (a, b) = if d.a.is_none() {
                    (ended, String::new())
                } else {
                    (String::new(), ended)
                };
                row(t("end of trace").into(), a, b)
            }
        })
        .collect();
    html! {
        <div class="divergence" data-testid="divergence"
            data-instruction={(d.instruction + 1).to_string()}
            data-line-a={line(&d.a)} data-line-b={line(&d.b)}>
            <p style="margin:0;">{ tf("At instruction {}:", &[&(d.instruction + 1)]) }</p>
            <table class="diff-fields" style="border-collapse:collapse;">
                <thead>
                    <tr style="text-align:left;"><th>{ t("field") }</th><th style="padding-left:0.5rem;">{ "A" }</th><th style="padding-left:0.5rem;">{ "B" }</th></tr>
                </thead>
                <tbody>
                    <tr class="diff-steps">
                        <th scope="row" style="text-align:left;padding-right:0.5rem;">{ t("instruction") }</th>
                        <td data-testid="diff-step-a" style="font-family:monospace;padding:0 1rem 0 0.5rem;">{ step(&d.a) }</td>
                        <td data-testid="diff-step-b" style="font-family:monospace;padding:0 0.5rem;">{ step(&d.b) }</td>
                    </tr>
                    { for rows }
                </tbody>
            </table>
        </div>
    }
}
