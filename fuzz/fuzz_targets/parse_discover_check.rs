//! Any UTF-8 input must parse, discover and subset-check without panicking, and every
//! diagnostic's primary span must lie inside the input on character boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tritonc_diagnostics::{Diagnostic, FileId};
use tritonc_syntax::{check_kernel_subset, discover, parse_module};

fn check_span(text: &str, d: &Diagnostic) {
    let span = d
        .primary_span()
        .expect("every diagnostic has a primary span");
    assert!(span.start <= span.end && span.end as usize <= text.len());
    assert!(text.is_char_boundary(span.start as usize) && text.is_char_boundary(span.end as usize));
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = parse_module(FileId(0), text);
    parsed.diagnostics.iter().for_each(|d| check_span(text, d));
    let index = discover(&parsed.module);
    index.diagnostics.iter().for_each(|d| check_span(text, d));
    for k in &index.kernels {
        check_kernel_subset(&k.def)
            .iter()
            .for_each(|d| check_span(text, d));
    }
});
