//! The op x dtype table in docs/operators.md is the registry's (`tinyaot ops`).

#[test]
fn op_table_matches_the_registry() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/operators.md")).unwrap();
    let start = readme.find("<!-- ops:start -->\n").expect("docs/operators.md has the ops:start marker")
        + "<!-- ops:start -->\n".len();
    let end = readme.find("<!-- ops:end -->").expect("docs/operators.md has the ops:end marker");
    assert_eq!(
        &readme[start..end],
        tinyaot_compiler::lowering::registry::support_table(),
        "docs/operators.md op table is stale: regenerate it with `cargo run -p tinyaot-cli -- ops`"
    );
}
