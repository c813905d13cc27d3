//! `tt.gdc_wait` and `tt.gdc_launch_dependents` (`tl.extra.cuda.gdc_wait()` /
//! `gdc_launch_dependents()`): PTX `griddepcontrol.wait;` and
//! `griddepcontrol.launch_dependents;` as side-effecting inline assembly, as Triton 3.6
//! emits them (`asm sideeffect`, so LLVM keeps them in place among the memory accesses).
//! Every thread executes them. `griddepcontrol` exists from sm_90 on: for an older target
//! the kernel is refused at the call (Triton 3.6 writes the PTX and fails in ptxas).

use tritonc_ir::{OpId, OpKind};

use super::function::FunctionLowering;
use super::LowerError;

/// The first target with `griddepcontrol`.
const GRID_DEP_CONTROL_SM: u32 = 90;

impl<'l, 'c, 'a> FunctionLowering<'l, 'c, 'a> {
    pub(super) fn lower_grid_dep_control(&mut self, op: OpId) -> Result<(), LowerError> {
        let (asm, call) = match self.func.kind(op) {
            OpKind::GdcWait => ("griddepcontrol.wait;", "tl.extra.cuda.gdc_wait()"),
            OpKind::GdcLaunchDependents => (
                "griddepcontrol.launch_dependents;",
                "tl.extra.cuda.gdc_launch_dependents()",
            ),
            k => unreachable!(
                "invariant: lower_grid_dep_control is called on `{}`",
                k.name()
            ),
        };
        if self.b.is_amd() {
            return Err(self.error(format!(
                "`{call}` is NVIDIA's grid dependency control (PTX `griddepcontrol`); AMD \
                 targets have none"
            )));
        }
        if self
            .requires_sm
            .as_ref()
            .is_none_or(|(sm, ..)| *sm < GRID_DEP_CONTROL_SM)
        {
            let span = self.func.op(op).loc.known_span();
            self.requires_sm = Some((
                GRID_DEP_CONTROL_SM,
                span,
                format!("`{call}` (PTX `griddepcontrol`)"),
            ));
        }
        self.inline_asm(asm, "", &[], None)?;
        Ok(())
    }
}
