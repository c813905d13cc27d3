//! The builtin families beyond the core (reductions, scans, dot, shape, math, libdevice,
//! atomics, block pointers, random, debug): IR snapshots of small kernels, typing facts
//! checked against what Triton 3.6 produces for the same source, and rendered
//! diagnostics for misuse.

use tritonc_diagnostics::{render, Format, SourceMap, Span, TerminalOptions};
use tritonc_ir::{Function, OpKind};
use tritonc_sema::spec::{bind_signature, parse_signature};
use tritonc_sema::LaunchOptions;

const PRELUDE: &str =
    "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n";

/// Lowers kernel `k` of `body` (without the imports) with `sig`; errors come rendered.
fn lower(body: &str, sig: &str) -> Result<tritonc_ir::Module, String> {
    let src = format!("{PRELUDE}{body}");
    let mut sources = SourceMap::new();
    let file = sources.add("kernel.py", src.clone());
    let sig_file = sources.add("<signature>", sig.to_string());
    let parsed = tritonc_syntax::parse_module(file, &src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    let scope = tritonc_sema::ModuleScope::from_module(&parsed.module);
    let def = scope
        .functions
        .get("k")
        .expect("the test kernel is named k")
        .clone();
    let rendered = |ds: Vec<tritonc_diagnostics::Diagnostic>| {
        render(
            Format::Terminal,
            &ds,
            &sources,
            &TerminalOptions::plain(100),
        )
    };
    let items = parse_signature(sig, sig_file).map_err(rendered)?;
    let spec = bind_signature(
        &def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(sig_file, 0, sig.len() as u32),
    )
    .map_err(rendered)?;
    tritonc_sema::lower_kernel(&parsed.module, "k", &spec).map_err(rendered)
}

fn ir(body: &str, sig: &str) -> String {
    match lower(body, sig) {
        Ok(m) => {
            if let Err(e) = tritonc_ir::verify_module(&m) {
                panic!("the IR does not verify: {e:?}\n{m}");
            }
            tritonc_ir::print_module(&m, tritonc_ir::PrintOptions::default())
        }
        Err(e) => panic!("lowering failed:\n{e}"),
    }
}

fn error(body: &str, sig: &str) -> String {
    match lower(body, sig) {
        Ok(m) => panic!("expected an error, got:\n{m}"),
        Err(e) => e,
    }
}

/// Result types of every op named `name`, in textual order.
fn result_types(f: &Function, name: &str) -> Vec<String> {
    f.walk()
        .into_iter()
        .filter(|&o| f.kind(o).name() == name)
        .flat_map(|o| {
            f.op(o)
                .results()
                .iter()
                .map(|&r| f.value_type(r).to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn func(body: &str, sig: &str) -> Function {
    lower(body, sig)
        .unwrap_or_else(|e| panic!("{e}"))
        .functions
        .remove(0)
}

// ----- IR snapshots (each reviewed against Triton 3.6's TTIR for the same kernel) -----

#[test]
fn argmax_and_max_with_indices() {
    let body = "@triton.jit
def k(x_ptr, i_ptr, v_ptr):
    r = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    x = tl.load(x_ptr + r)
    tl.store(i_ptr + tl.arange(0, 4), tl.argmax(x, 1))
    v, i = tl.min(x, axis=0, return_indices=True, return_indices_tie_break_left=False)
    tl.store(v_ptr + tl.arange(0, 8), v)
";
    insta::assert_snapshot!(ir(body, "*fp32, *i32, *fp32"));
}

#[test]
fn reduce_and_scan_with_jit_combiners() {
    let body = "@triton.jit
def pair_max(a, ia, b, ib):
    return tl.maximum(a, b), tl.minimum(ia, ib)

@triton.jit
def mul(a, b):
    return a * b

@triton.jit
def k(x_ptr, o_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    idx = tl.arange(0, 16)
    m, j = tl.reduce((x, idx), 0, pair_max)
    p = tl.associative_scan(x, 0, mul, reverse=True)
    c = tl.cumsum(x.to(tl.int8), 0)
    tl.store(o_ptr + j, m + tl.sum(p) + tl.sum(c).to(tl.float32))
";
    insta::assert_snapshot!(ir(body, "*fp32, *fp32"));
}

#[test]
fn shapes_dot_and_math() {
    let body = "@triton.jit
def k(a_ptr, o_ptr, s_ptr):
    r = tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :]
    a = tl.load(a_ptr + r)
    b = tl.trans(a)
    c = tl.dot(a, b, out_dtype=tl.float16)
    d = tl.reshape(c, 256).to(tl.float32)
    lo, hi = tl.split(tl.reshape(d, (128, 2)))
    e = tl.join(lo, hi).T
    f = tl.fma(e, 2.0, 1.0)
    g = libdevice.pow(tl.ravel(f), 2)
    h = tl.clamp(g, 0.0, 1.0)
    tl.store(o_ptr + tl.arange(0, 256), tl.sigmoid(h))
    s = tl.softmax(tl.load(s_ptr + tl.arange(0, 8)))
    tl.store(s_ptr + tl.arange(0, 8), tl.maximum(s, 0.5, propagate_nan=0xFFFF))
";
    insta::assert_snapshot!(ir(body, "*fp16, *fp32, *fp32"));
}

#[test]
fn atomics_block_pointers_print_and_barrier() {
    let body = "@triton.jit
def k(a_ptr, o_ptr, cnt_ptr, M, N):
    p = tl.make_block_ptr(a_ptr, (M, N), (N, 1), (0, 8), (16, 32), (1, 0))
    x = tl.load(p, boundary_check=(1,), padding_option='zero')
    p = tl.advance(p, (16, 0))
    y = tl.load(p)
    q = tl.make_block_ptr(o_ptr, (M, N), (N, 1), (0, 0), (16, 32), (1, 0))
    tl.store(q, x + y, boundary_check=(0, 1))
    old = tl.atomic_add(cnt_ptr + tl.arange(0, 4), 1, sem='relaxed', scope='cta')
    tl.atomic_cas(cnt_ptr, 0, 1)
    tl.debug_barrier()
    print('old', old)
";
    insta::assert_snapshot!(ir(body, "*fp16, *fp16, *i32, i32, i32"));
}

// ----- typing facts, each as Triton 3.6 types the same source -----

#[test]
fn reduction_and_scan_result_types_follow_triton() {
    // Triton 3.6 (checked on this kernel): sum keeps fp16 and widens i8 to i32; max widens
    // fp16 to fp32; cumsum of bf16 is fp32; argmax reduces (f16 values, i32 indices) as
    // only bf16 is promoted there; keep_dims with axis=None keeps the rank.
    let f = func(
        "@triton.jit
def k(h_ptr, b_ptr, i_ptr):
    h = tl.load(h_ptr + tl.arange(0, 16))
    b = tl.load(b_ptr + tl.arange(0, 16))
    i = tl.load(i_ptr + tl.arange(0, 16))
    a0 = tl.sum(h)
    a1 = tl.sum(i)
    a2 = tl.max(h)
    a3 = tl.cumsum(b)
    a4 = tl.argmax(h, 0)
    a5 = tl.sum(tl.reshape(h, (4, 4)), keep_dims=True)
    a6 = tl.sum(h, dtype=tl.float32)
    tl.store(h_ptr, a0 + a2 + a4 + a6)
    tl.store(b_ptr + tl.arange(0, 16), a3)
    tl.store(i_ptr, a1)
    tl.store(h_ptr + tl.arange(0, 1)[:, None], a5)
",
        "*fp16, *bf16, *i8",
    );
    let reduces = result_types(&f, "tt.reduce");
    assert_eq!(reduces, ["f16", "i32", "f32", "f16", "i32", "f16", "f32"]);
    assert_eq!(result_types(&f, "tt.scan"), ["tensor<16xf32>"]);
    // keep_dims over all dims: the scalar comes back as a 1x1 block.
    assert!(result_types(&f, "tt.expand_dims").contains(&"tensor<1x1xf16>".to_string()));
}

#[test]
fn dot_result_types_follow_triton() {
    // Triton 3.6 (sm90): int8 gives i32, fp32 ignores out_dtype, fp16 honours it, M = N = 8
    // is accepted with K = 16.
    let cases = [
        ("*i8", 16, 32, "", "tensor<16x16xi32>"),
        (
            "*fp32",
            16,
            16,
            ", out_dtype=tl.float16",
            "tensor<16x16xf32>",
        ),
        (
            "*fp16",
            16,
            16,
            ", out_dtype=tl.float16",
            "tensor<16x16xf16>",
        ),
        ("*fp16", 8, 16, "", "tensor<8x8xf32>"),
        ("*fp64", 16, 16, "", "tensor<16x16xf64>"),
    ];
    for (ptr, mn, kk, extra, want) in cases {
        let body = format!(
            "@triton.jit
def k(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, {mn})[:, None] * {kk} + tl.arange(0, {kk})[None, :])
    b = tl.load(a_ptr + tl.arange(0, {kk})[:, None] * {mn} + tl.arange(0, {mn})[None, :])
    c = tl.dot(a, b{extra})
    tl.store(a_ptr + tl.arange(0, {mn})[:, None] * {mn} + tl.arange(0, {mn})[None, :], c)
"
        );
        let f = func(&body, ptr);
        assert_eq!(result_types(&f, "tt.dot"), [want], "{ptr} {extra}");
    }
}

#[test]
fn libdevice_dispatches_on_exact_dtypes() {
    let f = func(
        "@triton.jit
def k(x_ptr, d_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    d = tl.load(d_ptr + tl.arange(0, 16))
    y = libdevice.pow(x, 2) + libdevice.pow(x, 0.5) + libdevice.tanh(x)
    z = tl.extra.cuda.libdevice.rsqrt(d)
    n = libdevice.isnan(x)
    tl.store(x_ptr + tl.arange(0, 16), tl.where(n, 0.0, y))
    tl.store(d_ptr + tl.arange(0, 16), z)
",
        "*fp32, *fp64",
    );
    let symbols: Vec<String> = f
        .walk()
        .into_iter()
        .filter_map(|o| match f.kind(o) {
            OpKind::ExternElementwise { symbol, .. } => Some(symbol.clone()),
            _ => None,
        })
        .collect();
    // Symbols of Triton 3.6's libdevice.py for (fp32, int32), (fp32, fp32), fp32, fp64.
    assert_eq!(
        symbols,
        [
            "__nv_powif",
            "__nv_powf",
            "__nv_tanhf",
            "__nv_rsqrt",
            "__nv_isnanf"
        ]
    );
}

#[test]
fn philox_constants_and_round_count() {
    // randint with n_rounds=3: three rounds of two umulhi each, with Philox 4x32's
    // multipliers 0xD2511F53 and 0xCD9E8D57.
    let f = func(
        "@triton.jit
def k(o_ptr, seed):
    r = tl.randint(seed, tl.arange(0, 16), 3)
    tl.store(o_ptr + tl.arange(0, 16), r)
",
        "*u32, i32",
    );
    let n = f
        .walk()
        .into_iter()
        .filter(|&o| matches!(f.kind(o), OpKind::MulHiUI))
        .count();
    assert_eq!(n, 6);
    let text = f.to_string();
    assert!(
        text.contains(&0xD251_1F53u32.to_string()) && text.contains(&0xCD9E_8D57u32.to_string())
    );
    assert_eq!(result_types(&f, "tt.mulhiui")[0], "tensor<16xu32>");
}

// ----- diagnostics -----

#[test]
fn misuse_diagnostics() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "reduce_bad_axis",
            "@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr, tl.sum(x, axis=1))
",
            "*fp32",
        ),
        (
            "dot_k_too_small",
            "@triton.jit
def k(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
    b = tl.load(a_ptr + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b)
",
            "*fp16",
        ),
        (
            "dot_dtype_mismatch",
            "@triton.jit
def k(a_ptr, b_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    b = tl.load(b_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b)
",
            "*fp16, *fp32",
        ),
        (
            "dot_int32_acc_needs_out_dtype",
            "@triton.jit
def k(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    b = tl.load(a_ptr + tl.arange(0, 32)[:, None] * 16 + tl.arange(0, 16)[None, :])
    c = tl.dot(a, b, acc=tl.zeros((16, 16), tl.int32))
",
            "*i8",
        ),
        (
            "exp_of_fp16",
            "@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), tl.sigmoid(x))
",
            "*fp16",
        ),
        (
            "atomic_on_i8",
            "@triton.jit
def k(c_ptr):
    tl.atomic_max(c_ptr + tl.arange(0, 16), 1)
",
            "*i8",
        ),
        (
            "atomic_bad_sem",
            "@triton.jit
def k(c_ptr):
    tl.atomic_add(c_ptr, 1, sem='seq_cst')
",
            "*i32",
        ),
        (
            "libdevice_no_overload",
            "@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr + tl.arange(0, 16), libdevice.tanh(x))
",
            "*fp16",
        ),
        (
            "combiner_changes_type",
            "@triton.jit
def add_half(a, b):
    return a + b + 0.5

@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    tl.store(x_ptr, tl.reduce(x, 0, add_half))
",
            "*i32",
        ),
        (
            "block_pointer_with_mask",
            "@triton.jit
def k(x_ptr, n):
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (16,), (0,))
    x = tl.load(p, mask=tl.arange(0, 16) < n)
",
            "*fp32, i32",
        ),
        (
            "cat_without_reorder",
            "@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    y = tl.cat(x, x)
",
            "*fp32",
        ),
        (
            "permute_not_a_permutation",
            "@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    y = tl.permute(x, 0, 0)
",
            "*fp32",
        ),
    ];
    for (name, body, sig) in cases {
        insta::assert_snapshot!(*name, error(body, sig));
    }
}

/// Evaluates a straight-line function of scalar integer ops; returns the stored values by
/// element offset. Pointer arguments are offset 0; integer arguments come from `args`.
fn eval_scalar_stores(f: &Function, args: &[u128]) -> Vec<(u128, u128)> {
    use std::collections::HashMap;
    use tritonc_ir::{BinaryOp, CastOp, ConstValue};
    let width = |v: tritonc_ir::Value| f.value_type(v).elem().bitwidth().unwrap_or(64);
    let mask = |w: u32| {
        if w >= 128 {
            u128::MAX
        } else {
            (1u128 << w) - 1
        }
    };
    let mut vals: HashMap<tritonc_ir::Value, u128> = HashMap::new();
    for (i, &a) in f.args().iter().enumerate() {
        vals.insert(
            a,
            if f.value_type(a).is_ptr_like() {
                0
            } else {
                args[i]
            },
        );
    }
    let mut stores = Vec::new();
    for op in f.walk() {
        let d = f.op(op);
        let x = |i: usize| vals[&d.operands()[i]];
        let r = d.results().first().copied();
        let w = r.map(width).unwrap_or(64);
        let out = match f.kind(op) {
            OpKind::Constant(ConstValue::Int(v)) => (*v as u128) & mask(w),
            OpKind::Cast {
                op: CastOp::ExtSI, ..
            } => {
                let from = width(d.operands()[0]);
                let v = x(0);
                let neg = v >> (from - 1) & 1 == 1;
                (if neg { v | !mask(from) } else { v }) & mask(w)
            }
            OpKind::Cast {
                op: CastOp::ExtUI | CastOp::TruncI | CastOp::Bitcast,
                ..
            } => x(0) & mask(w),
            OpKind::Binary(b) => {
                let (a, c) = (x(0), x(1));
                (match b {
                    BinaryOp::AddI => a.wrapping_add(c),
                    BinaryOp::SubI => a.wrapping_sub(c),
                    BinaryOp::MulI => a.wrapping_mul(c),
                    BinaryOp::XOrI => a ^ c,
                    BinaryOp::AndI => a & c,
                    BinaryOp::OrI => a | c,
                    BinaryOp::ShRUI => a >> c,
                    other => panic!("unexpected {other:?} in the Philox expansion"),
                }) & mask(w)
            }
            OpKind::MulHiUI => (x(0) * x(1)) >> w,
            OpKind::AddPtr => x(0) + x(1),
            OpKind::Store { .. } => {
                stores.push((x(0), x(1)));
                continue;
            }
            OpKind::Return => continue,
            other => panic!("unexpected {other:?} in the Philox expansion"),
        };
        vals.insert(r.expect("value ops have a result"), out);
    }
    stores
}

#[test]
fn philox_matches_the_random123_known_answers() {
    // Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors):
    // counter (c0..c3), key (k0, k1) -> four outputs. Triton's key is (seed_lo, seed_hi).
    let f = func(
        "@triton.jit
def k(o_ptr, seed, c0, c1, c2, c3):
    a, b, c, d = tl.philox(seed, c0, c1, c2, c3)
    tl.store(o_ptr, a)
    tl.store(o_ptr + 1, b)
    tl.store(o_ptr + 2, c)
    tl.store(o_ptr + 3, d)
",
        "*u32, u64, u32, u32, u32, u32",
    );
    let kat: [([u128; 4], u128, [u128; 4]); 3] = [
        (
            [0, 0, 0, 0],
            0,
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [0xffffffff; 4],
            0xffffffff_ffffffff,
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            0x299f31d0_a4093822,
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (ctr, key, want) in kat {
        let stores = eval_scalar_stores(&f, &[0, key, ctr[0], ctr[1], ctr[2], ctr[3]]);
        let got: Vec<u128> = stores.iter().map(|s| s.1).collect();
        assert_eq!(got, want, "counter {ctr:x?}, key {key:x}");
    }
}
