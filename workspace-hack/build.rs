//! Empty: it lets the `[build-dependencies]` of `Cargo.toml` give the
//! host's builds of those crates the tests' features.

fn main() {}
