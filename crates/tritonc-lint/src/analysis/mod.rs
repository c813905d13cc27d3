//! Dataflow analyses over the tile IR. Each is a forward analysis over one lattice, solved
//! by [`solve`] across structured control flow: loop-carried values join their initial
//! value with what the body yields, `scf.if` results join both branches, and the solver
//! iterates to a fixed point. Inlined helpers need nothing special: sema has already
//! inlined them, and their ops keep the call-site chain in their locations.
//!
//! - [`shape`]: along which dims a value varies, which `tt.make_range` ops its offsets come
//!   from, and whether a program id or a loop tiles them (TRI101, TRI301).
//! - [`lanes`]: what the lanes a masked load left out hold at each point (TRI102, TRI103).
//! - [`sign`]: value ranges of the lanes that hold data: non-negative, positive (TRI103).
//! - [`provenance`]: whether a value's dtype is known or comes from a placeholder (TRI201,
//!   TRI202, TRI204).
//! - [`overflow`]: int32 products of a program id with a stride or size (TRI203).
//! - [`combiner`]: what a `tt.reduce`/`tt.scan` combiner computes (sum, max, argmax, ...).
//! - [`num`]: exact scalar constants (integers stay integers) for fills and sentinels.

pub mod combiner;
pub mod lanes;
pub mod num;
pub mod overflow;
pub mod provenance;
pub mod shape;
pub mod sign;

use tritonc_ir::{ConstValue, Function, OpId, OpKind, Value, ValueDef};

/// A join-semilattice of facts about one value.
pub trait Lattice: Clone + PartialEq {
    /// The fact of a value nothing is known to flow into yet.
    fn bottom() -> Self;
    /// The least fact above both.
    fn join(&self, other: &Self) -> Self;
}

/// A forward analysis: how each op turns its operands' facts into its results' facts.
pub trait Transfer {
    /// The per-value fact.
    type Fact: Lattice;
    /// The facts of `op`'s results, one per result (control-flow ops are handled by [`solve`]).
    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<Self::Fact>) -> Vec<Self::Fact>;
    /// The fact of an `scf.for` induction variable.
    fn induction_var(&self, _f: &Function, _for_op: OpId) -> Self::Fact {
        Self::Fact::bottom()
    }
    /// The fact of loop-carried argument `index` of `for_op` (its initial value joined
    /// with what the body yields), given whether the body changes it.
    fn loop_carried(
        &self,
        _f: &Function,
        _for_op: OpId,
        joined: Self::Fact,
        _updated: bool,
    ) -> Self::Fact {
        joined
    }
    /// The fact of a block argument the solver does not model (combiner arguments).
    fn opaque(&self) -> Self::Fact {
        Self::Fact::bottom()
    }
}

/// The solved facts, indexed by value.
#[derive(Debug, Clone)]
pub struct Facts<F> {
    facts: Vec<F>,
}

impl<F: Lattice> Facts<F> {
    /// The fact of `v`.
    pub fn get(&self, v: Value) -> &F {
        &self.facts[v.index()]
    }

    fn set(&mut self, v: Value, fact: F) -> bool {
        let slot = &mut self.facts[v.index()];
        if *slot != fact {
            *slot = fact;
            true
        } else {
            false
        }
    }
}

/// The most times [`solve`] walks the function before it stops at the facts it has; each
/// walk settles one more level of loop nesting, and the lattices are shallow.
const MAX_ITERATIONS: usize = 6;

/// Solves `t` over `f`.
pub fn solve<T: Transfer>(f: &Function, t: &T) -> Facts<T::Fact> {
    let mut facts = Facts {
        facts: vec![T::Fact::bottom(); f.num_values()],
    };
    let ops = f.walk();
    for _ in 0..MAX_ITERATIONS {
        let mut changed = false;
        for &op in &ops {
            let data = f.op(op);
            match data.kind {
                OpKind::For { .. } => {
                    let Some(body) = f.region_entry(op, 0) else {
                        continue;
                    };
                    let args = f.block(body).args().to_vec();
                    let yielded = terminator_operands(f, body);
                    if let Some(&iv) = args.first() {
                        changed |= facts.set(iv, t.induction_var(f, op));
                    }
                    for (i, &arg) in args.iter().skip(1).enumerate() {
                        let init = data.operands().get(3 + i).map(|&v| facts.get(v).clone());
                        let back = yielded.get(i).map(|&v| facts.get(v).clone());
                        let updated = yielded.get(i).is_some_and(|&y| y != arg);
                        let fact = t.loop_carried(f, op, join_opt(init, back), updated);
                        changed |= facts.set(arg, fact.clone());
                        if let Some(&r) = data.results().get(i) {
                            changed |= facts.set(r, fact);
                        }
                    }
                }
                OpKind::If => {
                    let mut per_result: Vec<Option<T::Fact>> = vec![None; data.results().len()];
                    for region in 0..2 {
                        if let Some(b) = f.region_entry(op, region) {
                            for (i, &v) in terminator_operands(f, b).iter().enumerate() {
                                if i < per_result.len() {
                                    per_result[i] = Some(join_opt(
                                        per_result[i].take(),
                                        Some(facts.get(v).clone()),
                                    ));
                                }
                            }
                        }
                    }
                    for (i, &r) in data.results().iter().enumerate() {
                        let fact = per_result[i].take().unwrap_or_else(|| t.opaque());
                        changed |= facts.set(r, fact);
                    }
                }
                OpKind::While => {
                    let before = f.region_entry(op, 0);
                    let after = f.region_entry(op, 1);
                    if let Some(b) = before {
                        let back = after.map(|a| terminator_operands(f, a)).unwrap_or_default();
                        for (i, &arg) in f.block(b).args().to_vec().iter().enumerate() {
                            let init = data.operands().get(i).map(|&v| facts.get(v).clone());
                            let y = back.get(i).map(|&v| facts.get(v).clone());
                            changed |= facts.set(arg, join_opt(init, y));
                        }
                        let cond = terminator_operands(f, b);
                        let passed: Vec<Value> = cond.iter().skip(1).copied().collect();
                        if let Some(a) = after {
                            for (i, &arg) in f.block(a).args().to_vec().iter().enumerate() {
                                let fact = passed
                                    .get(i)
                                    .map(|&v| facts.get(v).clone())
                                    .unwrap_or_else(|| t.opaque());
                                changed |= facts.set(arg, fact);
                            }
                        }
                        for (i, &r) in data.results().iter().enumerate() {
                            let fact = passed
                                .get(i)
                                .map(|&v| facts.get(v).clone())
                                .unwrap_or_else(|| t.opaque());
                            changed |= facts.set(r, fact);
                        }
                    }
                }
                _ => {
                    for &r in data.regions() {
                        for &b in f.region(r).blocks() {
                            for &arg in f.block(b).args() {
                                changed |= facts.set(arg, t.opaque());
                            }
                        }
                    }
                    let results = t.transfer(f, op, &facts);
                    for (&r, fact) in data.results().iter().zip(results) {
                        changed |= facts.set(r, fact);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    facts
}

fn join_opt<F: Lattice>(a: Option<F>, b: Option<F>) -> F {
    match (a, b) {
        (Some(a), Some(b)) => a.join(&b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => F::bottom(),
    }
}

/// The operands of the op that ends `block`.
pub fn terminator_operands(f: &Function, block: tritonc_ir::BlockId) -> Vec<Value> {
    f.block(block)
        .ops()
        .last()
        .map(|&t| f.op(t).operands().to_vec())
        .unwrap_or_default()
}

/// The op defining `v`, if `v` is an op result.
pub fn def_op(f: &Function, v: Value) -> Option<OpId> {
    match f.value_def(v) {
        ValueDef::OpResult { op, .. } => Some(op),
        ValueDef::BlockArg { .. } => None,
    }
}

/// `v` with splats, broadcasts, dim insertions, reshapes and casts between widths of the
/// same kind looked through: the value a shape op merely re-arranges.
pub fn strip_shape(f: &Function, mut v: Value) -> Value {
    while let Some(op) = def_op(f, v) {
        match f.kind(op) {
            OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Reshape { .. } => {
                v = f.op(op).operands()[0];
            }
            _ => break,
        }
    }
    v
}

/// The constant `v` holds in every lane (through splats and broadcasts), if any, as an
/// `f64` (see [`constant_value`] for the exact value).
pub fn constant_of(f: &Function, v: Value) -> Option<f64> {
    constant_value(f, v).map(num::as_f64)
}

/// The exact constant `v` holds in every lane, through splats, broadcasts and casts
/// (a cast converts the value: `-(2**63)` cast to `f32` is the float `-2^63`).
pub fn constant_value(f: &Function, v: Value) -> Option<ConstValue> {
    let v = strip_shape(f, v);
    let op = def_op(f, v)?;
    match f.kind(op) {
        OpKind::Constant(c) => Some(*c),
        OpKind::Cast { op: cast, .. } => {
            let inner = constant_value(f, f.op(op).operands()[0])?;
            num::cast(*cast, inner, f.value_type(v).dtype())
        }
        _ => None,
    }
}

/// Whether `a` and `b` compute the same value: the same SSA value, or the same pure op over
/// operands that compute the same values (a mask recomputed in a helper is still the mask).
pub fn same_value(f: &Function, a: Value, b: Value) -> bool {
    same_value_depth(f, strip_shape(f, a), strip_shape(f, b), 12)
}

fn same_value_depth(f: &Function, a: Value, b: Value, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let (Some(x), Some(y)) = (def_op(f, a), def_op(f, b)) else {
        return false;
    };
    let (dx, dy) = (f.op(x), f.op(y));
    if dx.kind != dy.kind || dx.operands().len() != dy.operands().len() || !dx.regions().is_empty()
    {
        return false;
    }
    if dx.kind.has_side_effects() || matches!(dx.kind, OpKind::Load { .. }) {
        return false;
    }
    dx.operands()
        .iter()
        .zip(dy.operands())
        .all(|(&p, &q)| same_value_depth(f, strip_shape(f, p), strip_shape(f, q), depth - 1))
}

/// Whether a select/store condition `cond` is false wherever `mask` is false: `cond` is
/// the mask itself or a conjunction (`&`, or `tl.where(c, x, False)`) that includes it.
pub fn implies_mask(f: &Function, cond: Value, mask: Value) -> bool {
    if same_value(f, cond, mask) {
        return true;
    }
    let cond = strip_shape(f, cond);
    match def_op(f, cond).map(|op| (op, f.kind(op))) {
        Some((op, OpKind::Binary(tritonc_ir::BinaryOp::AndI))) => f
            .op(op)
            .operands()
            .iter()
            .any(|&c| implies_mask(f, c, mask)),
        // `tl.where(c, x, False)` is `c & x`.
        Some((op, OpKind::Select)) => {
            let ops = f.op(op).operands();
            constant_of(f, ops[2]) == Some(0.0)
                && (implies_mask(f, ops[0], mask) || implies_mask(f, ops[1], mask))
        }
        _ => false,
    }
}

/// The ops enclosing `op`, innermost first.
pub fn ancestors(f: &Function, op: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut cur = op;
    while let Some(p) = f.parent_op(cur) {
        out.push(p);
        cur = p;
    }
    out
}

/// The kernel argument a pointer value `v` is an offset from: through `tt.addptr` bases,
/// splats, broadcasts and shape ops, loop-carried pointers (their initial value) and
/// `scf.if` results (when both branches agree). `None` for a pointer loaded from memory or
/// built another way.
pub fn pointer_base_arg(f: &Function, v: Value) -> Option<Value> {
    pointer_base_depth(f, v, 32)
}

fn pointer_base_depth(f: &Function, v: Value, depth: u32) -> Option<Value> {
    if depth == 0 {
        return None;
    }
    if f.args().contains(&v) {
        return Some(v);
    }
    match f.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            let parent = f.block_parent_op(block)?;
            match f.kind(parent) {
                // Block argument 0 is the induction variable; argument i + 1 is carried
                // from operand 3 + i.
                OpKind::For { .. } if index > 0 => {
                    let init = *f.op(parent).operands().get(3 + index as usize - 1)?;
                    pointer_base_depth(f, init, depth - 1)
                }
                _ => None,
            }
        }
        ValueDef::OpResult { op, index } => match f.kind(op) {
            OpKind::AddPtr
            | OpKind::Splat
            | OpKind::Broadcast
            | OpKind::ExpandDims { .. }
            | OpKind::Reshape { .. }
            | OpKind::Trans { .. }
            | OpKind::Hint(_) => pointer_base_depth(f, *f.op(op).operands().first()?, depth - 1),
            OpKind::For { .. } => {
                let init = *f.op(op).operands().get(3 + index as usize)?;
                pointer_base_depth(f, init, depth - 1)
            }
            OpKind::If => {
                let mut found = None;
                for region in 0..2 {
                    let b = f.region_entry(op, region)?;
                    let y = *terminator_operands(f, b).get(index as usize)?;
                    let base = pointer_base_depth(f, y, depth - 1)?;
                    if found.is_some_and(|x| x != base) {
                        return None;
                    }
                    found = Some(base);
                }
                found
            }
            _ => None,
        },
    }
}
