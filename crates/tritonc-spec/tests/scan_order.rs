//! fp16 `tl.cumsum` on the interpreter against Triton 3.6 on an H200, bit for bit: the
//! outputs in fixtures/scan_gpu.json were recorded by scripts/scan_fixture.py. fp16 scans
//! round after every combine, so this holds only if the interpreter combines in Triton's
//! GPU order (`ReductionOrderSource::Triton`, tritonc_interp::scan_order); the sequential
//! order differs, as checked below.

mod common;

use std::path::{Path, PathBuf};

use common::{example, tensor};
use half::f16;
use serde_json::Value;
use tritonc_diagnostics::SourceMap;
use tritonc_interp::{InterpOptions, ReductionOrderSource};
use tritonc_spec::{npy, run_spec_file};

/// scripts/scan_fixture.py's `input_value`: multiples of 2^-10 in [-2, 2).
fn input_value(seed: u32, i: u32) -> f32 {
    let mut h = i.wrapping_add(seed.wrapping_mul(0x9E37_79B9));
    h ^= h >> 16;
    h = h.wrapping_mul(0x045D_9F3B);
    h ^= h >> 16;
    h = h.wrapping_mul(0x045D_9F3B);
    h ^= h >> 16;
    ((h % 4096) as i32 - 2048) as f32 / 1024.0
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Writes the case's input and spec into a fresh directory; returns the spec's path.
fn prepare_case(case: &Value) -> PathBuf {
    let get = |k: &str| case[k].as_u64().expect("number") as usize;
    let (seed, rows, cols, warps) = (get("seed"), get("rows"), get("cols"), get("num_warps"));
    let kind = case["kind"].as_str().expect("kind");
    let dir =
        std::env::temp_dir().join(format!("tritonc-scan-{}-{kind}-{seed}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bytes = (0..rows * cols)
        .flat_map(|i| f16::from_f32(input_value(seed as u32, i as u32)).to_le_bytes())
        .collect();
    let shape = if kind == "reverse" {
        vec![cols]
    } else {
        vec![rows, cols]
    };
    let x = npy::NpyArray {
        dtype: tritonc_ir::DType::F16,
        shape: shape.clone(),
        bytes,
    };
    std::fs::write(dir.join("x.npy"), npy::write(&x)).expect("write npy");
    let spec = if kind == "reverse" {
        std::fs::copy(fixtures().join("reverse_scan.py"), dir.join("k.py")).expect("copy");
        format!(
            "kernel = \"k.py\"\ngrid = [1]\nnum_warps = {warps}\n\
             [tensors.x]\nshape = [{cols}]\ndtype = \"float16\"\ninit = \"npy\"\npath = \"x.npy\"\n\
             [tensors.out]\nshape = \"x.shape\"\ndtype = \"float16\"\noutput = true\n\
             [args]\nx_ptr = \"x\"\nout_ptr = \"out\"\nBLOCK = {cols}\n"
        )
    } else {
        std::fs::copy(example("cumsum.py"), dir.join("cumsum.py")).expect("copy");
        // examples/cumsum.toml with fp16 in and out.
        std::fs::read_to_string(example("cumsum.toml"))
            .expect("spec")
            .replace("seed = 3", &format!("num_warps = {warps}"))
            .replace("shape = [1000, 300]", &format!("shape = [{rows}, {cols}]"))
            .replace("dtype = \"int32\"", "dtype = \"float16\"")
            .replace("dtype = \"int64\"", "dtype = \"float16\"")
            .replace(
                "init = \"randint\"\nlow = -100\nhigh = 100",
                "init = \"npy\"\npath = \"x.npy\"",
            )
    };
    std::fs::write(dir.join("scan.toml"), spec).expect("write spec");
    dir.join("scan.toml")
}

fn output_bits(spec: &Path, orders: ReductionOrderSource) -> Vec<u16> {
    let mut sources = SourceMap::new();
    let opts = InterpOptions {
        reduction_orders: orders,
        ..InterpOptions::default()
    };
    let o = run_spec_file(spec, &mut sources, &opts)
        .unwrap_or_else(|ds| panic!("{:?}", ds.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let t = tensor(&o, "out");
    o.launch.memory.buffer(t.buffer).bytes[..t.shape.iter().product::<usize>() * 2]
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn gpu_bits(case: &Value) -> Vec<u16> {
    let hex = case["out_hex"].as_str().expect("hex");
    (0..hex.len() / 4)
        .map(|i| {
            let b = |k: usize| u8::from_str_radix(&hex[k..k + 2], 16).expect("hex digit");
            u16::from_le_bytes([b(4 * i), b(4 * i + 2)])
        })
        .collect()
}

#[test]
fn fp16_cumsum_matches_the_gpu_bit_for_bit() {
    let text = std::fs::read_to_string(fixtures().join("scan_gpu.json")).expect("fixture");
    let fx: Value = serde_json::from_str(&text).expect("JSON");
    let cases = fx["cases"].as_array().expect("cases");
    assert!(cases.len() >= 8);
    let mut sequential_differs = 0;
    for case in cases {
        let what = format!(
            "{} {}x{} num_warps={} {}",
            case["kind"], case["rows"], case["cols"], case["num_warps"], case["layout"]
        );
        let spec = prepare_case(case);
        let want = gpu_bits(case);
        let got = output_bits(&spec, ReductionOrderSource::Triton);
        assert_eq!(got.len(), want.len(), "{what}");
        let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        assert!(
            bad.is_empty(),
            "{what}: {} of {} differ, first at {}: {} vs the GPU's {}",
            bad.len(),
            got.len(),
            bad[0],
            f16::from_bits(got[bad[0]]),
            f16::from_bits(want[bad[0]])
        );
        if output_bits(&spec, ReductionOrderSource::Sequential) != want {
            sequential_differs += 1;
        }
    }
    // Order matters for these inputs: an interpreter folding left to right would fail.
    assert!(
        sequential_differs >= cases.len() - 2,
        "{sequential_differs}"
    );
}

/// The default order (the back end's `ScanSchedule`, what tritonc's own code combines)
/// is Triton's: with the same layouts, the interpreter's default run gives the GPU's
/// bits too.
#[test]
fn backend_scan_order_is_tritons_on_the_gpu_cases() {
    let text = std::fs::read_to_string(fixtures().join("scan_gpu.json")).expect("fixture");
    let fx: Value = serde_json::from_str(&text).expect("JSON");
    for case in fx["cases"].as_array().expect("cases") {
        let what = format!(
            "{} {}x{} num_warps={} {}",
            case["kind"], case["rows"], case["cols"], case["num_warps"], case["layout"]
        );
        let spec = prepare_case(case);
        let want = gpu_bits(case);
        let got = output_bits(&spec, ReductionOrderSource::Backend);
        let bad = (0..got.len()).filter(|&i| got[i] != want[i]).count();
        assert_eq!(bad, 0, "{what}: {bad} of {} differ", got.len());
    }
}
