//! The order in which a reduction combines elements along its axis.
//!
//! fp sums are not associative, so an interpreter that must agree bit for bit with the GPU
//! replays the GPU's combine tree: within each thread in register order, then a butterfly
//! across the lanes of a warp, then across warps. A [`ReductionOrder`] is that tree as an
//! explicit list of `acc[dst] = combine(acc[dst], acc[src])` steps over the axis
//! positions; the result ends in the tree's leftmost leaf. By default it comes from the
//! back end itself: `tritonc_ttgir::assign_layouts` gives the reduce operand's layout and
//! `ReductionSchedule::tree` the combine tree ([`ReductionOrderSource::Backend`]), so the
//! interpreter and the GPU combine in the same order by construction.

use std::collections::HashMap;
use std::sync::Arc;

use tritonc_ir::{Function, OpId, OpKind};
use tritonc_ttgir::{default_reduction_schedule, CombineTree, ReductionSchedule};

/// How the elements along one axis are spread over a program's threads: a blocked
/// layout's `size_per_thread`, `threads_per_warp` and `warps_per_cta` for that dim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AxisDistribution {
    /// Contiguous elements each thread holds per repetition.
    pub size_per_thread: usize,
    /// Lanes along the axis.
    pub threads_per_warp: usize,
    /// Warps along the axis.
    pub warps_per_cta: usize,
}

/// A combine tree over the positions of one axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReductionOrder {
    /// The axis length.
    pub len: usize,
    /// `(dst, src)`: `acc[dst] = combine(acc[dst], acc[src])`, in order.
    pub steps: Vec<(u32, u32)>,
    /// The position that holds the result at the end.
    pub root: u32,
}

impl ReductionOrder {
    /// A left fold: `((x0 ∘ x1) ∘ x2) ∘ …` (Triton's own interpreter order).
    pub fn sequential(len: usize) -> Self {
        ReductionOrder {
            len,
            steps: (1..len as u32).map(|i| (0, i)).collect(),
            root: 0,
        }
    }

    /// The steps of a combine tree (each position a leaf exactly once): children first,
    /// every inner node combining into its leftmost leaf's position.
    pub fn from_tree(len: usize, tree: &CombineTree) -> Self {
        fn go(t: &CombineTree, steps: &mut Vec<(u32, u32)>) -> u32 {
            match t {
                CombineTree::Leaf(k) => *k as u32,
                CombineTree::Combine(l, r) => {
                    let a = go(l, steps);
                    let b = go(r, steps);
                    steps.push((a, b));
                    a
                }
            }
        }
        let mut steps = Vec::with_capacity(len.saturating_sub(1));
        let root = go(tree, &mut steps);
        ReductionOrder { len, steps, root }
    }

    /// The order of a back-end reduction schedule.
    pub fn from_schedule(s: &ReductionSchedule) -> Self {
        Self::from_tree(s.len() as usize, &s.tree())
    }

    /// Whether every position is combined exactly once into a root that survives.
    pub fn is_complete(&self) -> bool {
        let mut alive = vec![true; self.len];
        for &(d, s) in &self.steps {
            let (d, s) = (d as usize, s as usize);
            if d >= self.len || s >= self.len || !alive[d] || !alive[s] || d == s {
                return false;
            }
            alive[s] = false;
        }
        self.steps.len() == self.len.saturating_sub(1)
            && (self.len == 0 || alive[self.root as usize])
    }

    /// The GPU's order for elements distributed as `dist`: each thread folds its
    /// elements in register order (repetitions outer, `size_per_thread` inner), then lanes
    /// combine in a butterfly of halving strides, then warps likewise. Lanes and warps
    /// that would only hold duplicates (the axis is shorter than the layout) take no part.
    pub fn blocked(len: usize, dist: AxisDistribution) -> Self {
        if len <= 1 {
            return ReductionOrder {
                len,
                steps: Vec::new(),
                root: 0,
            };
        }
        let spt = dist.size_per_thread.clamp(1, len);
        let lanes = dist.threads_per_warp.max(1).min(len.div_ceil(spt));
        let warps = dist.warps_per_cta.max(1).min(len.div_ceil(spt * lanes));
        let tile = spt * lanes * warps;
        let reps = len.div_ceil(tile);
        let slot = |w: usize, l: usize| w * spt * lanes + l * spt;
        let mut steps = Vec::with_capacity(len - 1);
        for w in 0..warps {
            for l in 0..lanes {
                let first = slot(w, l);
                for rep in 0..reps {
                    for r in 0..spt {
                        let idx = rep * tile + first + r;
                        if idx != first && idx < len {
                            steps.push((first as u32, idx as u32));
                        }
                    }
                }
            }
        }
        let mut off = lanes.next_power_of_two() / 2;
        while off >= 1 {
            for w in 0..warps {
                for l in 0..off {
                    if l + off < lanes && slot(w, l + off) < len {
                        steps.push((slot(w, l) as u32, slot(w, l + off) as u32));
                    }
                }
            }
            off /= 2;
        }
        let mut off = warps.next_power_of_two() / 2;
        while off >= 1 {
            for w in 0..off {
                if w + off < warps && slot(w + off, 0) < len {
                    steps.push((slot(w, 0) as u32, slot(w + off, 0) as u32));
                }
            }
            off /= 2;
        }
        ReductionOrder {
            len,
            steps,
            root: 0,
        }
    }
}

/// Decides the order of each `tt.reduce`: given the function, the op, the operand shape
/// and the axis, returns the order along that axis.
pub type ReductionOrderFn =
    dyn Fn(&Function, OpId, &[usize], usize) -> ReductionOrder + Send + Sync;

/// Where reduction orders come from.
#[derive(Clone, Default)]
pub enum ReductionOrderSource {
    /// The back end's layout assignment and reduction schedule (Triton's default layout
    /// where the assignment does not cover the function yet).
    #[default]
    Backend,
    /// The back end's layout assignment and reduction schedule for a given target: on
    /// AMD's wave64 targets the lane butterfly has a sixth step (lane mask 32), so a
    /// 16-bit sum rounds differently than on NVIDIA's 32 lanes. Scans as `Backend`.
    BackendFor(tritonc_target::Target),
    /// Upstream Triton 3.6's GPU lowering: the same reduction trees as `Backend`; scans in
    /// ScanOpToLLVM's layout-dependent order ([`crate::scan_order`]), for comparisons with
    /// kernels compiled by Triton itself.
    Triton,
    /// A left fold (Triton's `TRITON_INTERPRET=1` order).
    Sequential,
    /// A callback.
    Custom(Arc<ReductionOrderFn>),
}

impl std::fmt::Debug for ReductionOrderSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReductionOrderSource::Backend => f.write_str("Backend"),
            ReductionOrderSource::BackendFor(t) => write!(f, "BackendFor({})", t.name()),
            ReductionOrderSource::Triton => f.write_str("Triton"),
            ReductionOrderSource::Sequential => f.write_str("Sequential"),
            ReductionOrderSource::Custom(_) => f.write_str("Custom(..)"),
        }
    }
}

/// The compute capability whose layouts the back-end orders follow: every NVIDIA target
/// tritonc compiles for (sm_80 and later) assigns the same layouts, tensor-core
/// accumulators (`#ttg.nvidia_mma`) included, so a reduction of a dot's result (attention's
/// row max and sum) is replayed in the order the GPU combines it.
pub const BACKEND_CAPABILITY: u32 = 90;

/// The back end's layout assignment of `func` on `num_warps` warps.
pub(crate) fn backend_layouts(
    func: &Function,
    num_warps: u32,
) -> Option<tritonc_ttgir::LayoutAssignment> {
    backend_layouts_for(func, num_warps, tritonc_target::Target::nvidia(BACKEND_CAPABILITY))
}

/// The back end's layout assignment of `func` on `num_warps` warps of `target`.
pub(crate) fn backend_layouts_for(
    func: &Function,
    num_warps: u32,
    target: tritonc_target::Target,
) -> Option<tritonc_ttgir::LayoutAssignment> {
    let options = tritonc_ttgir::GpuOptions::for_target(num_warps, target);
    tritonc_ttgir::assign_layouts_for(func, &options).ok()
}

impl ReductionOrderSource {
    /// The order of every `tt.reduce` in `func`, computed once per launch.
    pub fn orders_for(&self, func: &Function, num_warps: u32) -> HashMap<OpId, ReductionOrder> {
        let reduces: Vec<(OpId, Vec<usize>, usize)> = func
            .walk()
            .into_iter()
            .filter_map(|op| {
                let OpKind::Reduce { axis } = func.kind(op) else {
                    return None;
                };
                let input = *func.op(op).operands().first()?;
                let shape = crate::data::shape_of(func.value_type(input))?;
                Some((op, shape, *axis as usize))
            })
            .collect();
        let assignment = match self {
            ReductionOrderSource::Backend | ReductionOrderSource::Triton if !reduces.is_empty() => {
                crate::order::backend_layouts(func, num_warps)
            }
            ReductionOrderSource::BackendFor(target) if !reduces.is_empty() => {
                crate::order::backend_layouts_for(func, num_warps, *target)
            }
            _ => None,
        };
        let mut out = HashMap::new();
        for (op, shape, axis) in reduces {
            let len = shape[axis];
            let order = match self {
                ReductionOrderSource::Sequential => ReductionOrder::sequential(len),
                ReductionOrderSource::Custom(f) => f(func, op, &shape, axis),
                ReductionOrderSource::Backend
                | ReductionOrderSource::Triton
                | ReductionOrderSource::BackendFor(_) => {
                    let sched = assignment
                        .as_ref()
                        .and_then(|a| a.reduction_schedule(func, op).ok())
                        .or_else(|| {
                            let dims: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
                            let dtype = func
                                .value_type(func.op(op).operands()[0])
                                .dtype()
                                .unwrap_or(tritonc_ir::DType::F32);
                            default_reduction_schedule(&dims, axis, dtype, num_warps).ok()
                        });
                    sched
                        .map(|s| ReductionOrder::from_schedule(&s))
                        .filter(|o| o.len == len && o.is_complete())
                        .unwrap_or_else(|| ReductionOrder::sequential(len))
                }
            };
            out.insert(op, order);
        }
        out
    }
}

/// The combine orders of one launch: one per `tt.reduce` and one per `tt.scan`.
#[derive(Debug, Clone, Default)]
pub struct CombineOrders {
    /// Reductions.
    pub reduce: HashMap<OpId, ReductionOrder>,
    /// Scans.
    pub scan: HashMap<OpId, crate::scan_order::ScanOrder>,
}

impl CombineOrders {
    /// Every order of `func`, from `source`.
    pub fn for_function(source: &ReductionOrderSource, func: &Function, num_warps: u32) -> Self {
        CombineOrders {
            reduce: source.orders_for(func, num_warps),
            scan: crate::scan_order::scan_orders_for(source, func, num_warps),
        }
    }
}

/// Folds axis-major data (`[len][rows]`) in place along `order`; row `order.root` holds
/// the result.
pub fn fold_in_place<T: Copy>(
    acc: &mut [T],
    rows: usize,
    order: &ReductionOrder,
    f: impl Fn(T, T) -> T,
) {
    if rows == 1 {
        for &(d, s) in &order.steps {
            acc[d as usize] = f(acc[d as usize], acc[s as usize]);
        }
        return;
    }
    for &(d, s) in &order.steps {
        let (d, s) = (d as usize * rows, s as usize * rows);
        for r in 0..rows {
            acc[d + r] = f(acc[d + r], acc[s + r]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates an order symbolically as a bracketed expression.
    fn tree(order: &ReductionOrder) -> String {
        let mut acc: Vec<String> = (0..order.len).map(|i| i.to_string()).collect();
        for &(d, s) in &order.steps {
            acc[d as usize] = format!("({}+{})", acc[d as usize], acc[s as usize]);
        }
        acc[order.root as usize].clone()
    }

    #[test]
    fn every_order_combines_each_element_once() {
        for len in [1, 2, 3, 7, 8, 64, 100, 1024, 8192] {
            for dist in [
                AxisDistribution {
                    size_per_thread: 1,
                    threads_per_warp: 32,
                    warps_per_cta: 4,
                },
                AxisDistribution {
                    size_per_thread: 8,
                    threads_per_warp: 32,
                    warps_per_cta: 8,
                },
                AxisDistribution {
                    size_per_thread: 4,
                    threads_per_warp: 8,
                    warps_per_cta: 1,
                },
            ] {
                let o = ReductionOrder::blocked(len, dist);
                let mut count = vec![0u32; len];
                let mut alive = vec![true; len];
                for &(d, s) in &o.steps {
                    assert!(alive[d as usize] && alive[s as usize], "{len} {dist:?}");
                    alive[s as usize] = false;
                    count[d as usize] += 1;
                }
                assert_eq!(o.steps.len(), len.saturating_sub(1), "{len} {dist:?}");
                assert!(alive[0]);
            }
        }
    }

    #[test]
    fn blocked_order_is_thread_then_lane_then_warp() {
        // 8 elements, 2 per thread, 2 lanes, 2 warps: threads own {0,1} {2,3} {4,5} {6,7}.
        let o = ReductionOrder::blocked(
            8,
            AxisDistribution {
                size_per_thread: 2,
                threads_per_warp: 2,
                warps_per_cta: 2,
            },
        );
        assert_eq!(tree(&o), "(((0+1)+(2+3))+((4+5)+(6+7)))");
        // 16 elements over 4 lanes of one warp, one per thread: repetitions fold first.
        let o = ReductionOrder::blocked(
            16,
            AxisDistribution {
                size_per_thread: 1,
                threads_per_warp: 4,
                warps_per_cta: 1,
            },
        );
        assert_eq!(
            tree(&o),
            "(((((0+4)+8)+12)+(((2+6)+10)+14))+((((1+5)+9)+13)+(((3+7)+11)+15)))"
        );
        assert_eq!(tree(&ReductionOrder::sequential(3)), "((0+1)+2)");
    }

    #[test]
    fn backend_default_schedule_matches_an_independent_blocked_order() {
        // Triton's default layout for a 1-D block: one element per thread, 32 lanes,
        // then warps. The back end's schedule must be the tree derived independently here.
        for (len, warps) in [(8192usize, 4u32), (1024, 8), (64, 4), (16, 1), (4096, 2)] {
            let s = default_reduction_schedule(&[len as u64], 0, tritonc_ir::DType::F32, warps)
                .unwrap();
            let ours = ReductionOrder::blocked(
                len,
                AxisDistribution {
                    size_per_thread: 1,
                    threads_per_warp: 32,
                    warps_per_cta: warps as usize,
                },
            );
            let theirs = ReductionOrder::from_schedule(&s);
            assert!(theirs.is_complete(), "{len} {warps}");
            assert_eq!(tree(&theirs), tree(&ours), "{len} {warps}");
        }
    }
}
