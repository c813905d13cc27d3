//! Per-op operand, result and region type rules.

use super::{check_type, Verifier};
use crate::function::{OpId, Value};
use crate::ops::*;
use crate::shared_layout::MemDescType;
use crate::types::{DType, Dim, Elem, Type};

fn dim_compat(a: &Dim, b: &Dim) -> bool {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) => x == y,
        _ => true,
    }
}

fn dtype_compat(a: DType, b: DType) -> bool {
    a == b || a.is_var() || b.is_var()
}

fn elem_compat(a: Elem, b: Elem) -> bool {
    match (a, b) {
        (Elem::DType(x), Elem::DType(y)) => dtype_compat(x, y),
        (Elem::Ptr(p), Elem::Ptr(q)) => {
            p.addr_space == q.addr_space && dtype_compat(p.pointee, q.pointee)
        }
        _ => false,
    }
}

fn shape_compat(a: &[Dim], b: &[Dim]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| dim_compat(x, y))
}

/// Type equality, generic dims and dtype variables matching anything.
/// Encodings are not compared: the GPU IR's encoding rules are `tritonc-ttgir`'s.
pub(crate) fn ty_compat(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::MemDesc(x), Type::MemDesc(y)) => x == y,
        (Type::AsyncToken, Type::AsyncToken) => true,
        _ if a.is_gpu_handle() || b.is_gpu_handle() => false,
        _ => {
            a.is_tensor() == b.is_tensor()
                && shape_compat(a.dims(), b.dims())
                && elem_compat(a.elem(), b.elem())
        }
    }
}

/// Whether block `t` has exactly the (known) shape and the element dtype of buffer `m`.
fn fills(t: &Type, m: &MemDescType) -> bool {
    t.is_tensor() && t.known_shape().as_deref() == Some(&m.shape[..]) && t.dtype() == Some(m.elem)
}

fn memdesc<'t>(t: &'t Type, what: &str) -> Result<&'t MemDescType, String> {
    t.memdesc()
        .ok_or_else(|| format!("{what} must be a shared buffer (`!ttg.memdesc`), not {t}"))
}

fn all_tokens(ts: &[&Type]) -> bool {
    ts.iter().all(|t| matches!(t, Type::AsyncToken))
}

fn dtype_is(t: &Type, pred: impl Fn(DType) -> bool) -> bool {
    t.dtype().is_some_and(|d| d.is_var() || pred(d))
}

fn is_float(t: &Type) -> bool {
    dtype_is(t, DType::is_float)
}

fn is_int(t: &Type) -> bool {
    dtype_is(t, DType::is_int)
}

fn is_bool(t: &Type) -> bool {
    dtype_is(t, DType::is_bool)
}

/// Checks the rules of one op, recording findings on `v`.
pub(crate) fn check_op(v: &mut Verifier<'_>, op: OpId) {
    let f = v.f;
    let data = f.op(op);
    let ops: Vec<&Type> = data.operands().iter().map(|&x| f.value_type(x)).collect();
    let res: Vec<&Type> = data.results().iter().map(|&x| f.value_type(x)).collect();
    for t in ops.iter().chain(res.iter()) {
        if let Err(m) = check_type(t) {
            v.err(op, format!("uses invalid type {t}: {m}"));
        }
    }
    if let Err(m) = rule(v, op, &data.kind, &ops, &res) {
        v.err(op, m);
    }
}

/// The arity check shared by most rules.
fn arity(ops: &[&Type], res: &[&Type], n: usize, r: usize) -> Result<(), String> {
    if ops.len() != n || res.len() != r {
        return Err(format!(
            "takes {n} operands and {r} results, found {} and {}",
            ops.len(),
            res.len()
        ));
    }
    Ok(())
}

fn same_shape(a: &Type, b: &Type) -> bool {
    a.is_tensor() == b.is_tensor() && shape_compat(a.dims(), b.dims())
}

fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(msg())
    }
}

fn all_compat(ts: &[&Type]) -> bool {
    ts.windows(2).all(|w| ty_compat(w[0], w[1]))
}

fn rule(
    v: &mut Verifier<'_>,
    op: OpId,
    kind: &OpKind,
    ops: &[&Type],
    res: &[&Type],
) -> Result<(), String> {
    use OpKind::*;
    match kind {
        GetProgramId { axis } | GetNumPrograms { axis } => {
            arity(ops, res, 0, 1)?;
            ensure(*axis < 3, || format!("axis {axis} is not 0, 1 or 2"))?;
            ensure(ty_compat(res[0], &Type::I32), || "must return i32".into())
        }
        Constant(c) => {
            arity(ops, res, 0, 1)?;
            check_constant(*c, res[0])
        }
        MakeRange { start, end } => {
            arity(ops, res, 0, 1)?;
            let n = *end as i64 - *start as i64;
            ensure(n > 0 && (n as u64).is_power_of_two(), || {
                format!("range [{start}, {end}) must be non-empty with a power-of-two length")
            })?;
            let want = Type::tensor_of(&[n as u64], DType::I32);
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))
        }
        Splat => {
            arity(ops, res, 1, 1)?;
            ensure(ops[0].is_scalar() && res[0].is_tensor(), || {
                "splats a scalar into a block".into()
            })?;
            ensure(elem_compat(ops[0].elem(), res[0].elem()), || {
                "changes the element type".into()
            })
        }
        Broadcast => {
            arity(ops, res, 1, 1)?;
            ensure(ops[0].is_tensor() && res[0].rank() == ops[0].rank(), || {
                "keeps the rank of a block".into()
            })?;
            ensure(elem_compat(ops[0].elem(), res[0].elem()), || {
                "changes the element type".into()
            })?;
            let ok = ops[0]
                .dims()
                .iter()
                .zip(res[0].dims())
                .all(|(a, b)| dim_compat(a, b) || *a == Dim::Known(1));
            ensure(ok, || format!("cannot broadcast {} to {}", ops[0], res[0]))
        }
        ExpandDims { axis } => {
            arity(ops, res, 1, 1)?;
            let mut dims = ops[0].dims().to_vec();
            ensure(ops[0].is_tensor() && (*axis as usize) <= dims.len(), || {
                format!("axis {axis} out of range")
            })?;
            dims.insert(*axis as usize, Dim::Known(1));
            let want = Type::with_dims(dims, ops[0].elem());
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))
        }
        Reshape { .. } => {
            arity(ops, res, 1, 1)?;
            ensure(ops[0].is_tensor() && res[0].is_tensor(), || {
                "reshapes blocks".into()
            })?;
            ensure(elem_compat(ops[0].elem(), res[0].elem()), || {
                "changes the element type".into()
            })?;
            match (ops[0].numel(), res[0].numel()) {
                (Some(a), Some(b)) => ensure(a == b, || {
                    format!("changes the element count from {a} to {b}")
                }),
                _ => Ok(()),
            }
        }
        Trans { order } => {
            arity(ops, res, 1, 1)?;
            let rank = ops[0].rank();
            let mut seen = vec![false; rank];
            for &o in order {
                ensure((o as usize) < rank && !seen[o as usize], || {
                    format!("order {order:?} is not a permutation")
                })?;
                seen[o as usize] = true;
            }
            ensure(ops[0].is_tensor() && order.len() == rank, || {
                format!("order {order:?} is not a permutation")
            })?;
            let dims = order
                .iter()
                .map(|&o| ops[0].dims()[o as usize].clone())
                .collect();
            let want = Type::with_dims(dims, ops[0].elem());
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))
        }
        Join => {
            arity(ops, res, 2, 1)?;
            ensure(ty_compat(ops[0], ops[1]), || {
                "joins two blocks of one type".into()
            })?;
            let mut dims = ops[0].dims().to_vec();
            dims.push(Dim::Known(2));
            let want = Type::with_dims(dims, ops[0].elem());
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))
        }
        Split => {
            arity(ops, res, 1, 2)?;
            let dims = ops[0].dims();
            ensure(
                dims.last().is_some_and(|d| dim_compat(d, &Dim::Known(2))),
                || "splits a minor dim of 2".into(),
            )?;
            let want = Type::with_dims(dims[..dims.len() - 1].to_vec(), ops[0].elem());
            ensure(ty_compat(res[0], &want) && ty_compat(res[1], &want), || {
                format!("must return {want} twice")
            })
        }
        Cat => {
            arity(ops, res, 2, 1)?;
            ensure(ops.iter().chain(res).all(|t| t.is_tensor()), || {
                "concatenates blocks".into()
            })?;
            ensure(ty_compat(ops[0], ops[1]), || {
                "concatenates two blocks of one type".into()
            })?;
            ensure(elem_compat(ops[0].elem(), res[0].elem()), || {
                "changes the element type".into()
            })?;
            match (ops[0].numel(), res[0].numel()) {
                (Some(a), Some(b)) => ensure(a.saturating_mul(2) == b, || {
                    "result must hold both inputs".into()
                }),
                _ => Ok(()),
            }
        }
        Binary(b) => {
            arity(ops, res, 2, 1)?;
            ensure(all_compat(&[ops[0], ops[1], res[0]]), || {
                "needs operands and result of one type".into()
            })?;
            let ok = if b.is_float_op() {
                is_float(ops[0])
            } else {
                is_int(ops[0])
            };
            ensure(ok, || format!("does not apply to {}", ops[0]))
        }
        CmpI(_) | CmpF(_) => {
            arity(ops, res, 2, 1)?;
            ensure(ty_compat(ops[0], ops[1]), || {
                "compares operands of one type".into()
            })?;
            let ok = if matches!(kind, CmpF(_)) {
                is_float(ops[0])
            } else {
                is_int(ops[0]) || ops[0].is_ptr_like()
            };
            ensure(ok, || format!("does not compare {}", ops[0]))?;
            let want = ops[0].with_dtype(DType::I1);
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))
        }
        Select => {
            arity(ops, res, 3, 1)?;
            ensure(is_bool(ops[0]), || "needs an i1 condition".into())?;
            ensure(ops[0].is_scalar() || same_shape(ops[0], res[0]), || {
                "condition shape differs".into()
            })?;
            ensure(all_compat(&[ops[1], ops[2], res[0]]), || {
                "needs both choices and the result of one type".into()
            })
        }
        Cast { op: c, rounding } => {
            arity(ops, res, 1, 1)?;
            ensure(same_shape(ops[0], res[0]), || "changes the shape".into())?;
            ensure(rounding.is_none() || *c == CastOp::TruncF, || {
                "only truncf takes a rounding mode".into()
            })?;
            check_cast(*c, ops[0], res[0])
        }
        FpToFp { rounding } => {
            arity(ops, res, 1, 1)?;
            ensure(same_shape(ops[0], res[0]), || "changes the shape".into())?;
            ensure(is_float(ops[0]) && is_float(res[0]), || {
                "converts floats".into()
            })?;
            let narrowing = matches!((ops[0].elem().bitwidth(), res[0].elem().bitwidth()), (Some(a), Some(b)) if b < a);
            ensure(!narrowing || rounding.is_some(), || {
                "needs a rounding mode to narrow".into()
            })
        }
        IntToPtr => {
            arity(ops, res, 1, 1)?;
            ensure(same_shape(ops[0], res[0]), || "changes the shape".into())?;
            ensure(
                dtype_is(ops[0], |d| d == DType::I64) && res[0].is_ptr_like(),
                || "converts i64 to pointers".into(),
            )
        }
        PtrToInt => {
            arity(ops, res, 1, 1)?;
            ensure(same_shape(ops[0], res[0]), || "changes the shape".into())?;
            ensure(
                ops[0].is_ptr_like() && dtype_is(res[0], |d| d == DType::I64),
                || "converts pointers to i64".into(),
            )
        }
        AddPtr => {
            arity(ops, res, 2, 1)?;
            ensure(ops[0].is_ptr_like() && ty_compat(ops[0], res[0]), || {
                "returns its pointer operand's type".into()
            })?;
            ensure(is_int(ops[1]) && same_shape(ops[0], ops[1]), || {
                "needs an int offset of the pointer's shape".into()
            })
        }
        Math(m) => {
            arity(ops, res, 1, 1)?;
            ensure(ty_compat(ops[0], res[0]), || "changes the type".into())?;
            let ok = if m.is_int_op() {
                is_int(ops[0])
            } else {
                is_float(ops[0])
            };
            ensure(ok, || format!("does not apply to {}", ops[0]))
        }
        Fma | ClampF { .. } => {
            arity(ops, res, 3, 1)?;
            ensure(
                all_compat(&[ops[0], ops[1], ops[2], res[0]]) && is_float(res[0]),
                || "needs floats of one type".into(),
            )
        }
        PreciseSqrt => {
            arity(ops, res, 1, 1)?;
            ensure(ty_compat(ops[0], res[0]) && is_float(res[0]), || {
                "needs a float".into()
            })
        }
        PreciseDivF => {
            arity(ops, res, 2, 1)?;
            ensure(
                all_compat(&[ops[0], ops[1], res[0]]) && is_float(res[0]),
                || "needs floats of one type".into(),
            )
        }
        MulHiUI => {
            arity(ops, res, 2, 1)?;
            ensure(
                all_compat(&[ops[0], ops[1], res[0]]) && is_int(res[0]),
                || "needs ints of one type".into(),
            )
        }
        ExternElementwise { .. } => {
            ensure(res.len() == 1, || "returns one value".into())?;
            ensure(ops.iter().all(|t| same_shape(t, res[0])), || {
                "needs operands of the result's shape".into()
            })
        }
        ElementwiseInlineAsm { pack, .. } => {
            ensure(!res.is_empty(), || "returns at least one value".into())?;
            ensure(*pack >= 1, || "packs at least one element".into())?;
            ensure(
                ops.iter().chain(&res[1..]).all(|t| same_shape(t, res[0])),
                || "needs operands and results of one shape".into(),
            )
        }
        Load { .. } => {
            ensure((1..=3).contains(&ops.len()) && res.len() == 1, || {
                "takes ptr[, mask[, other]]".into()
            })?;
            let want = pointee_type(ops[0]).ok_or("loads through pointers")?;
            ensure(ty_compat(res[0], &want), || format!("must return {want}"))?;
            check_mask(ops.get(1).copied(), ops[0])?;
            match ops.get(2) {
                Some(other) => ensure(ty_compat(other, &want), || {
                    format!("`other` must be {want}")
                }),
                None => Ok(()),
            }
        }
        Store { .. } => {
            ensure((2..=3).contains(&ops.len()) && res.is_empty(), || {
                "takes ptr, value[, mask]".into()
            })?;
            let want = pointee_type(ops[0]).ok_or("stores through pointers")?;
            ensure(ty_compat(ops[1], &want), || format!("must store {want}"))?;
            check_mask(ops.get(2).copied(), ops[0])
        }
        AtomicRmw { .. } => {
            ensure((2..=3).contains(&ops.len()) && res.len() == 1, || {
                "takes ptr, val[, mask]".into()
            })?;
            let want = pointee_type(ops[0]).ok_or("updates through pointers")?;
            ensure(ty_compat(ops[1], &want) && ty_compat(res[0], &want), || {
                format!("needs values of {want}")
            })?;
            check_mask(ops.get(2).copied(), ops[0])
        }
        AtomicCas { .. } => {
            arity(ops, res, 3, 1)?;
            let want = pointee_type(ops[0]).ok_or("updates through pointers")?;
            ensure(all_compat(&[ops[1], ops[2], res[0], &want]), || {
                format!("needs values of {want}")
            })
        }
        Reduce { axis } | Scan { axis, .. } => check_combiner(v, op, kind, *axis, ops, res),
        Dot { .. } => {
            arity(ops, res, 3, 1)?;
            let (a, b, c) = (ops[0].dims(), ops[1].dims(), ops[2].dims());
            let rank = a.len();
            ensure(
                (rank == 2 || rank == 3) && b.len() == rank && c.len() == rank,
                || "multiplies rank-2 or rank-3 blocks".into(),
            )?;
            let (m, k, k2, n) = (&a[rank - 2], &a[rank - 1], &b[rank - 2], &b[rank - 1]);
            ensure(dim_compat(k, k2), || {
                format!("inner dims differ: {} and {}", ops[0], ops[1])
            })?;
            ensure(
                dim_compat(&c[rank - 2], m) && dim_compat(&c[rank - 1], n),
                || "accumulator shape must be MxN".into(),
            )?;
            ensure(
                rank == 2 || (dim_compat(&a[0], &b[0]) && dim_compat(&a[0], &c[0])),
                || "batch dims differ".into(),
            )?;
            ensure(ty_compat(ops[2], res[0]), || {
                "must return the accumulator's type".into()
            })
        }
        Hint(h) => {
            arity(ops, res, 1, 1)?;
            ensure(ty_compat(ops[0], res[0]), || "changes the type".into())?;
            let want = ops[0].rank().max(1);
            for a in [&h.divisibility, &h.contiguity, &h.constancy]
                .into_iter()
                .flatten()
            {
                ensure(a.len() == want, || {
                    format!("needs {want} values per hint, found {}", a.len())
                })?;
            }
            Ok(())
        }
        Print { .. } => ensure(res.is_empty(), || "returns nothing".into()),
        Assert { .. } => {
            arity(ops, res, 1, 0)?;
            ensure(is_bool(ops[0]), || "needs an i1 condition".into())
        }
        Barrier | GdcWait | GdcLaunchDependents => arity(ops, res, 0, 0),
        ConvertLayout => {
            arity(ops, res, 1, 1)?;
            ensure(ops[0].is_tensor() && ty_compat(ops[0], res[0]), || {
                "changes only the encoding of a block".into()
            })
        }
        LocalDealloc => {
            arity(ops, res, 1, 0)?;
            memdesc(ops[0], "the operand").map(|_| ())
        }
        LocalAlloc { .. } => {
            ensure(ops.len() <= 1 && res.len() == 1, || {
                "takes an optional initial block and returns a buffer".into()
            })?;
            let m = memdesc(res[0], "the result")?;
            match ops.first() {
                Some(init) => {
                    ensure(fills(init, m), || format!("cannot fill {m} from {init}"))?;
                    ensure(!m.mutable, || {
                        "a buffer filled at allocation is immutable".into()
                    })
                }
                None => ensure(m.mutable, || "an empty buffer must be mutable".into()),
            }
        }
        LocalLoad => {
            ensure((1..=2).contains(&ops.len()) && res.len() == 1, || {
                "takes a buffer and an optional token".into()
            })?;
            let m = memdesc(ops[0], "the operand")?;
            ensure(all_tokens(&ops[1..]), || {
                "the second operand must be a token".into()
            })?;
            ensure(fills(res[0], m), || {
                format!("cannot load {} from {m}", res[0])
            })
        }
        LocalStore => {
            arity(ops, res, 2, 0)?;
            let m = memdesc(ops[1], "the second operand")?;
            ensure(m.mutable, || format!("stores into an immutable {m}"))?;
            ensure(fills(ops[0], m), || {
                format!("cannot store {} into {m}", ops[0])
            })
        }
        MemDescIndex => {
            arity(ops, res, 2, 1)?;
            let (m, r) = (
                memdesc(ops[0], "the operand")?,
                memdesc(res[0], "the result")?,
            );
            ensure(is_int(ops[1]) && ops[1].is_scalar(), || {
                "the index must be an integer scalar".into()
            })?;
            ensure(
                m.shape.len() > m.layout.rank()
                    && r.shape == m.shape[1..]
                    && r.elem == m.elem
                    && r.layout == m.layout
                    && r.mutable == m.mutable,
                || format!("buffer of {m} must be {r} minus its leading buffer dim"),
            )
        }
        AsyncCopyGlobalToLocal { .. } => {
            ensure((2..=4).contains(&ops.len()) && res.len() == 1, || {
                "takes ptrs, buffer[, mask[, other]] and returns a token".into()
            })?;
            let want = pointee_type(ops[0]).ok_or("copies through pointers")?;
            let m = memdesc(ops[1], "the second operand")?;
            ensure(m.mutable, || format!("copies into an immutable {m}"))?;
            ensure(fills(&want, m), || format!("cannot copy {want} into {m}"))?;
            check_mask(ops.get(2).copied(), ops[0])?;
            if let Some(other) = ops.get(3) {
                ensure(ty_compat(other, &want), || format!("other must be {want}"))?;
            }
            ensure(matches!(res[0], Type::AsyncToken), || {
                "returns a token".into()
            })
        }
        AsyncCommitGroup | AsyncWait { .. } => {
            ensure(res.len() == 1 && matches!(res[0], Type::AsyncToken), || {
                "returns a token".into()
            })?;
            ensure(all_tokens(ops), || "takes tokens".into())
        }
        WarpGroupDotWait { .. } => {
            ensure(!ops.is_empty() && ops.len() == res.len(), || {
                "returns each of its accumulators".into()
            })?;
            ensure(
                ops.iter().zip(res).all(|(a, r)| a.is_tensor() && a == r),
                || "returns its accumulators unchanged in type".into(),
            )
        }
        For { .. } => check_for(v, op, ops, res),
        If => check_if(v, op, ops, res),
        While => check_while(v, op, ops, res),
        Return => {
            ensure(res.is_empty(), || "returns nothing itself".into())?;
            let parent = v.f.parent_op(op);
            ensure(parent.is_none(), || "must be in the function body".into())?;
            let want: Vec<&Type> = v.f.result_types.iter().collect();
            ensure(types_compat(ops, &want), || {
                "operand types differ from the function's result types".into()
            })
        }
        Yield => {
            let parent = v.f.parent_op(op);
            let ok = match parent.map(|p| v.f.kind(p)) {
                Some(For { .. } | If) => true,
                Some(While) => v.f.op(op).parent() == parent.and_then(|p| v.f.region_entry(p, 1)),
                _ => false,
            };
            ensure(ok, || {
                "must end an scf.for, scf.if or scf.while body".into()
            })
        }
        Condition => {
            let parent = v.f.parent_op(op);
            let ok = matches!(parent.map(|p| v.f.kind(p)), Some(While))
                && v.f.op(op).parent() == parent.and_then(|p| v.f.region_entry(p, 0));
            ensure(ok, || "must end the before region of scf.while".into())
        }
        ReduceReturn | ScanReturn => {
            let want = if matches!(kind, ReduceReturn) {
                "tt.reduce"
            } else {
                "tt.scan"
            };
            let parent = v.f.parent_op(op).map(|p| v.f.kind(p).name());
            ensure(parent == Some(want), || {
                format!("must end a {want} combiner")
            })
        }
    }
}

fn types_compat(a: &[&Type], b: &[&Type]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| ty_compat(x, y))
}

fn check_constant(c: ConstValue, ty: &Type) -> Result<(), String> {
    let d = ty.dtype().ok_or("cannot be a pointer")?;
    match c {
        ConstValue::Int(v) => {
            ensure(d.is_int() || d.is_var(), || {
                format!("integer value for {d}")
            })?;
            let Some(bits) = d.bitwidth() else {
                return Ok(());
            };
            let (lo, hi) = if d.is_signed() {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            ensure(lo <= v && v <= hi, || {
                format!("value {v} out of range for {d}")
            })
        }
        ConstValue::Float(_) => ensure(d.is_float() || d.is_var(), || {
            format!("float value for {d}")
        }),
    }
}

fn check_cast(c: CastOp, from: &Type, to: &Type) -> Result<(), String> {
    use CastOp::*;
    let (fb, tb) = (from.elem().bitwidth(), to.elem().bitwidth());
    let wider = matches!((fb, tb), (Some(a), Some(b)) if b > a) || fb.is_none() || tb.is_none();
    let narrower = matches!((fb, tb), (Some(a), Some(b)) if b < a) || fb.is_none() || tb.is_none();
    let ok = match c {
        ExtSI | ExtUI => is_int(from) && is_int(to) && wider,
        TruncI => is_int(from) && is_int(to) && narrower,
        SIToFP | UIToFP => is_int(from) && is_float(to),
        FPToSI | FPToUI => is_float(from) && is_int(to),
        ExtF => is_float(from) && is_float(to) && wider,
        TruncF => is_float(from) && is_float(to) && narrower,
        Bitcast => {
            (from.is_ptr_like() == to.is_ptr_like()) && (fb == tb || fb.is_none() || tb.is_none())
        }
    };
    ensure(ok, || format!("cannot convert {from} to {to}"))
}

/// The value type a pointer (block) loads: its shape with the pointee dtype.
fn pointee_type(ptr: &Type) -> Option<Type> {
    match ptr.elem() {
        Elem::Ptr(p) => Some(ptr.with_dtype(p.pointee)),
        Elem::DType(_) => None,
    }
}

fn check_mask(mask: Option<&Type>, ptr: &Type) -> Result<(), String> {
    match mask {
        Some(m) => ensure(is_bool(m) && same_shape(m, ptr), || {
            format!("mask must be i1 shaped like {ptr}")
        }),
        None => Ok(()),
    }
}

fn block_arg_types(v: &Verifier<'_>, op: OpId, region: usize) -> Option<Vec<Type>> {
    let b = v.f.region_entry(op, region)?;
    Some(
        v.f.block(b)
            .args()
            .iter()
            .map(|&a| v.f.value_type(a).clone())
            .collect(),
    )
}

fn terminator_operands(v: &Verifier<'_>, op: OpId, region: usize) -> Option<Vec<Type>> {
    let b = v.f.region_entry(op, region)?;
    let term = *v.f.block(b).ops().last()?;
    let vals: &[Value] = v.f.op(term).operands();
    Some(vals.iter().map(|&a| v.f.value_type(a).clone()).collect())
}

fn owned(ts: &[Type]) -> Vec<&Type> {
    ts.iter().collect()
}

fn check_combiner(
    v: &mut Verifier<'_>,
    op: OpId,
    kind: &OpKind,
    axis: u32,
    ops: &[&Type],
    res: &[&Type],
) -> Result<(), String> {
    ensure(!ops.is_empty() && ops.len() == res.len(), || {
        "needs N >= 1 operands and N results".into()
    })?;
    let shape = ops[0].dims();
    ensure(
        ops.iter()
            .all(|t| t.is_tensor() && shape_compat(t.dims(), shape)),
        || "needs blocks of one shape".into(),
    )?;
    ensure((axis as usize) < shape.len(), || {
        format!("axis {axis} out of range for rank {}", shape.len())
    })?;
    for (o, r) in ops.iter().zip(res) {
        let want = if matches!(kind, OpKind::Reduce { .. }) {
            let mut dims = o.dims().to_vec();
            dims.remove(axis as usize);
            Type::with_dims(dims, o.elem())
        } else {
            (*o).clone()
        };
        ensure(ty_compat(r, &want), || format!("result must be {want}"))?;
    }
    let elems: Vec<Type> = ops.iter().map(|t| Type::scalar_of(t.elem())).collect();
    let args = block_arg_types(v, op, 0).unwrap_or_default();
    let want_args: Vec<Type> = elems.iter().chain(elems.iter()).cloned().collect();
    ensure(types_compat(&owned(&args), &owned(&want_args)), || {
        "combiner arguments must be the element types, twice".into()
    })?;
    let rets = terminator_operands(v, op, 0).unwrap_or_default();
    ensure(types_compat(&owned(&rets), &owned(&elems)), || {
        "combiner must return one element per operand".into()
    })
}

fn check_for(v: &mut Verifier<'_>, op: OpId, ops: &[&Type], res: &[&Type]) -> Result<(), String> {
    ensure(ops.len() >= 3, || {
        "takes lower bound, upper bound, step and inits".into()
    })?;
    ensure(
        ops[0].is_scalar() && is_int(ops[0]) && all_compat(&ops[..3]),
        || "bounds and step must be ints of one scalar type".into(),
    )?;
    let inits = &ops[3..];
    ensure(types_compat(inits, res), || {
        "results must have the inits' types".into()
    })?;
    let args = block_arg_types(v, op, 0).unwrap_or_default();
    let mut want = vec![ops[0]];
    want.extend_from_slice(inits);
    ensure(types_compat(&owned(&args), &want), || {
        "body arguments must be the induction variable and the inits".into()
    })?;
    let yields = terminator_operands(v, op, 0).unwrap_or_default();
    ensure(types_compat(&owned(&yields), res), || {
        "scf.yield must yield the result types".into()
    })
}

fn check_if(v: &mut Verifier<'_>, op: OpId, ops: &[&Type], res: &[&Type]) -> Result<(), String> {
    ensure(
        ops.len() == 1 && ops[0].is_scalar() && is_bool(ops[0]),
        || "needs an i1 scalar condition".into(),
    )?;
    for region in 0..2 {
        let args = block_arg_types(v, op, region).unwrap_or_default();
        ensure(args.is_empty(), || "branches take no arguments".into())?;
        let yields = terminator_operands(v, op, region).unwrap_or_default();
        ensure(types_compat(&owned(&yields), res), || {
            "each branch must yield the result types".into()
        })?;
    }
    Ok(())
}

fn check_while(v: &mut Verifier<'_>, op: OpId, ops: &[&Type], res: &[&Type]) -> Result<(), String> {
    let before = block_arg_types(v, op, 0).unwrap_or_default();
    ensure(types_compat(&owned(&before), ops), || {
        "before arguments must have the inits' types".into()
    })?;
    let cond = terminator_operands(v, op, 0).unwrap_or_default();
    ensure(
        cond.first().is_some_and(|c| c.is_scalar() && is_bool(c)),
        || "scf.condition needs an i1 scalar".into(),
    )?;
    ensure(types_compat(&owned(&cond[1..]), res), || {
        "scf.condition must forward the result types".into()
    })?;
    let after = block_arg_types(v, op, 1).unwrap_or_default();
    ensure(types_compat(&owned(&after), res), || {
        "after arguments must have the result types".into()
    })?;
    let yields = terminator_operands(v, op, 1).unwrap_or_default();
    ensure(types_compat(&owned(&yields), ops), || {
        "the after region must yield the inits' types".into()
    })
}
