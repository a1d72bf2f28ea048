// A sibling's item, named through `super::`.
pub const SIDES: usize = super::area::CORNERS;
