//! Block structure of values: along which dims a value varies, which `tt.make_range` ops
//! its per-dim offsets come from, and whether a program id or a loop tiles them.
//!
//! A pointer's dim "can run past the tensor" when its offsets along it come from a range
//! that a program id or a data-dependent loop moves in steps of a block
//! (`pid * BLOCK + arange(BLOCK)`), or from a range the kernel itself compares against a
//! bound somewhere (so the author knows it can be partial). A `%` or `minimum` by a bound
//! clamps it. A mask bounds every dim it varies along.

use tritonc_ir::{BinaryOp, Function, OpId, OpKind, Type};

use super::{Facts, Lattice, Transfer};

/// How a scalar moves offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Tile {
    /// Not derived from a program id or a loop.
    #[default]
    None,
    /// A base offset: a program id times a runtime stride (`row * stride`).
    Base,
    /// Steps in block-sized units: `pid * BLOCK`, a loop variable.
    Tiling,
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
    };
    for f in facts {
        out.tile = out.tile.max(f.tile);
        if f.dims.len() == out_rank {
            for (d, fd) in out.dims.iter_mut().zip(&f.dims) {
                *d = d.join(fd);
            }
        }
    }
    out
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
        };
        let one = match &data.kind {
            OpKind::MakeRange { .. } => ShapeFact {
                dims: vec![DimFact {
                    varies: true,
                    roots: vec![op],
                    tiled: false,
                    clamped: false,
                }],
                tile: Tile::None,
            },
            OpKind::GetProgramId { .. } => ShapeFact {
                dims: Vec::new(),
                tile: Tile::Tiling,
            },
            OpKind::Splat => {
                let tiled = operands.first().is_some_and(|o| o.tile == Tile::Tiling);
                ShapeFact {
                    dims: vec![
                        DimFact {
                            tiled,
                            ..DimFact::default()
                        };
                        out_rank
                    ],
                    tile: Tile::None,
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
                }
            }
            OpKind::Binary(b) => {
                let mut fact = elementwise(&operands, out_rank);
                match b {
                    BinaryOp::MulI if out_rank == 0 => {
                        let by_constant = data
                            .operands()
                            .iter()
                            .any(|&v| super::constant_of(f, v).is_some());
                        if fact.tile == Tile::Tiling && !by_constant {
                            fact.tile = Tile::Base;
                        }
                    }
                    BinaryOp::RemSI | BinaryOp::RemUI | BinaryOp::MinSI | BinaryOp::MinUI
                        if operands.len() == 2
                            && operands[1].dims.iter().all(|d| d.roots.is_empty()) =>
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
            OpKind::CmpI(_)
            | OpKind::CmpF(_)
            | OpKind::Select
            | OpKind::Cast { .. }
            | OpKind::FpToFp { .. }
            | OpKind::AddPtr
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
                    tile: Tile::None,
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
