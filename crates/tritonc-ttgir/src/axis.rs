//! Axis analysis (Triton's `AxisInfo`): per value and per dim, how many consecutive
//! elements are contiguous integers, the largest power of two dividing every element
//! (bytes for pointers), and how many consecutive elements are equal.
//!
//! These facts decide vector widths: a pointer block with contiguity ≥ 4 and 16-byte
//! divisibility along its fastest dim gets 128-bit fp32 accesses, and a mask needs the
//! same constancy for the access to stay one instruction. The rules follow Triton's
//! `lib/Analysis/AxisInfo.cpp`; where tritonc has no rule for an op the result is the
//! pessimistic fact (contiguity 1, divisibility 1, constancy 1), which is always sound.
//!
//! Scalars are treated as rank-1 values of extent 1, as in Triton.

use std::collections::HashMap;

use tritonc_ir::{BinaryOp, CastOp, CmpIPredicate, ConstValue, Function, OpKind, Type, Value};

/// The largest divisibility tracked (Triton's cap; the divisor of 0).
pub const MAX_DIVISIBILITY: u64 = 1 << 62;

/// What axis analysis knows about one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisInfo {
    /// Per dim: runs of this many consecutive elements increase by 1 (in elements for
    /// pointers).
    pub contiguity: Vec<u64>,
    /// Per dim: the first element of every contiguous run is a multiple of this power of
    /// two (in bytes for pointers).
    pub divisibility: Vec<u64>,
    /// Per dim: runs of this many consecutive elements are equal.
    pub constancy: Vec<u64>,
    /// The value, when every element is the same known integer.
    pub constant: Option<i128>,
}

impl AxisInfo {
    /// Nothing known, for a value of `rank` (1 for scalars).
    pub fn pessimistic(rank: usize) -> Self {
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![1; rank],
            constancy: vec![1; rank],
            constant: None,
        }
    }

    /// The rank (1 for scalars).
    pub fn rank(&self) -> usize {
        self.contiguity.len()
    }
}

/// The largest power of two dividing `n` (capped; 0 is divisible by everything).
pub fn pow2_divisor(n: i128) -> u64 {
    if n == 0 {
        return MAX_DIVISIBILITY;
    }
    let tz = n.unsigned_abs().trailing_zeros();
    if tz >= 62 {
        MAX_DIVISIBILITY
    } else {
        1 << tz
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// What holds for both `a` and `b` (Triton's join of loop-carried facts).
fn join(a: &AxisInfo, b: &AxisInfo) -> AxisInfo {
    if a.rank() != b.rank() {
        return AxisInfo::pessimistic(a.rank());
    }
    let both = |x: &[u64], y: &[u64]| -> Vec<u64> {
        x.iter().zip(y).map(|(&p, &q)| gcd(p, q).max(1)).collect()
    };
    AxisInfo {
        contiguity: both(&a.contiguity, &b.contiguity),
        divisibility: both(&a.divisibility, &b.divisibility),
        constancy: both(&a.constancy, &b.constancy),
        constant: if a.constant == b.constant {
            a.constant
        } else {
            None
        },
    }
}

/// `(carried body argument, value yielded for it)` of every `scf.for`.
fn carried_pairs(func: &Function) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    for op in func.walk() {
        if !matches!(func.kind(op), OpKind::For { .. }) {
            continue;
        }
        let Some(body) = func.region_entry(op, 0) else {
            continue;
        };
        let Some(&term) = func.block(body).ops().last() else {
            continue;
        };
        let args = func.block(body).args();
        for (i, &y) in func.op(term).operands().iter().enumerate() {
            if let Some(&arg) = args.get(i + 1) {
                out.push((arg, y));
            }
        }
    }
    out
}

fn mul_div(a: u64, b: u64) -> u64 {
    a.saturating_mul(b).min(MAX_DIVISIBILITY)
}

/// Axis facts for every value of a function.
#[derive(Debug, Clone)]
pub struct AxisAnalysis {
    infos: Vec<Option<AxisInfo>>,
}

/// The shape axis analysis uses: known dims, or `[1]` for scalars.
fn shape_of(ty: &Type) -> Vec<u64> {
    if ty.is_tensor() {
        ty.dims().iter().map(|d| d.known().unwrap_or(1)).collect()
    } else {
        vec![1]
    }
}

fn elem_bytes(ty: &Type) -> u64 {
    match ty.elem() {
        tritonc_ir::Elem::Ptr(p) => u64::from(p.pointee.size_bytes().unwrap_or(1)).max(1),
        _ => 1,
    }
}

impl AxisAnalysis {
    /// Runs the analysis over `func` (ops in program order; region arguments get the
    /// pessimistic fact).
    pub fn run(func: &Function) -> Self {
        // Loop-carried values start from their inits and are joined with what the loop
        // yields until nothing changes (Triton's fixpoint); a few rounds settle every
        // real loop, and a value still changing after them is taken as unknown.
        const ROUNDS: usize = 4;
        let mut seeds: HashMap<Value, AxisInfo> = HashMap::new();
        for round in 0..=ROUNDS {
            let this = Self::run_once(func, &seeds);
            let mut changed = false;
            for (arg, yielded) in carried_pairs(func) {
                let current = this.get(arg);
                let joined = join(&current, &this.get(yielded));
                if joined != current {
                    changed = true;
                    let settled = if round == ROUNDS {
                        AxisInfo::pessimistic(current.rank())
                    } else {
                        joined
                    };
                    seeds.insert(arg, settled);
                }
            }
            if !changed {
                return this;
            }
        }
        Self::run_once(func, &seeds)
    }

    fn run_once(func: &Function, seeds: &HashMap<Value, AxisInfo>) -> Self {
        let mut this = AxisAnalysis {
            infos: vec![None; func.num_values()],
        };
        for (i, &arg) in func.args().iter().enumerate() {
            let mut info = AxisInfo::pessimistic(1);
            if let Some(d) = func.arg_attrs.get(i).and_then(|a| a.divisibility) {
                info.divisibility[0] = u64::from(d).max(1);
            }
            this.infos[arg.index()] = Some(info);
        }
        for op in func.walk() {
            let data = func.op(op);
            for &r in func.op(op).regions() {
                for &b in func.region(r).blocks() {
                    for &a in func.block(b).args() {
                        let rank = shape_of(func.value_type(a)).len();
                        this.infos[a.index()] = Some(AxisInfo::pessimistic(rank));
                    }
                }
            }
            for (i, &res) in data.results().iter().enumerate() {
                let info = this.transfer(func, op, i);
                this.infos[res.index()] = Some(info);
            }
            if !matches!(func.kind(op), OpKind::For { .. }) {
                continue;
            }
            let Some(body) = func.region_entry(op, 0) else {
                continue;
            };
            let args = func.block(body).args();
            // A loop's induction variable is `lb + k * step`: divisible by what divides
            // both (Triton's rule), so `iv + arange` stays aligned.
            if let Some(&iv) = args.first() {
                let lb = this.info(func, data.operands()[0]);
                let step = this.info(func, data.operands()[2]);
                let mut info = AxisInfo::pessimistic(1);
                info.divisibility[0] = gcd(lb.divisibility[0], step.divisibility[0]).max(1);
                this.infos[iv.index()] = Some(info);
            }
            // Carried values (and the loop's results): the init's facts, joined with the
            // yields' by `run`.
            for (i, &arg) in args.iter().enumerate().skip(1) {
                let Some(&init) = data.operands().get(2 + i) else {
                    continue;
                };
                let info = seeds
                    .get(&arg)
                    .cloned()
                    .unwrap_or_else(|| this.info(func, init));
                if info.rank() == shape_of(func.value_type(arg)).len() {
                    this.infos[arg.index()] = Some(info.clone());
                    if let Some(&r) = data.results().get(i - 1) {
                        this.infos[r.index()] = Some(info);
                    }
                }
            }
        }
        this
    }

    /// The facts about `v`.
    pub fn get(&self, v: Value) -> AxisInfo {
        self.infos
            .get(v.index())
            .and_then(Clone::clone)
            .unwrap_or_else(|| AxisInfo::pessimistic(1))
    }

    fn info(&self, func: &Function, v: Value) -> AxisInfo {
        match self.infos.get(v.index()).and_then(Clone::clone) {
            Some(i) => i,
            None => AxisInfo::pessimistic(shape_of(func.value_type(v)).len()),
        }
    }

    fn transfer(&self, func: &Function, op: tritonc_ir::OpId, result: usize) -> AxisInfo {
        let data = func.op(op);
        let res_ty = func.value_type(data.results()[result]);
        let shape = shape_of(res_ty);
        let rank = shape.len();
        let operand = |i: usize| self.info(func, data.operands()[i]);
        let mut out = match &data.kind {
            OpKind::Constant(ConstValue::Int(v)) => AxisInfo {
                contiguity: vec![1; rank],
                divisibility: vec![pow2_divisor(*v); rank],
                constancy: shape.clone(),
                constant: Some(*v),
            },
            OpKind::Constant(ConstValue::Float(_)) => AxisInfo {
                constancy: shape.clone(),
                ..AxisInfo::pessimistic(rank)
            },
            OpKind::MakeRange { start, end } => AxisInfo {
                contiguity: vec![(i64::from(*end) - i64::from(*start)).max(1) as u64],
                divisibility: vec![pow2_divisor(i128::from(*start))],
                constancy: vec![1],
                constant: None,
            },
            OpKind::Splat => {
                let src = operand(0);
                AxisInfo {
                    contiguity: vec![1; rank],
                    divisibility: vec![src.divisibility[0]; rank],
                    constancy: shape.clone(),
                    constant: src.constant,
                }
            }
            OpKind::Broadcast => {
                let src = operand(0);
                let src_shape = shape_of(func.value_type(data.operands()[0]));
                let mut out = src.clone();
                for d in 0..rank.min(src.rank()) {
                    if src_shape.get(d) == Some(&1) && shape[d] != 1 {
                        out.contiguity[d] = 1;
                        out.constancy[d] = shape[d];
                    }
                }
                out
            }
            OpKind::ExpandDims { axis } => {
                let src = operand(0);
                let new_div = match src.constant {
                    Some(c) => pow2_divisor(c),
                    None => (0..src.rank())
                        .map(|d| {
                            if src.contiguity[d] > 1 {
                                1
                            } else {
                                src.divisibility[d]
                            }
                        })
                        .reduce(gcd)
                        .unwrap_or(1),
                };
                let mut out = src;
                let at = (*axis as usize).min(out.rank());
                out.contiguity.insert(at, 1);
                out.divisibility.insert(at, new_div);
                out.constancy.insert(at, 1);
                out
            }
            OpKind::Binary(b) => self.binary(*b, operand(0), operand(1), rank),
            OpKind::AddPtr => {
                let (lhs, rhs) = (operand(0), operand(1));
                let scale = elem_bytes(res_ty);
                let mut out = add_sub(&lhs, &rhs, rank, false, scale);
                out.constant = None;
                out
            }
            OpKind::CmpI(pred) => cmpi(*pred, &operand(0), &operand(1), &shape),
            OpKind::Select => {
                let (c, a, b) = (operand(0), operand(1), operand(2));
                let scalar_cond = !func.value_type(data.operands()[0]).is_tensor();
                let mut out = AxisInfo::pessimistic(rank);
                for d in 0..rank {
                    if scalar_cond {
                        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
                        out.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
                    } else {
                        out.constancy[d] = gcd(gcd(a.constancy[d], b.constancy[d]), c.constancy[d]);
                        out.contiguity[d] =
                            gcd(gcd(a.contiguity[d], b.contiguity[d]), c.constancy[d]);
                    }
                    out.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
                }
                match c.constant {
                    Some(0) => b,
                    Some(_) => a,
                    None => out,
                }
            }
            OpKind::Cast {
                op: CastOp::ExtSI | CastOp::ExtUI | CastOp::TruncI | CastOp::Bitcast,
                ..
            } => operand(0),
            OpKind::PtrToInt | OpKind::IntToPtr | OpKind::ConvertLayout => operand(0),
            OpKind::Hint(h) => {
                let mut out = operand(0);
                if let Some(v) = &h.divisibility {
                    out.divisibility = v.clone();
                }
                if let Some(v) = &h.contiguity {
                    out.contiguity = v.clone();
                }
                if let Some(v) = &h.constancy {
                    out.constancy = v.clone();
                }
                out
            }
            // Elementwise ops without a rule keep only constancy (equal inputs give
            // equal outputs).
            OpKind::CmpF(_) | OpKind::Math(_) | OpKind::Cast { .. } | OpKind::Fma => {
                let mut out = AxisInfo::pessimistic(rank);
                for i in 0..data.operands().len() {
                    let o = operand(i);
                    for d in 0..rank.min(o.rank()) {
                        out.constancy[d] = if i == 0 {
                            o.constancy[d]
                        } else {
                            gcd(out.constancy[d], o.constancy[d])
                        };
                    }
                }
                out
            }
            _ => AxisInfo::pessimistic(rank),
        };
        // Keep every list at the result's rank even if an operand was odd.
        for list in [
            &mut out.contiguity,
            &mut out.divisibility,
            &mut out.constancy,
        ] {
            list.resize(rank, 1);
        }
        out
    }

    fn binary(&self, op: BinaryOp, lhs: AxisInfo, rhs: AxisInfo, rank: usize) -> AxisInfo {
        let mut out = AxisInfo::pessimistic(rank);
        let both = |f: &dyn Fn(i128, i128) -> Option<i128>| match (lhs.constant, rhs.constant) {
            (Some(a), Some(b)) => f(a, b),
            _ => None,
        };
        match op {
            BinaryOp::AddI => {
                out = add_sub(&lhs, &rhs, rank, false, 1);
                out.constant = both(&|a, b| a.checked_add(b));
            }
            BinaryOp::SubI => {
                out = add_sub(&lhs, &rhs, rank, true, 1);
                out.constant = both(&|a, b| a.checked_sub(b));
            }
            BinaryOp::MulI => {
                for d in 0..rank {
                    let lc = if rhs.constant == Some(1) {
                        lhs.contiguity[d]
                    } else {
                        1
                    };
                    let rc = if lhs.constant == Some(1) {
                        rhs.contiguity[d]
                    } else {
                        1
                    };
                    out.contiguity[d] = lc.max(rc);
                    out.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
                    // [2^n, 2^n+1, …] is only divisible by 1 once multiplied.
                    let ld = if lhs.contiguity[d] > 1 && rhs.constant != Some(1) {
                        1
                    } else {
                        lhs.divisibility[d]
                    };
                    let rd = if rhs.contiguity[d] > 1 && lhs.constant != Some(1) {
                        1
                    } else {
                        rhs.divisibility[d]
                    };
                    out.divisibility[d] = mul_div(ld, rd);
                }
                out.constant = both(&|a, b| a.checked_mul(b));
            }
            BinaryOp::RemSI | BinaryOp::RemUI => {
                for d in 0..rank {
                    let rhs_const = rhs.constancy[d] > 1 || rhs.constant.is_some();
                    out.contiguity[d] = if rhs_const {
                        gcd(lhs.contiguity[d], rhs.divisibility[d])
                    } else {
                        1
                    };
                    out.divisibility[d] = gcd(lhs.divisibility[d], rhs.divisibility[d]);
                    out.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
                }
            }
            _ => {
                for d in 0..rank {
                    out.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
                }
            }
        }
        out
    }
}

/// Triton's add/sub/addptr rule; `scale` multiplies the right side's divisibility
/// (the pointee size for `addptr`).
fn add_sub(lhs: &AxisInfo, rhs: &AxisInfo, rank: usize, sub: bool, scale: u64) -> AxisInfo {
    let mut out = AxisInfo::pessimistic(rank);
    for d in 0..rank {
        out.contiguity[d] = if sub {
            // A contiguous right side makes a decreasing sequence.
            gcd(lhs.contiguity[d], rhs.constancy[d])
        } else {
            gcd(lhs.constancy[d], rhs.contiguity[d]).max(gcd(lhs.contiguity[d], rhs.constancy[d]))
        };
        out.divisibility[d] = gcd(lhs.divisibility[d], mul_div(rhs.divisibility[d], scale));
        out.constancy[d] = gcd(lhs.constancy[d], rhs.constancy[d]);
    }
    out
}

fn cmpi(pred: CmpIPredicate, lhs: &AxisInfo, rhs: &AxisInfo, shape: &[u64]) -> AxisInfo {
    use CmpIPredicate::*;
    let rank = shape.len();
    let mut out = AxisInfo::pessimistic(rank);
    let lt_or_ge = matches!(pred, Slt | Ult | Sge | Uge);
    let gt_or_le = matches!(pred, Sgt | Ugt | Sle | Ule);
    for d in 0..rank {
        let mut c = gcd(lhs.constancy[d], rhs.constancy[d]);
        let divs = gcd(lhs.divisibility[d], rhs.divisibility[d]);
        // contiguous vs constant: the comparison flips at most at a multiple of the
        // divisibility, so runs of that length (within a contiguous run) agree.
        if gt_or_le && lhs.constancy[d] == shape[d] {
            c = c.max(gcd(rhs.contiguity[d], divs));
        } else if lt_or_ge && rhs.constancy[d] == shape[d] {
            c = c.max(gcd(lhs.contiguity[d], divs));
        }
        out.constancy[d] = c;
    }
    if let (Some(a), Some(b)) = (lhs.constant, rhs.constant) {
        let v = match pred {
            Eq => a == b,
            Ne => a != b,
            Slt | Ult => a < b,
            Sle | Ule => a <= b,
            Sgt | Ugt => a > b,
            Sge | Uge => a >= b,
        };
        out.constant = Some(i128::from(v));
    }
    out
}
