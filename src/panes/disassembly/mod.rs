//! The disassembly pane (`i`): the ELF image's function around the
//! position, each instruction with how often it ran and failed its
//! condition; the position's instruction marked, those never run greyed; a
//! click goes to the instruction's next execution.

mod model;
#[cfg(target_arch = "wasm32")]
mod view;

pub use model::{Disassembly, Line};
#[cfg(target_arch = "wasm32")]
pub use view::view;
