//! Machine state containers: the register file and memory.

pub(crate) mod fasthash;
pub mod memory;
pub mod regfile;
