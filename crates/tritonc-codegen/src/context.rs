//! The MLIR context set up for NVIDIA code generation.

use std::sync::Once;

use melior::{dialect::DialectRegistry, Context};

/// Dialects the kernel builders emit directly; passes load what else they need.
const EMITTED_DIALECTS: [&str; 6] = ["gpu", "llvm", "nvvm", "arith", "scf", "cf"];

extern "C" {
    /// cpp/registration.cpp: the dialects above plus `ub`, their conversion-to-LLVM
    /// interfaces and the LLVM IR translations.
    fn tritoncRegisterNvvmDialects(registry: mlir_sys::MlirDialectRegistry);
    /// cpp/registration.cpp: the passes of [`crate::nvvm_pipeline`].
    fn tritoncRegisterNvvmPasses();
}

/// Creates an MLIR context with exactly the dialects, interfaces, translations and passes
/// the NVIDIA pipeline uses.
///
/// Not MLIR's "register everything": that also registers every dialect extension (each
/// runs when its dialect loads) and, in a static link, pulls in every LLVM target with
/// its static constructors: several milliseconds of every `tritonc compile`. If the
/// pipeline gains a pass or the builders a dialect, cpp/registration.cpp must list it;
/// the golden tests fail otherwise (an unregistered pass does not parse, an op without
/// its conversion interface is left unconverted).
///
/// Threading is off: one kernel is small, and callers parallelize across kernels.
pub fn codegen_context() -> Context {
    let registry = DialectRegistry::new();
    // SAFETY: `registry` is a live registry owned by this function; the callee only
    // inserts into it.
    unsafe { tritoncRegisterNvvmDialects(registry.to_raw()) };
    let context = Context::new_with_registry(&registry, false);
    for dialect in EMITTED_DIALECTS {
        context.get_or_load_dialect(dialect);
    }
    register_passes();
    context
}

/// Registers the pipeline's passes once per process (MLIR's pass registry is global).
fn register_passes() {
    static PASSES: Once = Once::new();
    // SAFETY: registration only inserts into MLIR's global pass registry; `Once` keeps it
    // from running twice (MLIR asserts against duplicate registration in debug builds).
    PASSES.call_once(|| unsafe { tritoncRegisterNvvmPasses() });
}
