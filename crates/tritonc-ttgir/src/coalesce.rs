//! Coalescing (Triton's `Coalesce.cpp`) and vector widths (`LoadStoreOpToLLVM.cpp`).
//!
//! A load or store of a pointer block gets a blocked layout whose fastest dim is the
//! pointer's most contiguous one and whose `size_per_thread` there is
//! `min(divisibility_bytes / elem_bytes, contiguity, 128 / elem_bits)`, capped at
//! `numel / threads`: consecutive lanes then touch consecutive chunks, and each chunk is
//! one vector access of up to 128 bits.

use crate::axis::AxisInfo;
use crate::layout::{BlockedLayout, LinearLayout, WARP_SIZE};

/// How one load or store accesses memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryAccess {
    /// Dims by decreasing contiguity of the pointer (the layout's `order`).
    pub order: Vec<u32>,
    /// Elements per thread along `order[0]` (the layout's `size_per_thread` there).
    pub per_thread: u32,
    /// The coalesced layout.
    pub layout: BlockedLayout,
}

/// Dims sorted by decreasing `contiguity`, ties broken toward the last dim (Triton's
/// `getOrderFromContiguity`).
pub fn order_from_contiguity(contiguity: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..contiguity.len() as u32).rev().collect();
    order.sort_by(|&a, &b| contiguity[b as usize].cmp(&contiguity[a as usize]));
    order
}

/// The widest run of elements one thread may access as a unit along `dim`, judged from
/// the pointer's facts alone: `min(divisibility_bytes / elem_bytes, contiguity,
/// 128 / elem_bits)`.
pub fn max_elements_per_access(ptr: &AxisInfo, dim: usize, extent: u64, elem_bits: u32) -> u32 {
    let elem_bytes = u64::from(elem_bits.div_ceil(8).max(1));
    let max_multiple = (ptr.divisibility[dim] / elem_bytes).max(1);
    let max_contig = ptr.contiguity[dim].min(extent).max(1);
    let alignment = max_multiple.min(max_contig);
    let widest = u64::from((128 / elem_bits.max(1)).max(1));
    alignment.min(widest) as u32
}

/// The coalesced layout of an access through a pointer block of `shape` with facts
/// `ptr`, elements of `elem_bits`, for `num_warps` warps.
pub fn coalesced_layout(
    ptr: &AxisInfo,
    shape: &[u64],
    elem_bits: u32,
    num_warps: u32,
) -> MemoryAccess {
    coalesced_layout_in_warps_of(ptr, shape, elem_bits, num_warps, WARP_SIZE)
}

/// [`coalesced_layout`] for warps of `warp_size` lanes.
pub fn coalesced_layout_in_warps_of(
    ptr: &AxisInfo,
    shape: &[u64],
    elem_bits: u32,
    num_warps: u32,
    warp_size: u32,
) -> MemoryAccess {
    let order = order_from_contiguity(&ptr.contiguity);
    let fastest = order[0] as usize;
    let numel: u64 = shape.iter().product();
    let threads = u64::from(num_warps * warp_size);
    let per_thread = max_elements_per_access(ptr, fastest, shape[fastest], elem_bits);
    let per_thread = u64::from(per_thread).min((numel / threads).max(1)) as u32;
    let mut size_per_thread = vec![1u32; shape.len()];
    size_per_thread[fastest] = per_thread;
    let layout = BlockedLayout::for_shape_in_warps_of(
        shape,
        size_per_thread,
        order.clone(),
        num_warps,
        warp_size,
    );
    MemoryAccess {
        order,
        per_thread,
        layout,
    }
}

/// Elements per vector access of a load or store in `layout`: the thread's contiguous
/// registers along the fastest dim, limited by the pointer's facts and 128 bits, and by
/// the mask's constancy (one predicate per access).
pub fn vector_width(
    ptr: &AxisInfo,
    mask: Option<&AxisInfo>,
    layout: &LinearLayout,
    order0: usize,
    elem_bits: u32,
) -> u32 {
    let regs = layout.contiguous_registers(order0);
    let by_ptr = max_elements_per_access(ptr, order0, layout.shape[order0], elem_bits);
    let mut vec = regs.min(by_ptr);
    if let Some(m) = mask {
        let c = m.constancy[order0].clamp(1, u64::from(u32::MAX)) as u32;
        // Keep a power of two.
        vec = vec.min(1 << (31 - c.leading_zeros()));
    }
    vec.max(1)
}
