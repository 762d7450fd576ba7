//! The macros' compile-time contract: every case under `ui/fail` must fail
//! to compile with exactly the diagnostic beside it (`*.stderr`), every case
//! under `ui/pass` must compile and run. `TRYBUILD=overwrite cargo test -p
//! mcp-light-ui-tests` rewrites the `.stderr` files after a deliberate change.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
