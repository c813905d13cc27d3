//! Distributed layouts: which thread of a CTA holds which element of a block. They are
//! the encodings of the GPU IR's tensor types (`tensor<128xf32, #ttg.blocked<…>>`).
//!
//! A [`Layout`] is a [`BlockedLayout`] (Triton's `#ttg.blocked`), a [`SliceLayout`]
//! (`#ttg.slice`, the layout of a reduction result), an [`MmaLayout`](crate::MmaLayout)
//! (`#ttg.nvidia_mma`, a tensor-core accumulator) or an [`MfmaLayout`](crate::MfmaLayout)
//! (`#ttg.amd_mfma`, an AMD matrix-core accumulator). For a concrete
//! power-of-two shape every layout becomes a [`LinearLayout`]: a map from the bits of
//! (register, lane, warp) to element coordinates, where each input bit contributes one
//! basis vector and the coordinate is the XOR of the bases of the set bits. That is
//! the form codegen and the reduction schedule work with.
//!
//! Conventions (as in Triton's linear layouts):
//! - register bits come first in the order `order[0]`, `order[1]`, … of the dims, one bit
//!   per doubling of `size_per_thread`; then come the *repetition* bits, added when the
//!   layout's tile is smaller than the shape, again in `order`;
//! - lane and warp bits follow `order` the same way;
//! - when the tile is larger than the shape, register bits that fall outside the shape
//!   are dropped (fewer registers) while lane and warp bits become zero (those threads
//!   hold replicas).

use std::fmt;

/// Threads per warp on every NVIDIA GPU tritonc targets (AMD's CDNA GPUs have 64: a
/// layout's own warp size is the product of its `threads_per_warp`).
pub const WARP_SIZE: u32 = 32;

/// The named input dimensions of a linear layout (Triton's `register`, `lane`, `warp`,
/// `block`); memory layouts have one, `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InDim {
    /// A register of one thread.
    Register,
    /// A lane of a warp (32 on NVIDIA, 64 on AMD's wave64).
    Lane,
    /// A warp of a CTA.
    Warp,
    /// A CTA of a cluster (always one CTA today: no bases).
    Block,
    /// An element offset in a shared-memory buffer.
    Offset,
}

impl InDim {
    /// The name Triton's linear layouts use.
    pub fn name(self) -> &'static str {
        match self {
            InDim::Register => "register",
            InDim::Lane => "lane",
            InDim::Warp => "warp",
            InDim::Block => "block",
            InDim::Offset => "offset",
        }
    }
}

/// Triton's `#ttg.blocked` layout: each thread holds `size_per_thread` contiguous
/// elements per dim; lanes, then warps, tile the block; `order` lists dims fastest first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockedLayout {
    /// Elements one thread holds contiguously along each dim.
    pub size_per_thread: Vec<u32>,
    /// Lanes of a warp along each dim (product 32).
    pub threads_per_warp: Vec<u32>,
    /// Warps of the CTA along each dim (product `num_warps`).
    pub warps_per_cta: Vec<u32>,
    /// Dims from fastest-varying to slowest.
    pub order: Vec<u32>,
}

/// Triton's `#ttg.slice`: the parent layout with dim `dim` removed (a reduction result).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SliceLayout {
    /// The removed dim of the parent.
    pub dim: u32,
    /// The parent layout.
    pub parent: Box<Layout>,
}

/// A distributed layout of a block value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Layout {
    /// A blocked layout.
    Blocked(BlockedLayout),
    /// A slice of another layout.
    Slice(SliceLayout),
    /// The `mma.sync` accumulator layout (`#ttg.nvidia_mma`).
    Mma(crate::mma_layout::MmaLayout),
    /// The AMD matrix-core accumulator layout (`#ttg.amd_mfma`).
    AmdMfma(crate::mfma_layout::MfmaLayout),
}

/// One register of one thread: the inputs of a layout function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ThreadRegister {
    /// Warp index in the CTA.
    pub warp: u32,
    /// Lane index in the warp.
    pub lane: u32,
    /// Register index in the thread.
    pub register: u32,
}

/// Why a layout cannot be applied to a shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutError {
    /// The layout's rank differs from the shape's.
    RankMismatch {
        /// The layout's rank.
        layout: usize,
        /// The shape's rank.
        shape: usize,
    },
    /// A dim is not a power of two (every Triton block dim is).
    NotPowerOfTwo(u64),
    /// A layout parameter is not a power of two or the products are wrong.
    Malformed(String),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::RankMismatch { layout, shape } => {
                write!(f, "a rank-{layout} layout cannot hold a rank-{shape} block")
            }
            LayoutError::NotPowerOfTwo(d) => write!(f, "block dim {d} is not a power of two"),
            LayoutError::Malformed(why) => write!(f, "malformed layout: {why}"),
        }
    }
}

impl std::error::Error for LayoutError {}

impl BlockedLayout {
    /// Triton's blocked layout for `shape` with the given `size_per_thread` and `order`:
    /// lanes and warps fill the dims in `order`, each dim taking as many threads as it has
    /// `size_per_thread` chunks, the slowest dim taking whatever is left.
    pub fn for_shape(
        shape: &[u64],
        size_per_thread: Vec<u32>,
        order: Vec<u32>,
        num_warps: u32,
    ) -> Self {
        Self::for_shape_in_warps_of(shape, size_per_thread, order, num_warps, WARP_SIZE)
    }

    /// [`Self::for_shape`] for warps of `warp_size` lanes (64 on AMD's wave64 targets).
    pub fn for_shape_in_warps_of(
        shape: &[u64],
        size_per_thread: Vec<u32>,
        order: Vec<u32>,
        num_warps: u32,
        warp_size: u32,
    ) -> Self {
        let rank = shape.len();
        let mut threads_per_warp = vec![1u32; rank];
        let mut warps_per_cta = vec![1u32; rank];
        let mut remaining_lanes = warp_size;
        let mut remaining_threads = num_warps * warp_size;
        let mut remaining_warps = num_warps;
        let mut prev_lanes = 1;
        let mut prev_warps = 1;
        for d in 0..rank.saturating_sub(1) {
            let i = order[d] as usize;
            let chunks = (shape[i] / u64::from(size_per_thread[i]).max(1)).max(1);
            let threads = u64::from(remaining_threads).clamp(1, chunks) as u32;
            threads_per_warp[i] = threads.clamp(1, remaining_lanes);
            warps_per_cta[i] = (threads / threads_per_warp[i]).clamp(1, remaining_warps);
            remaining_warps /= warps_per_cta[i];
            remaining_lanes /= threads_per_warp[i];
            remaining_threads /= threads;
            prev_lanes *= threads_per_warp[i];
            prev_warps *= warps_per_cta[i];
        }
        if rank > 0 {
            let last = order[rank - 1] as usize;
            threads_per_warp[last] = warp_size / prev_lanes;
            warps_per_cta[last] = (num_warps / prev_warps).max(1);
        }
        BlockedLayout {
            size_per_thread,
            threads_per_warp,
            warps_per_cta,
            order,
        }
    }

    /// Threads per warp this layout is made for (the product of `threads_per_warp`).
    pub fn warp_size(&self) -> u32 {
        self.threads_per_warp.iter().product()
    }

    /// Triton's default layout (`convert_to_ttgpuir`): one element per thread, the last
    /// dim fastest.
    pub fn default_for(shape: &[u64], num_warps: u32) -> Self {
        Self::default_in_warps_of(shape, num_warps, WARP_SIZE)
    }

    /// [`Self::default_for`] for warps of `warp_size` lanes.
    pub fn default_in_warps_of(shape: &[u64], num_warps: u32, warp_size: u32) -> Self {
        let rank = shape.len();
        let order = (0..rank as u32).rev().collect();
        Self::for_shape_in_warps_of(shape, vec![1; rank], order, num_warps, warp_size)
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.size_per_thread.len()
    }

    /// Warps of the CTA (the product of `warps_per_cta`).
    pub fn num_warps(&self) -> u32 {
        self.warps_per_cta.iter().product()
    }

    fn check(&self) -> Result<(), LayoutError> {
        let rank = self.rank();
        let lists = [&self.threads_per_warp, &self.warps_per_cta, &self.order];
        if lists.iter().any(|l| l.len() != rank) {
            return Err(LayoutError::Malformed(
                "per-dim lists differ in length".into(),
            ));
        }
        let all = self
            .size_per_thread
            .iter()
            .chain(&self.threads_per_warp)
            .chain(&self.warps_per_cta);
        if all.clone().any(|&x| x == 0 || !x.is_power_of_two()) {
            return Err(LayoutError::Malformed("sizes must be powers of two".into()));
        }
        if !matches!(self.warp_size(), 32 | 64) {
            return Err(LayoutError::Malformed(
                "threads_per_warp must multiply to a warp size (32 or 64)".into(),
            ));
        }
        let mut seen = self.order.clone();
        seen.sort_unstable();
        if seen != (0..rank as u32).collect::<Vec<_>>() {
            return Err(LayoutError::Malformed("order must be a permutation".into()));
        }
        Ok(())
    }

    /// The linear form of this layout on `shape`.
    pub fn to_linear(&self, shape: &[u64]) -> Result<LinearLayout, LayoutError> {
        self.check()?;
        check_shape(self.rank(), shape)?;
        let rank = self.rank();
        let unit = |d: usize, v: u64| {
            let mut b = vec![0u64; rank];
            b[d] = v;
            b
        };
        let mut registers = Vec::new();
        let mut lanes = Vec::new();
        let mut warps = Vec::new();
        // Tile extent covered so far per dim.
        let mut extent = vec![1u64; rank];
        let push = |list: &mut Vec<Vec<u64>>, d: usize, count: u32, extent: &mut Vec<u64>| {
            for _ in 0..count.trailing_zeros() {
                list.push(unit(d, extent[d]));
                extent[d] *= 2;
            }
        };
        for &d in &self.order {
            push(
                &mut registers,
                d as usize,
                self.size_per_thread[d as usize],
                &mut extent,
            );
        }
        for &d in &self.order {
            push(
                &mut lanes,
                d as usize,
                self.threads_per_warp[d as usize],
                &mut extent,
            );
        }
        for &d in &self.order {
            push(
                &mut warps,
                d as usize,
                self.warps_per_cta[d as usize],
                &mut extent,
            );
        }
        // Repetitions: more registers while the tile is smaller than the shape.
        for &d in &self.order {
            let d = d as usize;
            while extent[d] < shape[d] {
                registers.push(unit(d, extent[d]));
                extent[d] *= 2;
            }
        }
        Ok(LinearLayout::clamped(shape, registers, lanes, warps))
    }
}

fn check_shape(rank: usize, shape: &[u64]) -> Result<(), LayoutError> {
    if shape.len() != rank {
        return Err(LayoutError::RankMismatch {
            layout: rank,
            shape: shape.len(),
        });
    }
    match shape.iter().find(|d| !d.is_power_of_two()) {
        Some(&d) => Err(LayoutError::NotPowerOfTwo(d)),
        None => Ok(()),
    }
}

impl Layout {
    /// The rank of the blocks this layout distributes.
    pub fn rank(&self) -> usize {
        match self {
            Layout::Blocked(b) => b.rank(),
            Layout::Slice(s) => s.parent.rank().saturating_sub(1),
            Layout::Mma(m) => m.rank(),
            Layout::AmdMfma(m) => m.rank(),
        }
    }

    /// Warps of the CTA.
    pub fn num_warps(&self) -> u32 {
        match self {
            Layout::Blocked(b) => b.num_warps(),
            Layout::Slice(s) => s.parent.num_warps(),
            Layout::Mma(m) => m.num_warps(),
            Layout::AmdMfma(m) => m.num_warps(),
        }
    }

    /// The slice of this layout along `dim` (the layout of a reduction over `dim`).
    pub fn slice(&self, dim: u32) -> Layout {
        Layout::Slice(SliceLayout {
            dim,
            parent: Box::new(self.clone()),
        })
    }

    /// The linear form of this layout on `shape`.
    pub fn to_linear(&self, shape: &[u64]) -> Result<LinearLayout, LayoutError> {
        match self {
            Layout::Blocked(b) => b.to_linear(shape),
            Layout::Mma(m) => m.to_linear(shape),
            Layout::AmdMfma(m) => m.to_linear(shape),
            Layout::Slice(s) => {
                check_shape(self.rank(), shape)?;
                let dim = s.dim as usize;
                let mut parent_shape = shape.to_vec();
                parent_shape.insert(dim, 1);
                let parent = s.parent.to_linear(&parent_shape)?;
                let drop = |b: &Vec<u64>| {
                    let mut b = b.clone();
                    b.remove(dim);
                    b
                };
                let mut registers: Vec<Vec<u64>> = parent.registers.iter().map(drop).collect();
                registers.retain(|b| b.iter().any(|&x| x != 0));
                Ok(LinearLayout {
                    shape: shape.to_vec(),
                    registers,
                    lanes: parent.lanes.iter().map(drop).collect(),
                    warps: parent.warps.iter().map(drop).collect(),
                })
            }
        }
    }
}

impl fmt::Display for BlockedLayout {
    /// `#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        write!(
            f,
            "#ttg.blocked<{{sizePerThread = [{}], threadsPerWarp = [{}], warpsPerCTA = [{}], order = [{}]}}>",
            list(&self.size_per_thread),
            list(&self.threads_per_warp),
            list(&self.warps_per_cta),
            list(&self.order)
        )
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layout::Blocked(b) => b.fmt(f),
            Layout::Slice(s) => write!(f, "#ttg.slice<{{dim = {}, parent = {}}}>", s.dim, s.parent),
            Layout::Mma(m) => m.fmt(f),
            Layout::AmdMfma(m) => m.fmt(f),
        }
    }
}

/// A layout on a concrete shape as XOR-combined basis vectors per input bit.
///
/// Register `r`, lane `l`, warp `w` hold the element whose coordinates are the XOR of
/// `registers[i]` for each set bit `i` of `r`, `lanes[i]` for each set bit of `l` and
/// `warps[i]` for each set bit of `w`. A zero basis means the bit does not change the
/// element: those threads hold copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinearLayout {
    /// The block shape.
    pub shape: Vec<u64>,
    /// One basis per register bit (`registers.len()` bits: 2^n registers per thread).
    pub registers: Vec<Vec<u64>>,
    /// One basis per lane bit (5 bits).
    pub lanes: Vec<Vec<u64>>,
    /// One basis per warp bit.
    pub warps: Vec<Vec<u64>>,
}

fn xor_bases(out: &mut [u64], bases: &[Vec<u64>], bits: u32) {
    for (i, b) in bases.iter().enumerate() {
        if bits >> i & 1 == 1 {
            for (o, &x) in out.iter_mut().zip(b) {
                *o ^= x;
            }
        }
    }
}

impl LinearLayout {
    /// The layout of a tile on `shape`, where the tile may be larger than the shape:
    /// register bits outside the shape are dropped (fewer registers), lane and warp bits
    /// outside it become zero (those threads hold replicas).
    pub fn clamped(
        shape: &[u64],
        mut registers: Vec<Vec<u64>>,
        mut lanes: Vec<Vec<u64>>,
        mut warps: Vec<Vec<u64>>,
    ) -> LinearLayout {
        let inside = |b: &Vec<u64>| b.iter().zip(shape).all(|(&x, &s)| x < s);
        registers.retain(inside);
        for b in lanes.iter_mut().chain(warps.iter_mut()) {
            if !inside(b) {
                b.iter_mut().for_each(|x| *x = 0);
            }
        }
        LinearLayout {
            shape: shape.to_vec(),
            registers,
            lanes,
            warps,
        }
    }

    /// The bases of one input dimension (none for `block`: one CTA; none for `offset`:
    /// a distributed layout has no memory dimension).
    pub fn bases(&self, dim: InDim) -> &[Vec<u64>] {
        match dim {
            InDim::Register => &self.registers,
            InDim::Lane => &self.lanes,
            InDim::Warp => &self.warps,
            InDim::Block | InDim::Offset => &[],
        }
    }

    /// Registers each thread holds.
    pub fn num_registers(&self) -> u32 {
        1 << self.registers.len()
    }

    /// Warps of the CTA.
    pub fn num_warps(&self) -> u32 {
        1 << self.warps.len()
    }

    /// The coordinates of the element held by `at`.
    pub fn coords(&self, at: ThreadRegister) -> Vec<u64> {
        let mut out = vec![0u64; self.shape.len()];
        xor_bases(&mut out, &self.registers, at.register);
        xor_bases(&mut out, &self.lanes, at.lane);
        xor_bases(&mut out, &self.warps, at.warp);
        out
    }

    /// The coordinates the registers of lane 0 of warp 0 hold, in register order: the
    /// per-thread part of the layout (other threads add their lane and warp offsets).
    pub fn register_coords(&self) -> Vec<Vec<u64>> {
        (0..self.num_registers())
            .map(|register| {
                let mut out = vec![0u64; self.shape.len()];
                xor_bases(&mut out, &self.registers, register);
                out
            })
            .collect()
    }

    /// The coordinate offset of a thread: lane and warp bases XORed.
    pub fn thread_offset(&self, warp: u32, lane: u32) -> Vec<u64> {
        let mut out = vec![0u64; self.shape.len()];
        xor_bases(&mut out, &self.lanes, lane);
        xor_bases(&mut out, &self.warps, warp);
        out
    }

    /// The canonical holder of the element at `coords`: the thread and register whose
    /// replica bits (zero bases) are all 0. `None` when `coords` is outside the shape.
    pub fn locate(&self, coords: &[u64]) -> Option<ThreadRegister> {
        if coords.len() != self.shape.len() || coords.iter().zip(&self.shape).any(|(c, s)| c >= s) {
            return None;
        }
        let mut rest = coords.to_vec();
        let mut take = |bases: &[Vec<u64>]| -> u32 {
            let mut bits = 0;
            for (i, b) in bases.iter().enumerate() {
                if b.iter().all(|&x| x == 0) {
                    continue;
                }
                if b.iter().zip(&rest).all(|(&x, &c)| x == 0 || c & x == x) {
                    bits |= 1 << i;
                    for (c, &x) in rest.iter_mut().zip(b) {
                        *c ^= x;
                    }
                }
            }
            bits
        };
        let register = take(&self.registers);
        let lane = take(&self.lanes);
        let warp = take(&self.warps);
        rest.iter().all(|&c| c == 0).then_some(ThreadRegister {
            warp,
            lane,
            register,
        })
    }

    /// How many register bits are contiguous along `dim` from the first: the widest
    /// vector a thread can move along `dim` is `2^n` elements.
    pub fn contiguous_registers(&self, dim: usize) -> u32 {
        let mut n = 0;
        for b in &self.registers {
            let expected = 1u64 << n;
            if b[dim] == expected && b.iter().enumerate().all(|(d, &x)| d == dim || x == 0) {
                n += 1;
            } else {
                break;
            }
        }
        1 << n
    }
}
