//! `--against triton`: the same kernel source run through upstream Triton (Python, on
//! the GPU host) on the same input bytes, compared with the device under test.
//!
//! The verifier writes the launch's buffers (`buf{i}.bin`, raw bytes), a JSON
//! description of the arguments and a small Python script into a temporary directory,
//! runs the script, and reads back each output as little-endian f64 (`out_{name}.bin`).
//! Triton lowers some ops differently (approximate `div.full.f32`, its own fusion), so
//! the comparison uses the kernel's derived tolerance with at least 16 f32 ulps.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use tritonc_diagnostics::SourceMap;
use tritonc_interp::ArgValue;
use tritonc_ir::DType;
use tritonc_sema::{ArgSpec, Constexpr};

use crate::compare::{compare, OutputTensor};
use crate::exec::{Executor, PreparedCase};
use crate::plan::Stage;
use crate::report::Check;
use crate::tolerance::{analyze, derive};
use crate::verify::VerifySpec;

/// The script run under upstream Triton; it reads `launch.json` in its directory.
///
/// It launches the `JITFunction` itself, unwrapping `@triton.autotune` and
/// `@triton.heuristics`: the spec fixes every constexpr and `num_warps`, and the
/// autotuner would otherwise benchmark its own configs (and refuse the spec's values as
/// conflicting). `num_stages` is passed when the launch has one (Triton's default, 3,
/// otherwise). With `TRITONC_AGAINST_TRITON_DRY_RUN` set it prints the kernel it would
/// launch and the options, and stops before needing PyTorch or a GPU.
pub const SCRIPT: &str = r#"import importlib.util, json, os, sys
import triton


def launchable(k):
    """The JITFunction under any @triton.autotune / @triton.heuristics wrappers: the
    spec names one config, so Triton must neither benchmark others nor fill in its own."""
    while not isinstance(k, triton.runtime.JITFunction):
        if not hasattr(k, "fn"):
            raise TypeError(f"{cfg['kernel']} is a {type(k).__name__}, not a Triton kernel")
        k = k.fn
    return k


here = os.path.dirname(os.path.abspath(__file__))
cfg = json.load(open(os.path.join(here, "launch.json")))
spec = importlib.util.spec_from_file_location("kernel_module", cfg["kernel_path"])
module = importlib.util.module_from_spec(spec)
sys.path.insert(0, os.path.dirname(cfg["kernel_path"]))
spec.loader.exec_module(module)
kernel = launchable(getattr(module, cfg["kernel"]))
options = {"num_warps": cfg["num_warps"]}
if cfg.get("num_stages") is not None:
    options["num_stages"] = cfg["num_stages"]
if os.environ.get("TRITONC_AGAINST_TRITON_DRY_RUN"):
    print(json.dumps({"kernel": type(kernel).__name__, "name": kernel.__name__, "options": options}))
    sys.exit(0)
import torch

dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
          "fp64": torch.float64, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
          "i64": torch.int64, "u8": torch.uint8, "i1": torch.bool,
          "fp8e4nv": torch.float8_e4m3fn, "fp8e5": torch.float8_e5m2}
storages = []
for i, b in enumerate(cfg["buffers"]):
    raw = open(os.path.join(here, f"buf{i}.bin"), "rb").read()
    t = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
    storages.append(t.view(dtypes[b["dtype"]]).cuda())
kwargs, outputs = {}, []
for a in cfg["args"]:
    if a["kind"] == "tensor":
        kwargs[a["name"]] = torch.as_strided(storages[a["buffer"]], a["shape"], a["strides"], a["offset"])
        if a["output"]:
            outputs.append((a["tensor"], kwargs[a["name"]]))
    else:
        kwargs[a["name"]] = a["value"]
kernel[tuple(cfg["grid"])](**kwargs, **options)
torch.cuda.synchronize()
for name, t in outputs:
    t.double().contiguous().cpu().numpy().tofile(os.path.join(here, f"out_{name}.bin"))
print("ok")
"#;

/// A constexpr as a JSON value for the script.
fn constexpr_json(c: &Constexpr) -> String {
    match c {
        Constexpr::Int(i) => i.to_string(),
        Constexpr::Float(f) => format!("{f:?}"),
        Constexpr::Bool(b) => if *b { "true" } else { "false" }.into(),
        Constexpr::None => "null".into(),
        // The string itself (its Python repr carries quotes Triton would see as part of
        // the value: `ACTIVATION='gelu'` must arrive as `gelu`).
        Constexpr::Str(s) => serde_json::Value::String(s.clone()).to_string(),
        other => format!("{:?}", other.to_string()),
    }
}

/// The `launch.json` the script reads.
pub fn launch_json(case: &PreparedCase) -> Result<String, String> {
    let l = &case.launch;
    let mut runtime = l.runtime_args.iter();
    let mut args = Vec::new();
    for (name, spec) in &l.specialization.params {
        let value = match spec {
            ArgSpec::Pointer { .. } => {
                let Some(ArgValue::Ptr(addr)) = runtime.next() else {
                    return Err(format!("`{name}` has no tensor"));
                };
                let t = l
                    .tensors
                    .iter()
                    .find(|t| t.data_ptr() == *addr)
                    .ok_or_else(|| format!("`{name}`: no tensor at {addr:#x}"))?;
                format!(
                    r#"{{"name": "{name}", "kind": "tensor", "tensor": "{}", "buffer": {}, "shape": {:?}, "strides": {:?}, "offset": {}, "output": {}}}"#,
                    t.name, t.buffer.0, t.shape, t.strides, t.offset, t.output
                )
            }
            ArgSpec::Scalar { .. } => {
                let v = match runtime.next() {
                    Some(ArgValue::Int(i)) => i.to_string(),
                    Some(ArgValue::Float(f)) => format!("{f:?}"),
                    _ => return Err(format!("`{name}` has no scalar")),
                };
                format!(r#"{{"name": "{name}", "kind": "scalar", "value": {v}}}"#)
            }
            ArgSpec::Constexpr(c) => format!(
                r#"{{"name": "{name}", "kind": "constexpr", "value": {}}}"#,
                constexpr_json(c)
            ),
        };
        args.push(value);
    }
    let buffers: Vec<String> = l
        .memory
        .buffers()
        .iter()
        .map(|b| {
            format!(
                r#"{{"dtype": "{}"}}"#,
                b.dtype.signature_name().unwrap_or("u8")
            )
        })
        .collect();
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"kernel_path\": {:?}, \"kernel\": {:?}, \"grid\": {:?}, \"num_warps\": {}, \"num_stages\": null, \"buffers\": [{}], \"args\": [{}]}}",
        std::fs::canonicalize(&l.kernel_path)
            .unwrap_or_else(|_| l.kernel_path.clone())
            .display()
            .to_string(),
        l.kernel_name,
        l.grid,
        case.num_warps,
        buffers.join(", "),
        args.join(", ")
    );
    Ok(out)
}

/// Runs stage 1's launch on `device` and through upstream Triton with `python`, and
/// compares every output.
pub fn compare_with_triton(
    spec_path: &Path,
    input: &VerifySpec,
    device: &mut dyn Executor,
    python: &str,
    sources: &mut SourceMap,
) -> Result<Vec<Check>, String> {
    let case =
        PreparedCase::prepare_in(&input.spec, spec_path, sources, &*input.scopes).map_err(|d| {
            d.iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        })?;
    let mut got = Vec::new();
    device
        .run(&case, 1, &mut |_, o| got = o)
        .map_err(|e| e.message)?;
    let dir = std::env::temp_dir().join(format!("tritonc-against-triton-{}", std::process::id()));
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(&dir).map_err(io)?;
    for (i, b) in case.launch.memory.buffers().iter().enumerate() {
        std::fs::write(dir.join(format!("buf{i}.bin")), &b.bytes).map_err(io)?;
    }
    std::fs::write(dir.join("launch.json"), launch_json(&case)?).map_err(io)?;
    std::fs::write(dir.join("against_triton.py"), SCRIPT).map_err(io)?;
    let run = Command::new(python)
        .arg(dir.join("against_triton.py"))
        .output()
        .map_err(|e| format!("cannot run `{python}`: {e}"))?;
    if !run.status.success() {
        let err = String::from_utf8_lossy(&run.stderr);
        let tail: Vec<&str> = err.lines().rev().take(12).collect();
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!(
            "upstream Triton failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    let mut numerics = analyze(&case.function);
    numerics.approx_math.push("triton's lowering".into());
    numerics.fusable = true;
    crate::tolerance::independent_tf32(&mut numerics);
    crate::tolerance::reference_fp8_accumulation(&mut numerics);
    let mut checks = Vec::new();
    for g in &got {
        let bytes = std::fs::read(dir.join(format!("out_{}.bin", g.name))).map_err(io)?;
        let values = bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("chunks of 8")))
            .collect();
        let want = OutputTensor {
            name: g.name.clone(),
            dtype: g.dtype,
            shape: g.shape.clone(),
            values,
        };
        let tol = derive(
            &numerics,
            if g.dtype.is_float() {
                g.dtype
            } else {
                DType::I64
            },
            want.max_abs(),
        );
        checks.push(Check::compared(
            Stage::Correctness,
            "spec",
            &g.name,
            "triton",
            compare(g, &want, &tol),
            format!("atol {:.3e} rtol {:.3e} ({})", tol.atol, tol.rtol, tol.why),
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(checks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn examples() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
    }

    #[test]
    fn string_constexprs_reach_triton_as_the_string_itself() {
        // A captured `ACTIVATION="gelu"`: Triton compares it with "gelu", so the quotes of
        // its Python repr must not travel.
        let j = constexpr_json(&Constexpr::Str("gelu".into()));
        assert_eq!(serde_json::from_str::<String>(&j).unwrap(), "gelu");
        let j = constexpr_json(&Constexpr::Str("it's \\ \"q\"".into()));
        assert_eq!(serde_json::from_str::<String>(&j).unwrap(), "it's \\ \"q\"");
        assert_eq!(constexpr_json(&Constexpr::Int(64)), "64");
    }

    #[test]
    fn the_script_launches_the_unwrapped_jit_function_with_the_spec_options() {
        // The autotuner must not see the launch: unwrap to the JITFunction first.
        assert!(SCRIPT.contains("while not isinstance(k, triton.runtime.JITFunction):"));
        assert!(SCRIPT.contains("k = k.fn"));
        assert!(SCRIPT.contains("kernel = launchable(getattr(module, cfg[\"kernel\"]))"));
        // One launch, with exactly the spec's options.
        assert_eq!(SCRIPT.matches("kernel[").count(), 1);
        assert!(SCRIPT.contains("kernel[tuple(cfg[\"grid\"])](**kwargs, **options)"));
        assert!(SCRIPT.contains("options = {\"num_warps\": cfg[\"num_warps\"]}"));
        assert!(SCRIPT.contains("options[\"num_stages\"] = cfg[\"num_stages\"]"));
    }

    /// Runs the script's kernel resolution under the installed Triton (no GPU needed);
    /// `None` when there is no `python3` with Triton here.
    fn dry_run(launch: &str, name: &str) -> Option<String> {
        let has_triton = Command::new("python3")
            .args(["-c", "import triton"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !has_triton {
            eprintln!("no python3 with triton: the script's dry run is not exercised");
            return None;
        }
        let dir = std::env::temp_dir().join(format!(
            "tritonc-verify-dry-run-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        std::fs::write(dir.join("launch.json"), launch).expect("temp dir is writable");
        std::fs::write(dir.join("against_triton.py"), SCRIPT).expect("temp dir is writable");
        let out = Command::new("python3")
            .arg(dir.join("against_triton.py"))
            .env("TRITONC_AGAINST_TRITON_DRY_RUN", "1")
            .output()
            .expect("python3 ran a moment ago");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    #[test]
    fn an_autotuned_kernel_resolves_to_its_jit_function_under_triton() {
        let path = examples().join("matmul.toml");
        let mut sources = SourceMap::new();
        let input = crate::verify::load_spec(&path, &mut sources).expect("matmul.toml loads");
        let case =
            PreparedCase::prepare(&input.spec, &path, &mut sources).expect("matmul.toml prepares");
        let launch = launch_json(&case).expect("launch.json");
        // The spec's config travels as constexpr arguments.
        for c in [
            r#""name": "BLOCK_M", "kind": "constexpr", "value": 64"#,
            r#""name": "BLOCK_K", "kind": "constexpr", "value": 32"#,
            r#""num_warps": 4"#,
        ] {
            assert!(launch.contains(c), "{c} in {launch}");
        }
        // The kernel's module imports torch, which the dry run does not need: run a copy
        // beside a stub `torch` module (the script puts the kernel's folder first on
        // `sys.path`).
        let dir = std::env::temp_dir().join(format!("tritonc-verify-mm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        let copy = dir.join("matmul.py");
        std::fs::copy(examples().join("matmul.py"), &copy).expect("examples/matmul.py exists");
        std::fs::write(dir.join("torch.py"), "class Tensor:\n    pass\n")
            .expect("temp dir is writable");
        let original =
            std::fs::canonicalize(examples().join("matmul.py")).expect("examples/matmul.py exists");
        let launch = launch.replace(
            &format!("{:?}", original.display().to_string()),
            &format!("{:?}", copy.display().to_string()),
        );
        assert!(launch.contains(&copy.display().to_string()), "{launch}");
        let out = dry_run(&launch, "matmul");
        let _ = std::fs::remove_dir_all(&dir);
        let Some(out) = out else {
            return;
        };
        let v: serde_json::Value = serde_json::from_str(&out).expect("the dry run prints JSON");
        assert_eq!(v["kernel"], "JITFunction", "{out}");
        assert_eq!(v["name"], "matmul_kernel", "{out}");
        assert_eq!(v["options"], serde_json::json!({"num_warps": 4}), "{out}");
    }

    #[test]
    fn heuristics_over_autotune_are_unwrapped_and_num_stages_passed() {
        let dir =
            std::env::temp_dir().join(format!("tritonc-verify-wrapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        let kernel = dir.join("wrapped.py");
        std::fs::write(
            &kernel,
            "import triton\nimport triton.language as tl\n\n\
             @triton.heuristics({\"EVEN\": lambda args: args[\"n\"] % args[\"BLOCK\"] == 0})\n\
             @triton.autotune(configs=[triton.Config({\"BLOCK\": 64}), triton.Config({\"BLOCK\": 128})], key=[\"n\"])\n\
             @triton.jit\ndef k(x, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):\n    pass\n",
        )
        .expect("temp dir is writable");
        let launch = format!(
            r#"{{"kernel_path": {:?}, "kernel": "k", "num_warps": 2, "num_stages": 4}}"#,
            kernel.display().to_string()
        );
        let out = dry_run(&launch, "wrapped");
        let _ = std::fs::remove_dir_all(&dir);
        let Some(out) = out else { return };
        let v: serde_json::Value = serde_json::from_str(&out).expect("the dry run prints JSON");
        assert_eq!(v["kernel"], "JITFunction", "{out}");
        assert_eq!(
            v["options"],
            serde_json::json!({"num_warps": 2, "num_stages": 4}),
            "{out}"
        );
    }
}
