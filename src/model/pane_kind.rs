//! What a registry line says of a kind of pane ([`Entry`]), apart from the
//! list itself (`model::registry`): a kind in its own folder
//! (`src/panes/`) writes its line with these, and the list reads the
//! folders' lines, so neither file imports the other.

use super::pane_state::PaneState;
use tarmac_lens_core::protocol::{NodeId, WriteTarget};

/// The kind of the focused pane, which picks its key table
/// (`keys::tables`). Here rather than in `keys` so that a registry line can
/// name its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneKind {
    /// A trace view.
    Trace,
    /// A register pane (and any pane without keys of its own).
    Registers,
    /// A memory pane.
    Memory,
    /// The source pane.
    Source,
}

/// Where a kind of pane sits at first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Right of the views: narrow panes (registers, lists).
    Side,
    /// Under the views: wide panes (16 bytes a row, source lines, tables).
    Bottom,
}

/// How a pane opened by its key closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Close {
    /// The key that opened it.
    Same,
    /// This key, with the pane focused.
    Key(&'static str),
    /// Its header's × only (the key asks what to show, so it cannot also
    /// hide).
    Button,
}

/// What a pane kind's keys do.
#[derive(Clone, Copy, Debug)]
pub enum Opens {
    /// They run the commands `model::keys` binds them to.
    Commands,
    /// They show or hide it (`Command::TogglePane`).
    Toggle {
        /// Its state when it opens.
        make: fn() -> Box<dyn PaneState>,
        /// What the keys' help and the palette say.
        help: &'static str,
    },
    /// They run the commands `model::keys` binds them to, which show it
    /// with this state and may then tell it what to show
    /// (`PaneState::update`: the Reports panel's tab, the source pane's
    /// line).
    Shown {
        /// Its state when it opens.
        make: fn() -> Box<dyn PaneState>,
    },
    /// They run the commands `model::keys` binds them to, which open it
    /// on a register or memory range (`W`, `y`, a context menu).
    Target {
        /// Its state on that target.
        make: fn(OpenOn<'_>) -> Box<dyn PaneState>,
    },
    /// They run the commands `model::keys` binds them to, which show or
    /// hide a pane of this kind on one set of registers (`r`, `S`, …).
    Registers {
        /// Its state on that set.
        make: fn(RegKind) -> Box<dyn PaneState>,
    },
    /// They run the commands `model::keys` binds them to, which open a
    /// pane of this kind (there may be several) on an address (`m`, a
    /// context menu, `&panes=mem:`).
    Address {
        /// Its state at that address.
        make: fn(u64) -> Box<dyn PaneState>,
    },
}

/// What a pane that opens on a register or memory range is opened on.
pub struct OpenOn<'a> {
    /// The register or memory range.
    pub target: WriteTarget,
    /// The position it was asked at (0 before there is one).
    pub node: NodeId,
    /// That node's first line.
    pub line: u64,
    /// The state of the pane of its kind it replaces, if one is shown.
    pub previous: Option<&'a dyn PaneState>,
}

/// One kind of pane.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Its name in the layout's saved text and the page's `data-slot`.
    pub name: &'static str,
    /// English; translated where shown (`i18n::t`).
    pub title: &'static str,
    /// Where it sits at first.
    pub place: Place,
    /// The keys (as `keys::key_name` spells them) that open it.
    pub keys: &'static [&'static str],
    /// What the key asks for before the pane opens, as a person would type
    /// it (`None`: it opens at once).
    pub prompt: Option<&'static str>,
    /// How it closes.
    pub close: Close,
    /// What its keys do.
    pub opens: Opens,
    /// How it is listed among the other panes of its area: panes of the
    /// same rank keep the order they opened in.
    pub rank: u8,
    /// In the bottom row it takes twice the others' share (a table).
    pub wide: bool,
    /// A new page shows it (not the compact embedded viewer, nor a page
    /// whose panes the URL chose).
    pub at_start: bool,
    /// What the page keeps fresh for it while it is shown.
    pub feed: Option<Feed>,
    /// It follows a view's position, one pane per view if need be, and
    /// takes the keyboard focus (Tab) with this key table; `None`: a list
    /// with its own clicks, one in the page.
    pub focus: Option<PaneKind>,
}

/// A list the page keeps (`Model::nav`) only while a pane shows it: asked
/// when such a pane opens, again as indexing goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feed {
    /// The trace's events, a page at a time, the page following `e`/`E`.
    Events,
}

/// The register panes, in the order `r S D V M Z w` and the toolbar list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegKind {
    /// The general-purpose registers (`r`).
    Core,
    /// Single-precision FP registers (`S`).
    Single,
    /// Double-precision FP registers (`D`).
    Double,
    /// NEON vector registers (`V`).
    Neon,
    /// MVE vector registers (`M`).
    Mve,
    /// SVE vector registers (`Z`).
    Sve,
    /// Every register the position changed, from all the panels above.
    Changed,
}

impl RegKind {
    /// Every kind, in the order the keys and the toolbar list them.
    pub const ALL: [RegKind; 7] = [
        RegKind::Core,
        RegKind::Single,
        RegKind::Double,
        RegKind::Neon,
        RegKind::Mve,
        RegKind::Sve,
        RegKind::Changed,
    ];

    /// The panel kind in a [`tarmac_lens_core::protocol::RegPanel`].
    pub fn panel(self) -> &'static str {
        match self {
            RegKind::Core => "core",
            RegKind::Single => "single",
            RegKind::Double => "double",
            RegKind::Neon => "neon",
            RegKind::Mve => "mve",
            RegKind::Sve => "sve",
            RegKind::Changed => "changed",
        }
    }

    /// The pane's heading.
    pub fn title(self) -> &'static str {
        match self {
            RegKind::Core => "Core registers",
            RegKind::Single => "Single-precision FP",
            RegKind::Double => "Double-precision FP",
            RegKind::Neon => "NEON vectors",
            RegKind::Mve => "MVE vectors",
            RegKind::Sve => "SVE vectors",
            RegKind::Changed => "Changed registers",
        }
    }

    /// Cells per row: wide vectors get a row each; in the side area (about
    /// 420 px) the core registers two.
    pub fn columns(self, side: bool) -> usize {
        match self {
            RegKind::Core if side => 2,
            RegKind::Core => 4,
            RegKind::Single | RegKind::Double | RegKind::Changed => 2,
            RegKind::Neon | RegKind::Mve | RegKind::Sve => 1,
        }
    }
}
