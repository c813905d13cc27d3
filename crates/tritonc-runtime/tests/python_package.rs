//! The Python package `python/tritonc_rt` (docs/python.md): its own tests, run with the
//! system `python3`, pass (argument checks, variant choice, grids, the no-driver path
//! and the documented example up to the driver).

use std::path::Path;
use std::process::Command;

#[test]
fn the_python_package_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-p",
            "test_tritonc_rt.py",
        ])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH (scripts/install-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ran 17 tests"), "{text}");
}

/// The launch path against a stand-in libcuda built with `cc` (its own process, since
/// the stand-in replaces the driver): the fast path launches and refuses exactly as the
/// general path does, and DLPack exports launch from their own address.
#[test]
fn the_python_launch_path_tests_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-v",
            "-s",
            "python/tests",
            "-p",
            "test_launch_path.py",
        ])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH (scripts/install-deps.sh installs it)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ran 5 tests"), "{text}");
}

/// Tuning tables are read by Rust and Python alike: both compute the same code digest
/// for a bundle (the one a table records), and `Variants::select_tuned` takes a table
/// only for the variants whose digests it names.
#[test]
fn rust_and_python_agree_on_code_digests_and_tables_match_their_variants() {
    use std::collections::BTreeMap;
    use tritonc_runtime::{EmbeddedBundle, Variants};
    use tritonc_bundle::tuned::{code_digest, Choice, TuneEntry, TuneTable, TunedConfig, TunedVariant};

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("examples/rust/kernels/add_kernel.tcb");
    let bundle = tritonc_runtime::Bundle::read_dir(&dir).expect("the example bundle reads");
    let rust = code_digest(&bundle);
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys; sys.path.insert(0, 'python'); import tritonc_rt; \
             from tritonc_rt._tuned import code_digest; \
             print(code_digest(tritonc_rt.load_bundle(sys.argv[1])))",
            dir.to_str().expect("utf-8 path"),
        ])
        .current_dir(&root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 on PATH");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), rust);

    let leak = |p: &str| -> &'static [u8] {
        Box::leak(std::fs::read(dir.join(p)).expect("bundle file").into_boxed_slice())
    };
    let embedded = EmbeddedBundle {
        name: "v0",
        meta: leak("bundle.json"),
        ptx: leak("kernel.ptx"),
        binary: dir.join("kernel.cubin").is_file().then(|| leak("kernel.cubin")),
    };
    let variants = Variants::unloaded("add_kernel", &[embedded]).expect("loads");
    assert_eq!(variants.digests(), vec![rust.clone()]);
    let key = |n: i64| -> BTreeMap<String, serde_json::Value> {
        [("n_elements".to_string(), serde_json::json!(n))].into_iter().collect()
    };
    // add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: constexpr) as compiled.
    let block = bundle
        .meta
        .params
        .iter()
        .find_map(|p| match &p.role {
            tritonc_bundle::ParamRole::Constexpr(tritonc_bundle::ConstValue::Int(v)) => Some(*v),
            _ => None,
        })
        .expect("a BLOCK_SIZE constexpr");
    let mut table = TuneTable {
        format_version: tritonc_bundle::tuned::TUNE_FORMAT_VERSION,
        kernel: "add_kernel".into(),
        device: "NVIDIA H200".into(),
        target: bundle.meta.target.clone(),
        key: vec!["n_elements".into()],
        configs: vec![TunedConfig {
            label: format!("BLOCK_SIZE={block}"),
            values: [("BLOCK_SIZE".to_string(), serde_json::json!(block))].into_iter().collect(),
            num_warps: bundle.meta.num_warps,
            num_stages: bundle.meta.key.num_stages,
        }],
        entries: vec![TuneEntry {
            key: key(4096),
            winner: 0,
            outcomes: Vec::new(),
            reference: "config 0".into(),
            variants: vec![Some(TunedVariant {
                bundle: Some(bundle.dir_name()),
                digest: rust,
            })],
        }],
        method: String::new(),
    };
    let buf = |addr| {
        tritonc_runtime::Arg::Pointer(tritonc_runtime::DevicePtr {
            addr,
            dtype: tritonc_runtime::DType::F32,
            bytes: 1 << 20,
        })
    };
    let args = |n: i64| {
        [buf(0x10000), buf(0x20000), buf(0x30000), tritonc_runtime::Arg::Int(n), tritonc_runtime::Arg::Int(block)]
    };
    assert_eq!(variants.select_tuned(&table, &key(4096), &args(4096)), Some((0, Choice::Exact(0))));
    assert_eq!(variants.select_tuned(&table, &key(3000), &args(3008)), Some((0, Choice::Nearest(0))));
    // An entry recorded for other code (a recompiled kernel) is not used: the default.
    table.entries[0].variants[0].as_mut().expect("set").digest = "0".repeat(64);
    assert_eq!(variants.select_tuned(&table, &key(4096), &args(4096)), Some((0, Choice::Default)));
}
