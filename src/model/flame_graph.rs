//! The Reports panel's flame graph: the outermost function at the bottom,
//! each call stack a frame as wide as its time. A click on a frame zooms
//! into it (the report worker sends the frames under it, those wide enough
//! to see), a click on the bottom frame zooms out a level, Esc all the way;
//! hovering picks a frame, the search highlights frames by name. Where
//! each frame is drawn, and so which one a point hits, is computed here
//! from the width drawn at; the Yew view (`web::components::reports::
//! flame_graph`) paints the canvas, carries [`FlameGraphState::take_asks`]
//! and sends pointer positions. `tests/browser_model/flame_graph.rs`
//! answers from reports computed natively.

use tarmac_lens_core::report::{FlameFrame, FlameView};

use crate::i18n::t;

/// Height of a frame, in CSS pixels.
pub const ROW: f64 = 18.0;

/// What changes the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum FlameMsg {
    /// Zoom to this frame (an ancestor's button).
    Zoom(u32),
    /// The frames under this zoom root, or why not.
    View(u32, Result<FlameView, String>),
    /// The pointer is at (x, y) on the canvas.
    Hover(f64, f64),
    /// The pointer left the canvas.
    Leave,
    /// A click at (x, y) on the canvas.
    Click(f64, f64),
    /// The search box holds this text.
    Search(String),
    /// Esc: all the way out.
    Escape,
    /// The canvas is drawn this wide, in CSS pixels.
    Width(f64),
}

/// The graph's state (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct FlameGraphState {
    /// The zoom root's frame number (0: the whole graph).
    pub root: u32,
    /// Its frames, once answered.
    pub view: Option<FlameView>,
    /// The frame under the pointer, by its place in the view.
    pub hover: Option<usize>,
    /// The search box's text.
    pub search: String,
    /// Why there is nothing to draw.
    pub error: Option<String>,
    /// Width drawn at, in CSS pixels.
    pub width: f64,
    asks: Vec<u32>,
}

impl Default for FlameGraphState {
    /// The whole graph, asked for.
    fn default() -> Self {
        FlameGraphState {
            root: 0,
            view: None,
            hover: None,
            search: String::new(),
            error: None,
            width: 0.0,
            asks: vec![0],
        }
    }
}

impl FlameGraphState {
    /// The zoom roots to ask the frames of, in order.
    pub fn take_asks(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.asks)
    }

    /// Applies `msg`; `false` when nothing drawn changes.
    pub fn update(&mut self, msg: FlameMsg) -> bool {
        match msg {
            FlameMsg::Zoom(root) => self.zoom(root),
            FlameMsg::View(root, reply) => {
                if root != self.root {
                    return false;
                }
                match reply {
                    Ok(v) => {
                        self.view = Some(v);
                        self.error = None;
                    }
                    Err(e) => {
                        self.view = None;
                        self.error = Some(if root == 0 {
                            t("The trace has no calls to draw.").to_string()
                        } else {
                            e
                        });
                    }
                }
            }
            FlameMsg::Hover(x, y) => {
                let h = self.hit(x, y);
                if h == self.hover {
                    return false;
                }
                self.hover = h;
            }
            FlameMsg::Leave => {
                if self.hover.is_none() {
                    return false;
                }
                self.hover = None;
            }
            FlameMsg::Click(x, y) => {
                let (Some(i), Some(view)) = (self.hit(x, y), &self.view) else {
                    return false;
                };
                let target = if i == 0 {
                    // The zoom root: one level out.
                    match view.ancestors.last() {
                        Some(a) => a.id,
                        None => return false,
                    }
                } else {
                    view.frames[i].id
                };
                self.zoom(target);
            }
            FlameMsg::Search(s) => self.search = s,
            FlameMsg::Escape => {
                if self.root == 0 {
                    return false;
                }
                self.zoom(0);
            }
            FlameMsg::Width(w) => {
                if w == self.width {
                    return false;
                }
                self.width = w;
            }
        }
        true
    }

    fn zoom(&mut self, root: u32) {
        self.root = root;
        self.hover = None;
        self.asks.push(root);
    }

    /// The deepest frame's depth: the graph is one more row high.
    pub fn max_depth(&self) -> u32 {
        self.view
            .as_ref()
            .map_or(0, |v| v.frames.iter().map(|f| f.depth).max().unwrap_or(0))
    }

    /// Pixels per unit of time.
    fn scale(&self) -> f64 {
        let total = self
            .view
            .as_ref()
            .and_then(|v| v.frames.first())
            .map_or(0, |f| f.total);
        if total == 0 {
            0.0
        } else {
            self.width / total as f64
        }
    }

    /// Each frame of the view with where it is drawn: (frame, x, y,
    /// width), the root at the bottom.
    pub fn placed(&self) -> impl Iterator<Item = (&FlameFrame, f64, f64, f64)> {
        let (scale, max_depth) = (self.scale(), self.max_depth());
        self.view
            .iter()
            .flat_map(|v| v.frames.iter())
            .map(move |f| {
                let x = f.start as f64 * scale;
                let w = f.total as f64 * scale;
                let y = f64::from(max_depth - f.depth.min(max_depth)) * ROW;
                (f, x, y, w)
            })
    }

    /// The frame drawn at (x, y), by its place in the view.
    pub fn hit(&self, x: f64, y: f64) -> Option<usize> {
        self.placed()
            .position(|(_, fx, fy, fw)| x >= fx && x < fx + fw && y >= fy && y < fy + ROW)
    }

    /// Whether the search highlights `f`: its name holds the text, in any
    /// case.
    pub fn matches(&self, f: &FlameFrame) -> bool {
        !self.search.is_empty() && f.name.to_lowercase().contains(&self.search.to_lowercase())
    }

    /// The frame under the pointer.
    pub fn hovered(&self) -> Option<&FlameFrame> {
        self.view.as_ref()?.frames.get(self.hover?)
    }
}
