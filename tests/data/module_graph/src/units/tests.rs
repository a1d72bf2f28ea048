use super::super::tools::measure;

#[test]
fn squares() {
    assert_eq!(super::Metres::square(1.0), measure() as f64);
}
