use crate::shapes::Shape;
use crate::units::Metres;
// Through the crate root's door, to `shapes/area.rs`.
use crate::Area;

pub fn measure() -> usize {
    let shape = Shape { sides: 4 };
    let area: Area = shape.area();
    Metres::square(area.0) as usize
}
