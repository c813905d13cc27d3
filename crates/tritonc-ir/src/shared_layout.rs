//! Shared-memory encodings: where each element of a block lives in a shared buffer.
//!
//! [`SharedLayout`] is Triton's `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`:
//! elements are stored with `order[0]` fastest; rows (the next dim in `order`) are cut
//! into chunks of `vec` elements, and the chunk index of row `r` is XORed with the row's
//! phase `(r / per_phase) % max_phase`. With `vec = per_phase = max_phase = 1` it is the
//! plain row-major (in `order`) buffer. One object answers both questions every consumer
//! asks: the element offset of a coordinate ([`SharedLayout::offset`], for stores,
//! `cp.async` destinations and loads) and, through the same swizzle, the rows an
//! `ldmatrix` or MMA descriptor reads.
//!
//! With a [`Padding`] it is Triton's `#ttg.padded_shared<[interval:+pad] {order}>`
//! instead: unswizzled, with `pad` unused elements after every `interval` elements
//! (a row of a 2-D tile, so that the eight rows an `ldmatrix` reads fall in different
//! banks).
//!
//! With an [`Nvmma`] it is Triton's `#ttg.nvmma_shared<{swizzlingByteWidth, transposed,
//! elementBitWidth}>`, the layout Hopper's `wgmma` reads through a matrix descriptor:
//! the fastest dim is cut into column blocks of `swizzlingByteWidth` bytes (`W`
//! elements), each block stored whole (every row of it, `W` elements a row) before the
//! next, and inside a block the 16-byte chunks of row `r` are XORed with `(r / per_phase)
//! % max_phase`, where `per_phase = 128 / swizzlingByteWidth` and `max_phase =
//! swizzlingByteWidth / 16` (the hardware's 128-, 64- and 32-byte swizzle modes). When
//! the fastest dim is one block wide this is exactly the `#ttg.swizzled_shared` layout
//! with those parameters.
//!
//! [`MemDescType`] is the type of a shared buffer (`!ttg.memdesc<…>`): element type,
//! shape (a leading buffer dimension when multi-buffered), the layout and mutability.

use std::fmt;

use crate::types::DType;

/// Triton's `#ttg.swizzled_shared`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SharedLayout {
    /// Elements per swizzled chunk.
    pub vec: u32,
    /// Rows that share one phase.
    pub per_phase: u32,
    /// Distinct phases (the XOR pattern repeats after `max_phase` phases).
    pub max_phase: u32,
    /// Dims from fastest-varying to slowest.
    pub order: Vec<u32>,
    /// Unused elements inserted at regular intervals (`#ttg.padded_shared`); no swizzle
    /// then.
    pub padding: Option<Padding>,
    /// Triton's `#ttg.nvmma_shared` (column blocks of the swizzle's width); `vec`,
    /// `per_phase` and `max_phase` are then the ones it implies.
    pub nvmma: Option<Nvmma>,
}

/// The parameters of `#ttg.nvmma_shared` beside its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nvmma {
    /// `swizzlingByteWidth`: 32, 64 or 128.
    pub swizzle_bytes: u32,
    /// `elementBitWidth`: 8, 16 or 32.
    pub element_bits: u32,
}

/// `pad` unused elements after every `interval` elements of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Padding {
    /// Elements between two paddings (a power of two).
    pub interval: u32,
    /// Unused elements inserted.
    pub pad: u32,
}

impl SharedLayout {
    /// The unswizzled layout: row-major in `order`.
    pub fn unswizzled(order: Vec<u32>) -> Self {
        SharedLayout {
            vec: 1,
            per_phase: 1,
            max_phase: 1,
            order,
            padding: None,
            nvmma: None,
        }
    }

    /// Row-major in `order`, with `pad` elements after every `interval` elements.
    pub fn padded(order: Vec<u32>, interval: u32, pad: u32) -> Self {
        SharedLayout {
            padding: Some(Padding { interval, pad }),
            ..Self::unswizzled(order)
        }
    }

    /// `#ttg.nvmma_shared<{swizzlingByteWidth = swizzle_bytes, transposed, elementBitWidth =
    /// element_bits}>` for 2-D blocks: rows along dim 1 (`transposed`: along dim 0).
    pub fn nvmma(swizzle_bytes: u32, transposed: bool, element_bits: u32) -> Self {
        SharedLayout {
            vec: 128 / element_bits.max(1),
            per_phase: 128 / swizzle_bytes.max(1),
            max_phase: swizzle_bytes / 16,
            order: if transposed { vec![0, 1] } else { vec![1, 0] },
            padding: None,
            nvmma: Some(Nvmma {
                swizzle_bytes,
                element_bits,
            }),
        }
    }

    /// Elements of one column block of an `#ttg.nvmma_shared` layout (the swizzle's
    /// width), or `None` for the other layouts.
    pub fn block_elems(&self) -> Option<u64> {
        self.nvmma
            .map(|n| u64::from(n.swizzle_bytes) * 8 / u64::from(n.element_bits.max(1)))
    }

    /// Row-major with the last dim fastest, unswizzled (the conversion scratch layout).
    pub fn row_major(rank: usize) -> Self {
        Self::unswizzled((0..rank as u32).rev().collect())
    }

    /// The rank of the blocks it stores.
    pub fn rank(&self) -> usize {
        self.order.len()
    }

    /// Whether the parameters are well formed for a block of `shape`: powers of two, a
    /// permutation `order`, and (for a swizzle) chunks that fit a row.
    pub fn check(&self, shape: &[u64]) -> Result<(), String> {
        if shape.len() != self.rank() {
            return Err(format!(
                "a rank-{} shared layout cannot hold a rank-{} block",
                self.rank(),
                shape.len()
            ));
        }
        for (what, x) in [
            ("vec", self.vec),
            ("perPhase", self.per_phase),
            ("maxPhase", self.max_phase),
        ] {
            if x == 0 || !x.is_power_of_two() {
                return Err(format!("{what} = {x} is not a power of two"));
            }
        }
        let mut seen = self.order.clone();
        seen.sort_unstable();
        if seen != (0..self.rank() as u32).collect::<Vec<_>>() {
            return Err("order must be a permutation of the dims".into());
        }
        if let Some(p) = self.padding {
            if p.interval == 0 || !p.interval.is_power_of_two() || p.pad == 0 {
                return Err(format!(
                    "padding [{}:+{}] needs a power-of-two interval and a non-zero pad",
                    p.interval, p.pad
                ));
            }
            if self.vec != 1 || self.max_phase != 1 || self.per_phase != 1 {
                return Err("a padded layout is not swizzled".into());
            }
        }
        if let Some(n) = self.nvmma {
            if !matches!(n.swizzle_bytes, 32 | 64 | 128) || !matches!(n.element_bits, 8 | 16 | 32) {
                return Err(format!(
                    "an nvmma layout swizzles 32, 64 or 128 bytes of 8-, 16- or 32-bit elements, not {} bytes of {}-bit ones",
                    n.swizzle_bytes, n.element_bits
                ));
            }
            if self.rank() != 2 || *self != Self::nvmma(n.swizzle_bytes, self.order[0] == 0, n.element_bits) {
                return Err("an nvmma layout is rank 2 with the parameters its swizzle implies".into());
            }
            let w = self.block_elems().unwrap_or(1);
            let row = shape[self.order[0] as usize];
            if row % w != 0 {
                return Err(format!(
                    "rows of {row} elements are not whole {}-byte swizzle blocks",
                    n.swizzle_bytes
                ));
            }
            return Ok(());
        }
        let swizzled = self.max_phase > 1;
        if swizzled && self.rank() < 2 {
            return Err("a swizzle needs rows: rank >= 2".into());
        }
        if swizzled {
            let row = shape[self.order[0] as usize];
            if u64::from(self.vec) * u64::from(self.max_phase) > row {
                return Err(format!(
                    "{} chunks of {} elements do not fit a row of {row}",
                    self.max_phase, self.vec
                ));
            }
        }
        Ok(())
    }

    /// The element offset of `coords` in a buffer of `shape` (which [`Self::check`]
    /// accepted): dims in `order`, the fastest one's chunk XORed with the row's phase.
    pub fn offset(&self, coords: &[u64], shape: &[u64]) -> u64 {
        let rank = self.rank();
        if rank == 0 {
            return 0;
        }
        let fast = self.order[0] as usize;
        let mut col = coords[fast];
        if let Some(w) = self.block_elems() {
            // Column block `col / w`, each `w` elements a row over every row.
            let slow = self.order[1] as usize;
            let (row, rows) = (coords[slow], shape[slow]);
            let (block, c) = (col / w, col % w);
            let phase = (row / u64::from(self.per_phase)) % u64::from(self.max_phase);
            let vec = u64::from(self.vec);
            let c = ((c / vec) ^ phase) * vec + c % vec;
            return block * rows * w + row * w + c;
        }
        if rank >= 2 && self.max_phase > 1 {
            let row = coords[self.order[1] as usize];
            let phase = (row / u64::from(self.per_phase)) % u64::from(self.max_phase);
            let vec = u64::from(self.vec);
            col = ((col / vec) ^ phase) * vec + col % vec;
        }
        let mut offset = col;
        let mut stride = shape[fast];
        for &d in &self.order[1..] {
            offset += coords[d as usize] * stride;
            stride *= shape[d as usize];
        }
        match self.padding {
            Some(p) => offset + offset / u64::from(p.interval) * u64::from(p.pad),
            None => offset,
        }
    }

    /// Elements one buffer of `shape` spans, padding included.
    pub fn span(&self, shape: &[u64]) -> u64 {
        let elems: u64 = shape.iter().product();
        match self.padding {
            Some(p) => elems + elems / u64::from(p.interval) * u64::from(p.pad),
            None => elems,
        }
    }
}

impl fmt::Display for SharedLayout {
    /// `#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>`, or
    /// `#ttg.padded_shared<[64:+8] {order = [1, 0]}>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let order = self
            .order
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if let Some(p) = self.padding {
            return write!(
                f,
                "#ttg.padded_shared<[{}:+{}] {{order = [{order}]}}>",
                p.interval, p.pad
            );
        }
        if let Some(n) = self.nvmma {
            return write!(
                f,
                "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}}}>",
                n.swizzle_bytes,
                self.order[0] == 0,
                n.element_bits
            );
        }
        write!(
            f,
            "#ttg.swizzled_shared<{{vec = {}, perPhase = {}, maxPhase = {}, order = [{order}]}}>",
            self.vec, self.per_phase, self.max_phase
        )
    }
}

/// The type of a shared-memory buffer: `!ttg.memdesc<3x64x64xf16, #ttg.swizzled_shared<…>,
/// mutable>`. A multi-buffered allocation has a leading buffer dim; the layout describes
/// the trailing `layout.rank()` dims (one buffer).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MemDescType {
    /// The extents, the buffer dim (if any) first.
    pub shape: Vec<u64>,
    /// The element dtype.
    pub elem: DType,
    /// How one buffer's elements are placed.
    pub layout: SharedLayout,
    /// Whether the buffer may be written after its allocation.
    pub mutable: bool,
}

impl MemDescType {
    /// Buffers stacked along the leading dim (1 when there is no buffer dim).
    pub fn num_buffers(&self) -> u64 {
        let extra = self.shape.len().saturating_sub(self.layout.rank());
        self.shape[..extra].iter().product()
    }

    /// The shape of one buffer (the trailing dims the layout covers).
    pub fn buffer_shape(&self) -> &[u64] {
        let extra = self.shape.len().saturating_sub(self.layout.rank());
        &self.shape[extra..]
    }

    /// The alignment the allocation needs, in bytes: [`Self::BUFFER_ALIGN`], or 1024 for
    /// an `#ttg.nvmma_shared` layout (the hardware's swizzle repeats every 1024 bytes of
    /// address, so a `wgmma` descriptor describes a buffer only from such a boundary).
    pub fn alignment(&self) -> u64 {
        if self.layout.nvmma.is_some() {
            1024
        } else {
            Self::BUFFER_ALIGN
        }
    }

    /// Bytes of the whole allocation, if the element has a size: every buffer starts at
    /// a multiple of [`Self::BUFFER_ALIGN`] bytes.
    pub fn bytes(&self) -> Option<u64> {
        Some(self.num_buffers() * self.buffer_stride_bytes()?)
    }

    /// Alignment of each buffer of an allocation (and of the allocation), in bytes.
    pub const BUFFER_ALIGN: u64 = 128;

    /// Bytes from one buffer to the next: one buffer with its padding, rounded up to
    /// [`Self::BUFFER_ALIGN`].
    pub fn buffer_stride_bytes(&self) -> Option<u64> {
        let span = self.layout.span(self.buffer_shape());
        Some((span * u64::from(self.elem.size_bytes()?)).next_multiple_of(Self::BUFFER_ALIGN))
    }
}

impl fmt::Display for MemDescType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("!ttg.memdesc<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        write!(f, "{}, {}", self.elem, self.layout)?;
        if self.mutable {
            f.write_str(", mutable")?;
        }
        f.write_str(">")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unswizzled_is_row_major_in_order() {
        let l = SharedLayout::row_major(2);
        assert_eq!(l.offset(&[0, 0], &[4, 8]), 0);
        assert_eq!(l.offset(&[0, 7], &[4, 8]), 7);
        assert_eq!(l.offset(&[3, 1], &[4, 8]), 25);
        let col_major = SharedLayout::unswizzled(vec![0, 1]);
        assert_eq!(col_major.offset(&[3, 1], &[4, 8]), 7);
    }

    #[test]
    fn swizzle_xors_chunks_by_phase_and_is_a_bijection() {
        // 64 fp16 columns: 8 chunks of 8 elements, phase = row % 8 (Triton's choice
        // for a 128-byte row read by ldmatrix).
        let l = SharedLayout {
            vec: 8,
            per_phase: 1,
            max_phase: 8,
            order: vec![1, 0],
            padding: None,
            nvmma: None,
        };
        let shape = [16u64, 64];
        l.check(&shape).unwrap();
        // Row 0 is unswizzled; row 3's chunk 0 lands in chunk 3.
        assert_eq!(l.offset(&[0, 9], &shape), 9);
        assert_eq!(l.offset(&[3, 0], &shape), 3 * 64 + 24);
        assert_eq!(l.offset(&[3, 25], &shape), 3 * 64 + 1);
        let mut seen = std::collections::HashSet::new();
        for r in 0..16 {
            for c in 0..64 {
                assert!(seen.insert(l.offset(&[r, c], &shape)));
            }
        }
        assert_eq!(seen.len(), 16 * 64);
        assert!(seen.iter().all(|&o| o < 16 * 64));
    }

    #[test]
    fn check_rejects_chunks_wider_than_a_row() {
        let l = SharedLayout {
            vec: 8,
            per_phase: 1,
            max_phase: 8,
            order: vec![1, 0],
            padding: None,
            nvmma: None,
        };
        assert!(l.check(&[16, 32]).unwrap_err().contains("do not fit"));
        assert!(l.check(&[16]).unwrap_err().contains("rank-2"));
    }

    #[test]
    fn memdesc_prints_and_counts_buffers() {
        let t = MemDescType {
            shape: vec![3, 64, 64],
            elem: DType::F16,
            layout: SharedLayout::row_major(2),
            mutable: true,
        };
        assert_eq!(
            t.to_string(),
            "!ttg.memdesc<3x64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, mutable>"
        );
        assert_eq!(t.num_buffers(), 3);
        assert_eq!(t.buffer_shape(), &[64, 64]);
        assert_eq!(t.bytes(), Some(3 * 64 * 64 * 2));
    }

    #[test]
    fn padding_skips_elements_after_each_row() {
        // A 16 x 64 fp16 tile, rows padded by 8 elements (16 bytes).
        let l = SharedLayout::padded(vec![1, 0], 64, 8);
        let shape = [16u64, 64];
        l.check(&shape).unwrap();
        assert_eq!(l.offset(&[0, 63], &shape), 63);
        assert_eq!(l.offset(&[1, 0], &shape), 72);
        assert_eq!(l.offset(&[3, 5], &shape), 3 * 72 + 5);
        assert_eq!(l.span(&shape), 16 * 72);
        assert_eq!(l.to_string(), "#ttg.padded_shared<[64:+8] {order = [1, 0]}>");
        let t = MemDescType {
            shape: vec![3, 16, 64],
            elem: DType::F16,
            layout: l.clone(),
            mutable: true,
        };
        // 16 x 72 x 2 = 2304 bytes per buffer, already a multiple of 128.
        assert_eq!(t.buffer_stride_bytes(), Some(2304));
        assert_eq!(t.bytes(), Some(3 * 2304));
        let swizzled_and_padded = SharedLayout { vec: 8, max_phase: 8, ..l };
        assert!(swizzled_and_padded.check(&shape).unwrap_err().contains("not swizzled"));
        assert!(SharedLayout::padded(vec![1, 0], 48, 8).check(&shape).is_err());
    }

    #[test]
    fn nvmma_blocks_are_tritons() {
        // Triton 3.6's `#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false,
        // elementBitWidth = 16}>` on a 64x256 fp16 B tile: four 64-column blocks of 8 KiB
        // (its wgmma descriptor's leading byte offset), chunk c of row r at c ^ (r % 8).
        let l = SharedLayout::nvmma(128, false, 16);
        let shape = [64u64, 256];
        l.check(&shape).unwrap();
        assert_eq!(
            l.to_string(),
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
        );
        assert_eq!(l.offset(&[0, 64], &shape), 64 * 64);
        assert_eq!(l.offset(&[1, 0], &shape), 64 + 8);
        assert_eq!(l.offset(&[3, 66], &shape), 64 * 64 + 3 * 64 + 3 * 8 + 2);
        let mut seen = std::collections::HashSet::new();
        for r in 0..64 {
            for c in 0..256 {
                assert!(seen.insert(l.offset(&[r, c], &shape)));
            }
        }
        assert!(seen.iter().all(|&o| o < 64 * 256));
        // One block wide, it is the swizzled layout with the same parameters.
        let swizzled = SharedLayout {
            nvmma: None,
            ..SharedLayout::nvmma(64, false, 16)
        };
        let nv = SharedLayout::nvmma(64, false, 16);
        assert_eq!((nv.vec, nv.per_phase, nv.max_phase), (8, 2, 4));
        for r in 0..16 {
            for c in 0..32 {
                assert_eq!(nv.offset(&[r, c], &[16, 32]), swizzled.offset(&[r, c], &[16, 32]));
            }
        }
        // Transposed: rows along dim 0.
        let t = SharedLayout::nvmma(128, true, 16);
        assert_eq!(t.order, vec![0, 1]);
        assert_eq!(t.offset(&[1, 0], &[64, 128]), 1);
        assert!(SharedLayout::nvmma(128, false, 16).check(&[64, 32]).is_err());
    }
}
