//! Hostile specs: sizes past what the host can hold, a grid that launches nothing, a
//! number passed where the kernel wants a pointer. Each is a spec error at the spec's
//! text, never an abort or a silent success.

mod common;

use std::path::PathBuf;

use common::example;
use tritonc_diagnostics::{Diagnostic, SourceMap};
use tritonc_interp::InterpOptions;
use tritonc_spec::{codes, run_spec_file};

/// examples/vector_add.toml with `edit` applied, beside a copy of its kernel.
fn vector_add_with(name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-hostile-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(example("vector_add.py"), dir.join("vector_add.py")).expect("copy kernel");
    let spec = edit(std::fs::read_to_string(example("vector_add.toml")).expect("spec"));
    std::fs::write(dir.join("spec.toml"), spec).expect("write spec");
    dir.join("spec.toml")
}

/// The diagnostics of running the spec (which must fail), with the spec's text.
fn errors_of(path: &PathBuf) -> (Vec<Diagnostic>, String) {
    let mut sources = SourceMap::new();
    let text = std::fs::read_to_string(path).expect("spec");
    match run_spec_file(path, &mut sources, &InterpOptions::default()) {
        Ok(_) => panic!("{} ran", path.display()),
        Err(ds) => (ds, text),
    }
}

/// The spec text under the primary label of `d`.
fn spanned<'a>(d: &Diagnostic, text: &'a str) -> &'a str {
    let l = d
        .labels
        .iter()
        .find(|l| l.primary)
        .unwrap_or_else(|| panic!("`{}` has no primary label", d.message));
    &text[l.span.start as usize..l.span.end as usize]
}

#[test]
fn a_tensor_of_a_million_by_a_million_is_refused_before_allocation() {
    let spec = vector_add_with("huge", |s| {
        s.replacen("shape = [98432]", "shape = [1000000, 1000000]", 1)
    });
    let (ds, text) = errors_of(&spec);
    assert!(ds.iter().all(|d| d.code.0.starts_with("E07")), "{ds:#?}");
    let d = ds
        .iter()
        .find(|d| d.code == codes::BAD_TENSOR && d.message.contains("`x` is too large"))
        .unwrap_or_else(|| panic!("{ds:#?}"));
    assert!(
        spanned(d, &text).contains("tensors.x"),
        "{}",
        spanned(d, &text)
    );
}

#[test]
fn a_float_shape_is_an_error_not_an_allocation() {
    let spec = vector_add_with("float", |s| {
        s.replacen("shape = [98432]", "shape = [1e6, 1e6]", 1)
    });
    let (ds, _) = errors_of(&spec);
    assert!(ds.iter().all(|d| d.code.0.starts_with("E07")), "{ds:#?}");
}

#[test]
fn tensors_that_together_pass_host_memory_are_refused() {
    let Some(host) = tritonc_spec::run::host_memory_bytes() else {
        return; // no /proc/meminfo: the limit is the per-buffer one alone
    };
    // Each tensor takes 60% of the host's memory: the first fits, the second does not.
    let n = host / 10 * 6 / 4;
    let spec = vector_add_with("together", |s| {
        s.replace("shape = [98432]", &format!("shape = [{n}]"))
            .replace("init = \"rand\"", "init = \"zeros\"")
    });
    let (ds, text) = errors_of(&spec);
    assert!(ds.iter().all(|d| d.code == codes::BAD_TENSOR), "{ds:#?}");
    assert!(
        ds[0].message.contains("`y` is too large"),
        "{}",
        ds[0].message
    );
    assert!(ds[0].message.contains("host's memory"), "{}", ds[0].message);
    assert!(
        spanned(&ds[0], &text).contains("tensors.y"),
        "{}",
        spanned(&ds[0], &text)
    );
}

#[test]
fn a_zero_grid_dimension_is_an_error_at_the_grid() {
    let spec = vector_add_with("zero-grid", |s| {
        s.replace(
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]",
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\", 0]",
        )
    });
    let (ds, text) = errors_of(&spec);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0].code, codes::EMPTY_GRID);
    assert!(
        ds[0].message.contains("grid dimension 1 is 0"),
        "{}",
        ds[0].message
    );
    assert_eq!(spanned(&ds[0], &text), "0");
}

#[test]
fn a_grid_past_the_launch_limits_is_an_error_at_the_dimension() {
    let spec = vector_add_with("huge-grid", |s| {
        s.replace(
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]",
            "grid = [1000000, 1000000]",
        )
    });
    let (ds, text) = errors_of(&spec);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0].code, codes::GRID_TOO_LARGE);
    assert!(
        ds[0].message.contains("grid dimension 1 is 1000000")
            && ds[0].message.contains("at most 65535 programs along y"),
        "{}",
        ds[0].message
    );
    assert_eq!(spanned(&ds[0], &text), "1000000");
    // x allows 2^31 - 1; one more is refused.
    let spec = vector_add_with("huge-x", |s| {
        s.replace(
            "grid = [\"triton.cdiv(x.numel, BLOCK_SIZE)\"]",
            "grid = [\"2**31\"]",
        )
    });
    let (ds, _) = errors_of(&spec);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0].code, codes::GRID_TOO_LARGE);
}

#[test]
fn a_grid_that_evaluates_to_zero_is_an_error() {
    // An empty tensor makes `cdiv(x.numel, BLOCK)` 0.
    let spec = vector_add_with("empty", |s| s.replace("shape = [98432]", "shape = [0]"));
    let (ds, _) = errors_of(&spec);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0].code, codes::EMPTY_GRID);
    assert!(
        ds[0].message.contains("grid dimension 0 is 0"),
        "{}",
        ds[0].message
    );
}

#[test]
fn an_integer_for_a_pointer_parameter_names_the_parameter() {
    let spec = vector_add_with("int-ptr", |s| s.replace("y_ptr = \"y\"", "y_ptr = 5"));
    let (ds, text) = errors_of(&spec);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0].code, codes::ARGUMENT_MISMATCH);
    assert!(ds[0].message.contains("`y_ptr`"), "{}", ds[0].message);
    assert!(ds[0].message.contains("pointer"), "{}", ds[0].message);
    assert!(!ds[0].message.contains("element_ty"), "{}", ds[0].message);
    assert_eq!(spanned(&ds[0], &text), "5");
}

#[test]
fn shapes_only_preparation_allocates_nothing_and_specializes_as_prepare() {
    // 2^40 f32 elements (4 TiB): refused with data, prepared without.
    let huge = vector_add_with("shapes-huge", |s| {
        s.replace("shape = [98432]", "shape = [1048576, 1048576]")
    });
    let small = vector_add_with("shapes-small", |s| s);
    let parse = |path: &PathBuf, sources: &mut SourceMap| {
        let text = std::fs::read_to_string(path).expect("spec");
        let file = sources.add(path.clone(), text.as_str());
        tritonc_spec::parse(&text, file).expect("parses")
    };
    let mut sources = SourceMap::new();
    let spec = parse(&huge, &mut sources);
    let errors = match tritonc_spec::prepare(&spec, &huge, &mut sources) {
        Ok(_) => panic!("4 TiB of tensors were prepared with data"),
        Err(ds) => ds,
    };
    assert!(
        errors.iter().any(|d| d.code == codes::BAD_TENSOR)
            && errors.iter().all(|d| d.code.0.starts_with("E07")),
        "{errors:#?}"
    );
    let (launch, _, _) =
        tritonc_spec::prepare_shapes(&spec, &huge, &mut sources).expect("shapes only");
    assert_eq!(launch.tensors[0].shape, vec![1usize << 20, 1 << 20]);
    assert!(launch
        .tensors
        .iter()
        .all(|t| launch.memory.buffer(t.buffer).bytes.is_empty()));
    // n_elements = 2^40 is an i64 divisible by 16; the pointers are as `prepare` makes them.
    let spec_small = parse(&small, &mut sources);
    let (with_data, _, _) =
        tritonc_spec::prepare(&spec_small, &small, &mut sources).expect("prepares");
    let (shapes, _, _) =
        tritonc_spec::prepare_shapes(&spec_small, &small, &mut sources).expect("shapes only");
    assert_eq!(with_data.specialization, shapes.specialization);
    assert_eq!(with_data.runtime_args, shapes.runtime_args);
    assert_eq!(with_data.grid, shapes.grid);
}
