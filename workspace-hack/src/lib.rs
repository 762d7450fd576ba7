//! No code: this package only gives the dependencies the inventory's run
//! shares with the workspace's tests the features the tests use, so that
//! `cargo test` after `cargo run -p inventory` reuses the run's build
//! instead of compiling those crates, and every crate above them, again.
//! Its manifest says how it is kept true.
