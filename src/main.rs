//! The `axgate` command line.
fn main() {}
