//! Masked global loads and stores on AMD.
//!
//! NVIDIA's are predicated PTX (`@p ld.global.v4.b32`, inline assembly in `memory.rs`).
//! AMD has no predicated load; a masked access is a branch around an ordinary vector
//! access (`scf.if`), as Triton's AMD back end emits it for global pointers: LLVM's
//! AMDGPU back end turns the divergent branch into an `exec`-masked
//! `global_load_dwordx4`/`global_store_dwordx4` of the same width. A masked-off load gives
//! `other` (or zero).

use melior::ir::{attribute::IntegerAttribute, r#type::IntegerType, Type, Value};
use tritonc_ir::DType;

use super::{function::dtype_type, function::FunctionLowering, LowerError};

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    /// The `vec` elements at `addr` where `pred` holds, else `others` (zeros without).
    pub(super) fn masked_load_amdgpu(
        &mut self,
        addr: Value<'c, 'a>,
        pred: Value<'c, 'a>,
        others: Option<Vec<Value<'c, 'a>>>,
        dtype: DType,
        vec: usize,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(8);
        let elem = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported element type"))?;
        let ty = if vec == 1 {
            elem
        } else {
            self.vector_type(elem, vec)?
        };
        let i64_type: Type = IntegerType::new(ctx, 64).into();
        let align = IntegerAttribute::new(i64_type, i64::from(bits / 8) * vec as i64).into();
        let (results, blocks) =
            self.mlir(b.region_op("scf.if", &[pred], &[ty], &[vec![], vec![]]))?;
        let then = b.nested(blocks[0]);
        let loaded = self.mlir(then.value("llvm.load", &[addr], ty, &[("alignment", align)]))?;
        self.mlir(then.effect("scf.yield", &[loaded], &[]))?;
        let otherwise = b.nested(blocks[1]);
        let fallback = match &others {
            Some(o) if vec == 1 => o[0],
            Some(o) => {
                let mut v = self.mlir(otherwise.value("llvm.mlir.undef", &[], ty, &[]))?;
                for (i, &e) in o.iter().enumerate() {
                    let pos = self.mlir(otherwise.const_i32(i as i32))?;
                    v = self.mlir(otherwise.value("llvm.insertelement", &[v, e, pos], ty, &[]))?;
                }
                v
            }
            None => self.mlir(otherwise.value("llvm.mlir.zero", &[], ty, &[]))?,
        };
        self.mlir(otherwise.effect("scf.yield", &[fallback], &[]))?;
        let value = results[0];
        if vec == 1 {
            return Ok(vec![value]);
        }
        (0..vec)
            .map(|i| {
                let pos = self.i32c(i as i32)?;
                self.mlir(b.value("llvm.extractelement", &[value, pos], elem, &[]))
            })
            .collect()
    }

    /// Stores the `vec` elements `values` at `addr` where `pred` holds.
    pub(super) fn masked_store_amdgpu(
        &mut self,
        addr: Value<'c, 'a>,
        values: &[Value<'c, 'a>],
        pred: Value<'c, 'a>,
        dtype: DType,
        vec: usize,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(8);
        let elem = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported element type"))?;
        let value = if vec == 1 {
            values[0]
        } else {
            let vt = self.vector_type(elem, vec)?;
            let mut v = self.mlir(b.value("llvm.mlir.undef", &[], vt, &[]))?;
            for (i, &e) in values.iter().enumerate() {
                let pos = self.i32c(i as i32)?;
                v = self.mlir(b.value("llvm.insertelement", &[v, e, pos], vt, &[]))?;
            }
            v
        };
        let i64_type: Type = IntegerType::new(ctx, 64).into();
        let align = IntegerAttribute::new(i64_type, i64::from(bits / 8) * vec as i64).into();
        let (_, blocks) = self.mlir(b.region_op("scf.if", &[pred], &[], &[vec![], vec![]]))?;
        let then = b.nested(blocks[0]);
        self.mlir(then.effect("llvm.store", &[value, addr], &[("alignment", align)]))?;
        self.mlir(then.effect("scf.yield", &[], &[]))?;
        self.mlir(b.nested(blocks[1]).effect("scf.yield", &[], &[]))?;
        Ok(())
    }
}
