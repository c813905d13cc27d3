//! Shared buffers of the GPU IR and the asynchronous copies that fill them
//! (`ttg.local_alloc`, `ttg.memdesc_index`, `ttg.async_copy_global_to_local`,
//! `ttg.async_commit_group`, `ttg.async_wait`, `ttg.local_load`, `ttg.local_dealloc`), as
//! `tritonc_ttgir::PipelineLoops` makes them for the K loops of tensor-core dots.
//!
//! A buffer lives at the offset `tritonc-allocate-shared` gave its `ttg.local_alloc`, at
//! the start of shared memory; while any buffer is live the scratch every other op uses
//! follows the buffers (`scratch_base`), and elsewhere (a matmul's epilogue) it starts at
//! 0 again, over the dead buffers. A copy is one `cp.async` per vector of the pointer
//! block (4, 8 or 16 bytes; `.cg` for 16), its source size 0 where the mask is off (which
//! writes zeros and reads nothing); `ttg.async_wait` is `cp.async.wait_group`. The
//! barriers around buffer accesses are ops of the GPU IR (`tritonc-place-barriers`). A
//! `ttg.local_load` feeding a tensor-core dot is not a load of its own: the
//! dot reads its fragments from the buffer with `ldmatrix` per K step (`mma.rs`).

use melior::ir::{attribute::IntegerAttribute, r#type::IntegerType, Attribute, Type, Value};
use tritonc_ir::{Function, OpId, OpKind, SharedLayout};

use super::function::{dtype_type, FunctionLowering, Lowered};
use super::mma::Staged;
use super::LowerError;

/// A lowered shared buffer, or one buffer of a multi-buffered one.
#[derive(Clone, Debug)]
pub(crate) struct SharedView<'c, 'a> {
    /// Bytes from the start of shared memory to the allocation.
    pub byte_offset: u32,
    /// How one buffer's elements are placed.
    pub layout: SharedLayout,
    /// The shape of one buffer.
    pub shape: Vec<u64>,
    /// Elements from one buffer to the next.
    pub stride_elems: u64,
    /// The buffer this view selects (`ttg.memdesc_index`), if it is one.
    pub index: Option<Value<'c, 'a>>,
}

impl SharedView<'_, '_> {
    /// Where a dot operand (`operand` 0: A as `[m, k]`, 1: B as `[k, n]`) staged in this
    /// buffer lives, for `ldmatrix` and the fragment loads.
    pub(crate) fn staged(&self, operand: usize, elem_bytes: u64) -> Staged {
        let dims = [self.shape[0], self.shape[1]];
        Staged::from_layout(&self.layout, operand, dims, elem_bytes, self.byte_offset, true)
    }
}

/// Whether `op` (a `ttg.local_load`) only feeds tensor-core dots, which read the buffer
/// themselves.
fn feeds_mma_dots(f: &Function, op: OpId) -> bool {
    let r = f.op(op).results()[0];
    !f.uses(r).is_empty()
        && f.uses(r).iter().all(|u| {
            matches!(f.kind(u.op), OpKind::Dot { .. })
                && u.operand < 2
                && matches!(
                    f.value_type(f.op(u.op).results()[0]).encoding(),
                    Some(tritonc_ir::layout::Layout::Mma(_))
                )
        })
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// Bytes the function's shared buffers span (from offset 0), rounded to 128.
    pub(super) fn buffer_bytes(&self) -> Result<u32, LowerError> {
        let mut end = 0u64;
        for op in self.func.walk() {
            if let OpKind::LocalAlloc { offset } = self.func.kind(op) {
                let r = self.func.op(op).results()[0];
                let bytes = self
                    .func
                    .value_type(r)
                    .memdesc()
                    .and_then(|m| m.bytes())
                    .ok_or_else(|| self.error("a shared buffer without a size"))?;
                end = end.max(u64::from(offset.unwrap_or(0)) + bytes);
            }
        }
        u32::try_from(end.next_multiple_of(128))
            .map_err(|_| self.error("shared buffers over 4 GiB"))
    }

    /// Lowers one of the shared-buffer ops.
    pub(super) fn lower_buffer_op(&mut self, op: OpId) -> Result<(), LowerError> {
        let f = self.func;
        let data = f.op(op);
        let b = self.b;
        let i32t: Type = IntegerType::new(b.context(), 32).into();
        let nothing = || Lowered::block(Vec::new());
        match f.kind(op) {
            OpKind::LocalAlloc { offset } => {
                let offset =
                    offset.ok_or_else(|| self.error("a shared buffer was not placed"))?;
                let r = data.results()[0];
                let m = f
                    .value_type(r)
                    .memdesc()
                    .ok_or_else(|| self.error("`ttg.local_alloc` returns a buffer"))?;
                let elem_bytes = u64::from(m.elem.size_bytes().unwrap_or(1));
                let stride = m
                    .buffer_stride_bytes()
                    .ok_or_else(|| self.error("a shared buffer without a size"))?;
                if self.live_buffers == 0 {
                    // While buffers are live the scratch moves past them.
                    self.scratch_base = self.pipe_bytes;
                }
                self.live_buffers += 1;
                let view = SharedView {
                    byte_offset: offset,
                    layout: m.layout.clone(),
                    shape: m.buffer_shape().to_vec(),
                    stride_elems: stride / elem_bytes,
                    index: None,
                };
                if !data.operands().is_empty() {
                    self.fill_buffer(op, &view, elem_bytes)?;
                }
                self.views.insert(r, view);
                self.values.insert(r, nothing());
            }
            OpKind::LocalDealloc => {
                self.live_buffers = self.live_buffers.saturating_sub(1);
                if self.live_buffers == 0 {
                    self.scratch_base = 0;
                }
            }
            OpKind::MemDescIndex => {
                let whole = self.view(data.operands()[0])?;
                let index = self.operand(op, 1)?.reg(0);
                let r = data.results()[0];
                self.views.insert(
                    r,
                    SharedView {
                        index: Some(index),
                        ..whole
                    },
                );
                self.values.insert(r, nothing());
            }
            OpKind::AsyncCopyGlobalToLocal { .. } => {
                self.lower_async_copy(op)?;
                self.values.insert(data.results()[0], nothing());
            }
            OpKind::AsyncCommitGroup => {
                self.mlir(b.effect("nvvm.cp.async.commit.group", &[], &[]))?;
                self.values.insert(data.results()[0], nothing());
            }
            OpKind::AsyncWait { num } => {
                let n = IntegerAttribute::new(i32t, i64::from(*num)).into();
                self.mlir(b.effect("nvvm.cp.async.wait.group", &[], &[("n", n)]))?;
                self.values.insert(data.results()[0], nothing());
            }
            OpKind::LocalLoad => {
                if !feeds_mma_dots(f, op) {
                    return Err(self.error(
                        "`ttg.local_load` is lowered by the NVIDIA back end only as a tensor-core dot's operand",
                    ));
                }
                self.values.insert(data.results()[0], nothing());
            }
            k => {
                return Err(self.error(format!(
                    "`{}` is not lowered by the NVIDIA back end yet",
                    k.name()
                )))
            }
        }
        Ok(())
    }

    /// Writes the initial block of a `ttg.local_alloc` (a loop-invariant tensor-core dot
    /// operand, `tritonc_ttgir::HoistDotOperands`) into its buffer, where the dot reads
    /// it (the barrier before its readers is the GPU IR's).
    fn fill_buffer(
        &mut self,
        op: OpId,
        view: &SharedView<'c, 'a>,
        elem_bytes: u64,
    ) -> Result<(), LowerError> {
        let f = self.func;
        let r = f.op(op).results()[0];
        // The operand the buffer's loads feed (A or B) decides how it is stored.
        let operand = f
            .uses(r)
            .iter()
            .filter(|u| matches!(f.kind(u.op), OpKind::LocalLoad))
            .flat_map(|u| f.uses(f.op(u.op).results()[0]))
            .find(|u| matches!(f.kind(u.op), OpKind::Dot { .. }) && u.operand < 2)
            .map(|u| u.operand as usize)
            .ok_or_else(|| {
                self.error("a filled shared buffer is lowered only as a tensor-core dot's operand")
            })?;
        let init = f.op(op).operands()[0];
        let layout = self
            .layouts
            .layout(init)
            .ok_or_else(|| self.error("the initial block has no layout"))?
            .clone();
        let linear = self.linear_of(init, &layout)?;
        let regs = self.operand(op, 0)?.regs;
        let elem = self.elem_type(init)?;
        let staged = view.staged(operand, elem_bytes);
        self.stage_write(&regs, elem, &linear, &staged)?;
        if view.layout.nvmma.is_some() {
            // A `wgmma` reads it through the asynchronous proxy.
            self.inline_asm("fence.proxy.async.shared::cta;", "", &[], None)?;
        }
        Ok(())
    }

    /// The lowered buffer `v`.
    pub(super) fn view(&self, v: tritonc_ir::Value) -> Result<SharedView<'c, 'a>, LowerError> {
        self.views
            .get(&v)
            .cloned()
            .ok_or_else(|| self.error("internal: a shared buffer is not lowered"))
    }

    /// The `cp.async` copies of one `ttg.async_copy_global_to_local`.
    fn lower_async_copy(&mut self, op: OpId) -> Result<(), LowerError> {
        let f = self.func;
        let data = f.op(op);
        if data.operands().len() > 3 {
            return Err(self.error(
                "an asynchronous copy with `other` is not lowered by the NVIDIA back end yet",
            ));
        }
        let ptr_v = data.operands()[0];
        let ptrs = self.operand(op, 0)?;
        let mask = match data.operands().get(2) {
            Some(_) => Some(self.operand(op, 2)?),
            None => None,
        };
        let view = self.view(data.operands()[1])?;
        let m = f
            .value_type(data.operands()[1])
            .memdesc()
            .ok_or_else(|| self.error("an asynchronous copy into a non-buffer"))?;
        let elem = dtype_type(self.b.context(), m.elem)
            .ok_or_else(|| self.error(format!("`{}` cannot be copied", m.elem)))?;
        let elem_bytes = super::shared::storage_bytes(elem);
        if view.shape.len() != 2 {
            return Err(self.error("only 2-D asynchronous copies are lowered"));
        }
        // Where the buffer's elements are (the operand index only decides how a dot
        // reads them).
        let staged = view.staged(0, elem_bytes);
        let linear = self.result_linear(ptr_v)?;
        // A vector of the pointer block is copied in pieces that each stay within one
        // swizzled chunk (an 8-bit B operand's 8-byte chunks: two 8-byte copies per
        // 16-byte vector, as Triton's code has).
        let loaded = self.layouts.access(op).map_or(1, |p| p.vector_width) as usize;
        let vec = staged
            .swizzle
            .map_or(loaded, |sw| loaded.min(sw.vec as usize));
        let bytes = (vec as u64 * elem_bytes) as i32;
        if !matches!(bytes, 4 | 8 | 16) {
            return Err(self.error(format!(
                "an asynchronous copy of {bytes}-byte vectors (cp.async moves 4, 8 or 16)"
            )));
        }
        let b = self.b;
        let ctx = b.context();
        let i32t: Type = IntegerType::new(ctx, 32).into();
        let mut access = self.staged_access(&staged, &linear)?;
        let buf_off = match view.index {
            Some(index) => {
                let elems = self.i32c(view.stride_elems as i32)?;
                Some(self.mlir(b.binary("arith.muli", index, elems))?)
            }
            None => None,
        };
        let size_c = self.i32c(bytes)?;
        let zero = self.i32c(0)?;
        let cache = Attribute::parse(
            ctx,
            if bytes == 16 {
                "#nvvm<load_cache_modifier cg>"
            } else {
                "#nvvm<load_cache_modifier ca>"
            },
        )
        .ok_or_else(|| self.error("bad cache modifier"))?;
        let coords = linear.register_coords();
        for g in (0..ptrs.regs.len()).step_by(vec) {
            let c = &coords[g];
            let (index, thread) = self.staged_offset(&staged, &mut access, [c[0], c[1]])?;
            let dynamic = match (thread, buf_off) {
                (Some(t), Some(o)) => Some(self.mlir(b.binary("arith.addi", t, o))?),
                (t, o) => t.or(o),
            };
            let dst = self.pipe_slot(elem, view.byte_offset, index, dynamic)?;
            let src_size = match &mask {
                Some(m) => self.mlir(b.select(m.reg(g), size_c, zero))?,
                None => size_c,
            };
            let attrs = [
                ("size", IntegerAttribute::new(i32t, i64::from(bytes)).into()),
                ("modifier", cache),
            ];
            self.mlir(b.effect(
                "nvvm.cp.async.shared.global",
                &[dst, ptrs.reg(g), src_size],
                &attrs,
            ))?;
        }
        Ok(())
    }
}
