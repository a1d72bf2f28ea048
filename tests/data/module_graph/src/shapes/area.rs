// The parent's names, `Metres` among them (through its re-export), and
// `Shape`, the parent's own.
use super::*;

pub const CORNERS: usize = 4;

pub struct Area(pub f64);

impl Area {
    pub fn in_metres(&self) -> f64 {
        Metres::square(self.0)
    }

    pub fn of(shape: &Shape) -> Area {
        Area(shape.sides as f64)
    }
}
