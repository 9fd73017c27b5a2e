//! Bytes in, tokens or one diagnostic out: the compiler's entry point must
//! never panic, hang or allocate without bound on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tinyaot_compiler::{Target, codegen::Ident, codegen::Span};

fuzz_target!(|data: &[u8]| {
    let target = Target { vis: Default::default(), name: Ident::new("Fuzz", Span::call_site()), track_path: None, in_place: true };
    match tinyaot_compiler::compile(data, &target, Some(64 * 1024)) {
        Ok(c) => assert!(!c.tokens.is_empty()),
        Err(e) => assert!(!e.message.is_empty()),
    }
});
