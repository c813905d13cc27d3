//! Passes and the pass manager.
//!
//! A [`Pass`] rewrites one function at a time. The [`PassManager`] runs its passes in
//! order over every function of a module and, in debug builds (or when asked), runs the
//! verifier after each pass so a pass that breaks the IR is named in the report.

use tritonc_diagnostics::Diagnostic;

use crate::function::{Function, Module};
use crate::verify::verify_function;

/// A transformation of one function.
pub trait Pass {
    /// A short kebab-case name (`dce`, `constant-folding`).
    fn name(&self) -> &'static str;

    /// Rewrites `func`; returns whether anything changed.
    fn run_on_function(&mut self, func: &mut Function) -> bool;
}

/// Runs passes in order, verifying after each in debug builds.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    verify_each: bool,
}

impl Default for PassManager {
    fn default() -> Self {
        PassManager::new()
    }
}

impl PassManager {
    /// An empty pipeline; verification after each pass is on in debug builds.
    pub fn new() -> Self {
        PassManager {
            passes: Vec::new(),
            verify_each: cfg!(debug_assertions),
        }
    }

    /// Appends a pass.
    // `add` reads as "add a pass" in a pipeline chain; it is not arithmetic.
    #[allow(clippy::should_implement_trait)]
    pub fn add(mut self, pass: impl Pass + 'static) -> Self {
        self.passes.push(Box::new(pass));
        self
    }

    /// Forces verification after each pass on or off.
    pub fn verify_each(mut self, on: bool) -> Self {
        self.verify_each = on;
        self
    }

    /// The pass names, in order.
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Runs every pass over every function. Stops at the first pass after which the
    /// verifier fails, returning its findings with a note naming the pass. Returns
    /// whether anything changed.
    pub fn run(&mut self, module: &mut Module) -> Result<bool, Vec<Diagnostic>> {
        let mut changed = false;
        for pass in &mut self.passes {
            for func in &mut module.functions {
                changed |= pass.run_on_function(func);
                if self.verify_each {
                    if let Err(errors) = verify_function(func) {
                        let note = format!("the IR was invalid after the `{}` pass", pass.name());
                        return Err(errors
                            .into_iter()
                            .map(|d| d.with_note(note.clone()))
                            .collect());
                    }
                }
            }
        }
        Ok(changed)
    }
}
