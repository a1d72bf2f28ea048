//! Geometry of a virtualized trace pane: which rows a scroll position shows.
//!
//! Browsers cap an element's height near 16.7 M px (Chromium) or less, and a
//! trace can have hundreds of millions of rows, so the scrollable spacer is
//! capped at [`MAX_SCROLL_PX`] and scroll positions are mapped to rows
//! proportionally once the rows would not fit.

/// Height of one trace row, fixed so row positions are arithmetic.
pub const ROW_PX: f64 = 18.0;
/// Spacer height cap, well below every browser's limit.
pub const MAX_SCROLL_PX: f64 = 8_000_000.0;

/// A trace pane's size: how many rows it has and how tall its viewport is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scroll {
    /// Rows in the view (a folded call is one).
    pub total_rows: u64,
    /// The viewport's height, in pixels.
    pub viewport_px: f64,
}

impl Scroll {
    /// The geometry of `total_rows` rows in a viewport `viewport_px` tall.
    pub fn new(total_rows: u64, viewport_px: f64) -> Scroll {
        Scroll {
            total_rows,
            viewport_px,
        }
    }

    /// Whole rows that fit in the viewport (at least one).
    pub fn visible_rows(&self) -> u64 {
        ((self.viewport_px / ROW_PX).floor() as u64).max(1)
    }

    /// Whether scroll pixels no longer map one-to-one onto row pixels.
    pub fn scaled(&self) -> bool {
        self.total_rows as f64 * ROW_PX > MAX_SCROLL_PX
    }

    /// Height of the spacer that gives the scrollbar its range.
    pub fn content_px(&self) -> f64 {
        (self.total_rows as f64 * ROW_PX).min(MAX_SCROLL_PX)
    }

    /// The last row that can be at the top of the viewport. A partly shown
    /// last row counts: the browser stops scrolling when the spacer's end
    /// reaches the viewport's, so a later top would leave a gap above the
    /// rows.
    pub fn max_top(&self) -> u64 {
        let rows = ((self.viewport_px / ROW_PX).ceil() as u64).max(1);
        self.total_rows.saturating_sub(rows)
    }

    fn range_px(&self) -> f64 {
        (self.content_px() - self.viewport_px).max(0.0)
    }

    /// The first visible row at a scroll position.
    pub fn row_at(&self, scroll_top: f64) -> u64 {
        let max_top = self.max_top();
        if !self.scaled() {
            return ((scroll_top.max(0.0) / ROW_PX).floor() as u64).min(max_top);
        }
        let range = self.range_px();
        if range <= 0.0 {
            return 0;
        }
        let fraction = (scroll_top / range).clamp(0.0, 1.0);
        ((fraction * max_top as f64).round() as u64).min(max_top)
    }

    /// The scroll position that shows `row` at the top.
    pub fn scroll_top_for(&self, row: u64) -> f64 {
        let row = row.min(self.max_top());
        if !self.scaled() {
            return row as f64 * ROW_PX;
        }
        let max_top = self.max_top();
        if max_top == 0 {
            return 0.0;
        }
        row as f64 / max_top as f64 * self.range_px()
    }

    /// The top row a scroll event moved the view to, or `None` when
    /// `scroll_top` is where `top` puts the scrollbar, to the pixel the
    /// browser rounds it to: scaled, one pixel is many rows (213 on a
    /// 100 GB trace), and reading the rounded position back moved a jump's
    /// view that far from its cursor.
    pub fn scrolled_to(&self, top: u64, scroll_top: f64) -> Option<u64> {
        if self.scaled() && (scroll_top - self.scroll_top_for(top)).abs() <= 1.0 {
            return None;
        }
        Some(self.row_at(scroll_top)).filter(|&row| row != top)
    }

    /// Where the block of rendered rows starting at `first` sits inside the
    /// spacer. Unscaled, rows sit at their true offset so the browser's own
    /// smooth scrolling moves them; scaled, they follow the viewport.
    pub fn window_top_px(&self, first: u64, scroll_top: f64) -> f64 {
        if self.scaled() {
            scroll_top
        } else {
            first as f64 * ROW_PX
        }
    }

    /// The top row that keeps rows `first..=last` in view while moving the
    /// view as little as possible from `top`.
    pub fn top_showing(&self, top: u64, first: u64, last: u64) -> u64 {
        let visible = self.visible_rows();
        let top = if last >= top + visible {
            (last + 1).saturating_sub(visible)
        } else {
            top
        };
        let top = top.min(first);
        top.min(self.max_top().max(first.min(self.max_top())))
    }
}

/// Where Ctrl-L puts the current position, cycling as in tarmac-browser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Recentre {
    /// The position in the middle of the pane (the first press).
    #[default]
    Middle,
    /// The position at the top.
    Top,
    /// The position at the bottom.
    Bottom,
}

impl Recentre {
    /// Where the next Ctrl-L puts it.
    pub fn next(self) -> Recentre {
        match self {
            Recentre::Middle => Recentre::Top,
            Recentre::Top => Recentre::Bottom,
            Recentre::Bottom => Recentre::Middle,
        }
    }

    /// The top row that puts rows `first..=last` (the current node) there.
    pub fn top_for(self, first: u64, last: u64, visible: u64) -> u64 {
        match self {
            Recentre::Middle => first.saturating_sub(visible / 2),
            Recentre::Top => first,
            Recentre::Bottom => (last + 1).saturating_sub(visible),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A view put at a row by the browser stays there when the scrollbar
    /// reports the pixel it rounded that row to; a person's drag moves it.
    #[test]
    fn the_browser_s_own_scroll_keeps_the_row_it_was_set_to() {
        for rows in [1_000u64, 20_000_000, 1_708_772_710] {
            let s = Scroll::new(rows, 900.0);
            for top in [0, 1, 777, rows / 3, rows / 2 + 11, s.max_top()] {
                let top = top.min(s.max_top());
                for px in [s.scroll_top_for(top).round(), s.scroll_top_for(top).floor()] {
                    assert_eq!(
                        s.scrolled_to(top, px),
                        None,
                        "{rows} rows, top {top}, {px} px"
                    );
                }
            }
            let dragged = s.scroll_top_for(rows / 2) + 40.0 * ROW_PX;
            let moved = s
                .scrolled_to(rows / 2, dragged)
                .expect("a drag moves the view");
            assert!(moved > rows / 2, "{rows} rows: {moved}");
        }
        // Unscaled, every pixel is its row's.
        let s = Scroll::new(1_000, 900.0);
        assert_eq!(s.scrolled_to(5, 0.0), Some(0));
        assert_eq!(s.scrolled_to(5, 5.0 * ROW_PX + 3.0), None);
    }
}
