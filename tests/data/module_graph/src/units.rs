pub struct Metres;

impl Metres {
    pub fn square(x: f64) -> f64 {
        x * x * inner::sides() as f64
    }
}

mod inner {
    pub fn sides() -> usize {
        format!("{}", super::super::shapes::sides::SIDES).len()
    }
}

#[cfg(test)]
mod tests;
