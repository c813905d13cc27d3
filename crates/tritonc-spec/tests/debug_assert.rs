//! Device asserts in debug mode on the interpreter: compiled in only with `debug = true`
//! (or `@triton.jit(debug=True)`), reported at the assert with the failing program,
//! lane and, for tiles, element.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::InterpOptions;
use tritonc_spec::run_spec_file;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.toml"))
}

/// Runs `spec`, which must fail: the one diagnostic and the source under its primary span.
fn failure(spec: &Path) -> (Diagnostic, String) {
    let mut sources = SourceMap::new();
    let errs = match run_spec_file(spec, &mut sources, &InterpOptions::default()) {
        Ok(_) => panic!("{}: the launch succeeded", spec.display()),
        Err(e) => e,
    };
    assert_eq!(errs.len(), 1, "{errs:?}");
    let d = errs.into_iter().next().unwrap();
    let span = d.primary_span().expect("runtime errors point at the op");
    let text = sources.get(span.file).slice(span).to_string();
    (d, text)
}

#[test]
fn the_example_gather_stops_at_its_assert_in_debug_mode() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/debug_assert.toml");
    let (d, text) = failure(&spec);
    assert_eq!(d.code.0, "E0607", "{d:?}");
    assert_eq!(
        d.message,
        "device assertion failed: gather index out of bounds"
    );
    assert!(text.starts_with("tl.device_assert("), "{text}");
    // 4096 indices in blocks of 128 over a 4000-element source: program 31 owns
    // 3968..4096, and its lane 32 holds index 4000, the first past the end.
    assert!(
        d.notes.iter().any(|n| n == "in program 31, lane 32"),
        "{:?}",
        d.notes
    );
}

#[test]
fn without_debug_mode_the_assert_is_not_there() {
    let (d, text) = failure(&fixture("gather_without_debug"));
    assert_eq!(d.code.0, "E0601", "{d:?}");
    assert!(text.starts_with("tl.load(src_ptr + idx"), "{text}");
}

#[test]
fn a_tile_assert_names_the_failing_element() {
    let (d, _) = failure(&fixture("tile_assert"));
    assert_eq!(d.code.0, "E0607");
    assert_eq!(d.message, "device assertion failed: value too large");
    // x = 0..256 row-major over 16x16, n = 37: flat 37 is row 2, column 5.
    assert!(
        d.notes
            .iter()
            .any(|n| n == "in program 0, lane 37, element (2, 5)"),
        "{:?}",
        d.notes
    );
}

#[test]
fn the_decorator_turns_debug_mode_on() {
    // scalar_assert.toml has no `debug` key: nothing is checked and all four programs
    // store; with `@triton.jit(debug=True)` on the kernel, program 3 fails its assert.
    let mut sources = SourceMap::new();
    run_spec_file(
        &fixture("scalar_assert"),
        &mut sources,
        &InterpOptions::default(),
    )
    .expect("no debug mode, no assert");
    let dir = std::env::temp_dir().join(format!("tritonc-debug-assert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kernel = std::fs::read_to_string(fixture("scalar_assert").with_file_name("asserts.py"))
        .unwrap()
        .replace(
            "@triton.jit\ndef scalar_assert",
            "@triton.jit(debug=True)\ndef scalar_assert",
        );
    assert!(kernel.contains("@triton.jit(debug=True)"));
    std::fs::write(dir.join("asserts.py"), kernel).unwrap();
    std::fs::copy(fixture("scalar_assert"), dir.join("scalar_assert.toml")).unwrap();
    let (d, text) = failure(&dir.join("scalar_assert.toml"));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(d.message, "device assertion failed: too many programs");
    assert!(text.starts_with("assert pid < n"), "{text}");
    // A scalar condition: the program, no lane.
    assert!(d.notes.iter().any(|n| n == "in program 3"), "{:?}", d.notes);
}
