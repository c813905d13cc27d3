//! The MLIR context set up for NVIDIA code generation.

use melior::{
    dialect::DialectRegistry,
    utility::{register_all_dialects, register_all_llvm_translations, register_all_passes},
    Context,
};

/// Dialects the kernel builders emit directly; passes load what else they need.
const EMITTED_DIALECTS: [&str; 6] = ["gpu", "llvm", "nvvm", "arith", "scf", "cf"];

/// Creates an MLIR context with every dialect, pass and LLVM IR translation registered.
///
/// Registering everything (rather than a hand-picked list) is what makes
/// `gpu-module-to-binary` find the NVVM target's serialization interface, which lives in
/// an extension, not in the `nvvm` dialect itself. Threading is off: one kernel is small,
/// and callers parallelize across kernels.
pub fn codegen_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new_with_registry(&registry, false);
    for dialect in EMITTED_DIALECTS {
        context.get_or_load_dialect(dialect);
    }
    register_all_llvm_translations(&context);
    register_all_passes();
    context
}
