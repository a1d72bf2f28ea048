pub mod area;
pub mod sides;

pub use area::Area;
// A door for this folder's files, not a use of `units` by this file.
pub(crate) use crate::units::Metres;

pub struct Shape {
    pub sides: usize,
}

impl Shape {
    // A folder's front file and its own files may use each other: `area.rs`
    // uses `Shape`, this uses `Area`, and that is no circle.
    pub fn area(&self) -> Area {
        Area(self.sides as f64)
    }
}

#[cfg(test)]
mod tests {
    // A file's tests may use anything: `tools` uses this file, and that is
    // no circle.
    use crate::tools::*;

    #[test]
    fn measures() {
        assert_eq!(measure(), 4);
    }
}
