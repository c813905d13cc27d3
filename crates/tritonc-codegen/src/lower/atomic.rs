//! `tt.atomic_rmw` and `tt.atomic_cas`: one predicated `atom.global` per element, as
//! inline PTX with the op's memory ordering and scope (`atom.global.acq_rel.gpu.add.f32`).
//!
//! Only the owner of an element performs its atomic (threads holding replicas, and for
//! a scalar atomic every thread but thread 0, stay quiet, as for stores). A scalar
//! atomic's old value is broadcast to every thread through shared memory when it is
//! used; a block atomic whose layout has replicas and whose result is used is refused.

use melior::ir::{Type, Value};
use tritonc_ir::{DType, MemScope, MemSemantic, OpId, OpKind, RmwOp};

use super::function::{FunctionLowering, Lowered};
use super::memory::constraint_letter;
use super::shared::storage_bytes;
use super::LowerError;

fn sem_word(sem: MemSemantic) -> &'static str {
    match sem {
        MemSemantic::Relaxed => "relaxed",
        MemSemantic::Acquire => "acquire",
        MemSemantic::Release => "release",
        MemSemantic::AcqRel => "acq_rel",
    }
}

fn scope_word(scope: MemScope) -> &'static str {
    match scope {
        MemScope::Gpu => "gpu",
        MemScope::Cta => "cta",
        MemScope::Sys => "sys",
    }
}

/// The `atom` operation and type suffix of `op` on `dtype`.
fn rmw_suffix(op: RmwOp, dtype: DType) -> Option<String> {
    let bits = dtype.bitwidth()?;
    let int = |signed: bool| {
        if signed {
            format!("s{bits}")
        } else {
            format!("u{bits}")
        }
    };
    Some(match (op, dtype) {
        (RmwOp::FAdd, DType::F32) => "add.f32".into(),
        (RmwOp::FAdd, DType::F64) => "add.f64".into(),
        (RmwOp::FAdd, DType::F16) => "add.noftz.f16".into(),
        (RmwOp::FAdd, DType::BF16) => "add.noftz.bf16".into(),
        (RmwOp::FAdd, _) => return None,
        _ if !dtype.is_int() || bits < 32 => return None,
        (RmwOp::Add, _) => format!("add.u{bits}"),
        (RmwOp::Max, _) => format!("max.{}", int(true)),
        (RmwOp::Min, _) => format!("min.{}", int(true)),
        (RmwOp::UMax, _) => format!("max.{}", int(false)),
        (RmwOp::UMin, _) => format!("min.{}", int(false)),
        (RmwOp::And, _) => format!("and.b{bits}"),
        (RmwOp::Or, _) => format!("or.b{bits}"),
        (RmwOp::Xor, _) => format!("xor.b{bits}"),
        (RmwOp::Xchg, _) => format!("exch.b{bits}"),
    })
}

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_atomic(&mut self, op: OpId) -> Result<(), LowerError> {
        let kind = self.func.kind(op).clone();
        let data = self.func.op(op);
        let ptr_v = data.operands()[0];
        let n_operands = data.operands().len();
        let r = data.results()[0];
        let dtype = self
            .func
            .value_type(r)
            .dtype()
            .ok_or_else(|| self.error("atomics on pointers are not supported"))?;
        let (head, value_count, mask_index) = match kind {
            OpKind::AtomicRmw {
                op: rmw,
                sem,
                scope,
            } => {
                let suffix = rmw_suffix(rmw, dtype).ok_or_else(|| {
                    self.error(format!(
                        "atomic `{rmw}` on `{dtype}` is not supported by the NVIDIA back end"
                    ))
                })?;
                let head = format!(
                    "atom.global.{}.{}.{suffix}",
                    sem_word(sem),
                    scope_word(scope)
                );
                (head, 1, 2)
            }
            OpKind::AtomicCas { sem, scope } => {
                let bits = dtype.bitwidth().unwrap_or(0);
                if bits < 16 {
                    return Err(self.error("atomic_cas needs 16-, 32- or 64-bit elements"));
                }
                let head = format!(
                    "atom.global.{}.{}.cas.b{bits}",
                    sem_word(sem),
                    scope_word(scope)
                );
                (head, 2, usize::MAX)
            }
            _ => unreachable!("invariant: lower_atomic is called on atomics"),
        };
        let ptrs = self.operand(op, 0)?;
        let mut values = Vec::new();
        for i in 0..value_count {
            values.push(self.operand(op, 1 + i)?);
        }
        let mask = if mask_index < n_operands {
            Some(self.operand(op, mask_index)?)
        } else {
            None
        };
        let owner = self.owner_predicate(op, 0, ptr_v)?;
        let used = self.func.has_uses(r);
        let scalar = ptrs.scalar;
        if used && !scalar && owner.is_some() {
            return Err(self.error(
                "the old values of a block atomic over replicated elements are not supported yet",
            ));
        }
        let bits = dtype.bitwidth().unwrap_or(32);
        let letter = match dtype {
            DType::F32 => "f",
            DType::F64 => "d",
            _ => constraint_letter(bits),
        };
        let ty = self.elem_type(r)?;
        let b = self.b;
        let mut out = Vec::with_capacity(ptrs.regs.len());
        for i in 0..ptrs.regs.len() {
            let pred = match (mask.as_ref().map(|m| m.reg(i)), owner) {
                (Some(m), Some(o)) => Some(self.mlir(b.binary("arith.andi", m, o))?),
                (m, o) => m.or(o),
            };
            let mut operands: Vec<Value<'c, 'a>> = vec![ptrs.reg(i)];
            operands.extend(values.iter().map(|v| v.reg(i)));
            // $0 is the old value, $1 the address, then the predicate (if any), then the
            // operands of the atomic.
            let first_value = if pred.is_some() { 3 } else { 2 };
            let ins: Vec<String> = (0..value_count)
                .map(|k| format!("${}", k + first_value))
                .collect();
            let value_constraints = format!(",{letter}").repeat(value_count);
            let (asm, constraints) = match pred {
                Some(p) => {
                    operands.insert(1, p);
                    (
                        format!("@$2 {head} $0, [ $1 + 0 ], {};", ins.join(", ")),
                        format!("={letter},l,b{value_constraints}"),
                    )
                }
                None => (
                    format!("{head} $0, [ $1 + 0 ], {};", ins.join(", ")),
                    format!("={letter},l{value_constraints}"),
                ),
            };
            out.push(self.inline_asm_value(&asm, &constraints, &operands, ty)?);
        }
        let lowered = if scalar {
            let v = out[0];
            let v = if used && owner.is_some() {
                self.broadcast_from_thread_zero(v, ty)?
            } else {
                v
            };
            Lowered::scalar(v)
        } else {
            Lowered::block(out)
        };
        self.values.insert(r, lowered);
        Ok(())
    }

    /// Thread 0's `v`, in every thread (through shared memory).
    fn broadcast_from_thread_zero(
        &mut self,
        v: Value<'c, 'a>,
        ty: Type<'c>,
    ) -> Result<Value<'c, 'a>, LowerError> {
        self.claim_shared(storage_bytes(ty))?;
        let (warp, lane) = self.warp_lane()?;
        let b = self.b;
        let tid = self.mlir(b.binary("arith.ori", warp, lane))?;
        let zero = self.mlir(b.const_i32(0))?;
        let first = self.mlir(b.cmpi(crate::body::IntPredicate::Eq, tid, zero))?;
        let slot = self.shared_slot(ty, 0, 0, None)?;
        self.mlir(b.if_else(
            first,
            &[],
            |then| {
                then.store(v, slot)?;
                Ok(Vec::new())
            },
            |_| Ok(Vec::new()),
        ))?;
        self.mlir(b.barrier())?;
        let got = self.mlir(b.load(slot, ty))?;
        Ok(got)
    }
}
