//! The Reports pane's state: the tab it shows. The reports themselves
//! live in the report worker and the panel's own model.

use std::any::Any;

use crate::i18n::t;
use crate::model::pane_state::{PaneAction, PaneState};
use crate::model::ReportTab;

/// The tab shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reports {
    /// Which report.
    pub tab: ReportTab,
}

impl Reports {
    /// The registry's maker: the call tree first.
    pub fn boxed() -> Box<dyn PaneState> {
        Box::new(Reports {
            tab: ReportTab::CallTree,
        })
    }
}

impl PaneState for Reports {
    fn title(&self) -> String {
        t("Reports").into()
    }

    /// A [`ReportTab`]: show it.
    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        if let Ok(tab) = msg.downcast::<ReportTab>() {
            self.tab = *tab;
        }
        None
    }
}
