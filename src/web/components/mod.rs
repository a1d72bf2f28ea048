//! Yew components of the page. Layout-critical styles are inline so that a
//! component renders usably without www/styles.css (wasm-bindgen-test pages
//! load no stylesheet); colours and polish live in the stylesheet.

mod app;
mod counts_table;
mod drop_zone;
mod error_banner;
mod file_summary;
mod progress_bar;
mod unparsed_list;

pub use app::App;
pub use counts_table::{CountsTable, CountsTableProps};
pub use drop_zone::{DropZone, DropZoneProps};
pub use error_banner::{ErrorBanner, ErrorBannerProps};
pub use file_summary::{FileSummary, FileSummaryProps};
pub use progress_bar::{ProgressBar, ProgressBarProps};
pub use unparsed_list::{UnparsedList, UnparsedListProps};
