//! Machine state containers: the register file and memory.

pub mod fasthash;
pub mod memory;
pub mod regfile;
