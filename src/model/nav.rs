//! The events list (with `e`/`E` to step between events) and the
//! timeline strip: about the whole trace, not a position, so kept apart
//! from the panes that follow a view's position through `Pane`.

use super::pane_kind::Feed;
use super::{Answer, Model, Moved, Msg};
use crate::i18n::t;
use crate::model::keys::Command;
use tarmac_lens_core::protocol::{
    EventRank, Events, EventsReply, Locate, NextEvent, Timeline, TimelineReply,
};

/// Events one page of the events pane shows.
pub const EVENTS_PAGE: u64 = 100;

/// What the navigation panes show.
#[derive(Clone, Debug, PartialEq)]
pub struct NavPanes {
    /// The page of events shown, and the first event asked for.
    pub events_page: Option<EventsReply>,
    /// The rank of the first event of the page, counting from 0.
    pub events_first: u64,
    /// The timeline strip is shown (`T`).
    pub timeline: bool,
    /// The timeline, once computed.
    pub timeline_data: Option<TimelineReply>,
    /// A timeline is being computed; `timeline_again` asks once more when it
    /// comes (indexing moved on meanwhile).
    pub timeline_in_flight: bool,
    /// Ask for the timeline again when the one in flight comes.
    pub timeline_again: bool,
}

/// Answers for the navigation panes.
pub enum NavMsg {
    /// A page of the events list.
    EventsPage(Answer<EventsReply>),
    /// `e`/`E` found an event (or none).
    EventFound {
        /// The view that goes there.
        view: u32,
        /// The next event, not the previous one.
        forward: bool,
        /// The event's node, if there is one.
        reply: Moved,
    },
    /// Where the events list is at the event just reached.
    EventRank(Answer<u64>),
    /// The events list's pager: show the page starting at this rank.
    EventsAt(u64),
    /// The timeline, as far as the trace is indexed.
    Timeline(Answer<TimelineReply>),
}

impl NavPanes {
    /// The timeline is shown unless the page is the compact embedded
    /// viewer (no room) or its panes were chosen by the URL.
    pub fn new(roomy: bool) -> NavPanes {
        NavPanes {
            events_page: None,
            events_first: 0,
            timeline: roomy,
            timeline_data: None,
            timeline_in_flight: false,
            timeline_again: false,
        }
    }
}

impl Model {
    /// The navigation commands; false if `cmd` is not one.
    pub(super) fn run_nav(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::ToggleTimeline => {
                self.nav.timeline = !self.nav.timeline;
                self.fetch_timeline();
            }
            Command::NextEvent { forward } => {
                let view = self.active_view();
                let Some(node) = self.view_ref(view).and_then(|v| v.cursor).map(|c| c.node) else {
                    return true;
                };
                self.ask(NextEvent { node, forward }, move |reply| {
                    Msg::Nav(NavMsg::EventFound {
                        view,
                        forward,
                        reply,
                    })
                });
            }
            _ => return false,
        }
        true
    }

    /// More of the trace is indexed: the events list may have grown.
    pub(super) fn nav_progress(&mut self) {
        if self.fed(Feed::Events) {
            self.fetch_events();
        }
        self.fetch_timeline();
    }

    /// A pane that shows `feed` opened: what it shows is asked for.
    pub(super) fn feed(&mut self, feed: Option<Feed>) {
        match feed {
            Some(Feed::Events) => self.fetch_events(),
            None => {}
        }
    }

    /// Whether a pane shown shows `feed`.
    fn fed(&self, feed: Feed) -> bool {
        self.panes
            .iter()
            .any(|p| p.body.slot().entry().feed == Some(feed))
    }

    fn fetch_timeline(&mut self) {
        if !self.nav.timeline {
            return;
        }
        if self.nav.timeline_in_flight {
            self.nav.timeline_again = true;
            return;
        }
        self.nav.timeline_in_flight = true;
        self.ask(
            Timeline {
                // About one per canvas pixel, the count whose depths
                // indexing finds ahead.
                buckets: tarmac_lens_core::TIMELINE_BUCKETS,
            },
            move |reply| Msg::Nav(NavMsg::Timeline(reply)),
        );
    }

    fn fetch_events(&mut self) {
        self.ask(
            Events {
                first: self.nav.events_first,
                count: EVENTS_PAGE as u32,
            },
            move |reply| Msg::Nav(NavMsg::EventsPage(reply)),
        );
    }

    pub(super) fn on_nav(&mut self, msg: NavMsg) -> bool {
        match msg {
            NavMsg::EventsPage(Ok(page)) => {
                if page.first != self.nav.events_first {
                    return false;
                }
                self.nav.events_page = Some(page);
            }
            NavMsg::EventsPage(Err(e)) => self.status = Some(e),
            NavMsg::EventFound {
                view,
                forward,
                reply,
            } => match reply {
                Ok(Some(n)) => {
                    self.refocus = true;
                    self.move_to(view, Locate::Node(n.node), false);
                    let on_page = self
                        .nav
                        .events_page
                        .as_ref()
                        .is_some_and(|p| p.events.iter().any(|e| e.node == n.node));
                    if self.fed(Feed::Events) && !on_page {
                        self.ask(EventRank { node: n.node }, move |reply| {
                            Msg::Nav(NavMsg::EventRank(reply))
                        });
                    }
                }
                Ok(None) => {
                    self.status = Some(
                        t(if forward {
                            "No later event."
                        } else {
                            "No earlier event."
                        })
                        .into(),
                    )
                }
                Err(e) => self.status = Some(e),
            },
            NavMsg::EventRank(Ok(rank)) => {
                self.nav.events_first = rank - rank % EVENTS_PAGE;
                self.fetch_events();
                return false;
            }
            // The list stays where it is.
            NavMsg::EventRank(Err(_)) => return false,
            NavMsg::Timeline(reply) => {
                self.nav.timeline_in_flight = false;
                if std::mem::take(&mut self.nav.timeline_again) {
                    self.fetch_timeline();
                }
                match reply {
                    Ok(t) => self.nav.timeline_data = Some(t),
                    // Asked again as indexing goes on.
                    Err(_) => return false,
                }
            }
            NavMsg::EventsAt(first) => {
                self.nav.events_first = first;
                self.fetch_events();
                return false;
            }
        }
        true
    }
}
