//! Precision on patterns real projects use, with planted defects next to each: TRI101
//! (rows clamped with `tl.where`), TRI304 (a guessed key is not a safe fix), TRI203
//! (which int32 products can really wrap).

#[allow(dead_code)]
mod common;

use tritonc_lint::{Applicability, Finding, Settings};

const HEADER: &str = "import triton\nimport triton.language as tl\n\n\n";

fn lint(body: &str, settings: &Settings) -> Vec<(String, u32)> {
    lint_findings(body, settings).0
}

fn lint_findings(body: &str, settings: &Settings) -> (Vec<(String, u32)>, Vec<Finding>) {
    let text = format!("{HEADER}{body}");
    let (findings, sources) = common::lint_text("k.py", &text, settings);
    let codes = common::codes_and_lines(&findings, &sources)
        .into_iter()
        // Lines relative to the body.
        .map(|(c, l)| (c, l - 4))
        .collect();
    (codes, findings)
}

fn only(code: &str) -> Settings {
    Settings {
        select: vec![code.into()],
        ..Settings::default()
    }
}

// ---- TRI101 ----

const WHERE_CLAMPED_MATMUL: &str = r#"@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    rm = tl.where(offs_m < M, offs_m, 0)
    rn = tl.where(offs_n >= N, 0, offs_n)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] + rn[None, :] * stride_bn, mask=(k + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=c_mask)
"#;

#[test]
fn tri101_rows_clamped_with_where_are_in_bounds() {
    assert_eq!(lint(WHERE_CLAMPED_MATMUL, &only("TRI101")), vec![]);
}

#[test]
fn tri101_a_where_that_does_not_clamp_is_still_found() {
    // The clamp's condition bounds another range, and one side still runs past: both loads
    // of these rows stay unbounded.
    let wrong_cond = WHERE_CLAMPED_MATMUL.replace(
        "rm = tl.where(offs_m < M, offs_m, 0)",
        "rm = tl.where(offs_n < N, offs_m, 0)",
    );
    assert_eq!(
        lint(&wrong_cond, &only("TRI101")),
        vec![("TRI101".to_string(), 11)]
    );
    let both_sides_ranged = WHERE_CLAMPED_MATMUL.replace(
        "rn = tl.where(offs_n >= N, 0, offs_n)",
        "rn = tl.where(offs_n >= N, offs_n - N, offs_n)",
    );
    assert_eq!(
        lint(&both_sides_ranged, &only("TRI101")),
        vec![("TRI101".to_string(), 12)]
    );
}

// ---- TRI304 ----

#[test]
fn tri304_guessed_key_is_an_unsafe_fix() {
    let body = r#"@triton.autotune(configs=[triton.Config({"BLOCK": 256})], key=["n_col"])
@triton.jit
def k(x_ptr, n_cols, BLOCK: tl.constexpr):
    pass
"#;
    let (codes, findings) = lint_findings(body, &only("TRI304"));
    assert_eq!(codes, vec![("TRI304".to_string(), 1)]);
    let fix = findings[0]
        .diagnostic
        .fix
        .as_ref()
        .expect("a fix is offered");
    assert_eq!(fix.edits[0].replacement, "\"n_cols\"");
    assert_eq!(findings[0].applicability, Applicability::Unsafe);
}

// ---- TRI203 ----

/// TRI203 with the limit a project sets when its tensors can pass 2^31 elements.
fn tri203_only() -> Settings {
    Settings {
        max_tensor_elements: Some(1 << 32),
        ..only("TRI203")
    }
}

const ROWS_TIMES_STRIDE: &str = r#"@triton.jit
def softmax(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row * stride + cols, x, mask=cols < n)
"#;

#[test]
fn tri203_by_default_only_kernels_that_compute_offsets_in_int64_are_checked() {
    // Nothing in the kernel or the configuration says its tensors pass int32: quiet.
    assert_eq!(lint(ROWS_TIMES_STRIDE, &only("TRI203")), vec![]);
    // The kernel widens one offset to int64 and misses the other: that one is found.
    let half_widened = ROWS_TIMES_STRIDE.replace(
        "tl.store(out_ptr + row * stride + cols",
        "tl.store(out_ptr + row.to(tl.int64) * stride + cols",
    );
    let (codes, findings) = lint_findings(&half_widened, &only("TRI203"));
    assert_eq!(codes, vec![("TRI203".to_string(), 5)]);
    assert!(findings[0]
        .diagnostic
        .notes
        .iter()
        .any(|n| n.contains("int64")));
    // An int64 parameter on the way to `out`'s offset says the same of `out` (not of `x`,
    // whose offsets share nothing with it).
    let wide_param = ROWS_TIMES_STRIDE
        .replace("stride, n, BLOCK", "stride, n, base: tl.int64, BLOCK")
        .replace("tl.store(out_ptr + row", "tl.store(out_ptr + base + row");
    assert_eq!(
        lint(&wide_param, &only("TRI203")),
        vec![("TRI203".to_string(), 6)]
    );
    // A configured limit at or below 2^31 - 1 silences even that.
    let small = Settings {
        max_tensor_elements: Some(i32::MAX as u64),
        ..only("TRI203")
    };
    assert_eq!(lint(&half_widened, &small), vec![]);
}

#[test]
fn tri203_one_index_scaled_by_several_strides_is_one_finding() {
    let body = r#"@triton.jit
def attn(q_ptr, o_ptr, stride_qm, stride_om, n, BLOCK: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    d = tl.arange(0, 64)
    q = tl.load(q_ptr + offs_m[:, None] * stride_qm + d[None, :], mask=(offs_m < n)[:, None], other=0.0)
    tl.store(o_ptr + offs_m[:, None] * stride_om + d[None, :], q, mask=(offs_m < n)[:, None])
    tl.store(o_ptr + offs_m[:, None] * stride_om + d[None, :], q, mask=(offs_m < n)[:, None])
"#;
    assert_eq!(lint(body, &tri203_only()), vec![("TRI203".to_string(), 5)]);
    // A second index is a second defect.
    let two = body.replace(
        "tl.store(o_ptr + offs_m[:, None] * stride_om + d[None, :], q, mask=(offs_m < n)[:, None])\n    tl.store",
        "tl.store(o_ptr + tl.program_id(1) * stride_om + d[None, :], q)\n    tl.store",
    );
    assert_eq!(
        lint(&two, &tri203_only()),
        vec![("TRI203".to_string(), 5), ("TRI203".to_string(), 6)]
    );
}

#[test]
fn tri203_row_times_stride_is_found() {
    // The same product written twice is one finding.
    assert_eq!(
        lint(ROWS_TIMES_STRIDE, &tri203_only()),
        vec![("TRI203".to_string(), 5)]
    );
}

#[test]
fn tri203_offsets_the_mask_bounds_by_an_int32_size_are_quiet() {
    let body = r#"@triton.jit
def chunked(x_ptr, out_ptr, chunk, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * chunk + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x, mask=mask & (x > 0))
"#;
    assert_eq!(lint(body, &tri203_only()), vec![]);
    // An int64 size says the tensor can pass 2^31: the int32 product wraps first.
    let int64_size = body.replace("chunk, n, BLOCK", "chunk, n: tl.int64, BLOCK");
    assert_eq!(
        lint(&int64_size, &tri203_only()),
        vec![("TRI203".to_string(), 3)]
    );
    // One access the mask does not bound is enough.
    let unmasked_store = body.replace(
        "tl.store(out_ptr + offs, x, mask=mask & (x > 0))",
        "tl.store(out_ptr + offs, x)",
    );
    assert_eq!(
        lint(&unmasked_store, &tri203_only()),
        vec![("TRI203".to_string(), 3)]
    );
}

/// Triton's matmul tutorial: the rows are tiled by a program id and multiplied by their
/// stride; the columns are the innermost dim, scaled by a stride that is 1 on a
/// contiguous tensor. The `tl.assume` calls promise only lower bounds.
const STRIDED_TILE: &str = r#"@triton.jit
def tile(x_ptr, out_ptr, M, N, stride_xm, stride_xn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tl.assume(pid_m >= 0)
    tl.assume(stride_xm > 0)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn)
    tl.store(out_ptr + offs_m[:, None] * BN + tl.arange(0, BN)[None, :], x)
"#;

#[test]
fn tri203_kernels_with_tl_assume_are_analysed_and_lower_bounds_silence_nothing() {
    let settings = Settings {
        select: vec!["TRI203".into(), "TRI001".into()],
        ..tri203_only()
    };
    // Analysed (no TRI001), the row product found despite `stride_xm > 0`, the innermost
    // stride quiet.
    assert_eq!(
        lint(STRIDED_TILE, &settings),
        vec![("TRI203".to_string(), 9)]
    );
    // An upper bound on the stride is honoured.
    let bounded = STRIDED_TILE.replace("tl.assume(stride_xm > 0)", "tl.assume(stride_xm < 65536)");
    assert_eq!(lint(&bounded, &settings), vec![]);
    // So is one written the other way round, inside a conjunction.
    let reversed = STRIDED_TILE.replace(
        "tl.assume(stride_xm > 0)",
        "tl.assume((stride_xm > 0) & (65536 > stride_xm))",
    );
    assert_eq!(lint(&reversed, &settings), vec![]);
}

#[test]
fn tri203_innermost_stride_follows_the_configured_signature() {
    let with_signature = |sig: &str| {
        let mut s = tri203_only();
        s.kernel_signatures.insert("tile".into(), sig.into());
        s
    };
    // Configured as a plain i32 the inner stride is a real product (a transposed view):
    // found, on the same line as the row product, as a second finding.
    let plain = lint(
        STRIDED_TILE,
        &with_signature("*fp32, *fp32, i32, i32, i32, i32, 64, 64"),
    );
    assert_eq!(
        plain,
        vec![("TRI203".to_string(), 9), ("TRI203".to_string(), 9)]
    );
    // `i32:1` specializes it to the constant 1: only the row product remains.
    assert_eq!(
        lint(
            STRIDED_TILE,
            &with_signature("*fp32, *fp32, i32, i32, i32, i32:1, 64, 64")
        ),
        vec![("TRI203".to_string(), 9)]
    );
}

#[test]
fn tri203_only_innermost_strides_are_presumed_contiguous() {
    // A row length used as the column stride (a column-major operand) is not a stride
    // Triton specializes to 1 in practice: found.
    let by_len = STRIDED_TILE.replace("offs_n[None, :] * stride_xn", "offs_n[None, :] * M");
    assert_eq!(
        lint(&by_len, &tri203_only()),
        vec![("TRI203".to_string(), 9), ("TRI203".to_string(), 9)]
    );
    // A stride along the first dim of the block is the row stride: found.
    let rows_inner = STRIDED_TILE.replace(
        "offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn",
        "offs_m[:, None] * stride_xn + offs_n[None, :]",
    );
    assert_eq!(
        lint(&rows_inner, &tri203_only()),
        vec![("TRI203".to_string(), 9)]
    );
    // `x * 1` is no product, and a hint on a real product does not hide it.
    let body = r#"@triton.jit
def k(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * 1)
    tl.store(out_ptr + tl.multiple_of(pid * stride, 16) + tl.arange(0, BLOCK), x)
"#;
    assert_eq!(lint(body, &tri203_only()), vec![("TRI203".to_string(), 6)]);
}

// ---- TRI301 ----

/// FlagGems' softmax shape: one tile per program when the heuristic says the tile covers
/// the row, a loop over the row otherwise.
const ONE_TILE_SOFTMAX: &str = r#"@triton.autotune(configs=[triton.Config({"TILE_N": 256}), triton.Config({"TILE_N": 1024})], key=["N"])
@triton.heuristics({"ONE_TILE_PER_CTA": lambda args: args["TILE_N"] >= args["N"]})
@triton.jit
def softmax(out_ptr, in_ptr, M, N, TILE_N: tl.constexpr, ONE_TILE_PER_CTA: tl.constexpr):
    pid_m = tl.program_id(0)
    if ONE_TILE_PER_CTA:
        n_offsets = tl.arange(0, TILE_N)
        mask = n_offsets < N
        inp = tl.load(in_ptr + pid_m * N + n_offsets, mask=mask, other=-float("inf"))
        m = tl.max(inp, 0)
        e = tl.exp(inp - m)
        z = tl.sum(e, 0)
        tl.store(out_ptr + pid_m * N + n_offsets, e / z, mask=mask)
    else:
        m = tl.full([TILE_N], value=float("-inf"), dtype=tl.float32)
        for start_n in range(0, N, TILE_N):
            n_offsets = start_n + tl.arange(0, TILE_N)
            inp = tl.load(in_ptr + pid_m * N + n_offsets, mask=n_offsets < N, other=-float("inf"))
            m = tl.maximum(m, inp)
        tl.store(out_ptr + pid_m, tl.max(m, 0))
"#;

#[test]
fn tri301_a_heuristic_that_covers_the_row_is_quiet() {
    assert_eq!(lint(ONE_TILE_SOFTMAX, &only("TRI301")), vec![]);
    // Written the other way round.
    let reversed = ONE_TILE_SOFTMAX.replace(
        r#"args["TILE_N"] >= args["N"]"#,
        r#"args["N"] <= args["TILE_N"]"#,
    );
    assert_eq!(lint(&reversed, &only("TRI301")), vec![]);
}

#[test]
fn tri301_a_heuristic_that_does_not_cover_the_row_is_still_found() {
    // The flag compares the tile against a constant, or says the tile is smaller than the
    // row: both reductions of the one-tile branch reduce a partial row.
    for heuristic in [r#"args["TILE_N"] >= 128"#, r#"args["TILE_N"] < args["N"]"#] {
        let body = ONE_TILE_SOFTMAX.replace(r#"args["TILE_N"] >= args["N"]"#, heuristic);
        assert_eq!(
            lint(&body, &only("TRI301")),
            vec![("TRI301".to_string(), 10), ("TRI301".to_string(), 12)],
            "{heuristic}"
        );
    }
}

const AUTOTUNED_ROW_SUM: &str = r#"@triton.autotune(configs=[triton.Config({'BLOCK': 256}), triton.Config({'BLOCK': 1024})], key=['n'])
@triton.jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x, axis=0))
"#;

#[test]
fn tri301_an_assumption_that_the_block_covers_the_row_is_honoured() {
    assert_eq!(
        lint(AUTOTUNED_ROW_SUM, &only("TRI301")),
        vec![("TRI301".to_string(), 6)]
    );
    let assumed = AUTOTUNED_ROW_SUM.replace(
        "    cols = tl.arange(0, BLOCK)\n",
        "    tl.assume(n <= BLOCK)\n    cols = tl.arange(0, BLOCK)\n",
    );
    assert_eq!(lint(&assumed, &only("TRI301")), vec![]);
    // A bound between compile-time values says nothing about the row.
    let constant = AUTOTUNED_ROW_SUM.replace(
        "    cols = tl.arange(0, BLOCK)\n",
        "    tl.assume(BLOCK >= 16)\n    cols = tl.arange(0, BLOCK)\n",
    );
    assert_eq!(
        lint(&constant, &only("TRI301")),
        vec![("TRI301".to_string(), 7)]
    );
}

// ---- TRI101: loops over complete blocks, clamps, flag-gated masks ----

const PEELED_LOOP: &str = r#"@triton.jit
def part_sum(mask_ptr, out_ptr, N, num_blocks, per_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = row * per_row
    offset = start * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    last = min(num_blocks - 1, start + per_row - 1)
    for block_id in range(start, last):
        acc += tl.load(mask_ptr + offset)
        offset += BLOCK
    acc += tl.load(mask_ptr + offset, mask=offset < N, other=0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
"#;

#[test]
fn tri101_a_peeled_loop_reads_complete_blocks() {
    // The loop stops before the last block, which is loaded masked after it.
    assert_eq!(lint(PEELED_LOOP, &only("TRI101")), vec![]);
    // The partial block after the loop still needs its mask.
    let unmasked_tail = PEELED_LOOP.replace(
        "    tl.store(out_ptr + row, tl.sum(acc, axis=0))",
        "    tl.store(out_ptr + offset, acc)",
    );
    assert_eq!(
        lint(&unmasked_tail, &only("TRI101")),
        vec![("TRI101".to_string(), 12)]
    );
}

const PEELED_K_LOOP: &str = r#"@triton.jit
def mm(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    prev_multiple = tl.cdiv(K, BLOCK_K) * BLOCK_K - BLOCK_K
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start_k in range(0, prev_multiple, BLOCK_K):
        rk = start_k + tl.arange(0, BLOCK_K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rk[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    rk = prev_multiple + tl.arange(0, BLOCK_K)
    a = tl.load(A + rm[:, None] * K + rk[None, :], mask=rk[None, :] < K, other=0.0)
    b = tl.load(B + rk[:, None] * N + rn[None, :], mask=rk[:, None] < K, other=0.0)
    acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc)
"#;

#[test]
fn tri101_a_k_loop_up_to_the_last_complete_block_is_in_bounds() {
    assert_eq!(lint(PEELED_K_LOOP, &only("TRI101")), vec![]);
    // The same loop up to `K` itself reads a partial last block unmasked.
    let to_k = PEELED_K_LOOP.replace("range(0, prev_multiple, BLOCK_K)", "range(0, K, BLOCK_K)");
    assert_eq!(
        lint(&to_k, &only("TRI101")),
        vec![("TRI101".to_string(), 9), ("TRI101".to_string(), 10)]
    );
}

#[test]
fn tri101_blocks_before_the_programs_own_are_complete() {
    let body = r#"@triton.jit
def causal(k_ptr, o_ptr, T, BLOCK_C: tl.constexpr):
    pid_c = tl.program_id(0)
    o_c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for kv_i in range(0, pid_c * BLOCK_C, BLOCK_C):
        acc += tl.load(k_ptr + kv_i + tl.arange(0, BLOCK_C))
    tl.store(o_ptr + o_c, acc, mask=o_c < T)
"#;
    assert_eq!(lint(body, &only("TRI101")), vec![]);
    // Up to the end of the program's own block, the last one can be partial.
    let own = body.replace(
        "range(0, pid_c * BLOCK_C, BLOCK_C)",
        "range(0, (pid_c + 1) * BLOCK_C, BLOCK_C)",
    );
    assert_eq!(lint(&own, &only("TRI101")), vec![("TRI101".to_string(), 7)]);
}

#[test]
fn tri101_minimum_with_the_bound_first_clamps() {
    let body = r#"@triton.jit
def gather(x_ptr, out_ptr, W, scale, BLOCK: tl.constexpr):
    ox = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x0 = tl.floor(ox.to(tl.float32) * scale).to(tl.int32)
    x = tl.maximum(0, tl.minimum(W - 1, x0 + 1))
    v = tl.load(x_ptr + x)
    tl.store(out_ptr + ox, v, mask=ox < W)
"#;
    assert_eq!(lint(body, &only("TRI101")), vec![]);
    // `maximum` alone bounds only from below.
    let unclamped = body.replace(
        "tl.maximum(0, tl.minimum(W - 1, x0 + 1))",
        "tl.maximum(0, x0 + 1)",
    );
    assert_eq!(
        lint(&unclamped, &only("TRI101")),
        vec![("TRI101".to_string(), 6)]
    );
}

const FLAG_GATED_MASK: &str = r#"@triton.jit
def bias_add(bias_ptr, o_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             DIVISIBLE_M: tl.constexpr, DIVISIBLE_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ptrs = bias_ptr + offs_m[:, None] * N + offs_n[None, :]
    if DIVISIBLE_M and DIVISIBLE_N:
        mask_c = None
    else:
        mask_c = True
        if not DIVISIBLE_M:
            mask_c &= offs_m[:, None] < M
        if not DIVISIBLE_N:
            mask_c &= offs_n[None, :] < N
    bi = tl.load(ptrs, mask=mask_c)
    tl.store(o_ptr + offs_m[:, None] * N + offs_n[None, :], bi, mask=mask_c)
"#;

#[test]
fn tri101_a_mask_flags_take_off_is_a_divisibility_promise() {
    assert_eq!(lint(FLAG_GATED_MASK, &only("TRI101")), vec![]);
    // A mask the flags-off branch forgets too is found.
    let forgot = FLAG_GATED_MASK.replace(
        "    bi = tl.load(ptrs, mask=mask_c)",
        "    bi = tl.load(ptrs)",
    );
    assert_eq!(
        lint(&forgot, &only("TRI101")),
        vec![("TRI101".to_string(), 15)]
    );
}

// ---- TRI203: which tensors the kernel addresses in int64 ----

#[test]
fn tri203_by_default_only_tensors_addressed_in_int64_are_checked() {
    let body = r#"@triton.jit
def attn_fwd(q_ptr, m_ptr, stride_qz, stride_qh, stride_qm, Q_CTX, H, BLOCK_M: tl.constexpr):
    off_h = tl.program_id(1)
    off_z = tl.program_id(2)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, 64)
    q_base = q_ptr + off_z.to(tl.int64) * stride_qz + off_h * stride_qh
    q = tl.load(q_base + offs_m[:, None] * stride_qm + d[None, :])
    tl.store(m_ptr + off_h * Q_CTX + offs_m, tl.max(q, axis=1))
"#;
    // `off_h * stride_qh` is a head inside a batch element addressed in int64; `off_h *
    // Q_CTX` indexes per-row statistics the kernel never widens: quiet. Query rows times
    // the row stride inside the widened slice can pass 2^31: found.
    assert_eq!(lint(body, &only("TRI203")), vec![("TRI203".to_string(), 8)]);
    // A product whose stride the kernel multiplies in int64 elsewhere is checked on any
    // tensor: the same stride is as large there.
    let shared_stride = body.replace("Q_CTX + offs_m", "stride_qz + offs_m");
    assert_eq!(
        lint(&shared_stride, &only("TRI203")),
        vec![("TRI203".to_string(), 8), ("TRI203".to_string(), 9)]
    );
    // With a configured limit past int32 every tensor is checked as before (`off_h` scaled
    // by two strides is one finding).
    assert_eq!(
        lint(body, &tri203_only()),
        vec![("TRI203".to_string(), 7), ("TRI203".to_string(), 8)]
    );
}

#[test]
fn tri203_a_scalar_index_inside_an_int64_slice_either_branch_chose_is_quiet() {
    let body = r#"@triton.jit
def recurrent(h0, idx_ptr, o_ptr, stride_s, HV, K, V, continuous, BK: tl.constexpr,
              BV: tl.constexpr):
    i_n = tl.program_id(0)
    i_hv = tl.program_id(1)
    o_k = tl.arange(0, BK)
    o_v = tl.arange(0, BV)
    if continuous != 0:
        p_h0 = h0 + tl.load(idx_ptr + i_n).to(tl.int64) * stride_s
    else:
        p_h0 = h0 + i_n.to(tl.int64) * HV * K * V
    p_h0 = p_h0 + i_hv * K * V + o_k[:, None] * V + o_v[None, :]
    tl.store(o_ptr + o_k[:, None] * V + o_v[None, :], tl.load(p_h0))
"#;
    // `i_hv * K * V` is a head inside the state slice both branches address in int64.
    assert_eq!(lint(body, &only("TRI203")), vec![]);
    // Where one branch adds a plain int64 offset (not an index times a stride), the head
    // product is not known to stay inside a slice.
    let plain = body.replace(
        "p_h0 = h0 + i_n.to(tl.int64) * HV * K * V",
        "p_h0 = h0 + i_n.to(tl.int64)",
    );
    assert_eq!(
        lint(&plain, &only("TRI203")),
        vec![("TRI203".to_string(), 12)]
    );
}

const EVEN_K_BRANCHES: &str = r#"@triton.jit
def mm(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
       EVEN_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    A = A + (rm[:, None] * K + rk[None, :])
    B = B + (rk[:, None] * N + rn[None, :])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(A, mask=(rm < M)[:, None], other=0.0)
            b = tl.load(B, mask=(rn < N)[None, :], other=0.0)
        else:
            k_remaining = K - k * BLOCK_K
            a = tl.load(A, mask=(rm < M)[:, None] & (rk[None, :] < k_remaining), other=0.0)
            b = tl.load(B, mask=(rk[:, None] < k_remaining) & (rn < N)[None, :], other=0.0)
        acc += tl.dot(a, b)
        A += BLOCK_K
        B += BLOCK_K * N
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm < M)[:, None] & (rn < N)[None, :])
"#;

#[test]
fn tri101_the_branch_a_flag_takes_the_k_mask_off_is_a_divisibility_promise() {
    assert_eq!(lint(EVEN_K_BRANCHES, &only("TRI101")), vec![]);
    // The flags-on branch also drops the row mask the other branch has: found.
    let rows = EVEN_K_BRANCHES.replace(
        "            a = tl.load(A, mask=(rm < M)[:, None], other=0.0)\n",
        "            a = tl.load(A)\n",
    );
    assert_eq!(
        lint(&rows, &only("TRI101")),
        vec![("TRI101".to_string(), 12)]
    );
}

const ROW_WIDTH: &str = r#"@triton.jit
def softmax_rows(inp_ptr, max_ptr, N, C: tl.constexpr, D: tl.constexpr):
    offset_d = tl.arange(0, D)
    offset_c = tl.arange(0, C)
    for pid_n in range(tl.program_id(0), N, tl.num_programs(0)):
        m = tl.load(max_ptr + pid_n * D + offset_d)
        x = tl.load(inp_ptr + pid_n * C * D + offset_c[:, None] * D + offset_d[None, :])
        tl.store(max_ptr + pid_n * D + offset_d, tl.maximum(m, tl.max(x, axis=0)))
"#;

#[test]
fn tri101_a_constexpr_the_kernel_strides_rows_by_is_a_whole_row() {
    // `offset_c[:, None] * D`: rows of `D` elements, so `tl.arange(0, D)` is a whole row.
    assert_eq!(lint(ROW_WIDTH, &only("TRI101")), vec![]);
    // Without that stride `D` may be a block of a longer row: found.
    let block = ROW_WIDTH.replace("offset_c[:, None] * D", "offset_c[:, None] * N");
    assert_eq!(
        lint(&block, &only("TRI101")),
        vec![("TRI101".to_string(), 6), ("TRI101".to_string(), 8)]
    );
}

// ---- TRI102: undefined lanes a tl.where replaces ----

const SELECT_SCATTER: &str = r#"@triton.jit
def select_scatter(inp_ptr, src_ptr, out_ptr, total, dim_size, post, index, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < total
    select = (idx // post) % dim_size == index
    inp = tl.load(inp_ptr + idx, mask=mask)
    src = tl.load(src_ptr + (idx // (dim_size * post)) * post + idx % post, mask=mask & select)
    tl.store(out_ptr + idx, tl.where(select, src, inp), mask=mask)
"#;

#[test]
fn tri102_lanes_a_where_replaces_and_the_store_mask_excludes_are_quiet() {
    // Lanes off `select` take `inp`; lanes off `mask` are not stored.
    assert_eq!(lint(SELECT_SCATTER, &only("TRI102")), vec![]);
    // Stored without the mask, the lanes off `mask` write undefined values: found.
    let unmasked = SELECT_SCATTER.replace(
        "tl.where(select, src, inp), mask=mask)",
        "tl.where(select, src, inp))",
    );
    assert_eq!(
        lint(&unmasked, &only("TRI102")),
        vec![("TRI102".to_string(), 7)]
    );
    // A where over the other factor leaves `src` undefined where `select` is false.
    let wrong_factor =
        SELECT_SCATTER.replace("tl.where(select, src, inp)", "tl.where(mask, src, inp)");
    assert_eq!(
        lint(&wrong_factor, &only("TRI102")),
        vec![("TRI102".to_string(), 7)]
    );
}

#[test]
fn tri102_a_store_masked_by_where_of_the_load_mask_excludes_its_lanes() {
    let body = r#"@triton.jit
def scatter(arr_ptr, out_ptr, N, bin_index, TILE_N: tl.constexpr):
    offs = tl.program_id(0) * TILE_N + tl.arange(0, TILE_N)
    mask = offs < N
    arr = tl.load(arr_ptr + offs, mask=mask)
    matches = tl.where(mask, arr == bin_index, False)
    tl.store(out_ptr + offs, arr, mask=matches)
"#;
    // `matches` is false wherever `mask` is: the undefined lanes are never stored.
    assert_eq!(lint(body, &only("TRI102")), vec![]);
    // A where that keeps masked lanes true does not exclude them.
    let keeps = body.replace("arr == bin_index, False)", "arr == bin_index, True)");
    assert_eq!(
        lint(&keeps, &only("TRI102")),
        vec![("TRI102".to_string(), 5)]
    );
}

#[test]
fn tri102_a_dot_mixes_only_the_contraction_dim() {
    let body = r#"@triton.jit
def mm(x_ptr, w_ptr, o_ptr, N, K: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.arange(0, 16)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, K)
    x = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :])
    w = tl.load(w_ptr + offs_n[:, None] * K + offs_k[None, :], mask=offs_n[:, None] < N)
    acc = tl.dot(x, tl.trans(w))
    tl.store(o_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=offs_n[None, :] < N)
"#;
    // Rows of `w` past N make only output columns past N, which the store drops.
    assert_eq!(lint(body, &only("TRI102")), vec![]);
    // Masked along K, the undefined lanes enter every sum of the dot.
    let along_k = body.replace("mask=offs_n[:, None] < N)", "mask=offs_k[None, :] < N)");
    assert_eq!(
        lint(&along_k, &only("TRI102")),
        vec![("TRI102".to_string(), 7)]
    );
}

// ---- Grids the launcher writes, helpers' row widths, compile-time bounds ----

const PER_HEAD_COPY: &str = r#"@triton.jit
def copy_heads(src, dst, HEAD: tl.constexpr):
    i_b, i_h = tl.program_id(0), tl.program_id(1)
    offs = i_h * HEAD + tl.arange(0, HEAD)
    tl.store(dst + offs, tl.load(src + offs))


def launch(src, dst, num_heads, head):
    grid = GRID
    copy_heads[grid](src, dst, head)
"#;

#[test]
fn tri101_a_grid_of_counts_launches_complete_blocks() {
    // One program per head (`grid = (batch, num_heads)`) or per complete block (`n //
    // B`): no block ends past the tensor.
    for grid in ["(src.shape[0], num_heads)", "(1, num_heads // 2)"] {
        let src = PER_HEAD_COPY.replace("GRID", grid);
        assert_eq!(lint(&src, &only("TRI101")), vec![], "{grid}");
    }
}

#[test]
fn tri101_a_grid_that_rounds_up_still_finds_the_unmasked_block() {
    for grid in [
        "(1, triton.cdiv(num_heads, 2))",
        "(1, (num_heads + 1) // 2)",
        "lambda meta: (1, triton.cdiv(num_heads, meta['HEAD']))",
    ] {
        let src = PER_HEAD_COPY.replace("GRID", grid);
        assert_eq!(
            lint(&src, &only("TRI101")),
            vec![("TRI101".to_string(), 5), ("TRI101".to_string(), 5)],
            "{grid}"
        );
    }
    // No launch in the file: the grid is unknown.
    let kernel_only = PER_HEAD_COPY.split("\n\ndef launch").next().unwrap();
    assert_eq!(lint(kernel_only, &only("TRI101")).len(), 2);
}

const ROWS_IN_A_HELPER: &str = r#"@triton.jit
def scale_rows(pid_n, offset_c, offset_d, x_ptr, C, D):
    ptrs = x_ptr + pid_n * C * D + offset_c[:, None] * D + offset_d[None, :]
    x = tl.load(ptrs, mask=offset_c[:, None] < C, other=0.0)
    tl.store(ptrs, x * 2.0, mask=offset_c[:, None] < C)


@triton.jit
def kernel(x_ptr, y_ptr, N, C: tl.constexpr, D: tl.constexpr, BLOCK_C: tl.constexpr):
    for pid_n in range(tl.program_id(0), N, tl.num_programs(0)):
        offset_d = tl.arange(0, D)
        y = tl.load(y_ptr + pid_n * D + offset_d)
        tl.store(y_ptr + pid_n * D + offset_d, y + 1.0)
        offset_c = tl.arange(0, BLOCK_C)
        scale_rows(pid_n, offset_c, offset_d, x_ptr, C, D)
"#;

#[test]
fn tri101_a_row_width_the_helper_strides_by_spans_whole_rows() {
    // `offset_c[:, None] * D` in the helper makes `D` the rows' width, so
    // `pid_n * D + tl.arange(0, D)` is one whole row.
    assert_eq!(lint(ROWS_IN_A_HELPER, &only("TRI101")), vec![]);
    // Without the helper's stride, `D` is a block size like any other.
    let no_helper = ROWS_IN_A_HELPER.replace(
        "        scale_rows(pid_n, offset_c, offset_d, x_ptr, C, D)\n",
        "",
    );
    assert_eq!(
        lint(&no_helper, &only("TRI101")),
        vec![("TRI101".to_string(), 12), ("TRI101".to_string(), 13)]
    );
}

const HEAD_STATE: &str = r#"@triton.jit
def state(h0, out, SIZE, stride_k, K: tl.constexpr, V: tl.constexpr, BK: tl.constexpr):
    tl.static_assert(V % 7 == 3)
    i_k = tl.program_id(0)
    o_k = i_k * BK + tl.arange(0, BK)
    o_v = tl.arange(0, V)
    bos = tl.program_id(1).to(tl.int64) * SIZE
    p = h0 + bos * K * V
    mask = (o_k[:, None] < BOUND) & (o_v[None, :] < V)
    b = tl.load(p + o_k[:, None] * STRIDE + o_v[None, :], mask=mask, other=0.0)
    tl.store(out + bos * K * V + o_k[:, None] * STRIDE + o_v[None, :], b, mask=mask)
"#;

#[test]
fn tri203_an_index_masked_below_a_compile_time_size_times_one_stays_small() {
    // `o_k < K` with `K` a constexpr: `o_k * V` is below `K * V` on every lane that
    // touches memory.
    let quiet = HEAD_STATE.replace("BOUND", "K").replace("STRIDE", "V");
    assert_eq!(lint(&quiet, &Settings::default()), vec![]);
    // Times a run-time stride, the bound says nothing about the product.
    let loud = HEAD_STATE
        .replace("BOUND", "K")
        .replace("STRIDE", "stride_k");
    assert_eq!(
        lint(&loud, &Settings::default()),
        vec![("TRI203".to_string(), 10)]
    );
}

// ---- Third round: TRI203 branches, TRI102 reshapes and sorted scatters ----

#[test]
fn tri203_an_int64_offset_in_the_other_branch_of_an_if_says_nothing_about_this_one() {
    let body = r#"@triton.jit
def gather(q, o, stride_qm, N, use_i64, BLOCK: tl.constexpr):
    i = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    if use_i64 == 0:
        base = q + i * stride_qm
    else:
        base = q + i * stride_qm.to(tl.int64)
    x = tl.load(base + cols, mask=cols < N, other=0.0)
    tl.store(o + i * BLOCK + cols, x, mask=cols < N)
"#;
    // The launcher picks the int32 branch for inputs it fits: the author chose int32 there.
    assert_eq!(lint(body, &only("TRI203")), vec![]);
    // The same product on the path the int64 branch runs too is still found.
    let shared = body.replace(
        "    x = tl.load(base + cols",
        "    tl.store(q + i * stride_qm + cols, 0.0, mask=cols < N)\n    x = tl.load(base + cols",
    );
    assert_eq!(
        lint(&shared, &only("TRI203")),
        vec![("TRI203".to_string(), 9)]
    );
}

const OUTER_RESHAPED: &str = r#"@triton.jit
def outer(x_ptr, w_ptr, out_ptr, T, BT: tl.constexpr = 16, BK: tl.constexpr = 16):
    o_t = tl.program_id(0) * BT + tl.arange(0, BT)
    m_t = o_t < T
    b_x = tl.load(x_ptr + o_t, mask=m_t)
    w = tl.load(w_ptr + tl.arange(0, BK * BK))
    b = tl.reshape(b_x[:, None] * w[None, :], [BT, BK, BK])
    s = tl.sum(b, axis=AXIS)
    tl.store(out_ptr + o_t[:, None] * BK + tl.arange(0, BK)[None, :], s, mask=m_t[:, None])
"#;

#[test]
fn tri102_rows_split_by_a_reshape_and_summed_along_the_parts_stay_in_their_rows() {
    // `[BT, BK * BK]` reshaped to `[BT, BK, BK]`: dims 1 and 2 are parts of the columns,
    // along which the row mask is constant; the undefined rows are stored masked.
    assert_eq!(
        lint(&OUTER_RESHAPED.replace("AXIS", "2"), &only("TRI102")),
        vec![]
    );
    assert_eq!(
        lint(&OUTER_RESHAPED.replace("AXIS", "1"), &only("TRI102")),
        vec![]
    );
    // Summed along the rows, the undefined rows enter every result.
    assert_eq!(
        lint(&OUTER_RESHAPED.replace("AXIS", "0"), &only("TRI102")),
        vec![("TRI102".to_string(), 5)]
    );
}

const SORTED_SCATTER: &str = r#"@triton.jit
def shuffle(x_ptr, key_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    mask = pid * BLOCK + r < n
    x = tl.load(x_ptr + pid * BLOCK + r, mask=mask)
    partner = r ^ 1
    pmask = pid * BLOCK + partner < n
    k = tl.where(mask, tl.load(key_ptr + pid * BLOCK + r, mask=mask, other=0), 2147483647)
    pk = tl.where(pmask, tl.load(key_ptr + pid * BLOCK + partner, mask=pmask, other=0), 2147483647)
    swap = tl.where((r & 1) == 0, k > pk, pk > k)
    dest = DEST
    tl.store(x_ptr + pid * BLOCK + dest, x, mask=pid * BLOCK + dest < n)
"#;

#[test]
fn tri102_lanes_a_sort_moves_back_under_the_loads_bound_are_not_reported() {
    // A compare-and-swap stage over the lane indices: the lanes move as a permutation of
    // the block's own offsets, under the load's bound.
    assert_eq!(
        lint(
            &SORTED_SCATTER.replace("DEST", "tl.where(swap, partner, r)"),
            &only("TRI102")
        ),
        vec![]
    );
    // Offsets read from memory are not the lanes' own: an undefined lane can land in
    // bounds.
    assert_eq!(
        lint(
            &SORTED_SCATTER.replace(
                "DEST",
                "tl.load(key_ptr + pid * BLOCK + r, mask=mask, other=0).to(tl.int32)"
            ),
            &only("TRI102")
        ),
        vec![("TRI102".to_string(), 6)]
    );
    // Nor is a shift: the last defined offset takes an undefined lane.
    assert_eq!(
        lint(&SORTED_SCATTER.replace("DEST", "r - 1"), &only("TRI102")),
        vec![("TRI102".to_string(), 6)]
    );
}

const CONSTEXPR_STRIDE: &str = r#"@triton.jit
def scatter_cols(x_ptr, y_ptr, I_dim, stride_x, W: KIND, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N % 7 == 3)
    row = tl.program_id(1).to(tl.int64)
    n_idx = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = n_idx < I_dim
    x = tl.load(x_ptr + row * stride_x + n_idx, mask=m)
    tl.store(y_ptr + row * stride_x + n_idx * W, x, mask=m)
"#;

#[test]
fn tri203_a_constexpr_factor_is_no_runtime_stride_in_generic_lowering_too() {
    // The static assertion fails for lint's placeholder block size, so the kernel is
    // lowered with its constexprs symbolic: `n_idx * W` is a block index times
    // compile-time sizes, as it is with the constexprs known.
    assert_eq!(
        lint(
            &CONSTEXPR_STRIDE.replace("KIND", "tl.constexpr"),
            &only("TRI203")
        ),
        vec![]
    );
    // A run-time `W` is a stride the product can pass 2^31 with.
    assert_eq!(
        lint(&CONSTEXPR_STRIDE.replace("W: KIND", "W"), &only("TRI203")),
        vec![("TRI203".to_string(), 8)]
    );
}

const LOST_STORE_OFFSET: &str = r#"@triton.jit
def _max_of(dtype, return_max):
    if dtype is tl.int32:
        if return_max:
            return 2147483647
        else:
            return -2147483648
    elif dtype is tl.uint32:
        if return_max:
            return 4294967295
        else:
            return 0
    else:
        raise ValueError("unknown dtype")


@triton.jit
def shift(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, BLOCK)
    mask = pid * BLOCK + r < n
    x = tl.load(x_ptr + pid * BLOCK + r, mask=mask)
    top = _max_of(x.dtype, True)
    keys = tl.where(mask, r.to(tl.uint32), top)
    dest = tl.where(keys < top, r + 1, r)
    tl.store(x_ptr + pid * BLOCK + dest, x, mask=STORE_MASK)
"#;

#[test]
fn tri102_a_store_mask_lint_could_not_compute_is_not_judged() {
    // The helper's `raise` keeps the kernel from lowering with placeholders; generic
    // lowering loses `top` and what is computed from it: which lanes the store's mask
    // excludes is unknown.
    assert_eq!(
        lint(
            &LOST_STORE_OFFSET.replace("STORE_MASK", "pid * BLOCK + dest < n"),
            &only("TRI102")
        ),
        vec![]
    );
    // A store mask lint computes still decides.
    assert_eq!(
        lint(&LOST_STORE_OFFSET.replace("STORE_MASK", "r < n"), &only("TRI102")),
        vec![("TRI102".to_string(), 22)]
    );
}

const CONV_STATES: &str = r#"@triton.jit
def states(x, out, T, D, stride_x_n, stride_x_t, stride_x_d, BD: tl.constexpr,
           BT: tl.constexpr):
    tl.static_assert(BD % 7 == 3)
    i_d, i_n = tl.program_id(0), tl.program_id(1).to(tl.int64)
    o_d = i_d * BD + tl.arange(0, BD)
    o_t = T - BT + tl.arange(0, BT)
    p_x = x + i_n * stride_x_n
    m = (o_t[:, None] >= 0) & (o_d[None, :] < D)
    b = tl.load(p_x + o_t[:, None] * stride_x_t + INDEX * stride_x_d, mask=m, other=0)
    tl.store(out + i_n * stride_x_n + o_t[:, None] * D + o_d[None, :], b, mask=m)
"#;

#[test]
fn tri203_the_innermost_stride_presumption_holds_with_symbolic_block_sizes() {
    // `BD` stays symbolic (the static assertion fails for lint's placeholder): the
    // columns `o_d[None, :]` times the innermost stride are still the contiguous case.
    assert_eq!(
        lint(&CONV_STATES.replace("INDEX", "o_d[None, :]"), &only("TRI203")),
        vec![]
    );
    // Rows times that stride are not.
    assert_eq!(
        lint(
            &CONV_STATES.replace("INDEX", "(o_d[:, None] + o_t[None, :])"),
            &only("TRI203")
        ),
        vec![("TRI203".to_string(), 10)]
    );
}

#[test]
fn tri203_a_stride_the_kernel_also_uses_for_rows_is_no_innermost_stride() {
    let body = r#"@triton.jit
def bwd(Q, DO, out, stride_tok, stride_d, N, BLOCK_M: tl.constexpr, D: tl.constexpr):
    bh = tl.program_id(1).to(tl.int64) * N * stride_tok
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, D)
    qT = tl.load(Q + bh + offs_m[None, :] * stride_tok + offs_k[:, None] * stride_d)
    do = tl.load(DO + bh + offs_m[:, None] * stride_tok + offs_k[None, :] * stride_d)
    tl.store(out + offs_k[:, None] * D + offs_k[None, :], tl.dot(qT, do))
"#;
    // The transposed load puts query rows along the last dim, but `stride_tok` strides
    // rows in the other load: the first product is the finding.
    assert_eq!(lint(body, &only("TRI203")), vec![("TRI203".to_string(), 6)]);
}
