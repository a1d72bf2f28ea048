//! A register pane's state: its set, the values at the position, the
//! selected register, and what its keys and clicks do with it.

use std::any::Any;

use crate::i18n::{t, tf};
use crate::model::pane_kind::RegKind;
use crate::model::pane_state::{
    Arrow, At, MenuItem, PaneAction, PaneKey, PaneState,
};
use tarmac_lens_core::protocol::{Query, Question, RegMark, RegPanel, Registers, Reply, WriteTarget};

/// What a register pane shows.
#[derive(Clone, Debug, PartialEq)]
pub struct RegistersPane {
    /// Which registers.
    pub kind: RegKind,
    /// The registers' values at the pane's position, once answered.
    pub panel: Option<RegPanel>,
    /// Whether an answer has come (an answer without this panel means the
    /// trace has none).
    pub answered: bool,
    /// The selected register, an index into the panel's cells.
    pub selected: usize,
    /// Mark the registers changed since the compared position (`c`), not
    /// those the position's instruction wrote.
    pub since: bool,
}

/// A register pane's own messages, from its render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegMsg {
    /// A click on a register: it is selected and the view goes to its
    /// previous write.
    Pick {
        /// The register's index in the panel.
        index: usize,
    },
    /// A right-click on a register: its context menu.
    Context {
        /// The register's index in the panel.
        index: usize,
        /// The click's `clientX`.
        x: i32,
        /// The click's `clientY`.
        y: i32,
    },
}

impl RegistersPane {
    /// A pane on `kind`, not answered yet (`registry::Opens::Registers`).
    pub fn boxed(kind: RegKind) -> Box<dyn PaneState> {
        Box::new(RegistersPane {
            kind,
            panel: None,
            answered: false,
            selected: 0,
            since: false,
        })
    }

    fn cell(&self) -> Option<&tarmac_lens_core::protocol::RegCell> {
        self.panel.as_ref()?.cells.get(self.selected)
    }

    /// The selected register's value, if known and an address.
    fn value(&self) -> Option<u64> {
        let cell = self.cell().filter(|c| c.known)?;
        u64::from_str_radix(&cell.text, 16).ok()
    }

    fn menu(&self, x: i32, y: i32) -> Option<PaneAction> {
        let name = self.cell()?.name.clone();
        let target = WriteTarget::Register(name.clone());
        let mut items = vec![
            (t("Why this value? (y)").into(), MenuItem::Why(target.clone())),
            (tf("Watch {} (W)", &[&name]), MenuItem::Watch(target.clone())),
            (
                tf("Previous write of {}", &[&name]),
                MenuItem::Write {
                    target: target.clone(),
                    forward: false,
                },
            ),
            (
                tf("Next write of {}", &[&name]),
                MenuItem::Write {
                    target,
                    forward: true,
                },
            ),
        ];
        if let Some(v) = self.value() {
            let v_text = format!("{v:#x}");
            items.push((tf("Symbol at {}", &[&v_text]), MenuItem::Symbol(v)));
            items.push((tf("Open memory at {}", &[&v_text]), MenuItem::OpenMemory(v)));
        }
        Some(PaneAction::Menu { x, y, items })
    }
}

impl PaneState for RegistersPane {
    fn query(&mut self, at: At) -> Option<Query> {
        let mark = match (self.since, at.compare) {
            (false, _) => RegMark::Written,
            (true, Some(c)) => RegMark::ChangedSince(c),
            (true, None) => RegMark::None,
        };
        Some(
            Registers {
                node: at.node,
                mark,
            }
            .into(),
        )
    }

    fn take(&mut self, reply: Reply) -> Result<(), String> {
        let regs = Registers::answer_of(reply)?;
        self.answered = true;
        self.panel = regs
            .panels
            .into_iter()
            .find(|p| p.kind == self.kind.panel());
        let n = self.panel.as_ref().map_or(0, |p| p.cells.len());
        self.selected = self.selected.min(n.saturating_sub(1));
        Ok(())
    }

    fn title(&self) -> String {
        if self.since {
            tf(
                "{} (changes since the last position)",
                &[&t(self.kind.title())],
            )
        } else {
            t(self.kind.title()).to_string()
        }
    }

    fn update(&mut self, msg: Box<dyn Any>) -> Option<PaneAction> {
        match *msg.downcast::<RegMsg>().ok()? {
            RegMsg::Pick { index } => {
                self.selected = index;
                Some(PaneAction::PreviousWrite)
            }
            RegMsg::Context { index, x, y } => {
                self.selected = index;
                self.menu(x, y)
            }
        }
    }

    fn key(&mut self, key: PaneKey, side: bool) -> Option<PaneAction> {
        match key {
            PaneKey::Arrow(arrow) => {
                let n = self.panel.as_ref().map_or(0, |p| p.cells.len());
                if n > 0 {
                    let (s, cols) = (self.selected, self.kind.columns(side));
                    self.selected = match arrow {
                        Arrow::Left => s.saturating_sub(1),
                        Arrow::Right => (s + 1).min(n - 1),
                        Arrow::Up => s.checked_sub(cols).unwrap_or(s),
                        Arrow::Down => (s + cols).min(n - 1),
                    };
                }
                None
            }
            PaneKey::Mark => {
                self.since = !self.since;
                Some(PaneAction::Refresh)
            }
            PaneKey::Symbol => {
                let cell = self.cell()?;
                if !cell.known {
                    return Some(PaneAction::Note(tf("{} is not known here", &[&cell.name])));
                }
                let Ok(addr) = u64::from_str_radix(&cell.text, 16) else {
                    return Some(PaneAction::Note(tf(
                        "{} does not fit an address",
                        &[&cell.name],
                    )));
                };
                Some(PaneAction::Symbolize {
                    text: format!("{} = {addr:#x}", cell.name),
                    addr,
                })
            }
            _ => None,
        }
    }

    fn grows(&self) -> bool {
        false
    }

    fn selection(&self, _width: Option<u64>) -> Option<WriteTarget> {
        Some(WriteTarget::Register(self.cell()?.name.clone()))
    }

    fn variant(&self) -> Option<&'static str> {
        Some(self.kind.panel())
    }
}
