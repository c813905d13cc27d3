//! `tt.dot` on the tensor cores: the instruction Triton 3.6 uses for each operand type
//! (`tests/fixtures/triton/mma_instructions.json`, recorded from its sm_80 PTX by
//! `scripts/triton_mma_instructions.py`), fragments read with `ldmatrix`, and the FMA path
//! kept below sm_80 and where no instruction takes the types.

use tritonc_codegen::Ptxas;

use crate::from_source::compile_source;
use crate::reference_kernels::workspace_root;

fn fixture() -> serde_json::Value {
    let path = workspace_root().join("tests/fixtures/triton/mma_instructions.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists"))
        .expect("JSON")
}

fn mma_instructions(ptx: &str) -> Vec<String> {
    let mut found: Vec<String> = ptx
        .split(|c: char| c.is_whitespace() || c == ';' || c == '"')
        .filter(|w| w.starts_with("mma.sync.aligned."))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn each_dtype_uses_tritons_mma_instruction_on_sm_80() {
    let fixture = fixture();
    let ptxas = Ptxas::locate(&workspace_root());
    for case in fixture["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let source = case["source"].as_str().expect("source");
        let sig = case["signature"].as_str().expect("signature");
        let want: Vec<String> = case["mma"]
            .as_array()
            .expect("mma")
            .iter()
            .map(|v| v.as_str().expect("text").to_string())
            .collect();
        for sm in [80, 90] {
            let k = compile_source("dot.py", source, "kernel", sig, 4, sm)
                .unwrap_or_else(|e| panic!("{name} sm_{sm}: {e}"));
            assert_eq!(mma_instructions(&k.ptx), want, "{name} sm_{sm}");
            assert_eq!(k.ptx.contains("ldmatrix."), case["ldmatrix"].as_bool().unwrap(), "{name}");
            // TF32 operands reach the MMA as fp32 bits, as in Triton's PTX.
            assert_eq!(
                k.ptx.contains("cvt.rna.tf32.f32"),
                case["rounds_tf32"].as_bool().unwrap(),
                "{name} sm_{sm}"
            );
            assert!(!k.ptx.contains("fma.rn.f32"), "{name} sm_{sm}: no FMA dot left");
            if let Some(p) = &ptxas {
                let report = p
                    .check(&k.ptx, &format!("sm_{sm}"))
                    .unwrap_or_else(|e| panic!("{name} sm_{sm}: ptxas: {e}"));
                assert!(!report.log.contains("bytes spill stores") || report.log.contains(" 0 bytes spill stores"), "{}", report.log);
            }
        }
    }
}

#[test]
fn below_sm_80_and_for_other_types_the_dot_stays_on_fma_units() {
    let fixture = fixture();
    let fp16 = &fixture["cases"][0];
    let source = fp16["source"].as_str().unwrap();
    // sm_75 has no m16n8k16 path in tritonc: the FMA loop.
    let k = compile_source("dot.py", source, "kernel", fp16["signature"].as_str().unwrap(), 4, 75)
        .expect("compiles for sm_75");
    assert!(mma_instructions(&k.ptx).is_empty(), "{}", k.ptx);
    // An fp16 accumulator (out_dtype=tl.float16) has no mma.sync form here yet.
    let f16_acc = source.replace("c = tl.dot(a, b)", "c = tl.dot(a, b, out_dtype=tl.float16)");
    let k = compile_source("dot.py", &f16_acc, "kernel", "*fp16:16, *fp16:16, *fp16:16, 32", 4, 80)
        .expect("compiles");
    assert!(mma_instructions(&k.ptx).is_empty());
    // A 16x16 block with 4 warps is below the tile the warps cover along N (Triton
    // replicates); tritonc keeps every warp busy only where the block allows, so it must
    // still produce a correct program either way: mma with replicated warps, or FMA.
    let small = source.replace("BLOCK: tl.constexpr", "BLOCK: tl.constexpr");
    let k = compile_source("dot.py", &small, "kernel", "*fp16:16, *fp16:16, *fp32:16, 16", 4, 80)
        .expect("a 16x16 dot compiles");
    assert!(k.ptx.contains("mma.sync") || k.ptx.contains("fma.rn.f32"));
}

#[test]
fn a_chained_dot_reads_its_a_operand_from_registers() {
    // Attention's shape: P = softmax-like(Q·K) feeds the second dot directly.
    let src = "import triton
import triton.language as tl


@triton.jit
def kernel(q_ptr, k_ptr, v_ptr, o_ptr, BLOCK: tl.constexpr, D: tl.constexpr):
    r = tl.arange(0, BLOCK)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + r[:, None] * D + d[None, :])
    kt = tl.load(k_ptr + d[:, None] + r[None, :] * D)
    v = tl.load(v_ptr + r[:, None] * D + d[None, :])
    p = tl.exp2(tl.dot(q, kt))
    o = tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + r[:, None] * D + d[None, :], o)
";
    let k = compile_source("attn.py", src, "kernel", "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, 64", 4, 80)
        .expect("compiles");
    // Q·K: 64x64x64 on 4 warps along M = 16 rows each: per warp 8 column tiles x 4 K steps.
    // P·V the same: 64 mma.sync per warp in all, and A fragments from ldmatrix only for Q.
    assert_eq!(k.ptx.matches("mma.sync.aligned.m16n8k16").count(), 64, "{}", k.ptx);
    let ldmatrix_a = k.ptx.matches("ldmatrix.sync.aligned.m8n8.x4.shared.b16").count();
    // Q: 4 K steps, one x4 each; K and V (B operands, 8 tiles = 4 x4 per step): 32.
    assert_eq!(ldmatrix_a + k.ptx.matches("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16").count(), 4 + 16 + 16, "{}", k.ptx);
}
