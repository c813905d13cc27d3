//! `tritonc compile --emit c`'s generator: the C it writes compiles with the system C
//! compiler (warnings as errors), checks every assumption before the driver is touched,
//! dispatches to the most specialized variant, and reports a machine without a driver or
//! a GPU as a status code with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

use tritonc_bundle::c_source::{c_function_name, c_sources};
use tritonc_bundle::{Bundle, BundleMeta, ConstValue, ParamAbi, ParamRole, PtxParamKind};
use tritonc_ir::DType;
use tritonc_sema::{SpecializationKey, Target};

const VECTOR_ADD_PTX: &str = include_str!("../../tritonc-codegen/tests/golden/vector_add.ptx");

/// The golden vector add, (x, y, out, n, BLOCK), its pointers `:16` (and `n` too) or not.
fn vector_add(aligned: bool) -> Bundle {
    let (ptr, int) = if aligned {
        ("*fp32:16", "i32:16")
    } else {
        ("*fp32", "i32")
    };
    let align = if aligned { 16 } else { 1 };
    // From JSON, so that fields added to the key later take their defaults.
    let args: Vec<serde_json::Value> = [
        ("x", ptr),
        ("y", ptr),
        ("out", ptr),
        ("n", int),
        ("BLOCK", "128"),
    ]
    .iter()
    .map(|(n, s)| serde_json::json!({"name": n, "spec": s}))
    .collect();
    let key: SpecializationKey = serde_json::from_value(serde_json::json!({
        "kernel": "vector_add",
        "args": args,
        "num_warps": 4,
        "num_stages": 3,
        "target": serde_json::to_value(Target::cuda(90)).unwrap(),
    }))
    .expect("a specialization key");
    let mut params: Vec<ParamAbi> = ["x", "y", "out"]
        .iter()
        .enumerate()
        .map(|(i, n)| ParamAbi {
            name: n.to_string(),
            role: ParamRole::Passed {
                index: i as u32,
                kind: PtxParamKind::Pointer {
                    pointee: DType::F32,
                    align,
                },
            },
        })
        .collect();
    params.push(ParamAbi {
        name: "n".into(),
        role: ParamRole::Passed {
            index: 3,
            kind: PtxParamKind::Scalar {
                dtype: DType::I32,
                divisibility: aligned.then_some(16),
            },
        },
    });
    params.push(ParamAbi {
        name: "BLOCK".into(),
        role: ParamRole::Constexpr(ConstValue::Int(128)),
    });
    let ptx = if aligned {
        VECTOR_ADD_PTX.to_string()
    } else {
        VECTOR_ADD_PTX.replace(".align 16", ".align 1")
    };
    let bundle = Bundle {
        meta: BundleMeta {
            format_version: tritonc_bundle::FORMAT_VERSION,
            entry: "vector_add".into(),
            target: "sm_90".into(),
            key_hash: key.hash_hex(),
            key,
            num_warps: 4,
            dynamic_shared_bytes: 0,
            static_shared_bytes: 0,
            params,
            hidden_params: vec![],
            reduction_layouts: None,
            ptxas: None,
            min_driver_version: tritonc_bundle::min_driver_for_ptx(&ptx),
        },
        ptx,
        cubin: None,
    };
    bundle.validate().expect("a consistent bundle");
    bundle
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tritonc-c-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the temp dir is writable");
    dir
}

/// Compiles `files` with `cc` (C11, every warning an error) into `dir/NAME` and runs it.
fn build_and_run(dir: &Path, files: &[&str], name: &str) -> (i32, String) {
    let exe = dir.join(name);
    let out = Command::new("cc")
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Wpedantic",
            "-Werror",
            "-O1",
            "-o",
        ])
        .arg(&exe)
        .args(files.iter().map(|f| dir.join(f)))
        .args(["-ldl", "-pthread"])
        .output()
        .expect("a C compiler `cc` on PATH (Debian: gcc)");
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().expect("the program runs");
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    (run.status.code().expect("the program exits"), text)
}

const TEST_MAIN: &str = r#"
#include <stdio.h>
#include <string.h>
#include "kernels.h"

static int failures = 0;
static void expect(const char *what, tritonc_status got, tritonc_status want, const char *text) {
    const char *error = kernels_last_error();
    if (got != want || (text != NULL && strstr(error, text) == NULL)) {
        printf("FAIL %s: status %d (want %d), error \"%s\"\n", what, (int)got, (int)want, error);
        failures++;
    }
}

int main(void) {
    tritonc_grid grid = {4, 1, 1};
    tritonc_grid none = {0, 1, 1};
    tritonc_grid tall = {1, 70000, 1};
    tritonc_status s;
    /* The :16 variant refuses a misaligned pointer and an n not divisible by 16. */
    expect("misaligned", ALIGNED(grid, NULL, 0x1004, 0x2000, 0x3000, 512), TRITONC_INVALID_ARGUMENT,
           "`x` was specialized as 16-byte aligned (:16), but its address 0x1004 is not a multiple of 16");
    expect("indivisible", ALIGNED(grid, NULL, 0x1000, 0x2000, 0x3000, 500), TRITONC_INVALID_ARGUMENT,
           "`n` was specialized as divisible by 16 (:16), but it is 500");
    expect("grid", ALIGNED(tall, NULL, 0x1000, 0x2000, 0x3000, 512), TRITONC_INVALID_ARGUMENT,
           "exceeds CUDA's limits");
    /* A grid without programs launches nothing, driver or not. */
    expect("empty grid", ALIGNED(none, NULL, 0x1000, 0x2000, 0x3000, 512), TRITONC_SUCCESS, "");
    /* Past the checks: the driver is needed. */
    s = vector_add(grid, NULL, 0x1004, 0x2000, 0x3000, 500);
    printf("dispatched %d %s\n", (int)s, kernels_last_error());
    s = ALIGNED(grid, NULL, 0x1000, 0x2000, 0x3000, 512);
    printf("launched %d %s\n", (int)s, kernels_last_error());
    s = kernels_synchronize();
    printf("synchronized %d %s\n", (int)s, kernels_last_error());
    printf("failures %d\n", failures);
    return failures;
}
"#;

#[test]
fn generated_c_compiles_checks_arguments_and_reports_no_device() {
    let bundles = [vector_add(true), vector_add(false)];
    let c = c_sources("kernels", &bundles).expect("C for two variants");
    assert_eq!(c.header_name, "kernels.h");
    let aligned = c_function_name(&bundles[0]);
    let plain = c_function_name(&bundles[1]);
    assert!(aligned.starts_with("vector_add_") && aligned != plain);
    // One prototype per variant, parameters named and typed from the signature (the
    // constexpr BLOCK folded away), and a dispatcher named after the kernel.
    for f in [&aligned, &plain, &"vector_add".to_string()] {
        let proto = format!(
            "tritonc_status {f}(tritonc_grid grid, void *stream, unsigned long long x, \
             unsigned long long y, unsigned long long out, int32_t n);"
        );
        assert!(c.header.contains(&proto), "{proto}\n{}", c.header);
    }
    assert!(c.header.contains("Folded into the code: BLOCK = 128."));
    assert!(c.header.contains("needs a CUDA 12.0 driver or newer"));

    let dir = scratch("generated");
    std::fs::write(dir.join(&c.header_name), &c.header).unwrap();
    std::fs::write(dir.join(&c.source_name), &c.source).unwrap();
    let main = TEST_MAIN.replace("ALIGNED", &aligned);
    std::fs::write(dir.join("main.c"), main).unwrap();
    let (code, out) = build_and_run(&dir, &["main.c", "kernels.c"], "kernels-test");
    assert!(out.contains("failures 0"), "{out}");
    assert_eq!(code, 0, "{out}");
    // Without a GPU every call that needs the driver says why, by status and message:
    // 2 without libcuda, 4 with a driver but no device.
    let line = |what: &str| {
        out.lines()
            .find(|l| l.starts_with(what))
            .unwrap_or_else(|| panic!("no `{what}` line in {out}"))
            .to_string()
    };
    let launched = line("launched ");
    let no_gpu = launched.starts_with("launched 2 ")
        && launched.contains("no NVIDIA driver: libcuda.so.1 could not be loaded")
        || launched.starts_with("launched 4 ") && launched.contains("no CUDA device");
    let on_gpu = launched.trim_end() == "launched 0";
    assert!(no_gpu || on_gpu, "{out}");
    if no_gpu {
        // The dispatcher sent the misaligned, indivisible arguments to the plain variant,
        // which got past its (absent) checks to the driver.
        assert!(
            line("dispatched ").contains(&format!("{plain}: no ")),
            "{out}"
        );
        assert!(
            line("synchronized ").contains("cuCtxSynchronize: no "),
            "{out}"
        );
    }
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_kernel_whose_variants_differ_in_parameters_gets_no_dispatcher() {
    let mut folded = vector_add(false);
    // `n` folded as `==1`: the variant takes three parameters.
    folded.meta.params[3].role = ParamRole::EqualToOne;
    folded.meta.key.args[3].spec = "i32:1".into();
    folded.meta.key_hash = folded.meta.key.hash_hex();
    let c = c_sources("kernels", &[vector_add(true), folded]).expect("C for two variants");
    assert!(
        !c.header.contains("tritonc_status vector_add("),
        "{}",
        c.header
    );
    assert!(c
        .header
        .contains("Folded into the code: n = 1 (==1), BLOCK = 128."));
}

#[test]
fn docs_c_md_shows_the_tested_example_program() {
    let doc = include_str!("../../../docs/c.md");
    let example = include_str!("../../../examples/c/vector_add.c");
    assert!(
        doc.contains(&format!("```c\n{example}```")),
        "docs/c.md is out of date"
    );
}

/// `vector_add` as the config `BLOCK=block, num_warps=warps` (aligned or not).
fn vector_add_config(aligned: bool, block: i64, warps: u32) -> Bundle {
    let mut b = vector_add(aligned);
    b.meta.params[4].role = ParamRole::Constexpr(ConstValue::Int(block));
    b.meta.key.args[4].spec = block.to_string();
    b.meta.key.num_warps = warps;
    b.meta.num_warps = warps;
    b.meta.key_hash = b.meta.key.hash_hex();
    b.validate().expect("a consistent bundle");
    b
}

const TUNED_MAIN: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "kernels.h"

/* The stand-in driver (bench/launch/fake_libcuda.c) this program is linked with. */
extern void fake_set_param_count(int n);
extern long long fake_last_launch(unsigned *dims, uintptr_t *stream, unsigned char *params, int n);

static int failures = 0;
static void expect_config(long long n, long long block, int warps) {
    const kernels_vector_add_config *c = vector_add_tuned_config(n);
    if (c == NULL || c->BLOCK != block || c->num_warps != warps || c->num_stages != 3) {
        printf("FAIL n=%lld: got %s (%s), want BLOCK=%lld, num_warps=%d\n", n,
               c ? c->label : "NULL", kernels_last_error(), block, warps);
        failures++;
    }
}
static void expect_launch(const char *what, tritonc_status s, unsigned threads, unsigned programs) {
    unsigned dims[7];
    uintptr_t stream;
    unsigned char params[4 * 8];
    fake_last_launch(dims, &stream, params, 4);
    if (s != TRITONC_SUCCESS || dims[3] != threads || dims[0] != programs) {
        printf("FAIL %s: status %d (%s), %u threads x %u programs, want %u x %u\n", what, (int)s,
               kernels_last_error(), dims[3], dims[0], threads, programs);
        failures++;
    }
}

int main(void) {
    const kernels_vector_add_config *c;
    tritonc_grid grid;
    tritonc_status s;
    fake_set_param_count(4);
    expect_config(1024, 256, 8);          /* exact */
    expect_config(1048576, 128, 4);       /* exact */
    expect_config(2048, 256, 8);          /* nearest: 1024 */
    expect_config(524288, 128, 4);        /* nearest: 1048576 */
    expect_config(32768, 256, 8);         /* equally near both: the entry tuned first */
    expect_config(64, 256, 8);            /* nearest usable: the stale 64 entry is left out */
    /* The config's grid, as a Triton grid function computes it from META. */
    c = vector_add_tuned_config(4096);
    grid.x = (unsigned)((4096 + c->BLOCK - 1) / c->BLOCK); grid.y = 1; grid.z = 1;
    s = vector_add_launch_config(c, grid, NULL, 0x1000, 0x2000, 0x3000, 4096);
    expect_launch("config 1", s, 256, 16);
    c = vector_add_tuned_config(1048576);
    grid.x = 3;
    /* Misaligned: config 0's plain variant takes it. */
    s = vector_add_launch_config(c, grid, NULL, 0x1004, 0x2000, 0x3000, 1000);
    expect_launch("config 0, plain variant", s, 128, 3);
    /* Config 1 has only the aligned variant: it refuses the same arguments. */
    s = vector_add_launch_config(vector_add_tuned_config(1024), grid, NULL, 0x1004, 0x2000, 0x3000, 1000);
    if (s != TRITONC_INVALID_ARGUMENT || strstr(kernels_last_error(), "16-byte aligned") == NULL) {
        printf("FAIL refusal: %d %s\n", (int)s, kernels_last_error());
        failures++;
    }
    s = vector_add_launch_config(NULL, grid, NULL, 0x1000, 0x2000, 0x3000, 1024);
    if (s != TRITONC_INVALID_ARGUMENT || strstr(kernels_last_error(), "not one of vector_add's configs") == NULL) {
        printf("FAIL null config: %d %s\n", (int)s, kernels_last_error());
        failures++;
    }
    printf("failures %d\n", failures);
    return failures;
}
"#;

#[test]
fn tuned_c_chooses_by_the_table_rule_and_launches_the_configs_variant() {
    use tritonc_bundle::tuned::{code_digest, TuneTable};
    let bundles = [
        vector_add_config(true, 128, 4),
        vector_add_config(false, 128, 4),
        vector_add_config(true, 256, 8),
    ];
    let digests: Vec<String> = bundles.iter().map(code_digest).collect();
    let variants: Vec<serde_json::Value> = digests
        .iter()
        .map(|d| serde_json::json!({"bundle": null, "digest": d}))
        .collect();
    let timed = serde_json::json!({"status": "timed", "median_ms": 1.0, "rounds_ms": [1.0]});
    let entry = |n: i64, winner: usize, variants: &serde_json::Value| {
        serde_json::json!({"key": {"n": n}, "winner": winner, "outcomes": [timed, timed],
                           "reference": "config 0", "variants": variants})
    };
    let stale = serde_json::json!([{"bundle": null, "digest": "00"}]);
    let table = |device: &str, entries: Vec<serde_json::Value>| -> TuneTable {
        serde_json::from_value(serde_json::json!({
            "format_version": 1, "kernel": "vector_add", "device": device, "target": "sm_90",
            "key": ["n"], "method": "test", "entries": entries,
            "configs": [
                {"label": "BLOCK=128, num_warps=4, num_stages=3", "values": {"BLOCK": 128}, "num_warps": 4, "num_stages": 3},
                {"label": "BLOCK=256, num_warps=8, num_stages=3", "values": {"BLOCK": 256}, "num_warps": 8, "num_stages": 3}
            ]
        }))
        .expect("a tuning table")
    };
    let all = serde_json::Value::Array(variants);
    let tables = [
        // Another device model's table, which the stand-in GPU must not use.
        table("Other GPU", vec![entry(1024, 0, &all), entry(2048, 0, &all)]),
        table(
            "stand-in GPU",
            vec![entry(1024, 1, &all), entry(1 << 20, 0, &all), entry(64, 0, &stale)],
        ),
    ];
    let c = tritonc_bundle::c_source::c_sources_tuned("kernels", &bundles, &tables)
        .expect("C for three variants");
    assert!(
        c.notes.iter().any(|n| n.contains("1 of 3 tuned entries were measured on other code")),
        "{:?}",
        c.notes
    );
    assert!(c.header.contains("const kernels_vector_add_config *vector_add_tuned_config(long long n);"), "{}", c.header);
    assert!(c.header.contains("long long BLOCK;"), "{}", c.header);
    let dir = scratch("tuned");
    std::fs::write(dir.join(&c.header_name), &c.header).unwrap();
    std::fs::write(dir.join(&c.source_name), &c.source).unwrap();
    std::fs::write(dir.join("main.c"), TUNED_MAIN).unwrap();
    let fake = Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o"])
        .arg(dir.join("libcuda.so.1"))
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/launch/fake_libcuda.c"))
        .status()
        .expect("cc");
    assert!(fake.success());
    let exe = dir.join("tuned-test");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O1", "-o"])
        .arg(&exe)
        .arg(dir.join("main.c"))
        .arg(dir.join("kernels.c"))
        .arg(dir.join("libcuda.so.1"))
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .args(["-ldl", "-pthread"])
        .output()
        .expect("cc");
    assert!(out.status.success(), "cc failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new(&exe).output().expect("the program runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("failures 0"), "{text}");
    assert_eq!(run.status.code(), Some(0), "{text}");
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
