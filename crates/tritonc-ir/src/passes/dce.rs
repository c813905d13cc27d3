//! Dead-code elimination: removes ops whose results are unused and that have no effects.

use crate::function::{Function, OpId};
use crate::pass::Pass;

/// Removes unused side-effect-free ops, including `scf.for`/`scf.if` whose bodies have
/// no effects and whose results are unused.
#[derive(Debug, Default, Clone, Copy)]
pub struct DeadCodeElimination;

/// Whether erasing `op` (and its regions) could change behaviour beyond its results.
fn has_effects(f: &Function, op: OpId) -> bool {
    let own = f.kind(op);
    // Terminators only route values within the op being judged.
    (own.has_side_effects() && !own.is_terminator())
        || f.walk_nested(op).into_iter().any(|o| {
            let k = f.kind(o);
            k.has_side_effects() && !k.is_terminator()
        })
}

fn is_dead(f: &Function, op: OpId) -> bool {
    let data = f.op(op);
    !data.is_erased()
        && data.parent().is_some()
        && !data.kind.is_terminator()
        && data.results().iter().all(|&r| !f.has_uses(r))
        && !has_effects(f, op)
}

impl Pass for DeadCodeElimination {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run_on_function(&mut self, f: &mut Function) -> bool {
        let mut changed = false;
        loop {
            let mut erased_any = false;
            // Reverse pre-order visits users before the values they use.
            for op in f.walk().into_iter().rev() {
                if is_dead(f, op) {
                    f.erase_op(op);
                    erased_any = true;
                }
            }
            if !erased_any {
                return changed;
            }
            changed = true;
        }
    }
}
