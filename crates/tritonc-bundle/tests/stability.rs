//! The bundle format's stability policy (docs/runtime.md, "Stability of the format"),
//! statement by statement, on the NVIDIA bundle `examples/rust/kernels/add_kernel.tcb`:
//! a bundle as the first version-1 writers wrote it (none of the optional fields added
//! since) loads, with each absent field at the default that keeps the old meaning; a
//! bundle from a newer writer that added an optional field this reader does not know
//! loads; a newer `format_version` is refused before any other field is read, naming
//! it; a field renamed or removed within a version is malformed metadata; the key hash
//! of a key written before the newer key fields existed is unchanged. The Python reader
//! (`python/tritonc_rt`) is held to the same statements by `python/tests`.

use std::path::Path;

use serde_json::{json, Value};
use tritonc_bundle::{Bundle, BundleError, FORMAT_VERSION};

fn example() -> (Value, Vec<u8>, Vec<u8>) {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rust/kernels/add_kernel.tcb");
    let meta = std::fs::read(dir.join("bundle.json")).expect("the example bundle");
    let ptx = std::fs::read(dir.join("kernel.ptx")).expect("its PTX");
    let cubin = std::fs::read(dir.join("kernel.cubin")).expect("its cubin");
    (serde_json::from_slice(&meta).expect("JSON"), ptx, cubin)
}

fn load(meta: &Value, ptx: &[u8], cubin: &[u8]) -> Result<Bundle, BundleError> {
    Bundle::from_bytes(&serde_json::to_vec(meta).unwrap(), ptx, Some(cubin))
}

/// The optional fields added to version 1 after its first writers, with the default
/// that keeps the old meaning (docs/runtime.md lists them).
const ADDED_SINCE: &[&str] = &[
    "static_shared_bytes",
    "hidden_params",
    "reduction_layouts",
    "ptxas",
    "min_driver_version",
];

#[test]
fn a_bundle_from_the_first_version_1_writers_still_loads_with_the_old_meaning() {
    let (mut meta, ptx, cubin) = example();
    let obj = meta.as_object_mut().unwrap();
    for field in ADDED_SINCE {
        obj.remove(*field);
    }
    let bundle = load(&meta, &ptx, &cubin).expect("an old bundle loads");
    assert_eq!(bundle.meta.format_version, FORMAT_VERSION);
    assert_eq!(bundle.meta.static_shared_bytes, 0);
    assert!(bundle.meta.hidden_params.is_empty());
    assert_eq!(bundle.meta.ptxas, None);
    assert_eq!(bundle.meta.min_driver_version, None);
    // Without the recorded figure the loader reads the oldest driver from the PTX.
    assert_eq!(
        bundle.min_driver_version(),
        tritonc_bundle::min_driver_for_ptx(&bundle.ptx)
    );
    assert!(bundle.min_driver_version().is_some());
}

#[test]
fn an_optional_field_this_reader_does_not_know_is_ignored() {
    let (mut meta, ptx, cubin) = example();
    let reference = load(&meta, &ptx, &cubin).unwrap();
    meta["a_field_from_a_newer_tritonc"] = json!({"anything": [1, 2, 3]});
    let bundle = load(&meta, &ptx, &cubin).expect("a newer writer's optional field is ignored");
    assert_eq!(bundle, reference);
}

#[test]
fn a_newer_version_is_refused_first_and_by_name() {
    let (mut meta, ptx, cubin) = example();
    meta["format_version"] = json!(FORMAT_VERSION + 2);
    // Whatever else the newer format changed is not read.
    meta["params"] = json!("a shape this reader cannot parse");
    let err = load(&meta, &ptx, &cubin).unwrap_err();
    assert!(
        matches!(err, BundleError::UnsupportedVersion { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("written by a newer tritonc"),
        "{err}"
    );
}

#[test]
fn a_field_removed_or_renamed_within_a_version_is_malformed() {
    let (meta, ptx, cubin) = example();
    for required in ["entry", "target", "key", "key_hash", "num_warps", "params"] {
        let mut m = meta.clone();
        let value = m.as_object_mut().unwrap().remove(required).unwrap();
        let err = load(&m, &ptx, &cubin).unwrap_err();
        assert!(matches!(err, BundleError::Json { .. }), "{required}: {err}");
        m[format!("{required}_renamed")] = value;
        assert!(load(&m, &ptx, &cubin).is_err(), "{required} renamed");
    }
}

#[test]
fn the_key_hash_of_an_old_key_is_unchanged() {
    // Written before `debug` and `triton_version` were key fields: the example's key has
    // neither, and its recorded hash (also its directory name) is what the key hashes
    // to now; `validate` checks the same on every load.
    let (meta, ptx, cubin) = example();
    let key = meta["key"].as_object().unwrap();
    assert!(!key.contains_key("debug") && !key.contains_key("triton_version"));
    let bundle = load(&meta, &ptx, &cubin).unwrap();
    assert_eq!(bundle.meta.key.hash_hex(), "1aaae5f98fd84e7d");
    assert_eq!(bundle.meta.key_hash, "1aaae5f98fd84e7d");
}
