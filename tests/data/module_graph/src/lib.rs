//! A crate holding one circle of files (see ../README.md).

mod shapes;
mod tools;
mod units;

// Doors, not uses: a path through them leads to the item's own file.
pub use shapes::area::Area;
pub use units::Metres;

/// A local name that is also a module's is no use of the module.
pub fn count() -> usize {
    let shapes = 2;
    shapes + 1
}
