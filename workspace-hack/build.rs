// Empty: Cargo builds the build-dependencies in Cargo.toml only for a
// package with a build script.
fn main() {}
