//! The verifier: structural invariants (regions, terminators, dominance) and per-op type
//! rules. A failure is a compiler bug, never a user error, so every finding is an
//! [`INVALID_IR`] diagnostic at the op's source span.
//!
//! Generic-mode types are checked permissively: a symbolic or unknown dim matches any dim
//! and a dtype variable matches any dtype and passes every dtype-class check.

mod rules;

use tritonc_diagnostics::{Code, Diagnostic};

use crate::function::{BlockId, Function, Module, OpId, RegionId, Value};
use crate::ops::OpKind;
use crate::types::{Dim, Type, MAX_TENSOR_NUMEL};

/// The code of verifier findings: the IR broke an invariant (an internal error).
pub const INVALID_IR: Code = Code("E0900");

/// Checks every function of a module.
pub fn verify_module(module: &Module) -> Result<(), Vec<Diagnostic>> {
    let errors: Vec<Diagnostic> = module
        .functions
        .iter()
        .filter_map(|f| verify_function(f).err())
        .flatten()
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Checks one function.
pub fn verify_function(func: &Function) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier {
        f: func,
        errors: Vec::new(),
        visible: vec![false; func.num_values()],
    };
    v.check_signature();
    let body = func.body();
    v.check_region(body, None);
    for op in func.walk() {
        rules::check_op(&mut v, op);
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

/// Verification state for one function.
pub(crate) struct Verifier<'a> {
    pub(crate) f: &'a Function,
    errors: Vec<Diagnostic>,
    /// Which values are in scope at the op being checked (the dominance walk).
    visible: Vec<bool>,
}

impl Verifier<'_> {
    /// Records a finding at `op`.
    pub(crate) fn err(&mut self, op: OpId, msg: impl Into<String>) {
        let data = self.f.op(op);
        let message = format!(
            "invalid IR in @{}: `{}` {}",
            self.f.name,
            data.kind.name(),
            msg.into()
        );
        let mut d = Diagnostic::error(INVALID_IR, message);
        if let Some(span) = data.loc.known_span() {
            d = d.with_primary(span, "");
            for &c in &data.loc.call_sites {
                d = d.with_secondary(c, "inlined from this call");
            }
        }
        self.errors.push(d);
    }

    fn err_func(&mut self, msg: impl Into<String>) {
        let mut d = Diagnostic::error(
            INVALID_IR,
            format!("invalid IR in @{}: {}", self.f.name, msg.into()),
        );
        if let Some(span) = self.f.loc.known_span() {
            d = d.with_primary(span, "");
        }
        self.errors.push(d);
    }

    fn check_signature(&mut self) {
        let f = self.f;
        if f.arg_attrs.len() != f.args().len() {
            self.err_func("argument attribute count differs from the argument count");
        }
        for &a in f.args() {
            if let Err(m) = check_type(f.value_type(a)) {
                self.err_func(format!("argument type {}: {m}", f.value_type(a)));
            }
        }
    }

    /// Checks block structure, terminators and scoping of `region`, owned by `owner`.
    fn check_region(&mut self, region: RegionId, owner: Option<OpId>) {
        let f = self.f;
        let blocks = f.region(region).blocks();
        if blocks.len() != 1 {
            let msg = format!(
                "region has {} blocks; structured regions have exactly one",
                blocks.len()
            );
            match owner {
                Some(op) => self.err(op, msg),
                None => self.err_func(msg),
            }
            if blocks.is_empty() {
                return;
            }
        }
        for &b in blocks {
            self.check_block(b, owner);
        }
    }

    fn check_block(&mut self, block: BlockId, owner: Option<OpId>) {
        let f = self.f;
        // Scoping: values become visible when defined and stop being visible when their
        // block ends; `undo` remembers what to hide again.
        let mut undo: Vec<Value> = Vec::new();
        let isolated =
            owner.is_some_and(|o| matches!(f.kind(o), OpKind::Reduce { .. } | OpKind::Scan { .. }));
        let saved =
            isolated.then(|| std::mem::replace(&mut self.visible, vec![false; f.num_values()]));
        for &a in f.block(block).args() {
            self.visible[a.index()] = true;
            undo.push(a);
        }
        let ops = f.block(block).ops();
        if ops.is_empty() {
            match owner {
                Some(op) => self.err(op, "has a region without a terminator"),
                None => self.err_func("body has no `tt.return`"),
            }
        }
        for (i, &op) in ops.iter().enumerate() {
            let data = f.op(op);
            if data.is_erased() {
                self.err(op, "is erased but still in a block");
                continue;
            }
            if data.parent() != Some(block) {
                self.err(op, "has a wrong parent block");
            }
            for (k, &v) in data.operands().iter().enumerate() {
                if v.index() >= self.visible.len() || !self.visible[v.index()] {
                    self.err(
                        op,
                        format!("operand {k} is not defined before its use in scope"),
                    );
                }
            }
            let last = i + 1 == ops.len();
            if data.kind.is_terminator() && !last {
                self.err(op, "is a terminator but not the last op of its block");
            }
            if last && !data.kind.is_terminator() {
                self.err(op, "ends a block but is not a terminator");
            }
            if data.regions().len() != data.kind.num_regions() {
                self.err(
                    op,
                    format!(
                        "has {} regions, expected {}",
                        data.regions().len(),
                        data.kind.num_regions()
                    ),
                );
            }
            for &r in data.regions() {
                if self.f.region(r).parent() != Some(op) {
                    self.err(op, "owns a region whose parent is another op");
                }
                self.check_region(r, Some(op));
            }
            for &r in data.results() {
                self.visible[r.index()] = true;
                undo.push(r);
            }
        }
        for v in undo {
            self.visible[v.index()] = false;
        }
        if let Some(saved) = saved {
            self.visible = saved;
        }
    }
}

/// Checks a type on its own: ranks, power-of-two dims, the element limit.
pub(crate) fn check_type(ty: &Type) -> Result<(), String> {
    if let Type::MemDesc(m) = ty {
        // A buffer's dims are a block's (powers of two); the buffer count is any number.
        if m.buffer_shape().iter().any(|d| !d.is_power_of_two()) || m.shape.contains(&0) {
            return Err("shared buffer dims must be powers of two".into());
        }
        return m.layout.check(m.buffer_shape());
    }
    if let (Some(l), Some(shape)) = (ty.encoding(), ty.known_shape()) {
        l.to_linear(&shape).map_err(|e| e.to_string())?;
    }
    if let Type::Tensor { shape, .. } = ty {
        if shape.is_empty() {
            return Err("a block must have rank >= 1".into());
        }
        for d in shape {
            if let Dim::Known(n) = d {
                if !n.is_power_of_two() {
                    return Err(format!("dim {n} is not a power of two"));
                }
            }
        }
        if let Some(n) = ty.numel() {
            if n > MAX_TENSOR_NUMEL {
                return Err(format!(
                    "{n} elements exceed the limit of {MAX_TENSOR_NUMEL}"
                ));
            }
        } else if shape.iter().all(|d| d.known().is_some()) {
            return Err("element count overflows".into());
        }
    }
    Ok(())
}
