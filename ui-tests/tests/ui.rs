//! The macros' compile-time contract: every case under `ui/fail` must fail
//! to compile with exactly the diagnostic beside it (`*.stderr`), every case
//! under `ui/pass` must compile and run. `TRYBUILD=overwrite cargo test -p
//! mcp-light-ui-tests` rewrites the `.stderr` files after a deliberate change.

#[test]
fn ui() {
    // trybuild builds the cases, and every dependency again, in a target
    // directory of its own. Nothing there is ever debugged, so it is built
    // without debug info, which is much of that build's time.
    // SAFETY: this is the only test of its binary; no other thread reads the
    // environment while it is set.
    unsafe { std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false") };
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
