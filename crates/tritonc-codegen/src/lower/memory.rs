//! Global loads and stores (vectorized, predicated); shared scratch is in `shared.rs`.
//!
//! Global loads are inline PTX in Triton's form on NVIDIA: an unmasked vector load is
//! `ld.global.v4.b32 {…}, [addr]`; a masked one first sets the destination words to
//! `other` (or 0), then `@p ld.global.v4.b32 {…}, [addr]` loads them only when the
//! predicate holds — no branch per element. (An `llvm.load` of `vector<vec x T>` would be
//! split by LLVM's InstCombine into one scalar load and address per element, merged back
//! only by NVPTX's late vectorizer; a loop body then looks several times larger to
//! LLVM's unroller than Triton's, so a short row loop that Triton's LLVM unrolls stays a
//! loop.) An unmasked scalar load and an unmasked store are `llvm.load`/`llvm.store`
//! (`vector<vec x T>` with its full alignment for stores); masked stores are
//! `@p st.global…`.

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute},
    r#type::IntegerType,
    Attribute, Type, Value,
};
use tritonc_ir::{DType, Elem, OpId};

use super::function::{dtype_type, FunctionLowering, Lowered};
use super::LowerError;
use crate::body::IntPredicate;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    fn pointee(&self, ptr: tritonc_ir::Value) -> Result<DType, LowerError> {
        match self.func.value_type(ptr).elem() {
            // Memory sees `i1` and fp8 as bytes.
            Elem::Ptr(p) if p.addr_space == 1 => Ok(p.pointee),
            _ => Err(self.error("loads and stores need global-memory pointers")),
        }
    }

    fn access_shape(&self, op: OpId, bits: u32) -> Result<u32, LowerError> {
        let _ = bits;
        Ok(self.layouts.access(op).map_or(1, |p| p.vector_width))
    }

    pub(super) fn lower_load(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let ptr_v = data.operands()[0];
        let n_operands = data.operands().len();
        let r = data.results()[0];
        let pointee = self.pointee(ptr_v)?;
        // `i1` lives in memory as one byte per element, as in Triton; fp8 is its byte.
        let dtype = as_bytes(pointee);
        let bits = dtype.bitwidth().unwrap_or(0);
        let vec = self.access_shape(op, bits)? as usize;
        let ptrs = self.operand(op, 0)?;
        let mask = if n_operands > 1 {
            Some(self.operand(op, 1)?)
        } else {
            None
        };
        let other = if n_operands > 2 {
            let o = self.operand(op, 2)?;
            Some(if pointee == DType::I1 {
                self.bytes_of_bools(o)?
            } else {
                o
            })
        } else {
            None
        };
        let mut regs = Vec::with_capacity(ptrs.regs.len());
        for g in (0..ptrs.regs.len()).step_by(vec) {
            let others: Option<Vec<Value<'c, 'a>>> = other
                .as_ref()
                .map(|o| (g..g + vec).map(|i| o.reg(i)).collect());
            let pred = mask.as_ref().map(|m| m.reg(g));
            let values = self.load_vector(ptrs.reg(g), pred, others, dtype, vec)?;
            regs.extend(values);
        }
        if pointee == DType::I1 {
            let b = self.b;
            let zero = self.mlir(b.value(
                "arith.constant",
                &[],
                IntegerType::new(b.context(), 8).into(),
                &[(
                    "value",
                    IntegerAttribute::new(IntegerType::new(b.context(), 8).into(), 0).into(),
                )],
            ))?;
            for r in regs.iter_mut() {
                *r = self.mlir(b.cmpi(IntPredicate::Ne, *r, zero))?;
            }
        }
        let lowered = if ptrs.scalar {
            Lowered::scalar(regs[0])
        } else {
            Lowered::block(regs)
        };
        self.values.insert(r, lowered);
        Ok(())
    }

    pub(super) fn lower_store(&mut self, op: OpId) -> Result<(), LowerError> {
        let data = self.func.op(op);
        let ptr_v = data.operands()[0];
        let n_operands = data.operands().len();
        let pointee = self.pointee(ptr_v)?;
        let dtype = as_bytes(pointee);
        let bits = dtype.bitwidth().unwrap_or(0);
        let vec = self.access_shape(op, bits)? as usize;
        let ptrs = self.operand(op, 0)?;
        let values = self.operand(op, 1)?;
        let values = if pointee == DType::I1 {
            self.bytes_of_bools(values)?
        } else {
            values
        };
        let mask = if n_operands > 2 {
            Some(self.operand(op, 2)?)
        } else {
            None
        };
        let owner = self.owner_predicate(op, 0, ptr_v)?;
        for g in (0..ptrs.regs.len()).step_by(vec) {
            let group: Vec<Value<'c, 'a>> = (g..g + vec).map(|i| values.reg(i)).collect();
            let pred = match (mask.as_ref().map(|m| m.reg(g)), owner) {
                (Some(m), Some(o)) => Some(self.mlir(self.b.binary("arith.andi", m, o))?),
                (m, o) => m.or(o),
            };
            self.store_vector(ptrs.reg(g), &group, pred, dtype, vec)?;
        }
        Ok(())
    }

    /// `i1` registers widened to the byte they are stored as (0 or 1).
    fn bytes_of_bools(&self, l: Lowered<'c, 'a>) -> Result<Lowered<'c, 'a>, LowerError> {
        let i8t: Type = IntegerType::new(self.b.context(), 8).into();
        let mut regs = Vec::with_capacity(l.regs.len());
        for &r in &l.regs {
            regs.push(self.mlir(self.b.value("arith.extui", &[r], i8t, &[]))?);
        }
        Ok(Lowered {
            regs,
            scalar: l.scalar,
        })
    }

    /// The predicate "this thread owns the elements it stores": threads holding replicas
    /// (lane or warp bits whose layout basis is zero) and, for a scalar store, every
    /// thread but thread 0 stay quiet, as in Triton. `None` when every thread owns its
    /// elements.
    pub(super) fn owner_predicate(
        &mut self,
        op: OpId,
        operand: usize,
        ptr: tritonc_ir::Value,
    ) -> Result<Option<Value<'c, 'a>>, LowerError> {
        let (lane_bits, warp_bits) = if self.func.value_type(ptr).is_tensor() {
            let layout = self
                .layouts
                .operand_layout(self.func, op, operand)
                .ok_or_else(|| self.error("stored pointers without a layout"))?
                .clone();
            let linear = self.linear_of(ptr, &layout)?;
            let zero_bits = |bases: &[Vec<u64>]| -> u32 {
                bases
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.iter().all(|&x| x == 0))
                    .map(|(i, _)| 1u32 << i)
                    .sum()
            };
            (zero_bits(&linear.lanes), zero_bits(&linear.warps))
        } else {
            (self.b.warp_size() - 1, u32::MAX >> 1)
        };
        if lane_bits == 0 && warp_bits == 0 {
            return Ok(None);
        }
        let (warp, lane) = self.warp_lane()?;
        let b = self.b;
        let zero = self.i32c(0)?;
        let mut pred: Option<Value<'c, 'a>> = None;
        for (bits, id) in [(lane_bits, lane), (warp_bits, warp)] {
            if bits == 0 {
                continue;
            }
            let m = self.i32c(bits as i32)?;
            let masked = self.mlir(b.binary("arith.andi", id, m))?;
            let is_zero = self.mlir(b.cmpi(IntPredicate::Eq, masked, zero))?;
            pred = Some(match pred {
                None => is_zero,
                Some(p) => self.mlir(b.binary("arith.andi", p, is_zero))?,
            });
        }
        Ok(pred)
    }

    pub(super) fn i32c(&self, v: i32) -> Result<Value<'c, 'a>, LowerError> {
        self.mlir(self.b.const_i32(v))
    }

    pub(super) fn vector_type(&self, elem: Type<'c>, n: usize) -> Result<Type<'c>, LowerError> {
        Type::parse(self.b.context(), &format!("vector<{n}x{elem}>"))
            .ok_or_else(|| self.error(format!("cannot form vector<{n}x{elem}>")))
    }

    /// Packs `elems` (of `dtype`) into one `word_bits` integer.
    fn pack(
        &self,
        elems: &[Value<'c, 'a>],
        dtype: DType,
        word_bits: u32,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let word: Type = IntegerType::new(ctx, word_bits).into();
        let elem = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported element type"))?;
        let source = if elems.len() == 1 {
            elems[0]
        } else {
            let vt = self.vector_type(elem, elems.len())?;
            let mut v = self.mlir(b.value("llvm.mlir.undef", &[], vt, &[]))?;
            for (i, &e) in elems.iter().enumerate() {
                let pos = self.i32c(i as i32)?;
                v = self.mlir(b.value("llvm.insertelement", &[v, e, pos], vt, &[]))?;
            }
            v
        };
        if elems.len() == 1 && dtype.is_int() {
            return Ok(source);
        }
        self.mlir(b.value("llvm.bitcast", &[source], word, &[]))
    }

    /// Splits one `word_bits` integer into `k` elements of `dtype`.
    fn unpack(
        &self,
        word: Value<'c, 'a>,
        dtype: DType,
        k: usize,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let elem =
            dtype_type(b.context(), dtype).ok_or_else(|| self.error("unsupported element type"))?;
        if k == 1 {
            if dtype.is_int() {
                return Ok(vec![word]);
            }
            return Ok(vec![self.mlir(b.value(
                "llvm.bitcast",
                &[word],
                elem,
                &[],
            ))?]);
        }
        let vt = self.vector_type(elem, k)?;
        let v = self.mlir(b.value("llvm.bitcast", &[word], vt, &[]))?;
        (0..k)
            .map(|i| {
                let pos = self.i32c(i as i32)?;
                self.mlir(b.value("llvm.extractelement", &[v, pos], elem, &[]))
            })
            .collect()
    }

    /// The word size of a predicated access of `vec` elements of `bits`.
    fn word_bits(&self, bits: u32, vec: usize) -> Result<(u32, usize), LowerError> {
        let total = bits * vec as u32;
        let word = if bits >= 32 { bits } else { total.min(32) };
        Ok((word, (total / word) as usize))
    }

    pub(super) fn inline_asm(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[Value<'c, 'a>],
        result: Option<Type<'c>>,
    ) -> Result<Option<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        // The dialect (AT&T, the default) is left implicit.
        let attrs: [(&str, Attribute<'c>); 3] = [
            ("asm_string", StringAttribute::new(ctx, asm).into()),
            ("constraints", StringAttribute::new(ctx, constraints).into()),
            ("has_side_effects", Attribute::unit(ctx)),
        ];
        match result {
            Some(ty) => Ok(Some(self.mlir(b.value(
                "llvm.inline_asm",
                operands,
                ty,
                &attrs,
            ))?)),
            None => {
                self.mlir(b.effect("llvm.inline_asm", operands, &attrs))?;
                Ok(None)
            }
        }
    }

    /// Inline PTX without side effects (LLVM may move, merge or drop it like any pure
    /// computation): `mma.sync`.
    pub(super) fn pure_asm(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[Value<'c, 'a>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        let ctx = self.b.context();
        let attrs: [(&str, Attribute<'c>); 2] = [
            ("asm_string", StringAttribute::new(ctx, asm).into()),
            ("constraints", StringAttribute::new(ctx, constraints).into()),
        ];
        self.mlir(self.b.value("llvm.inline_asm", operands, result, &attrs))
    }

    /// Inline PTX with one result.
    pub(super) fn inline_asm_value(
        &self,
        asm: &str,
        constraints: &str,
        operands: &[Value<'c, 'a>],
        result: Type<'c>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        Ok(self
            .inline_asm(asm, constraints, operands, Some(result))?
            .expect("invariant: inline_asm with a result type returns a value"))
    }

    fn load_vector(
        &mut self,
        addr: Value<'c, 'a>,
        pred: Option<Value<'c, 'a>>,
        others: Option<Vec<Value<'c, 'a>>>,
        dtype: DType,
        vec: usize,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(8);
        let elem = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported element type"))?;
        let Some(pred) = pred else {
            if !b.is_amd() && vec > 1 {
                return self.load_asm(addr, None, others, dtype, vec);
            }
            let ty = if vec == 1 {
                elem
            } else {
                self.vector_type(elem, vec)?
            };
            let i64_type: Type = IntegerType::new(ctx, 64).into();
            let align = IntegerAttribute::new(i64_type, i64::from(bits / 8) * vec as i64).into();
            let v = self.mlir(b.value("llvm.load", &[addr], ty, &[("alignment", align)]))?;
            if vec == 1 {
                return Ok(vec![v]);
            }
            return (0..vec)
                .map(|i| {
                    let pos = self.i32c(i as i32)?;
                    self.mlir(b.value("llvm.extractelement", &[v, pos], elem, &[]))
                })
                .collect();
        };
        if b.is_amd() {
            return self.masked_load_amdgpu(addr, pred, others, dtype, vec);
        }
        self.load_asm(addr, Some(pred), others, dtype, vec)
    }

    /// `[@p] ld.global.vN.bW` as inline PTX (Triton's form): with a predicate, the words
    /// are first set to `other` (or 0).
    fn load_asm(
        &mut self,
        addr: Value<'c, 'a>,
        pred: Option<Value<'c, 'a>>,
        others: Option<Vec<Value<'c, 'a>>>,
        dtype: DType,
        vec: usize,
    ) -> Result<Vec<Value<'c, 'a>>, LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(8);
        let (word_bits, nwords) = self.word_bits(bits, vec)?;
        let per_word = vec / nwords;
        let word: Type = IntegerType::new(ctx, word_bits).into();
        let letter = constraint_letter(word_bits);
        let mut initial = Vec::new();
        for w in 0..nwords * usize::from(pred.is_some()) {
            initial.push(match &others {
                Some(o) => self.pack(&o[w * per_word..(w + 1) * per_word], dtype, word_bits)?,
                None => {
                    let zero = IntegerAttribute::new(word, 0).into();
                    self.mlir(b.value("arith.constant", &[], word, &[("value", zero)]))?
                }
            });
        }
        let outs: Vec<String> = (0..nwords).map(|i| format!("${i}")).collect();
        let mut asm = String::new();
        for i in 0..nwords * usize::from(pred.is_some()) {
            asm.push_str(&format!(
                "mov.b{} ${i}, ${};\n\t",
                word_bits.max(16),
                nwords + 2 + i
            ));
        }
        let width = if nwords > 1 {
            format!(".v{nwords}")
        } else {
            String::new()
        };
        let guard = if pred.is_some() {
            format!("@${} ", nwords + 1)
        } else {
            String::new()
        };
        asm.push_str(&format!(
            "{guard}ld.global{width}.b{word_bits} {{ {} }}, [ ${} + 0 ];",
            outs.join(", "),
            nwords
        ));
        let mut constraints: Vec<String> = (0..nwords).map(|_| format!("={letter}")).collect();
        constraints.push("l".into());
        let mut operands = vec![addr];
        if let Some(pred) = pred {
            constraints.push("b".into());
            constraints.extend((0..nwords).map(|_| letter.to_string()));
            operands.push(pred);
            operands.extend(initial);
        }
        let result_ty = if nwords == 1 {
            word
        } else {
            let fields = vec![word.to_string(); nwords].join(", ");
            Type::parse(ctx, &format!("!llvm.struct<({fields})>"))
                .ok_or_else(|| self.error("cannot form the inline-asm result struct"))?
        };
        let result = self
            .inline_asm(&asm, &constraints.join(","), &operands, Some(result_ty))?
            .expect("invariant: inline_asm with a result type returns a value");
        let mut out = Vec::with_capacity(vec);
        for w in 0..nwords {
            let word_value = if nwords == 1 {
                result
            } else {
                let pos = DenseI64ArrayAttribute::new(ctx, &[w as i64]).into();
                self.mlir(b.value("llvm.extractvalue", &[result], word, &[("position", pos)]))?
            };
            out.extend(self.unpack(word_value, dtype, per_word)?);
        }
        Ok(out)
    }

    fn store_vector(
        &mut self,
        addr: Value<'c, 'a>,
        values: &[Value<'c, 'a>],
        pred: Option<Value<'c, 'a>>,
        dtype: DType,
        vec: usize,
    ) -> Result<(), LowerError> {
        let b = self.b;
        let ctx = b.context();
        let bits = dtype.bitwidth().unwrap_or(8);
        let elem = dtype_type(ctx, dtype).ok_or_else(|| self.error("unsupported element type"))?;
        let Some(pred) = pred else {
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
            self.mlir(b.effect("llvm.store", &[value, addr], &[("alignment", align)]))?;
            return Ok(());
        };
        if b.is_amd() {
            return self.masked_store_amdgpu(addr, values, pred, dtype, vec);
        }
        let (word_bits, nwords) = self.word_bits(bits, vec)?;
        let per_word = vec / nwords;
        let letter = constraint_letter(word_bits);
        let mut operands = vec![addr, pred];
        for w in 0..nwords {
            operands.push(self.pack(
                &values[w * per_word..(w + 1) * per_word],
                dtype,
                word_bits,
            )?);
        }
        let ins: Vec<String> = (0..nwords).map(|i| format!("${}", i + 2)).collect();
        let width = if nwords > 1 {
            format!(".v{nwords}")
        } else {
            String::new()
        };
        let asm = format!(
            "@$1 st.global{width}.b{word_bits} [ $0 + 0 ], {{ {} }};",
            ins.join(", ")
        );
        let mut constraints = vec!["l".to_string(), "b".to_string()];
        constraints.extend((0..nwords).map(|_| letter.to_string()));
        self.inline_asm(&asm, &constraints.join(","), &operands, None)?;
        Ok(())
    }
}

/// The dtype a load or store moves: `i1` and fp8 as `i8` (the same bytes).
fn as_bytes(d: DType) -> DType {
    match d {
        DType::I1 | DType::F8E4M3FN | DType::F8E5M2 => DType::I8,
        d => d,
    }
}

/// The inline-asm register constraint of an integer word: `c` (8-bit), `h`, `r`, `l`.
pub(super) fn constraint_letter(bits: u32) -> &'static str {
    match bits {
        8 => "c",
        16 => "h",
        32 => "r",
        _ => "l",
    }
}
