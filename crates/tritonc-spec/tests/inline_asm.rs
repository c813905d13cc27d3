//! `tl.inline_asm_elementwise` on the interpreter: target assembly has no CPU meaning,
//! so a launch that reaches one stops there with E0604 at the call, never a wrong result.

use std::path::Path;

use tritonc_diagnostics::SourceMap;
use tritonc_interp::InterpOptions;
use tritonc_spec::run_spec_file;

#[test]
fn the_interpreter_refuses_inline_assembly_at_the_call() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inline_asm.toml");
    let mut sources = SourceMap::new();
    let errs = match run_spec_file(&spec, &mut sources, &InterpOptions::default()) {
        Ok(_) => panic!("the launch ran inline assembly on the CPU"),
        Err(e) => e,
    };
    assert_eq!(errs.len(), 1, "{errs:?}");
    let d = &errs[0];
    assert_eq!(d.code.0, "E0604", "{d:?}");
    assert!(
        d.message.contains("tl.inline_asm_elementwise") && d.message.contains("cannot run on the CPU"),
        "{}",
        d.message
    );
    let span = d.primary_span().expect("the error points at the call");
    let text = sources.get(span.file).slice(span);
    assert!(text.starts_with("tl.inline_asm_elementwise("), "{text}");
}
