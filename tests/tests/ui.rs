//! Compile-time behaviour of `include_model!`: every bad input is one clear
//! error at the right span (expected messages in `tests/ui/fail/*.stderr`),
//! and every accepted `arena_limit` form compiles.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/pass/*.rs");
    t.compile_fail("ui/fail/*.rs");
}
