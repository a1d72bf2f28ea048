//! Where the browser's panes sit: the trace views take the main area, and
//! every other pane sits in the side area (right of the views) or the
//! bottom area (under them), sized by two splitters. A kind of pane keeps
//! its area (all memory panes move together), so the layout stays one short
//! line the page keeps per browser (`localStorage`) and [`Layout::parse`]
//! reads back; anything in it that is not understood is left at its
//! default, so an old or hand-edited value never breaks the page.

use std::fmt;

use super::registry::Place;

/// The two areas beside the trace views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// Right of the trace views.
    Side,
    /// Under the trace views.
    Bottom,
}

impl Area {
    /// Its name in the layout's saved text.
    pub fn name(self) -> &'static str {
        match self {
            Area::Side => "side",
            Area::Bottom => "bottom",
        }
    }

    fn other(self) -> Area {
        match self {
            Area::Side => Area::Bottom,
            Area::Bottom => Area::Side,
        }
    }
}

pub use super::registry::Slot;

/// Where a kind of pane sits at first (`registry::PANES`).
fn default_area(slot: Slot) -> Area {
    match slot.entry().place {
        Place::Side => Area::Side,
        Place::Bottom => Area::Bottom,
    }
}

fn index(slot: Slot) -> usize {
    slot.index()
}

/// A pane just opened or moved, for the page to scroll its area to (a pane
/// opened under the others would seem not to open at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// A register, memory or source pane.
    Pane(u32),
    /// The call stack, the events, the reports, or every pane of a kind.
    Slot(Slot),
}

/// The side area's width and the bottom area's height, in CSS pixels, at
/// first and within these bounds. The page also caps them to a share of
/// the window, so the trace view always keeps room.
pub const SIDE_PX: u32 = 420;
/// The bottom area's height at first.
pub const BOTTOM_PX: u32 = 380;
/// The smallest either area gets.
pub const MIN_PX: u32 = 120;
/// The largest either area gets.
pub const MAX_PX: u32 = 4000;
/// A keyboard step of a splitter.
pub const STEP_PX: u32 = 32;

/// The areas' sizes, and where each kind of pane sits and whether it is
/// collapsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The side area's width.
    pub side_px: u32,
    /// The bottom area's height.
    pub bottom_px: u32,
    areas: [Area; Slot::ALL.len()],
    collapsed: [bool; Slot::ALL.len()],
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            side_px: SIDE_PX,
            bottom_px: BOTTOM_PX,
            areas: Slot::ALL.map(default_area),
            collapsed: [false; Slot::ALL.len()],
        }
    }
}

/// A change to the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutMsg {
    /// A splitter dragged (or stepped) to this size.
    Side(u32),
    /// The bottom splitter dragged (or stepped) to this size.
    Bottom(u32),
    /// Widen (positive) or narrow the side area, by keyboard steps.
    SideBy(i32),
    /// Make the bottom area taller (positive) or shorter, by keyboard steps.
    BottomBy(i32),
    /// A kind of pane moves to the other area.
    Move(Slot),
    /// A kind of pane shows only its header, or all of it again.
    Collapse(Slot),
    /// Back to the default layout.
    Reset,
}

impl Layout {
    /// The area a kind of pane sits in.
    pub fn area(&self, slot: Slot) -> Area {
        self.areas[index(slot)]
    }

    /// Whether a kind of pane shows only its header.
    pub fn collapsed(&self, slot: Slot) -> bool {
        self.collapsed[index(slot)]
    }

    /// Applies a change; false if nothing changed.
    pub fn apply(&mut self, msg: LayoutMsg) -> bool {
        let before = self.clone();
        let by = |px: u32, steps: i32| {
            (px as i64 + steps as i64 * STEP_PX as i64).clamp(MIN_PX as i64, MAX_PX as i64) as u32
        };
        match msg {
            LayoutMsg::Side(px) => self.side_px = px.clamp(MIN_PX, MAX_PX),
            LayoutMsg::Bottom(px) => self.bottom_px = px.clamp(MIN_PX, MAX_PX),
            LayoutMsg::SideBy(steps) => self.side_px = by(self.side_px, steps),
            LayoutMsg::BottomBy(steps) => self.bottom_px = by(self.bottom_px, steps),
            LayoutMsg::Move(slot) => {
                self.areas[index(slot)] = self.area(slot).other();
                self.collapsed[index(slot)] = false;
            }
            LayoutMsg::Collapse(slot) => {
                self.collapsed[index(slot)] = !self.collapsed(slot);
            }
            LayoutMsg::Reset => *self = Layout::default(),
        }
        *self != before
    }

    /// Reads what [`Layout`]'s `Display` wrote: `side=420;bottom=340;`
    /// then `memory=side`, `stack=collapsed` and the like.
    pub fn parse(text: &str) -> Layout {
        let mut layout = Layout::default();
        for part in text.split(';') {
            let Some((key, value)) = part.split_once('=') else {
                continue;
            };
            let px = value.parse::<u32>().ok().map(|v| v.clamp(MIN_PX, MAX_PX));
            match (key.trim(), px) {
                ("side", Some(v)) => layout.side_px = v,
                ("bottom", Some(v)) => layout.bottom_px = v,
                (key, _) => {
                    let Some(slot) = Slot::named(key) else {
                        continue;
                    };
                    for word in value.split(',') {
                        match word {
                            "side" => layout.areas[index(slot)] = Area::Side,
                            "bottom" => layout.areas[index(slot)] = Area::Bottom,
                            "collapsed" => layout.collapsed[index(slot)] = true,
                            _ => {}
                        }
                    }
                }
            }
        }
        layout
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "side={};bottom={}", self.side_px, self.bottom_px)?;
        for slot in Slot::ALL {
            write!(f, ";{}={}", slot.name(), self.area(slot).name())?;
            if self.collapsed(slot) {
                f.write_str(",collapsed")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_reads_back_what_it_wrote() {
        let mut l = Layout::default();
        l.apply(LayoutMsg::Side(512));
        l.apply(LayoutMsg::BottomBy(-2));
        l.apply(LayoutMsg::Move(Slot::MEMORY));
        let stack = Slot::named("stack").unwrap();
        l.apply(LayoutMsg::Collapse(stack));
        let text = l.to_string();
        assert_eq!(Layout::parse(&text), l, "{text}");
        assert_eq!(l.area(Slot::MEMORY), Area::Side);
        assert!(l.collapsed(stack));
        assert_eq!(l.bottom_px, BOTTOM_PX - 2 * STEP_PX);
    }

    #[test]
    fn what_a_layout_does_not_understand_stays_at_its_default() {
        let l = Layout::parse("side=abc;bottom=99999;memory=left;foo=side;;=;stack=bottom");
        assert_eq!(l.side_px, SIDE_PX);
        assert_eq!(l.bottom_px, MAX_PX);
        assert_eq!(l.area(Slot::MEMORY), Area::Bottom);
        assert_eq!(l.area(Slot::named("stack").unwrap()), Area::Bottom);
        assert_eq!(Layout::parse(""), Layout::default());
    }

    #[test]
    fn sizes_stay_within_bounds_and_reset_restores_the_default() {
        let mut l = Layout::default();
        assert!(l.apply(LayoutMsg::SideBy(-1000)));
        assert_eq!(l.side_px, MIN_PX);
        assert!(!l.apply(LayoutMsg::SideBy(-1)), "already at its smallest");
        l.apply(LayoutMsg::Move(Slot::REGISTERS));
        assert!(l.apply(LayoutMsg::Reset));
        assert_eq!(l, Layout::default());
    }
}
