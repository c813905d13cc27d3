//! tritonc's `tl.randint`, `tl.rand`, `tl.randn` and `tl.randint4x` (sema's Philox
//! expansion run on the interpreter) against Triton 3.6's own outputs for the same kernel,
//! recorded by scripts/philox_fixture.py in tests/fixtures/philox_triton.json.
//!
//! The integer outputs and `rand` must agree bit for bit. `randn` goes through `log`,
//! `sqrt`, `cos` and `sin`: the interpreter evaluates them in f64 and rounds once
//! (docs/numerics.md), Triton's interpreter uses numpy's float32 routines, so the two may
//! differ by a few ulps; the bound is RANDN_ULPS.

mod common;

use std::path::Path;

use common::{run_path, tensor};
use serde_json::Value;

/// The largest ulp distance allowed between the two `randn` outputs: Box–Muller composes
/// log (≤ 1 ulp in numpy's float32 SIMD routines, 0.5 here), sqrt (0.5), cos/sin (≤ 1) and
/// three products (0.5 each); the result's error relative to its ulp stays below 8 away
/// from the zeros of cos/sin, where the absolute error is what is bounded (see below).
const RANDN_ULPS: i64 = 8;

fn fixture() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/philox_triton.json");
    serde_json::from_str(&std::fs::read_to_string(p).expect("fixture")).expect("valid JSON")
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_u64().expect("u32") as u32)
        .collect()
}

/// Runs the fixture kernel for one seed and offset; returns (randint, rand bits, randn
/// bits, randint4x) as u32 patterns.
fn run_case(seed: u64, offset: u64) -> [Vec<u32>; 4] {
    let dir = std::env::temp_dir().join(format!(
        "tritonc-philox-{}-{seed}-{offset}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    std::fs::copy(fixtures.join("rng.py"), dir.join("rng.py")).expect("copy kernel");
    let spec = std::fs::read_to_string(fixtures.join("rng.toml"))
        .expect("spec")
        .replace("SEED", &seed.to_string())
        .replace("OFFSET", &offset.to_string());
    std::fs::write(dir.join("rng.toml"), spec).expect("write spec");
    let o = run_path(&dir.join("rng.toml"));
    let bits = |name: &str| -> Vec<u32> {
        let t = tensor(&o, name);
        o.launch
            .memory
            .buffer(t.buffer)
            .bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    [bits("u"), bits("f"), bits("n"), bits("r4")]
}

/// Distance in representable f32 values (same sign assumed; across zero it adds).
fn ulps(a: u32, b: u32) -> i64 {
    let key = |x: u32| {
        let i = x as i32 as i64;
        if i < 0 {
            (i32::MIN as i64) - i
        } else {
            i
        }
    };
    (key(a) - key(b)).abs()
}

#[test]
fn philox_matches_triton_bit_for_bit() {
    let fx = fixture();
    let cases = fx["cases"].as_array().expect("cases");
    assert!(cases.len() >= 5);
    let mut worst_randn = 0;
    for case in cases {
        let seed = case["seed"].as_u64().expect("seed");
        let offset = case["offset"].as_u64().expect("offset");
        let [u, f, n, r4] = run_case(seed, offset);
        assert_eq!(
            u,
            u32s(&case["randint"]),
            "randint, seed {seed}, offset {offset}"
        );
        assert_eq!(
            f,
            u32s(&case["rand_bits"]),
            "rand, seed {seed}, offset {offset}"
        );
        assert_eq!(
            r4,
            u32s(&case["randint4x"]),
            "randint4x, seed {seed}, offset {offset}"
        );
        for (i, (&got, want)) in n.iter().zip(u32s(&case["randn_bits"])).enumerate() {
            let (g, w) = (f32::from_bits(got), f32::from_bits(want));
            let d = ulps(got, want);
            // Near a zero of cos/sin the relative error is unbounded; there the absolute
            // error is bounded by r·(cos's absolute error) ≤ 6·2^-24.
            let near_zero = (g - w).abs() <= 6.0 * 2f32.powi(-24);
            assert!(
                d <= RANDN_ULPS || near_zero,
                "randn[{i}], seed {seed}, offset {offset}: {g} vs Triton's {w} ({d} ulps)"
            );
            worst_randn = worst_randn.max(d);
        }
    }
    eprintln!("randn: largest distance from Triton's {worst_randn} ulps");
}
