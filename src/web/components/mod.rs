//! Yew components of the page. Layout-critical styles are inline so that a
//! component renders usably without www/styles.css (wasm-bindgen-test pages
//! load no stylesheet); colours and polish live in the stylesheet.

mod app;
mod browser;
mod condition_status;
mod context_menu;
mod core_picker;
mod counts_table;
mod demo_button;
mod diff_view;
mod document_title;
mod drop_zone;
mod elf_loader;
mod error_banner;
mod file_notice;
mod file_summary;
mod help_overlay;
mod index_cache_control;
mod memory_pane;
mod minibuffer;
mod palette;
mod pane_header;
mod progress_bar;
mod rehearsal;
mod reports;
mod search_bar;
mod splitter;
mod timeline_strip;
mod toolbar_menu;
mod trace_pane;
mod trace_row;
mod unparsed_list;
pub(crate) mod windowed;

pub use app::App;
pub use browser::{Browser, BrowserProps, Session};
pub use condition_status::{
    ConditionError, ConditionErrorProps, ConditionProgress, ConditionProgressProps,
};
pub use context_menu::{ContextMenu, ContextMenuProps};
pub use core_picker::{CorePicker, CorePickerProps};
pub use counts_table::{CountsTable, CountsTableProps};
pub use demo_button::{DemoButton, DemoButtonProps};
pub use diff_view::{DiffView, DiffViewProps};
pub use document_title::{title_for, use_document_title};
pub use drop_zone::{DropZone, DropZoneProps};
pub use elf_loader::{parse_offset, ElfLoad, ElfLoader, ElfLoaderProps};
pub use error_banner::{ErrorBanner, ErrorBannerProps};
pub use file_notice::{mostly_unparsed, shows_no_rows, FileNotice, FileNoticeProps};
pub use file_summary::{FileSummary, FileSummaryProps};
pub use help_overlay::{HelpOverlay, HelpOverlayProps};
pub use index_cache_control::IndexCacheControl;
pub use memory_pane::{MemoryPane, MemoryPaneProps};
pub use minibuffer::{delete_word, recall, Minibuffer, MinibufferProps};
pub use palette::{Palette, PaletteProps};
pub use pane_header::{PaneHeader, PaneHeaderProps};
pub use progress_bar::{ProgressBar, ProgressBarProps};
pub use rehearsal::{Rehearsal, RehearsalProps};
pub use reports::{ReportTab, ReportsPanel, ReportsPanelProps};
pub use search_bar::{SearchBar, SearchBarProps, SearchForm, SearchStatus};
pub use splitter::{Sizes, Splitter, SplitterProps};
pub use timeline_strip::{TimelineStrip, TimelineStripProps, TIMELINE_STYLE};
pub use toolbar_menu::{ToolbarMenu, ToolbarMenuProps};
pub use trace_pane::{marker_index, TracePane, TracePaneProps};
pub use trace_row::{highlighted, TraceRow, TraceRowProps};
pub use unparsed_list::{UnparsedList, UnparsedListProps};
