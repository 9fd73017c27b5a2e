//! The README's op x dtype table is the registry's (`tinyaot ops`).

#[test]
fn readme_op_table_matches_the_registry() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let start =
        readme.find("<!-- ops:start -->\n").expect("README has the ops:start marker") + "<!-- ops:start -->\n".len();
    let end = readme.find("<!-- ops:end -->").expect("README has the ops:end marker");
    assert_eq!(
        &readme[start..end],
        tinyaot_compiler::lowering::registry::support_table(),
        "README op table is stale: regenerate it with `cargo run -p tinyaot-cli -- ops`"
    );
}
