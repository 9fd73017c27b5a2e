//! Bytes in, tokens or one diagnostic out: the compiler's entry point must
//! never panic, hang or allocate without bound on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tinyaot_compiler::{Options, Target, codegen::Ident, codegen::Span};

fuzz_target!(|data: &[u8]| {
    let target = Target { vis: Default::default(), name: Ident::new("Fuzz", Span::call_site()), track_path: None };
    match tinyaot_compiler::compile(data, &target, &Options { arena_limit: Some(64 * 1024), ..Options::default() }) {
        Ok(c) => assert!(!c.tokens.is_empty()),
        Err(e) => assert!(!e.message.is_empty()),
    }
});
