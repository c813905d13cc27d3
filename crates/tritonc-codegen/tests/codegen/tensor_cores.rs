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
        // Triton's target for the case, and sm_90 (the same instruction there).
        let first = case["sm"].as_u64().expect("sm") as u32;
        for sm in [first, 90] {
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
            let order: Vec<String> = case["order"]
                .as_array()
                .expect("order")
                .iter()
                .map(|v| v.as_str().expect("text").to_string())
                .collect();
            if name.ends_with("tf32x3") {
                // Triton's split, step for step, and three sweeps of the tf32 dot's
                // instructions (the same source with `tf32` has one).
                assert_eq!(order, tritonc_codegen::lower::tf32x3_order(), "{name}");
                let tf32 = source.replace("input_precision=\"tf32x3\"", "input_precision=\"tf32\"");
                let single = compile_source("dot.py", &tf32, "kernel", sig, 4, sm).expect("tf32 compiles");
                let count = |ptx: &str| ptx.matches("mma.sync.aligned.").count();
                assert_eq!(count(&k.ptx), 3 * count(&single.ptx), "{name} sm_{sm}");
                assert!(k.ptx.contains("sub.f32") || k.ptx.contains("sub.rn.f32"), "{name}: small = x - big");
                // fp16 operands ignore the precision (Triton 3.6 emits the plain fp16 dot).
                let sig16 = sig.replacen("*fp32", "*fp16", 2);
                let f16 = compile_source("dot.py", source, "kernel", &sig16, 4, sm).expect("fp16 compiles");
                let plain = compile_source("dot.py", &tf32, "kernel", &sig16, 4, sm).expect("fp16 compiles");
                assert_eq!(f16.ptx.replace("tf32x3", "tf32"), plain.ptx, "{name} sm_{sm}: fp16 operands are not split");
            } else {
                assert_eq!(order, ["dot(x, x)"], "{name}");
            }
            if name.starts_with("fp8") {
                // Widened exactly with sm_89's cvt, as Triton does.
                assert!(k.ptx.contains("cvt.rn.f16x2.e4m3x2"), "{}", k.ptx);
            }
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
    assert_eq!(fp16["name"], "fp16");
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

const K_LOOP: &str = "import triton
import triton.language as tl


@triton.jit
def kernel(a_ptr, b_ptr, c_ptr, K, stride_a, stride_b,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_b + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_b
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
";

fn k_loop(sig: &str, num_stages: u32, sm: u32) -> tritonc_codegen::CompiledKernel {
    let launch = tritonc_sema::LaunchOptions {
        num_warps: 4,
        num_stages,
        ..tritonc_sema::LaunchOptions::default()
    };
    crate::from_source::compile_source_with("kloop.py", K_LOOP, "kernel", sig, launch, sm)
        .unwrap_or_else(|e| panic!("{e}"))
}

const ALIGNED: &str = "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 64";

#[test]
fn k_loops_feeding_mma_are_pipelined_with_cp_async() {
    // num_stages = 4: three buffers per operand (Triton's num_stages − 1), copies three
    // iterations ahead: the loop waits until two groups are pending.
    let k = k_loop(ALIGNED, 4, 80);
    // A 128x64 and B 64x128 fp16 over 128 threads: 8 and 8 16-byte copies per iteration,
    // issued three times before the loop and once in it.
    assert_eq!(k.ptx.matches("cp.async.cg.shared.global").count(), 4 * 16, "{}", k.ptx);
    let words = k.ptx.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("cp.async.wait_group 2;"), "{}", k.ptx);
    assert!(words.contains("cp.async.wait_group 0;"), "the loop is drained");
    // Masked lanes are zero-filled (source size 0), not skipped.
    assert!(k.ptx.contains("cp.async.cg.shared.global [") && k.ptx.contains(", 16, %r"), "{}", k.ptx);
    // Buffers: A 128 x 64 and B 64 x 128 fp16 in swizzled (unpadded) rows, three of
    // each: 98,304 bytes, Triton's figure for this kernel and config.
    let per_stage = 128 * 64 * 2u32 + 64 * 128 * 2u32;
    assert_eq!(k.shared_bytes, 3 * per_stage);
    // num_stages = 3: two buffers, two iterations ahead, the copies of the loop issued
    // after its mma (behind a barrier: they refill the buffer the mma read).
    let k = k_loop(ALIGNED, 3, 80);
    assert_eq!(k.ptx.matches("cp.async.cg.shared.global").count(), 3 * 16);
    let words = k.ptx.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("cp.async.wait_group 1;") && words.contains("cp.async.wait_group 0;"));
    let body = &words[words.find("cp.async.wait_group 1;").expect("the loop waits")..];
    let (mma, copy) = (body.find("mma.sync").unwrap(), body.find("cp.async.cg").unwrap());
    assert!(mma < copy, "the loop's copies follow its mma:\n{body}");
    assert!(body[mma..copy].contains("bar.sync"), "a barrier before the refill:\n{body}");
    // Shared addresses are 32-bit (`ldmatrix` and `cp.async` through `%r` registers).
    let shared_access = |l: &&str| l.contains("ldmatrix.") || l.contains("cp.async.cg.shared");
    let lines: Vec<&str> = k.ptx.lines().filter(shared_access).collect();
    assert!(!lines.is_empty());
    for l in lines {
        let shared_operand = if l.contains("ldmatrix.") { l.rsplit('[').next() } else { l.split('[').nth(1) };
        assert!(shared_operand.unwrap().starts_with("%r") && !shared_operand.unwrap().starts_with("%rd"), "{l}");
    }
    if let Some(p) = Ptxas::locate(&workspace_root()) {
        for sm in ["sm_80", "sm_90"] {
            p.check(&k.ptx, sm).unwrap_or_else(|e| panic!("{sm}: {e}"));
        }
    }
}

/// The distinct base registers of the `ld.shared.b8` lines of `ptx`.
fn byte_gather_bases(ptx: &str) -> std::collections::BTreeSet<String> {
    ptx.lines()
        .filter(|l| l.contains("ld.shared.b8"))
        .filter_map(|l| l.rsplit('[').next())
        .map(|a| a.split(['+', ']']).next().unwrap_or("").trim().to_string())
        .collect()
}

#[test]
fn an_int8_k_loop_copies_both_operands_and_gathers_b_bytes() {
    // B (K x N, N contiguous) is copied as its rows arrive and each fragment register
    // gathers its four K-consecutive bytes (ldmatrix cannot transpose 8-bit elements),
    // as Triton's int8 mma.sync code does; before, B was loaded synchronously and
    // transposed into shared memory byte by byte every iteration.
    let k = k_loop("*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, 128, 128, 64", 3, 80);
    // 128x64 and 64x128 bytes over 128 threads: 4 16-byte copies of A per iteration; B
    // sits in Triton's swizzle of 8-byte chunks (vec 8, perPhase 1, maxPhase 16), so
    // each of its 4 16-byte vectors is two 8-byte copies. Two iterations before the loop
    // and one in it: 12 and 24, Triton 3.6's counts for this kernel (bench/tc's int8
    // matmul, 128x128x64, 4 warps, 3 stages, has 12 `cp.async.cg` and 24 8-byte
    // `cp.async.ca`).
    assert_eq!(k.ptx.matches("cp.async.cg.shared.global").count(), 3 * 4, "{}", k.ptx);
    assert_eq!(k.ptx.matches("cp.async.ca.shared.global").count(), 3 * 8, "{}", k.ptx);
    assert!(!k.ptx.contains("st.shared.b8"), "no byte-wise transposing stores:\n{}", k.ptx);
    // Per iteration: 2 k32 steps x 8 column tiles (a warp's 64 columns of the 2x2 warps'
    // 128) x 2 registers x 4 bytes.
    assert_eq!(k.ptx.matches("ld.shared.b8").count(), 2 * 8 * 2 * 4, "{}", k.ptx);
    // The 128 gathers address 8 per-thread bases plus immediates, as Triton's: of a
    // constant's swizzle pattern only the bits a thread's own can have need a base.
    let bases = byte_gather_bases(&k.ptx);
    assert!(bases.len() <= 8, "{bases:?}\n{}", k.ptx);
    assert!(k.ptx.contains("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32")
        || k.ptx.contains("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite"));
    // Shared memory: two buffers of A and B, 2 x (8192 + 8192) bytes, Triton's figure;
    // the epilogue's 128x128 fp32 conversion (66 KiB with its padded rows) moves in
    // four rounds of 32 rows over the dead buffers instead of raising the kernel's
    // shared memory to 66 KiB.
    assert_eq!(k.shared_bytes, 32768);
    let last_mma = k.ptx.rfind("mma.sync").expect("mma");
    let epilogue = &k.ptx[last_mma + k.ptx[last_mma..].find("bra").expect("the loop's branch")..];
    assert_eq!(epilogue.matches("bar.sync").count(), 8, "{epilogue}");
    if let Some(p) = Ptxas::locate(&workspace_root()) {
        p.check(&k.ptx, "sm_80").unwrap_or_else(|e| panic!("sm_80: {e}"));
    }
}

#[test]
fn a_tf32_k_loop_swizzles_its_n_major_b_operand() {
    // fp32 A (128x32) and B (32x128, N contiguous): B's fragments are read a word at a
    // time from Triton's swizzle (vec 8, perPhase 1, maxPhase 4), unpadded: two buffers
    // of each, 2 x (16384 + 16384) bytes, Triton's figure for bench/tc's tf32 matmul.
    // Before, B's rows were padded by 32 bytes (and the kernel took 67584 bytes).
    let sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 32";
    let k = k_loop(sig, 3, 80);
    assert_eq!(k.shared_bytes, 65536);
    // Per iteration: 4 k8 steps x 8 column tiles (a warp's 64 columns of the 2x2
    // warps' 128) x 2 words.
    assert_eq!(k.ptx.matches("ld.shared.b32").count(), 4 * 8 * 2, "{}", k.ptx);
    if let Some(p) = Ptxas::locate(&workspace_root()) {
        let report = p.check(&k.ptx, "sm_80").unwrap_or_else(|e| panic!("sm_80: {e}"));
        assert!(report.log.contains(" 0 bytes spill stores"), "{}", report.log);
    }
}

#[test]
fn a_tf32x3_k_loop_keeps_one_accumulator_tile_live() {
    // Triton's tf32x3 runs three dots over whole tiles into a second accumulator and
    // adds C last; its sm_80 PTX for bench/tc's 128x128x32 fp32 matmul (4 warps, 3
    // stages) spills 1468 bytes under ptxas 13.5, and tritonc's did 2152 when it also
    // read and split the fragments once per sweep. Now each group of output tiles runs
    // all three sweeps in registers of its own before C is added, with every fragment
    // read and split once per K tile: the same instruction sequence per output, no
    // second accumulator tile.
    let x3 = K_LOOP.replace("tl.dot(a, b)", "tl.dot(a, b, input_precision=\"tf32x3\")");
    let launch = tritonc_sema::LaunchOptions {
        num_warps: 4,
        num_stages: 3,
        ..tritonc_sema::LaunchOptions::default()
    };
    let sig = "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, 128, 128, 32";
    let k = crate::from_source::compile_source_with("kloop.py", &x3, "kernel", sig, launch, 80)
        .unwrap_or_else(|e| panic!("{e}"));
    let plain = k_loop(sig, 3, 80);
    let count = |ptx: &str, what: &str| ptx.matches(what).count();
    assert_eq!(count(&k.ptx, "mma.sync.aligned."), 3 * count(&plain.ptx, "mma.sync.aligned."));
    // Warps along M as Triton's (its three dots are chained: `[4, 1]`), so a warp
    // holds 32 rows and all 128 columns. Each fragment word is read once and split once
    // per K tile: per thread 4 k8 steps x 2 row tiles x 4 words of A (ldmatrix.x4) and
    // 4 x 16 column tiles x 2 words of B, 160 `cvt.rna.tf32.f32` as in Triton's PTX.
    assert_eq!(count(&k.ptx, "ldmatrix."), 4 * 2, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "ld.shared.b32"), 4 * 16 * 2, "{}", k.ptx);
    assert_eq!(count(&k.ptx, "cvt.rna.tf32.f32"), 32 + 128, "{}", k.ptx);
    assert_eq!(k.shared_bytes, 65536);
    if let Some(p) = Ptxas::locate(&workspace_root()) {
        let report = p.check(&k.ptx, "sm_80").unwrap_or_else(|e| panic!("sm_80: {e}"));
        let spilled = report
            .log
            .split("bytes spill stores")
            .next()
            .and_then(|head| head.split_whitespace().last())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        assert!(spilled <= 1468, "{}", report.log);
    }
}

#[test]
fn loops_stay_unpipelined_where_copies_cannot_be_made() {
    // num_stages = 1: no pipelining.
    let k = k_loop(ALIGNED, 1, 80);
    assert!(!k.ptx.contains("cp.async"), "{}", k.ptx);
    assert!(k.ptx.contains("mma.sync"));
    // Strides without a divisibility hint: 2-byte accesses, below cp.async's 4 bytes.
    let k = k_loop("*fp16:16, *fp16:16, *fp32:16, i32, i32, i32, 128, 128, 64", 3, 80);
    assert!(!k.ptx.contains("cp.async"), "{}", k.ptx);
    assert!(k.ptx.contains("mma.sync"));
    // Below sm_80 there is neither mma.sync nor cp.async.
    let k = k_loop(ALIGNED, 3, 75);
    assert!(!k.ptx.contains("cp.async") && !k.ptx.contains("mma.sync"));
}

#[test]
fn a_block_over_the_targets_shared_memory_is_a_compile_error() {
    // A 256x256x256 fp16 dot on sm_80 stages 2 x 256 x (256 + 8) x 2 bytes in shared
    // memory and converts a 256x256 fp32 result: more than an A100's 163 KiB.
    let fixture = fixture();
    let src = fixture["cases"][0]["source"].as_str().unwrap();
    let err = compile_source("dot.py", src, "kernel", "*fp16:16, *fp16:16, *fp32:16, 256", 8, 80)
        .expect_err("over the limit");
    assert!(err.contains("bytes of shared memory per block") && err.contains("sm_80"), "{err}");
}

/// The `wgmma` instructions (`wgmma.mma_async.sync.aligned.…`) of `ptx`, sorted.
fn wgmma_instructions(ptx: &str) -> Vec<String> {
    let mut found: Vec<String> = ptx
        .split(|c: char| c.is_whitespace() || c == ';' || c == '"')
        .filter(|w| w.starts_with("wgmma.mma_async.sync.aligned."))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn sm_90_dots_use_tritons_wgmma_instructions_buffers_and_descriptors() {
    // tests/fixtures/triton/wgmma.json (scripts/triton_wgmma.py): Triton 3.6's sm_90 code
    // for a K loop over tiles of 32 to 256, fp16/bf16/tf32/fp8/int8, B N- or K-major, and
    // the loop written `tl.range(…, warp_specialize=True)`, and fp8 dots with a
    // `max_num_imprecise_acc` of at most K.
    let path = workspace_root().join("tests/fixtures/triton/wgmma.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture exists")).expect("JSON");
    let ptxas = Ptxas::locate(&workspace_root());
    let mut checked = 0;
    for case in fixture["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let dt = case["dtype"].as_str().unwrap();
        let acc = case["acc"].as_str().unwrap();
        let block: Vec<u64> = case["block"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let kmajor = if case["b_k_major"].as_bool().unwrap() { "True" } else { "False" };
        let sig = format!(
            "*{dt}:16, *{dt}:16, *{acc}:16, i32:16, i32:16, i32:16, {}, {}, {}, {kmajor}, 'tf32'",
            block[0], block[1], block[2]
        );
        let launch = tritonc_sema::LaunchOptions {
            num_warps: case["num_warps"].as_u64().unwrap() as u32,
            num_stages: 3,
            ..tritonc_sema::LaunchOptions::default()
        };
        let source = case["source"].as_str().unwrap();
        let k = crate::from_source::compile_source_with("mm.py", source, "matmul", &sig, launch, 90)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if case.get("triton_error").is_some() {
            // `tl.range(…, warp_specialize=True)` at 4 warps: Triton 3.6's Hopper
            // warp-specialization pass fails an assertion. tritonc ignores the keyword, as
            // Triton does at 8 warps, and compiles the plain loop.
            assert!(case["warp_specialize"].as_bool().unwrap(), "{name}: only warp_specialize cases fail");
            assert!(!wgmma_instructions(&k.ptx).is_empty() && !k.ptx.contains("setmaxnreg"), "{name}");
            checked += 1;
            continue;
        }
        // Warp specialization: Triton 3.6 emits none for these loops on sm_90, even with
        // `warp_specialize=True`; neither does tritonc.
        assert_eq!(case["warp_specialize_regions"].as_u64(), Some(0), "{name}");
        assert_eq!(k.ptx.matches("setmaxnreg").count() as u64, case["setmaxnreg"].as_u64().unwrap(), "{name}");
        let want: Vec<String> = case["wgmma"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        assert_eq!(wgmma_instructions(&k.ptx), want, "{name}");
        if case["max_num_imprecise_acc"].is_u64() {
            // fp8 with `max_num_imprecise_acc` ≤ K: Triton's split accumulation, the same
            // `wgmma`s and the same fp32 adds of each run into the result.
            let count = |ops: &[&str]| {
                k.ptx.split_whitespace().filter(|w| ops.contains(w)).count() as u64
            };
            assert_eq!(count(&["wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2"]), case["wgmma_count"].as_u64().unwrap(), "{name}: wgmmas");
            assert_eq!(count(&["add.f32", "add.rn.f32"]), case["f32_adds"].as_u64().unwrap(), "{name}: fp32 adds");
        }
        if want.is_empty() {
            // Triton keeps `mma.sync` (fewer than 64 rows or 4 warps): so does tritonc.
            assert!(k.ptx.contains("mma.sync.aligned"), "{name}");
            continue;
        }
        assert!(k.ptx.contains(".target sm_90a"), "{name}");
        assert!(k.ptx.contains("wgmma.fence.sync.aligned") && k.ptx.contains("wgmma.commit_group.sync.aligned"));
        // Both operands copied by `cp.async` into Triton's buffers: the same bytes.
        let buffers: Vec<&str> = case["buffers"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let elem: u64 = match dt {
            "fp16" | "bf16" => 2,
            "fp32" => 4,
            _ => 1,
        };
        // (A 32-bit N-major B, which Triton loads into registers and stores into K-major
        // pipeline buffers, is staged from registers in every iteration here, in less
        // shared memory.)
        if buffers.len() == 2 && (elem != 4 || kmajor == "True") {
            let bytes: u64 = buffers
                .iter()
                .map(|b| b.trim_end_matches('x').split('x').map(|d| d.parse::<u64>().unwrap()).product::<u64>() * elem)
                .sum();
            assert_eq!(u64::from(k.shared_bytes), bytes, "{name}: shared bytes");
        }
        // Triton's waits: in flight across iterations (`wait_group 1` in the loop, 0
        // after it) where the dot accumulates into the loop's accumulator; only 0 where
        // the accumulation is an add after the dot (fp8 and int8 `acc += tl.dot(…)`).
        let words = k.ptx.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut waits: Vec<String> = words
            .match_indices("wgmma.wait_group.sync.aligned ")
            .map(|(i, m)| words[i + m.len()..].split(';').next().unwrap().to_string())
            .collect();
        waits.sort();
        waits.dedup();
        let want_waits: Vec<String> = case["wait_group"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        if elem != 4 || kmajor == "True" {
            // (An int8 `acc += tl.dot(…)` becomes the dot's own accumulation here, so it
            // stays in flight too, where Triton waits at once.)
            let extra_int = dt == "i8" && waits == ["0", "1"];
            assert!(waits == want_waits || extra_int, "{name}: wgmma.wait_group values {waits:?}, Triton {want_waits:?}");
        } else {
            assert_eq!(waits, ["0"], "{name}: staged from registers, waited at once");
        }
        // Triton's descriptor constants (swizzle, stride and leading byte offsets), and
        // its transpose immediates for 16-bit types.
        for d in case["descriptor_bits"].as_array().unwrap() {
            let bits = u64::from_str_radix(d.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
            let text = [format!(", {};", bits), format!(", {};", bits as i64)];
            assert!(text.iter().any(|t| k.ptx.contains(t.as_str())), "{name}: descriptor {d} missing");
        }
        for st in case["scale_trans"].as_array().unwrap() {
            assert!(k.ptx.contains(&format!("p, {};", st.as_str().unwrap())), "{name}: immediates {st}");
        }
        if let Some(p) = &ptxas {
            // No more spill bytes than Triton's code under the same ptxas.
            let report = p.check(&k.ptx, "sm_90").unwrap_or_else(|e| panic!("{name}: ptxas: {e}"));
            let spills = report.log.split(" bytes spill stores").next().and_then(|t| t.rsplit(' ').next()).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
            let triton = case["ptxas_sm90a"]["spill_stores"].as_u64().unwrap_or(0);
            assert!(spills <= triton, "{name}: {spills} bytes spilled, Triton {triton}: {}", report.log);
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} wgmma cases checked");
}
