//! int8 quantization and dequantization: exact expectations for the int8 values and the
//! fp16 outputs (every op involved is correctly rounded, docs/numerics.md), f64 sanity
//! bounds, the round-half-to-even of `libdevice.rint`, and the round trip.

mod common;

use std::path::Path;

use common::{check, example, f16_half_ulp, run, run_path, tensor, values, U32};
use half::f16;
use tritonc_spec::npy;

/// What the math gives at fp32 precision: scale = max|x| / 127 (one IEEE division) and
/// q = round_half_even(x / scale) clamped to ±127.
fn quantize_row(row: &[f64]) -> (f32, Vec<i8>) {
    let absmax = row.iter().fold(0.0f32, |m, &v| m.max(v.abs() as f32));
    let scale = absmax.max(1e-12) / 127.0;
    let q = row
        .iter()
        .map(|&v| ((v as f32) / scale).round_ties_even().clamp(-127.0, 127.0) as i8)
        .collect();
    (scale, q)
}

#[test]
fn quantize_gives_the_exact_int8_values() {
    let o = run("quantize.toml");
    let (x, q, scale) = (values(&o, "x"), values(&o, "q"), values(&o, "scale"));
    let cols = 1000;
    for r in 0..48 {
        let row = &x[r * cols..(r + 1) * cols];
        let (want_scale, want_q) = quantize_row(row);
        assert_eq!(scale[r], want_scale as f64, "scale of row {r}");
        // Independent of fp32: scale is within half an fp32 ulp of max|x| / 127 …
        let exact = row.iter().fold(0.0f64, |m, v| m.max(v.abs())) / 127.0;
        assert!((scale[r] - exact).abs() <= U32 * exact, "row {r}");
        for c in 0..cols {
            assert_eq!(q[r * cols + c], want_q[c] as f64, "q[{r}, {c}]");
            // … and q within half a step (plus the division's rounding) of x / scale.
            assert!(
                (q[r * cols + c] - row[c] / exact).abs() <= 0.5 + 1e-4,
                "q[{r}, {c}]"
            );
        }
    }
}

/// Writes a spec and its data into a fresh directory next to a copy of quantize.py.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-spec-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(example("quantize.py"), dir.join("quantize.py")).expect("copy kernel");
    dir
}

fn write_npy(path: &Path, dtype: tritonc_ir::DType, shape: Vec<usize>, bytes: Vec<u8>) {
    let a = npy::NpyArray {
        dtype,
        shape,
        bytes,
    };
    std::fs::write(path, npy::write(&a)).expect("write npy");
}

#[test]
fn quantize_rounds_halves_to_even() {
    // Row max 127 gives scale exactly 1, so x / scale hits the ties exactly.
    let xs: [f32; 8] = [127.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5];
    let want: [f64; 8] = [127.0, 0.0, 2.0, 2.0, 0.0, -2.0, -2.0, 126.0];
    let dir = scratch_dir("ties");
    let bytes = xs
        .iter()
        .flat_map(|v| f16::from_f32(*v).to_le_bytes())
        .collect();
    write_npy(
        &dir.join("x.npy"),
        tritonc_ir::DType::F16,
        vec![1, 8],
        bytes,
    );
    let spec = std::fs::read_to_string(example("quantize.toml"))
        .expect("spec")
        .replace("shape = [48, 1000]", "shape = [1, 8]")
        .replace("init = \"randn\"", "init = \"npy\"\npath = \"x.npy\"");
    std::fs::write(dir.join("ties.toml"), spec).expect("write spec");
    let o = run_path(&dir.join("ties.toml"));
    assert_eq!(values(&o, "scale"), vec![1.0]);
    assert_eq!(values(&o, "q"), want.to_vec());
}

#[test]
fn dequantize_is_exact() {
    let o = run("dequantize.toml");
    let (q, scale, out) = (values(&o, "q"), values(&o, "scale"), values(&o, "out"));
    let cols = 1000;
    let want: Vec<f64> = (0..q.len())
        .map(|i| f16::from_f32(q[i] as f32 * scale[i / cols] as f32).to_f64())
        .collect();
    assert_eq!(out, want);
    // And close to the f64 product: an f32 rounding, then the fp16 store.
    check("out", &out, &want, |i| {
        let p = q[i] * scale[i / cols];
        f16_half_ulp(p) + U32 * p.abs()
    });
}

#[test]
fn quantize_then_dequantize_round_trips() {
    let quant = run("quantize.toml");
    let (x, scale) = (values(&quant, "x"), values(&quant, "scale"));
    let dir = scratch_dir("round-trip");
    let mem = &quant.launch.memory;
    let q = tensor(&quant, "q");
    let s = tensor(&quant, "scale");
    write_npy(
        &dir.join("q.npy"),
        q.dtype,
        q.shape.clone(),
        mem.buffer(q.buffer).bytes.clone(),
    );
    write_npy(
        &dir.join("s.npy"),
        s.dtype,
        s.shape.clone(),
        mem.buffer(s.buffer).bytes.clone(),
    );
    let spec = std::fs::read_to_string(example("dequantize.toml"))
        .expect("spec")
        .replace("shape = [50, 1000]", "shape = [48, 1000]")
        .replace(
            "init = \"randint\"\nlow = -127\nhigh = 128",
            "init = \"npy\"\npath = \"q.npy\"",
        )
        .replace(
            "init = \"rand\"\nlow = 0.001\nhigh = 0.05",
            "init = \"npy\"\npath = \"s.npy\"",
        );
    std::fs::write(dir.join("dequantize.toml"), spec).expect("write spec");
    let out = values(&run_path(&dir.join("dequantize.toml")), "out");
    // q is within 0.5 + 127u of x / scale (the rounding step plus the division's error at
    // |x / scale| ≤ 127), so |q·scale − x| ≤ scale·(0.5 + 127u); the f32 product adds
    // ≤ 127u·scale and the fp16 store half an ulp at the output's magnitude.
    check("round trip", &out, &x, |i| {
        scale[i / 1000] * (0.5 + 254.0 * U32) + f16_half_ulp(out[i])
    });
}
