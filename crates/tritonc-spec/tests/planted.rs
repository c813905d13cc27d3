//! Planted bugs the interpreter must catch, each reported at the kernel's source line.

use std::path::{Path, PathBuf};

use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::InterpOptions;
use tritonc_spec::run_spec_file;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.toml"))
}

/// Runs a fixture that must fail; returns the diagnostic and the source text of its
/// primary span.
fn failure(name: &str, opts: &InterpOptions) -> (Diagnostic, String) {
    let mut sources = SourceMap::new();
    let errs = match run_spec_file(&fixture(name), &mut sources, opts) {
        Ok(_) => panic!("{name}: the planted bug went unnoticed"),
        Err(e) => e,
    };
    assert_eq!(errs.len(), 1, "{name}: {errs:?}");
    let d = errs.into_iter().next().unwrap();
    let span = d.primary_span().expect("runtime errors point at the op");
    let text = sources.get(span.file).slice(span).to_string();
    (d, text)
}

#[test]
fn unmasked_tail_load_is_out_of_bounds() {
    let (d, text) = failure("unmasked_tail", &InterpOptions::default());
    assert_eq!(d.code.0, "E0601");
    assert!(text.starts_with("tl.load(x_ptr + offs)"), "{text}");
    // 1000 elements, blocks of 256: program 3 owns 768..1024; lane 232 is element 1000.
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("program 3") && n.contains("lane 232")),
        "{d:?}"
    );
    assert!(
        d.message.contains("0 bytes past the end of `x`"),
        "{}",
        d.message
    );
}

#[test]
fn off_by_one_mask_reads_one_past_the_end() {
    let (d, text) = failure("off_by_one_mask", &InterpOptions::default());
    assert_eq!(d.code.0, "E0601");
    assert!(text.starts_with("tl.load"), "{text}");
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("program 3") && n.contains("lane 232")),
        "{d:?}"
    );
}

#[test]
fn int32_offset_wrapping_negative_lands_before_the_buffer() {
    let (d, text) = failure("wrapping_offset", &InterpOptions::default());
    assert_eq!(d.code.0, "E0601");
    assert!(text.starts_with("tl.load"), "{text}");
    // 2 * 2^30 wraps to -2^31 elements: 2^33 bytes before x.
    assert!(
        d.message
            .contains("8589934592 bytes before the start of `x`"),
        "{}",
        d.message
    );
}

#[test]
fn programs_writing_one_block_race() {
    let (d, text) = failure("shared_block_store", &InterpOptions::default());
    assert_eq!(d.code.0, "E0602");
    assert!(text.starts_with("tl.store(out_ptr"), "{text}");
    assert!(
        d.message.contains("write/write") && d.message.contains("program 0"),
        "{}",
        d.message
    );
    assert!(d.notes.iter().any(|n| n.contains("program 1")), "{d:?}");
}

#[test]
fn poisoned_masked_lanes_expose_undefined_reads() {
    let mut sources = SourceMap::new();
    let clean = run_spec_file(
        &fixture("masked_sum"),
        &mut sources,
        &InterpOptions::default(),
    )
    .expect("runs");
    let out = clean
        .launch
        .tensors
        .iter()
        .find(|t| t.name == "out")
        .unwrap();
    assert!(out.values(&clean.launch.memory)[0].is_finite());
    let opts = InterpOptions {
        poison_masked: true,
        ..InterpOptions::default()
    };
    let poisoned = run_spec_file(&fixture("masked_sum"), &mut sources, &opts).expect("runs");
    let out = poisoned
        .launch
        .tensors
        .iter()
        .find(|t| t.name == "out")
        .unwrap();
    assert!(out.values(&poisoned.launch.memory)[0].is_nan());
}

/// Runs `f` on a pool of `threads` workers.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
        .install(f)
}

#[test]
fn findings_are_the_same_on_any_number_of_threads() {
    for name in ["shared_block_store", "unmasked_tail", "off_by_one_mask"] {
        let one = on_threads(1, || failure(name, &InterpOptions::default()));
        for threads in [2, 3, 7] {
            let many = on_threads(threads, || failure(name, &InterpOptions::default()));
            assert_eq!(one.0.message, many.0.message, "{name} on {threads} threads");
            assert_eq!(one.0.notes, many.0.notes, "{name} on {threads} threads");
            assert_eq!(one.1, many.1, "{name} on {threads} threads");
        }
    }
}

#[test]
fn results_are_bitwise_the_same_on_any_number_of_threads() {
    // Every example spec with a reduction, a scan or a dot: the bytes of every buffer.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for spec in ["softmax", "layer_norm_fwd", "cumsum", "matmul", "rms_norm"] {
        let path = examples.join(format!("{spec}.toml"));
        let run = |threads| {
            on_threads(threads, || {
                let mut sources = SourceMap::new();
                let out = run_spec_file(&path, &mut sources, &InterpOptions::default())
                    .unwrap_or_else(|e| panic!("{spec}: {e:?}"));
                out.launch.memory.buffers().to_vec()
            })
        };
        let one = run(1);
        assert!(one.iter().any(|b| b.bytes.iter().any(|&x| x != 0)), "{spec}");
        for threads in [2, 5] {
            assert!(run(threads) == one, "{spec}: {threads} threads differ from 1");
        }
    }
}
