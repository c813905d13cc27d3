//! Block structure of values: along which dims a value varies, which `tt.make_range` ops
//! its per-dim offsets come from, and whether a program id or a loop tiles them.
//!
//! A pointer's dim "can run past the tensor" when its offsets along it come from a range
//! that a program id or a data-dependent loop moves in steps of a block
//! (`pid * BLOCK + arange(BLOCK)`), or from a range the kernel itself compares against a
//! bound somewhere (so the author knows it can be partial). A `%` or `minimum` by a bound,
//! or a `tl.where(offs < M, offs, 0)`,
//! clamps it. A mask bounds every dim it varies along.
//!
//! Tiling is told from a base offset by what the step is: scalars carry the compile-time
//! value they move in multiples of ([`Extent`]: a number times generic mode's symbolic
//! constexprs), ranges their size. `row * 64 + arange(0, 16)`, `pid * C + j * S` (the range
//! scaled by a stride first), `pid_h * D` added to a 2-D block, and a start loaded from
//! memory move the range without tiling it (`moved`, with the base's step); only a step
//! equal to the range's size for every value of the unknowns tiles it.

use tritonc_ir::{BinaryOp, Function, OpId, OpKind, Type, Value};

use super::{Facts, Lattice, Transfer};

/// How a scalar moves offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Tile {
    /// Not derived from a program id or a loop.
    #[default]
    None,
    /// Loaded from memory (`tl.load(chunk_indices + i)`): a data-dependent start, not a
    /// step over blocks.
    Indexed,
    /// A base offset: a program id times a runtime stride (`row * stride`).
    Base,
    /// Steps in block-sized units: `pid * BLOCK`, a loop variable.
    Tiling,
}

/// A compile-time step or size: `coeff` times the product of symbolic constexprs
/// (generic mode's `BT`; none under a specialization, where every value is a number).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extent {
    /// The numeric factor.
    pub coeff: i128,
    /// The symbolic factors, sorted.
    pub symbols: Vec<String>,
}

impl Extent {
    fn number(n: i128) -> Extent {
        Extent {
            coeff: n,
            symbols: Vec::new(),
        }
    }

    fn times(&self, o: &Extent) -> Extent {
        let mut symbols = self.symbols.clone();
        symbols.extend(o.symbols.iter().cloned());
        symbols.sort();
        Extent {
            coeff: self.coeff * o.coeff,
            symbols,
        }
    }

    /// The largest extent both are multiples of.
    fn gcd(&self, o: &Extent) -> Extent {
        let mut rest = o.symbols.clone();
        let symbols = self
            .symbols
            .iter()
            .filter(|s| match rest.iter().position(|r| r == *s) {
                Some(i) => {
                    rest.remove(i);
                    true
                }
                None => false,
            })
            .cloned()
            .collect();
        Extent {
            coeff: gcd(self.coeff.abs(), o.coeff.abs()),
            symbols,
        }
    }
}

/// What one dim of a block value is made of.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DimFact {
    /// The value varies along this dim.
    pub varies: bool,
    /// The `tt.make_range` ops its offsets along this dim come from.
    pub roots: Vec<OpId>,
    /// A program id or a loop moves the offsets in block steps along this dim.
    pub tiled: bool,
    /// The offsets went through `%` or `minimum` by a bound.
    pub clamped: bool,
    /// The range was multiplied by a factor other than 1 (`j * stride`): a scalar added
    /// afterwards is a base offset, not a step over blocks of this range.
    pub scaled: bool,
    /// A program-id or loop step that is not over blocks of this range (a row base), or a
    /// start loaded from memory, was added: the offsets move, but not in block steps.
    pub moved: bool,
    /// For a moved dim, the step of the base that moved it, when known.
    pub base: Option<Extent>,
    /// For a dim holding only a splatted scalar step (`pid * C`), the constant `C`; for a
    /// range dim, the range's size. Known only when every contribution agrees.
    pub extent: Option<Extent>,
    /// The `scf.for` loops whose index or carried values move the offsets along this dim.
    pub loops: Vec<OpId>,
}

impl DimFact {
    fn join(&self, o: &DimFact) -> DimFact {
        let mut roots = self.roots.clone();
        for r in &o.roots {
            if !roots.contains(r) {
                roots.push(*r);
            }
        }
        let roots_empty = roots.is_empty();
        DimFact {
            varies: self.varies || o.varies,
            tiled: self.tiled || o.tiled,
            scaled: self.scaled || o.scaled,
            moved: self.moved || o.moved,
            base: if self.base == o.base {
                self.base.clone()
            } else {
                self.base.clone().or_else(|| o.base.clone())
            },
            extent: match (&self.extent, &o.extent) {
                (Some(a), Some(b)) if a == b => Some(a.clone()),
                (Some(a), None) | (None, Some(a)) => Some(a.clone()),
                _ => None,
            },
            loops: union(&self.loops, &o.loops),
            clamped: (self.clamped || self.roots.is_empty())
                && (o.clamped || o.roots.is_empty())
                && !roots_empty,
            roots,
        }
    }

    fn opaque() -> DimFact {
        DimFact {
            varies: true,
            ..DimFact::default()
        }
    }
}

/// The shape fact of one value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShapeFact {
    /// One entry per dim (empty for scalars).
    pub dims: Vec<DimFact>,
    /// For scalars: how the value moves offsets.
    pub tile: Tile,
    /// For a tiling scalar: the compile-time value it moves in multiples of (`pid * C`).
    pub step: Option<Extent>,
    /// For scalars: derived from the index of a loop over a runtime size, which walks the
    /// tensor (unlike a program id, which may index heads or rows).
    pub looped: bool,
    /// For scalars: the `scf.for` loops whose index or carried values it derives from.
    pub loops: Vec<OpId>,
}

impl Lattice for ShapeFact {
    fn bottom() -> Self {
        ShapeFact::default()
    }
    fn join(&self, o: &Self) -> Self {
        let n = self.dims.len().max(o.dims.len());
        let dims = (0..n)
            .map(|i| match (self.dims.get(i), o.dims.get(i)) {
                (Some(a), Some(b)) => a.join(b),
                (Some(a), None) | (None, Some(a)) => a.clone(),
                (None, None) => DimFact::default(),
            })
            .collect();
        ShapeFact {
            dims,
            tile: self.tile.max(o.tile),
            step: if self.step == o.step {
                self.step.clone()
            } else {
                None
            },
            looped: self.looped || o.looped,
            loops: union(&self.loops, &o.loops),
        }
    }
}

/// The shape analysis.
pub struct ShapeAnalysis;

fn rank(ty: &Type) -> usize {
    ty.rank()
}

fn elementwise(facts: &[&ShapeFact], out_rank: usize) -> ShapeFact {
    let mut out = ShapeFact {
        dims: vec![DimFact::default(); out_rank],
        tile: Tile::None,
        step: None,
        looped: false,
        loops: Vec::new(),
    };
    for f in facts {
        out.tile = out.tile.max(f.tile);
        out.looped |= f.looped;
        out.loops = union(&out.loops, &f.loops);
        if f.dims.len() == out_rank {
            for (d, fd) in out.dims.iter_mut().zip(&f.dims) {
                *d = d.join(fd);
            }
        }
    }
    out
}

/// A step added to a range already scaled by a stride (`pid * C + j * S`), or a constant
/// step unequal to the range's size, moves the base, not the block: the range's own dim is
/// not tiled by it. `fact` is the elementwise join of
/// the two operands of an add.
fn untile_scaled_ranges(fact: &mut ShapeFact, operands: &[&ShapeFact]) {
    let [a, b] = operands else { return };
    let base_step = |x: &DimFact| x.tiled && x.roots.is_empty();
    // The step is not over blocks of this range: the range is scaled by a stride, or the
    // step is a constant other than the range's size (`row * 64 + arange(0, 16)`).
    let not_its_block = |step: &DimFact, range: &DimFact| {
        !range.roots.is_empty()
            && !range.tiled
            && (range.scaled
                || matches!((&step.extent, &range.extent), (Some(c), Some(r)) if c != r))
    };
    for (i, d) in fact.dims.iter_mut().enumerate() {
        let (Some(da), Some(db)) = (a.dims.get(i), b.dims.get(i)) else {
            continue;
        };
        if (base_step(da) && not_its_block(da, db)) || (base_step(db) && not_its_block(db, da)) {
            d.tiled = false;
            d.moved = true;
            d.base = if base_step(da) {
                da.extent.clone()
            } else {
                db.extent.clone()
            };
        }
    }
}

/// The step of a scalar sum: `x * a + y * b` moves in multiples of `gcd(a, b)`; only the
/// tiling terms count, and one of unknown step makes the sum's unknown.
fn sum_step(operands: &[&ShapeFact]) -> Option<Extent> {
    let mut step: Option<Extent> = None;
    for o in operands.iter().filter(|o| o.tile == Tile::Tiling) {
        let s = o.step.as_ref()?;
        step = Some(match step {
            None => s.clone(),
            Some(g) => g.gcd(s),
        });
    }
    step
}

/// The loops in either list, each once.
fn union(a: &[OpId], b: &[OpId]) -> Vec<OpId> {
    let mut out = a.to_vec();
    for x in b {
        if !out.contains(x) {
            out.push(*x);
        }
    }
    out
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Transfer for ShapeAnalysis {
    type Fact = ShapeFact;

    fn induction_var(&self, f: &Function, for_op: OpId) -> ShapeFact {
        // A loop whose bound is a compile-time constant walks inside one block; one whose
        // bound is a runtime size walks the tensor in block steps.
        let ub = f.op(for_op).operands().get(1).copied();
        let constant_bound = ub.is_some_and(|ub| super::constant_of(f, ub).is_some());
        ShapeFact {
            dims: Vec::new(),
            tile: if constant_bound {
                Tile::None
            } else {
                Tile::Tiling
            },
            step: None,
            looped: !constant_bound,
            loops: vec![for_op],
        }
    }

    fn loop_carried(
        &self,
        f: &Function,
        for_op: OpId,
        joined: ShapeFact,
        updated: bool,
    ) -> ShapeFact {
        // A scalar the body changes on every trip of a loop over a runtime count
        // (`i_t += 1` in `for _ in range(NT)`) walks the tensor like an induction variable.
        let ub = f.op(for_op).operands().get(1).copied();
        let runtime_bound = ub.is_some_and(|ub| super::constant_of(f, ub).is_none());
        if updated && runtime_bound && joined.dims.is_empty() {
            ShapeFact {
                tile: Tile::Tiling,
                step: None,
                looped: true,
                loops: union(&joined.loops, &[for_op]),
                ..joined
            }
        } else if updated {
            // A block the body moves (`offset += BLOCK`): the loop moves its range dims.
            let mut fact = joined;
            fact.loops = union(&fact.loops, &[for_op]);
            for d in &mut fact.dims {
                if !d.roots.is_empty() {
                    d.loops = union(&d.loops, &[for_op]);
                }
            }
            fact
        } else {
            joined
        }
    }

    fn transfer(&self, f: &Function, op: OpId, facts: &Facts<ShapeFact>) -> Vec<ShapeFact> {
        let data = f.op(op);
        let operands: Vec<&ShapeFact> = data.operands().iter().map(|&v| facts.get(v)).collect();
        let results = data.results();
        let out_rank = results.first().map(|&r| rank(f.value_type(r))).unwrap_or(0);
        let opaque = |r: usize| ShapeFact {
            dims: vec![DimFact::opaque(); r],
            tile: Tile::None,
            step: None,
            looped: false,
            loops: Vec::new(),
        };
        let one = match &data.kind {
            OpKind::MakeRange { start, end } => ShapeFact {
                dims: vec![DimFact {
                    varies: true,
                    roots: vec![op],
                    tiled: false,
                    clamped: false,
                    scaled: false,
                    moved: false,
                    base: None,
                    extent: Some(Extent::number(i128::from(*end) - i128::from(*start))),
                    loops: Vec::new(),
                }],
                tile: Tile::None,
                step: None,
                looped: false,
                loops: Vec::new(),
            },
            OpKind::GetProgramId { .. } => ShapeFact {
                dims: Vec::new(),
                tile: Tile::Tiling,
                step: Some(Extent::number(1)),
                looped: false,
                loops: Vec::new(),
            },
            OpKind::Splat => {
                // A 1-D block takes a scalar step as its own. In a 2-D block a program-id
                // offset belongs to no dim (`ptr + pid_h * D + rows[:, None] * s + cols`
                // is a head base; 2-D tiling by program id is built on each 1-D range
                // before `expand_dims`), but a loop over a runtime size walking a 2-D
                // block (`x_ptrs + k * BLOCK_K`) tiles the unscaled dims of its size.
                let tiled = operands
                    .first()
                    .is_some_and(|o| o.tile == Tile::Tiling && (out_rank == 1 || o.looped));
                let indexed =
                    out_rank == 1 && operands.first().is_some_and(|o| o.tile == Tile::Indexed);
                ShapeFact {
                    dims: vec![
                        DimFact {
                            tiled,
                            moved: indexed,
                            extent: operands
                                .first()
                                .and_then(|o| o.step.clone())
                                .filter(|_| tiled),
                            loops: operands
                                .first()
                                .map(|o| o.loops.clone())
                                .unwrap_or_default(),
                            ..DimFact::default()
                        };
                        out_rank
                    ],
                    tile: Tile::None,
                    step: None,
                    looped: false,
                    loops: Vec::new(),
                }
            }
            OpKind::Broadcast => operands[0].clone(),
            OpKind::ExpandDims { axis } => {
                let mut fact = operands[0].clone();
                let axis = (*axis as usize).min(fact.dims.len());
                fact.dims.insert(axis, DimFact::default());
                fact
            }
            OpKind::Trans { order } => {
                let src = operands[0];
                ShapeFact {
                    dims: order
                        .iter()
                        .map(|&o| src.dims.get(o as usize).cloned().unwrap_or_default())
                        .collect(),
                    tile: Tile::None,
                    step: None,
                    looped: false,
                    loops: Vec::new(),
                }
            }
            OpKind::Reshape { .. } | OpKind::Join | OpKind::Split | OpKind::Cat => {
                // Elements move between dims: every dim may hold every root.
                let mut all = DimFact::default();
                for o in &operands {
                    for d in &o.dims {
                        all = all.join(d);
                    }
                }
                all.varies = true;
                ShapeFact {
                    dims: vec![all; out_rank],
                    tile: Tile::None,
                    step: None,
                    looped: false,
                    loops: Vec::new(),
                }
            }
            OpKind::Binary(b) => {
                let mut fact = elementwise(&operands, out_rank);
                match b {
                    // A step added to a range already scaled by a stride (`pid * C + j * S`)
                    // moves the base, not the block: the range's own dim is not tiled by it.
                    BinaryOp::AddI | BinaryOp::SubI if out_rank > 0 => {
                        untile_scaled_ranges(&mut fact, &operands);
                    }
                    BinaryOp::AddI | BinaryOp::SubI => fact.step = sum_step(&operands),
                    BinaryOp::MulI if out_rank > 0 && operands.len() == 2 => {
                        let unit = data
                            .operands()
                            .iter()
                            .any(|&v| super::constant_of(f, v) == Some(1.0));
                        if !unit {
                            for d in &mut fact.dims {
                                if !d.roots.is_empty() {
                                    d.scaled = true;
                                }
                            }
                        }
                    }
                    // `x % C` of a scalar by a compile-time `C` is an offset inside one
                    // `C`-sized span, not a step over the tensor (a runtime divisor, as in
                    // `pid % num_pid_in_group`, still walks it).
                    BinaryOp::RemSI | BinaryOp::RemUI
                        if out_rank == 0
                            && data.operands().get(1).is_some_and(|&v| {
                                super::constant_of(f, v).is_some()
                                    || crate::generic::symbolic_name(f, v).is_some()
                            }) =>
                    {
                        fact.tile = Tile::None;
                    }
                    BinaryOp::MulI if out_rank == 0 => {
                        // A constexpr factor, numeric or symbolic (generic mode's `BLOCK`):
                        // `pid * BLOCK` tiles whatever `BLOCK` turns out to be.
                        let factor = data.operands().iter().find_map(|&v| {
                            if let Some(c) = super::constant_of(f, v) {
                                (c.fract() == 0.0).then(|| Extent::number(c as i128))
                            } else {
                                crate::generic::symbolic_name(f, v).map(|name| Extent {
                                    coeff: 1,
                                    symbols: vec![name.to_string()],
                                })
                            }
                        });
                        if fact.tile == Tile::Tiling && factor.is_none() {
                            fact.tile = Tile::Base;
                        }
                        // `x * C` moves in multiples of `C` whatever `x` is (`pid`, or a row
                        // `i_t * 16 + i`).
                        fact.step = match factor {
                            Some(c) if fact.tile == Tile::Tiling => {
                                let other = operands.iter().find_map(|o| o.step.clone());
                                Some(other.map_or(c.clone(), |s| s.times(&c)))
                            }
                            _ => None,
                        };
                    }
                    BinaryOp::MulI if out_rank > 0 && operands.len() == 2 => {
                        let unit = data
                            .operands()
                            .iter()
                            .any(|&v| super::constant_of(f, v) == Some(1.0));
                        if !unit {
                            for d in &mut fact.dims {
                                if !d.roots.is_empty() {
                                    d.scaled = true;
                                }
                            }
                        }
                    }
                    // `offs % M`, and `tl.minimum` by a bound on either side
                    // (`tl.minimum(W - 1, x)`).
                    BinaryOp::RemSI | BinaryOp::RemUI | BinaryOp::MinSI | BinaryOp::MinUI
                        if operands.len() == 2
                            && (operands[1].dims.iter().all(|d| d.roots.is_empty())
                                || (matches!(b, BinaryOp::MinSI | BinaryOp::MinUI)
                                    && operands[0].dims.iter().all(|d| d.roots.is_empty()))) =>
                    {
                        for d in &mut fact.dims {
                            if !d.roots.is_empty() {
                                d.clamped = true;
                            }
                        }
                    }
                    _ => {}
                }
                fact
            }
            OpKind::AddPtr => {
                let mut fact = elementwise(&operands, out_rank);
                if out_rank == 0 {
                    fact.step = sum_step(&operands);
                } else {
                    untile_scaled_ranges(&mut fact, &operands);
                }
                fact
            }
            OpKind::Cast { .. } if out_rank == 0 => {
                let mut fact = elementwise(&operands, out_rank);
                fact.step = operands.first().and_then(|o| o.step.clone());
                fact
            }
            // `tl.where(offs < M, offs, 0)` (Triton's matmul tutorials clamp rows so) keeps
            // every lane inside `[0, M)`: the offsets are clamped like `offs % M`.
            OpKind::Select if out_rank > 0 && where_clamps(f, data.operands(), &operands) => {
                let mut fact = elementwise(&operands, out_rank);
                for d in &mut fact.dims {
                    if !d.roots.is_empty() {
                        d.clamped = true;
                    }
                }
                fact
            }
            OpKind::CmpI(_)
            | OpKind::CmpF(_)
            | OpKind::Select
            | OpKind::Cast { .. }
            | OpKind::FpToFp { .. }
            | OpKind::Math(_)
            | OpKind::Fma
            | OpKind::PreciseSqrt
            | OpKind::PreciseDivF
            | OpKind::MulHiUI
            | OpKind::ClampF { .. }
            | OpKind::IntToPtr
            | OpKind::PtrToInt
            | OpKind::Hint(_)
            | OpKind::ExternElementwise { .. } => elementwise(&operands, out_rank),
            OpKind::Load { .. } | OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. } => {
                let mut fact = ShapeFact {
                    dims: operands
                        .first()
                        .map(|p| {
                            p.dims
                                .iter()
                                .map(|d| DimFact {
                                    varies: d.varies || !d.roots.is_empty(),
                                    ..DimFact::default()
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    tile: if out_rank == 0 {
                        Tile::Indexed
                    } else {
                        Tile::None
                    },
                    step: None,
                    looped: false,
                    loops: Vec::new(),
                };
                fact.dims.resize(out_rank, DimFact::opaque());
                fact
            }
            OpKind::Reduce { axis } => {
                let mut fact = operands.first().map(|o| (*o).clone()).unwrap_or_default();
                if (*axis as usize) < fact.dims.len() {
                    fact.dims.remove(*axis as usize);
                }
                for d in &mut fact.dims {
                    d.roots.clear();
                    d.tiled = false;
                }
                fact.dims.resize(out_rank, DimFact::opaque());
                fact.tile = Tile::None;
                return vec![fact; results.len()];
            }
            OpKind::Dot { .. } => {
                let a = operands
                    .first()
                    .and_then(|o| o.dims.first())
                    .map(|d| d.varies);
                let b = operands
                    .get(1)
                    .and_then(|o| o.dims.get(1))
                    .map(|d| d.varies);
                let mut fact = opaque(out_rank);
                if out_rank == 2 {
                    fact.dims[0].varies = a.unwrap_or(true)
                        || operands
                            .get(2)
                            .is_some_and(|c| c.dims.first().is_some_and(|d| d.varies));
                    fact.dims[1].varies = b.unwrap_or(true)
                        || operands
                            .get(2)
                            .is_some_and(|c| c.dims.get(1).is_some_and(|d| d.varies));
                }
                fact
            }
            OpKind::Constant(_) => ShapeFact {
                dims: vec![DimFact::default(); out_rank],
                tile: Tile::None,
                step: None,
                looped: false,
                loops: Vec::new(),
            },
            _ => opaque(out_rank),
        };
        results
            .iter()
            .map(|&r| {
                let mut fact = one.clone();
                fact.dims.resize(rank(f.value_type(r)), DimFact::opaque());
                fact
            })
            .collect()
    }
}

impl ShapeFact {
    /// The dims along which this value varies, as indices.
    pub fn varying_dims(&self) -> Vec<usize> {
        (0..self.dims.len())
            .filter(|&d| self.dims[d].varies || !self.dims[d].roots.is_empty())
            .collect()
    }
}

/// Whether the select `where(cond, a, b)` keeps range offsets in bounds: one side is the
/// offsets, the other holds no range (a constant or scalar such as `0`), and `cond` says
/// the offsets are below a bound exactly where the select takes them (`offs < M` for the
/// true side, `offs >= M` for the false side), alone or in a conjunction.
fn where_clamps(f: &Function, values: &[Value], facts: &[&ShapeFact]) -> bool {
    let (&[cond, on_true, on_false], [_, t, e]) = (values, facts) else {
        return false;
    };
    let has_roots = |x: &ShapeFact| x.dims.iter().any(|d| !d.roots.is_empty());
    if has_roots(t) && !has_roots(e) {
        below_bound(f, cond, on_true, true, 8)
    } else if has_roots(e) && !has_roots(t) {
        below_bound(f, cond, on_false, false, 8)
    } else {
        false
    }
}

/// Whether `cond` being `holds` implies `offs` is below a bound: `offs < M` / `M > offs`
/// (or `<=`), a conjunction including one when `holds`; the negations when not.
pub(crate) fn below_bound(f: &Function, cond: Value, offs: Value, holds: bool, depth: u32) -> bool {
    use tritonc_ir::CmpIPredicate::*;
    let cond = super::strip_shape(f, cond);
    let Some(op) = super::def_op(f, cond) else {
        return false;
    };
    let ops = f.op(op).operands();
    match f.kind(op) {
        OpKind::Binary(BinaryOp::AndI) if holds && depth > 0 => ops
            .iter()
            .any(|&c| below_bound(f, c, offs, holds, depth - 1)),
        OpKind::Binary(BinaryOp::OrI) if !holds && depth > 0 => ops
            .iter()
            .any(|&c| below_bound(f, c, offs, holds, depth - 1)),
        OpKind::CmpI(p) if ops.len() == 2 => {
            let lhs = super::same_value(f, ops[0], offs);
            let rhs = super::same_value(f, ops[1], offs);
            match (p, holds) {
                (Slt | Sle | Ult | Ule, true) | (Sge | Sgt | Uge | Ugt, false) => lhs,
                (Sgt | Sge | Ugt | Uge, true) | (Sle | Slt | Ule | Ult, false) => rhs,
                _ => false,
            }
        }
        _ => false,
    }
}
