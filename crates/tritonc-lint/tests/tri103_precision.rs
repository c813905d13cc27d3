//! TRI103 on the patterns real kernels use: correct fills stay quiet (argmax's `-inf`,
//! integer sentinels, `0` into sums, reductions along an axis the mask does not vary in),
//! planted defects are still found, and `--fix --unsafe-fixes` never changes a correct
//! kernel and never undoes its own fix.

#[allow(dead_code)]
mod common;

use tritonc_lint::fix::{apply_fixes, FixMode};
use tritonc_lint::{Finding, Settings};

const HEADER: &str = "import triton\nimport triton.language as tl\n\n\n";

fn settings(signatures: &[(&str, &str)]) -> Settings {
    let mut s = Settings {
        ignore: vec!["TRI203".into()],
        ..Settings::default()
    };
    for (k, sig) in signatures {
        s.kernel_signatures.insert((*k).into(), (*sig).into());
    }
    s
}

fn lint(body: &str, settings: &Settings) -> (String, Vec<Finding>) {
    let text = format!("{HEADER}{body}");
    let (findings, sources) = common::lint_text("k.py", &text, settings);
    let not_analysed: Vec<_> = findings
        .iter()
        .filter(|f| f.diagnostic.code.0 == "TRI001")
        .map(|f| format!("{} {:?}", f.diagnostic.message, f.diagnostic.notes))
        .collect();
    assert!(not_analysed.is_empty(), "{not_analysed:#?}");
    let _ = common::render(&findings, &sources);
    (text, findings)
}

fn tri103(findings: &[Finding]) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| f.diagnostic.code.0 == "TRI103")
        .collect()
}

/// Applies every fix, unsafe ones included, until nothing changes; fails if that does not
/// settle (a fix that undoes another).
fn fix_to_fixpoint(body: &str, settings: &Settings) -> String {
    let mut text = format!("{HEADER}{body}");
    let mut seen = vec![text.clone()];
    for _ in 0..4 {
        let (findings, _) = common::lint_text("k.py", &text, settings);
        let file = findings
            .iter()
            .find_map(|f| f.diagnostic.primary_span().map(|s| s.file));
        let Some(file) = file else { return text };
        let (new, _) = apply_fixes(&text, file, &findings, FixMode::Unsafe);
        if new == text {
            return text;
        }
        assert!(!seen.contains(&new), "fixes oscillate:\n{new}");
        seen.push(new.clone());
        text = new;
    }
    panic!("fixes did not settle:\n{text}");
}

fn assert_quiet_and_unfixed(body: &str, settings: &Settings) {
    let (_, findings) = lint(body, settings);
    let hits = tri103(&findings);
    assert!(
        hits.is_empty(),
        "{:#?}",
        hits.iter()
            .map(|f| &f.diagnostic.message)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        fix_to_fixpoint(body, settings),
        format!("{HEADER}{body}"),
        "an unsafe fix changed a correct kernel"
    );
}

// ---- correct kernels: no finding, no fix ----

#[test]
fn argmax_with_neg_inf_fill_is_correct() {
    assert_quiet_and_unfixed(
        r#"@triton.jit
def argmax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=float("-inf"))
    tl.store(out_ptr, tl.argmax(x, axis=0))
"#,
        &settings(&[]),
    );
}

#[test]
fn argmax_without_tie_break_and_max_with_indices_are_correct() {
    assert_quiet_and_unfixed(
        r#"@triton.jit
def argmax_kernel(x_ptr, out_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=-float("inf"))
    tl.store(out_ptr, tl.argmax(x, axis=0, tie_break_left=False))
    m, i = tl.max(x, axis=0, return_indices=True)
    tl.store(idx_ptr, i)
"#,
        &settings(&[]),
    );
}

#[test]
fn argmin_with_inf_fill_is_correct() {
    assert_quiet_and_unfixed(
        r#"@triton.jit
def argmin_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=float("inf"))
    tl.store(out_ptr, tl.argmin(x, axis=0))
"#,
        &settings(&[]),
    );
}

#[test]
fn int64_minimum_sentinel_is_correct_for_max() {
    let body = r#"@triton.jit
def int_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=-(2**63))
    tl.store(out_ptr, tl.max(x, axis=0))
"#;
    // Known int64 data, and unknown data (lint must not assume fp32 and call it wrong).
    assert_quiet_and_unfixed(
        body,
        &settings(&[("int_max_kernel", "*i64, *i64, i32, 64")]),
    );
    assert_quiet_and_unfixed(body, &settings(&[]));
}

#[test]
fn int_maximum_sentinels_are_correct_for_min_and_argmin() {
    let body = r#"@triton.jit
def int_min_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=2147483647)
    tl.store(out_ptr, tl.min(x, axis=0))
    tl.store(out_ptr + 1, tl.argmin(x, axis=0))
"#;
    assert_quiet_and_unfixed(
        body,
        &settings(&[("int_min_kernel", "*i32, *i32, i32, 64")]),
    );
    let body64 = body.replace("other=2147483647", "other=2**63 - 1");
    assert_quiet_and_unfixed(
        &body64,
        &settings(&[("int_min_kernel", "*i64, *i64, i32, 64")]),
    );
}

#[test]
fn zero_fills_into_sums_are_correct() {
    assert_quiet_and_unfixed(
        r#"@triton.jit
def scaled_sum(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x / scale
    tl.store(out_ptr, tl.sum(y * y, axis=0) + tl.sum(tl.abs(x) * scale, axis=0))


@triton.jit
def int_count(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0)
    tl.store(out_ptr, tl.sum(x, axis=0))


@triton.jit
def looped_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
        acc += tl.where(x > 0, x, 0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))
"#,
        &settings(&[("int_count", "*i32, *i32, i32, 64")]),
    );
}

#[test]
fn reduction_along_an_axis_the_mask_does_not_vary_in_is_correct() {
    assert_quiet_and_unfixed(
        r#"@triton.jit
def row_max(x_ptr, out_ptr, M, N: tl.constexpr, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=rows[:, None] < M, other=0.0)
    tl.store(out_ptr + rows, tl.max(x, axis=1), mask=rows < M)
    tl.store(out_ptr + rows, tl.argmin(x, axis=1), mask=rows < M)
"#,
        &settings(&[]),
    );
}

// ---- planted defects: still found, fixed right ----

#[test]
fn argmax_with_zero_fill_is_found_and_fixed_with_neg_inf() {
    let body = r#"@triton.jit
def argmax_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr, tl.argmax(x, axis=0))
"#;
    let (_, findings) = lint(body, &settings(&[]));
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    assert!(
        hits[0].diagnostic.message.contains("`tl.argmax`"),
        "{}",
        hits[0].diagnostic.message
    );
    let fixed = fix_to_fixpoint(body, &settings(&[]));
    assert!(fixed.contains("other=float('-inf')"), "{fixed}");
}

#[test]
fn argmin_with_neg_inf_fill_is_found_and_fixed_with_inf() {
    let body = r#"@triton.jit
def argmin_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=float("-inf"))
    tl.store(out_ptr, tl.argmin(x, axis=0))
"#;
    let (_, findings) = lint(body, &settings(&[]));
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].diagnostic.message.contains("`tl.argmin`"));
    let fixed = fix_to_fixpoint(body, &settings(&[]));
    assert!(fixed.contains("other=float('inf')"), "{fixed}");
}

#[test]
fn near_miss_int64_sentinel_is_found_and_printed_exactly() {
    let body = r#"@triton.jit
def int_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=-(2**63) + 1)
    tl.store(out_ptr, tl.max(x, axis=0))
"#;
    let s = settings(&[("int_max_kernel", "*i64, *i64, i32, 64")]);
    let (_, findings) = lint(body, &s);
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    let msg = &hits[0].diagnostic.message;
    assert!(msg.contains("`-9223372036854775807`"), "{msg}");
    let notes = hits[0].diagnostic.notes.join("\n");
    assert!(notes.contains("`-9223372036854775808`"), "{notes}");
    let fixed = fix_to_fixpoint(body, &s);
    assert!(fixed.contains("other=-9223372036854775808)"), "{fixed}");
}

#[test]
fn int32_zero_fill_into_max_is_found() {
    let body = r#"@triton.jit
def int_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0)
    tl.store(out_ptr, tl.max(x, axis=0))
"#;
    let s = settings(&[("int_max_kernel", "*i32, *i32, i32, 64")]);
    let (_, findings) = lint(body, &s);
    assert_eq!(tri103(&findings).len(), 1);
    let fixed = fix_to_fixpoint(body, &s);
    assert!(fixed.contains("other=-2147483648)"), "{fixed}");
}

#[test]
fn reduction_along_the_masked_axis_is_found() {
    let body = r#"@triton.jit
def row_max(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rows, tl.max(x, axis=1), mask=rows < M)
"#;
    let (_, findings) = lint(body, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
}

#[test]
fn a_fill_two_reductions_disagree_on_gets_no_fix() {
    // `max` needs `-inf`, `sum` needs `0`: no `other=` is right for both, and offering
    // one would flip back and forth between runs.
    let body = r#"@triton.jit
def max_and_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr, tl.max(x, axis=0))
    tl.store(out_ptr + 1, tl.sum(x, axis=0))
"#;
    let (_, findings) = lint(body, &settings(&[]));
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].diagnostic.message.contains("`tl.max`"));
    assert!(hits[0].diagnostic.fix.is_none());
    assert_eq!(
        fix_to_fixpoint(body, &settings(&[])),
        format!("{HEADER}{body}")
    );
}

#[test]
fn a_fill_that_reaches_a_dot_gets_no_fix() {
    let body = r#"@triton.jit
def max_and_dot(x_ptr, y_ptr, out_ptr, n, B: tl.constexpr):
    r = tl.arange(0, B)
    mask = r[None, :] < n
    x = tl.load(x_ptr + r[:, None] * B + r[None, :], mask=mask, other=0.0)
    y = tl.load(y_ptr + r[:, None] * B + r[None, :])
    tl.store(out_ptr + r, tl.max(x, axis=1))
    tl.store(out_ptr + r[:, None] * B + r[None, :], tl.dot(x, y))
"#;
    let (_, findings) = lint(body, &settings(&[]));
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].diagnostic.fix.is_none());
}

#[test]
fn softmax_zero_fill_is_fixed_once() {
    let body = r#"@triton.jit
def softmax(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    z = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + cols, z / tl.sum(z, axis=0), mask=cols < n)
"#;
    let fixed = fix_to_fixpoint(body, &settings(&[]));
    assert!(fixed.contains("other=float('-inf')"), "{fixed}");
    let (findings, _) = common::lint_text("k.py", &fixed, &settings(&[]));
    assert!(tri103(&findings).is_empty());
}

// ---- the reduced axis counted in the mask's dims ----

/// A block masked along its columns only, re-arranged by `{shape}` and reduced along
/// `{axis}`.
fn column_masked(shape: &str, axis: u32) -> String {
    format!(
        r#"@triton.jit
def k(x_ptr, out_ptr, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    x = tl.load(x_ptr + rows[:, None] * BN + cols[None, :], mask=cols[None, :] < N, other=0.0)
    y = {shape}
    r = tl.max(y, axis={axis})
    tl.store(out_ptr + tl.full(r.shape, 0, tl.int32), r)
"#
    )
}

#[test]
fn reductions_after_trans_expand_dims_and_reshape_along_unmasked_dims_are_correct() {
    for (shape, axis) in [
        // After the transpose, axis 1 is the rows, which the mask does not cut.
        ("tl.trans(x)", 1),
        // A dim expand_dims inserts holds one lane of each column.
        ("tl.max(x, axis=0)[:, None]", 1),
        // A reshape that keeps the rows as dim 0.
        ("tl.reshape(x, (BM, 1, BN))", 0),
    ] {
        // (The inner `tl.max(x, axis=0)` of the second case reduces the uncut rows.)
        let body = column_masked(shape, axis);
        let (_, findings) = lint(&body, &settings(&[]));
        assert_eq!(tri103(&findings).len(), 0, "{shape} axis={axis}");
    }
}

#[test]
fn reductions_after_trans_expand_dims_and_reshape_along_masked_dims_are_found() {
    for (shape, axis) in [
        // After the transpose, axis 0 is the columns, which the mask cuts: the
        // un-transposed numbering said it was the uncut rows.
        ("tl.trans(x)", 0),
        // Columns kept as the last dim of a reshape.
        ("tl.reshape(x, (BM, 1, BN))", 2),
        // Everything flattened into one dim.
        ("tl.reshape(x, (BM * BN,))", 0),
        // Columns moved by expand_dims.
        ("x[None, :, :]", 2),
    ] {
        let body = column_masked(shape, axis);
        let (_, findings) = lint(&body, &settings(&[]));
        assert_eq!(tri103(&findings).len(), 1, "{shape} axis={axis}");
    }
}

// ---- non-negative data: a 0 fill is neutral for max ----

const RUNNING_ABS_MAX: &str = r#"@triton.jit
def max_norm_kernel(X, Out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    X = X + pid * N
    row_mask = pid < M
    _max = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)[None, :]
        a = tl.load(X + cols, mask=row_mask & (cols < N), other=0.0)
        _max = tl.maximum(tl.abs(a), _max)
    tl.store(Out + pid, tl.max(_max, axis=1)[:, None], row_mask)
"#;

#[test]
fn running_max_of_absolute_values_with_zero_fill_is_correct() {
    assert_quiet_and_unfixed(RUNNING_ABS_MAX, &settings(&[]));
}

#[test]
fn running_max_of_signed_values_with_zero_fill_is_found() {
    // Without `abs`, and a running max that starts at `-inf`, the data can be negative: a
    // padded 0 wins over a row of negatives.
    let signed = RUNNING_ABS_MAX
        .replace("tl.maximum(tl.abs(a), _max)", "tl.maximum(a, _max)")
        .replace(
            "tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)",
            "tl.full([BLOCK_M, BLOCK_N], float(\"-inf\"), dtype=tl.float32)",
        );
    let (_, findings) = lint(&signed, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
}

/// Two-stage max norm: the first kernel stores maxima of absolute values into `Mid`, the
/// launcher passes the same buffer to the second, which reduces it with a 0 fill.
const TWO_STAGE_MAX_NORM: &str = r#"@triton.jit
def max_norm_kernel_1(X, Mid, M, BLOCK_SIZE: tl.constexpr):
    offset = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(X + offset, mask=offset < M, other=0.0).to(tl.float32)
    tl.store(Mid + tl.program_id(0), tl.max(tl.abs(x)))


@triton.jit
def max_norm_kernel_2(Mid, Out, MID_SIZE, BLOCK_MID: tl.constexpr):
    offset = tl.arange(0, BLOCK_MID)
    mid = tl.load(Mid + offset, mask=offset < MID_SIZE, other=0.0).to(tl.float32)
    tl.store(Out, tl.max(mid))


def max_norm(x, out):
    mid_size = triton.cdiv(x.numel(), 1024)
    mid = torch.empty((mid_size,), dtype=torch.float32, device=x.device)
    max_norm_kernel_1[(mid_size,)](x, mid, x.numel(), 1024)
    max_norm_kernel_2[(1,)](mid, out, mid_size, triton.next_power_of_2(mid_size))
"#;

#[test]
fn partial_maxima_of_absolute_values_passed_by_the_launcher_are_non_negative() {
    assert_quiet_and_unfixed(TWO_STAGE_MAX_NORM, &settings(&[]));
}

#[test]
fn partial_results_of_signed_data_are_still_found() {
    // The first stage stores plain sums (signed): the 0 fill of the second is wrong.
    let signed = TWO_STAGE_MAX_NORM.replace("tl.max(tl.abs(x))", "tl.sum(x)");
    let (_, findings) = lint(&signed, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
    // The second stage launched on a buffer the first did not fill: no fact carried.
    let other_buffer = TWO_STAGE_MAX_NORM.replace(
        "max_norm_kernel_2[(1,)](mid, out",
        "max_norm_kernel_2[(1,)](x, out",
    );
    let (_, findings) = lint(&other_buffer, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
    // No launcher in the file: nothing is known about `Mid`.
    let no_launcher = &TWO_STAGE_MAX_NORM[..TWO_STAGE_MAX_NORM.find("\n\ndef max_norm").unwrap()];
    let (_, findings) = lint(no_launcher, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
}

// ---- a mask factor that always holds ----

const LOOP_ROWS: &str = r#"@triton.jit
def running_stats(mean_ptr, rstd_ptr, out_ptr, B, C, BLOCK_B: tl.constexpr, BLOCK_C: tl.constexpr = 64):
    cid = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    col_mask = cid < C
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for b in range(0, B, 1):
        bid = b * BLOCK_B + tl.arange(0, BLOCK_B)[:, None]
        mask = (bid < B) & col_mask[None, :]
        rstd = tl.load(rstd_ptr + bid * C + cid[None, :], mask=mask, other=0.0)
        var = 1 / (rstd * rstd)
        acc += tl.sum(var, axis=0)
    tl.store(out_ptr + cid, acc, mask=col_mask)
"#;

#[test]
fn rows_of_a_loop_over_every_row_are_never_masked() {
    // One row per trip of `for b in range(0, B)`: `b < B` always holds, only the columns
    // are masked, and the sum along the rows keeps the padded columns apart.
    let one_row = LOOP_ROWS.replace("BLOCK_B: tl.constexpr", "BLOCK_B: tl.constexpr = 1");
    assert_quiet_and_unfixed(&one_row, &settings(&[]));
}

#[test]
fn rows_of_a_block_past_the_loop_bound_are_found() {
    // Two rows per trip: the second can be past `B`, and its `1 / 0` joins the sum.
    let two_rows = LOOP_ROWS.replace("BLOCK_B: tl.constexpr", "BLOCK_B: tl.constexpr = 2");
    let (_, findings) = lint(&two_rows, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1);
}

#[test]
fn a_constant_added_to_zero_filled_lanes_is_found_and_not_refilled() {
    // `x + 1.0` holds 1.0 in the padded lanes: each adds 1 to the sum. The load's 0 fill is
    // already the sum's neutral value, so the help is to reset the lanes, and no `other=`
    // fix is offered.
    let body = r#"@triton.jit
def shifted_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr, tl.sum(x + 1.0, axis=0))
"#;
    let (_, findings) = lint(body, &settings(&[]));
    let hits = tri103(&findings);
    assert_eq!(hits.len(), 1);
    assert!(hits[0].diagnostic.fix.is_none());
    assert!(
        hits[0]
            .diagnostic
            .help
            .iter()
            .any(|h| h.contains("tl.where")),
        "{:?}",
        hits[0].diagnostic.help
    );
}

#[test]
fn a_fill_from_a_constexpr_lint_guessed_is_not_judged() {
    // `MAX` has no default: lint lowers with a placeholder for it, a value the kernel never
    // sees, so the fill is not judged.
    let body = r#"@triton.jit
def argmin_kernel(x_ptr, out_ptr, n, MAX: tl.constexpr, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=MAX)
    tl.store(out_ptr, tl.argmin(x, axis=0))
"#;
    assert_quiet_and_unfixed(body, &settings(&[]));
    // Given by the configured signature, it is judged: 0 is wrong for argmin.
    let (_, findings) = lint(
        body,
        &settings(&[("argmin_kernel", "*fp32, *i32, i32, 0, 64")]),
    );
    assert_eq!(tri103(&findings).len(), 1);
}

// ---- a scaled -inf, rows of junk a reduction along the columns keeps apart ----

const SCALED_LOGSUMEXP: &str = r#"@triton.jit
def lse(x_ptr, s_ptr, out_ptr, n, TEMPERATURE, BLOCK: tl.constexpr):
    inv_temp = 1.0 / TEMPERATURE
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n, other=float("-inf")).to(tl.float32) * SCALE
    m = tl.max(x, axis=0)
    tl.store(out_ptr, m + tl.log(tl.sum(tl.exp(x - m), axis=0)))
"#;

#[test]
fn neg_inf_scaled_by_a_run_time_scalar_stays_neg_inf() {
    // `-inf * (1 / T)`: one scalar for every lane, presumed positive like every scale.
    assert_quiet_and_unfixed(
        &SCALED_LOGSUMEXP.replace("SCALE", "inv_temp"),
        &settings(&[]),
    );
}

#[test]
fn neg_inf_scaled_by_data_is_still_found() {
    // A scale loaded per lane can be anything in the padded lanes' places.
    let body = SCALED_LOGSUMEXP.replace("SCALE", "tl.load(s_ptr + cols)");
    let (_, findings) = lint(&body, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1, "{findings:#?}");
}

const ROW_NORM_GRAD: &str = r#"@triton.jit
def grad(x_ptr, r_ptr, out_ptr, T, D, BT: tl.constexpr, BD: tl.constexpr):
    o_t = tl.arange(0, BT)
    o_d = tl.arange(0, BD)
    m_t = o_t < T
    m_x = m_t[:, None] & (o_d < D)[None, :]
    b_x = tl.load(x_ptr + o_t[:, None] * D + o_d[None, :], mask=m_x, other=0.0)
    b_r = tl.load(r_ptr + o_t[:, None], mask=m_t[:, None], other=0.0)
    s = tl.sum(b_x / b_r, axis=AXIS)
    tl.store(out_ptr + OFFS, s, mask=SMASK)
"#;

#[test]
fn rows_of_junk_stay_in_their_rows_for_a_reduction_along_the_columns() {
    // Padded rows hold `0 / 0`; padded columns of valid rows hold `0 / r = 0`, neutral for
    // a sum along the columns.
    assert_quiet_and_unfixed(
        &ROW_NORM_GRAD
            .replace("AXIS", "1")
            .replace("OFFS", "o_t")
            .replace("SMASK", "m_t"),
        &settings(&[]),
    );
}

#[test]
fn rows_of_junk_summed_along_the_rows_are_still_found() {
    let body = ROW_NORM_GRAD
        .replace("AXIS", "0")
        .replace("OFFS", "o_d")
        .replace("SMASK", "o_d < D");
    let (_, findings) = lint(&body, &settings(&[]));
    assert_eq!(tri103(&findings).len(), 1, "{findings:#?}");
}
