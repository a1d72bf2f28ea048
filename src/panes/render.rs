//! Draws a folder's pane: what its render may read (the page's model, the
//! pane, the open trace) and send (the page's messages), and which
//! folder draws which pane. Apart from `panes/mod.rs` because it reads
//! the model, which reads the registry, which reads `panes/mod.rs`.

use yew::{classes, html, Callback, Html, MouseEvent};

use crate::model::pane_state::PaneAction;
use crate::model::{Focus, Model, Msg, Pane, PaneMsg};
use crate::web::components::PaneHeader;

/// What a folder's render may use.
pub struct PaneContext<'a> {
    /// The page's model, read only: a pane showing what the page keeps
    /// (the active view's calls, the bookmarks) draws it from here.
    pub model: &'a Model,
    /// The pane drawn.
    pub pane: &'a Pane,
    /// Sends the page a message; the same from render to render, so that
    /// callbacks a render derives from it once (`use_memo`) stay the same.
    pub send: Callback<Msg>,
    /// Layout buttons (collapse, move to the other area), before the close.
    pub tools: Html,
    /// The open trace's session (a pane with a worker of its own hands
    /// that worker the trace).
    pub trace: crate::web::page::client::TraceClient,
    /// The ELF image loaded, if one is.
    pub elf: Option<crate::web::components::ElfLoad>,
    /// Why the ELF image given could not be read, if it could not.
    pub elf_error: Option<String>,
}

impl PaneContext<'_> {
    /// The pane's own state, if it is a `T`.
    pub fn state<T: 'static>(&self) -> Option<&T> {
        self.pane.body.state.as_any().downcast_ref::<T>()
    }

    /// Carries out the pane's actions (`PaneAction`).
    pub fn on_action(&self) -> Callback<PaneAction> {
        let id = self.pane.id;
        self.send.reform(move |a| Msg::Pane(id, PaneMsg::Action(a)))
    }

    /// Sends the pane's state its own message (`PaneState::update`).
    pub fn own<M: 'static>(&self) -> Callback<M> {
        let id = self.pane.id;
        self.send
            .reform(move |m: M| Msg::Pane(id, PaneMsg::Own(Box::new(m))))
    }

    /// Its header's close button.
    pub fn on_close(&self) -> Callback<()> {
        self.on_action().reform(|_| PaneAction::Close)
    }

    /// `body` in the frame of a pane that follows a view and takes the
    /// focus ([`frame`]).
    pub fn frame(&self, title_testid: &str, column: bool, body: Html) -> Html {
        frame(
            self.model,
            self.pane,
            &self.send,
            self.tools.clone(),
            title_testid,
            column,
            body,
        )
    }
}

/// The frame of a pane that follows a view and takes the focus (the
/// register, memory and source panes): focused on a press, its header
/// with the view it follows and its lock, and `body` scrolling under it
/// (`column`: a flex column, for a body that shares its height out).
pub fn frame(
    model: &Model,
    pane: &Pane,
    send: &Callback<Msg>,
    tools: Html,
    title_testid: &str,
    column: bool,
    body: Html,
) -> Html {
    let id = pane.id;
    let focused = model.focus == Focus::Pane(id);
    let to_pane = |msg: fn() -> PaneMsg| send.reform(move |_| Msg::Pane(id, msg()));
    html! {
        <section
            class={classes!("pane", "data-pane", focused.then_some("focused"))}
            data-testid={pane.testid()}
            data-pane={id.to_string()}
            key={id}
            role="region"
            aria-label={pane.title()}
            onmousedown={send.reform(move |_: MouseEvent| Msg::Focus(Focus::Pane(id)))}
            style="flex:1 1 auto;min-width:0;min-height:0;display:flex;flex-direction:column;"
        >
            <PaneHeader
                title={pane.title()}
                title_testid={title_testid.to_string()}
                view={pane.view}
                views={model.view_ids()}
                lock={pane.lock}
                on_view={send.reform(move |view| Msg::Pane(id, PaneMsg::View { view }))}
                on_unlock={to_pane(|| PaneMsg::Unlock)}
                on_lock={to_pane(|| PaneMsg::LockHere)}
                on_close={to_pane(|| PaneMsg::Close)}
                {tools}
            />
            // The body scrolls, the header stays: a pane shrunk in a
            // short area still says what it is.
            <div class="pane-body" style={if column {
                "position:relative;flex:1 1 auto;min-height:0;overflow:auto;display:flex;flex-direction:column;"
            } else {
                "position:relative;flex:1 1 auto;min-height:0;overflow:auto;"
            }}>{ body }</div>
        </section>
    }
}

/// Chains each folder's render, called for the panes of its kind.
macro_rules! folder_views {
    ($($kind:ident),+ $(,)?) => {
        /// A folder's pane drawn by its folder; `None` for a pane of
        /// another kind, or one with nothing to draw yet (a list that
        /// follows the active view while there is none).
        pub fn view(cx: &PaneContext) -> Option<Html> {
            let name = cx.pane.body.slot().name();
            $(if name == super::$kind::ENTRY.name {
                return super::$kind::view(cx);
            })+
            None
        }
    };
}

kinds!(folder_views);
