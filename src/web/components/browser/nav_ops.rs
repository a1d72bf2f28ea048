//! The navigation panes: the call stack of the active view. Kept apart from
//! the register and memory panes (which follow a view's position through
//! `Pane`) because it needs no question of its own: the view already holds
//! its call stack.

use yew::prelude::*;

use super::{Browser, Msg};
use crate::web::components::StackPane;

/// What the navigation panes show.
#[derive(Clone, Debug, PartialEq)]
pub struct NavPanes {
    pub stack: bool,
}

impl NavPanes {
    /// The call stack is shown unless the page is the compact embedded
    /// viewer (no room) or its panes were chosen by the URL.
    pub fn new(roomy: bool) -> NavPanes {
        NavPanes { stack: roomy }
    }

    pub fn any(&self) -> bool {
        self.stack
    }
}

impl Browser {
    pub(super) fn view_nav_panes(&self, ctx: &Context<Self>) -> Html {
        let link = ctx.link();
        let view = self.active_view();
        let Some(v) = self.view_ref(view) else {
            return html! {};
        };
        let last = ctx
            .props()
            .progress
            .as_ref()
            .filter(|p| p.complete)
            .map(|p| p.nodes);
        let at_end = matches!((v.cursor, last), (Some(c), Some(n)) if c.node + 1 >= n);
        html! {
            if self.nav.stack {
                <StackPane
                    frames={v.stack.clone()}
                    {at_end}
                    on_pick={link.callback(move |node| Msg::GoTo { view, node })}
                    on_close={link.callback(|_| Msg::Run(crate::web::keys::Command::ToggleStack))}
                />
            }
        }
    }
}
