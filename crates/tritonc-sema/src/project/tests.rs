//! Cross-file resolution over an in-memory project.

use std::collections::HashMap;
use std::sync::Arc;

use tritonc_diagnostics::{Diagnostic, FileId, Span};
use tritonc_syntax::discover;

use super::{absolute, LoadedModule, ModuleLoader, Project};
use crate::generic::{lower_kernel_generic, PartialSpecialization};
use crate::spec::{bind_signature, parse_signature, LaunchOptions};
use crate::{lower_kernel_in, ModuleScope};

/// Modules by dotted name, each its own file (`FileId` = position + 1; the kernel file
/// is `FileId(0)`).
struct MemoryLoader {
    modules: HashMap<String, Arc<LoadedModule>>,
}

impl ModuleLoader for MemoryLoader {
    fn load(&self, dotted: &str) -> Option<Arc<LoadedModule>> {
        self.modules.get(dotted).cloned()
    }
}

fn module(file: FileId, name: &str, is_package: bool, src: &str) -> LoadedModule {
    let parsed = tritonc_syntax::parse_module(file, src);
    assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
    LoadedModule {
        name: name.to_string(),
        is_package,
        index: discover(&parsed.module),
    }
}

/// The kernel file `root` (module `root_name`) in a project of `others`.
fn project_scope(root_name: &str, root: &str, others: &[(&str, bool, &str)]) -> ModuleScope {
    let mut modules = HashMap::new();
    for (i, (name, pkg, src)) in others.iter().enumerate() {
        let m = module(FileId(i as u32 + 1), name, *pkg, src);
        modules.insert(name.to_string(), Arc::new(m));
    }
    let project = Project::new(MemoryLoader { modules });
    let root = module(FileId(0), root_name, false, root);
    project.root_scope(&root.index, root_name, false)
}

const SIG_FILE: FileId = FileId(99);

fn lower(scope: &ModuleScope, kernel: &str, sig: &str) -> Result<tritonc_ir::Module, Diagnostic> {
    let def = scope.functions.get(kernel).expect("kernel exists").clone();
    let items = parse_signature(sig, SIG_FILE).map_err(|mut d| d.remove(0))?;
    let spec = bind_signature(
        &def,
        &items,
        &[],
        LaunchOptions::default(),
        Span::new(SIG_FILE, 0, sig.len() as u32),
    )
    .map_err(|mut d| d.remove(0))?;
    lower_kernel_in(scope, kernel, &spec)
        .map(|l| l.module)
        .map_err(|mut d| d.remove(0))
}

/// The files the kernel's ops point into.
fn op_files(m: &tritonc_ir::Module) -> Vec<u32> {
    let f = &m.functions[0];
    let mut files: Vec<u32> = f
        .walk()
        .iter()
        .map(|&op| f.op(op).loc.span.file.0)
        .collect();
    files.sort();
    files.dedup();
    files
}

const OPS: &str = "\
import triton
import triton.language as tl

SCALE = tl.constexpr(2)

@triton.jit
def _square(x):
    return x * x

@triton.jit
def scaled(x):
    return _square(x) * SCALE
";

const KERNEL_ABS: &str = "\
import triton
import triton.language as tl
from pkg.ops import scaled

@triton.jit
def k(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(Y + offs, scaled(tl.load(X + offs)))
";

#[test]
fn absolute_import_inlines_with_the_helpers_own_scope_and_file() {
    let scope = project_scope(
        "pkg.kernels",
        KERNEL_ABS,
        &[("pkg", true, ""), ("pkg.ops", false, OPS)],
    );
    let m = lower(&scope, "k", "*fp32, *fp32, 64").expect("lowers");
    // The helper's `_square` and `SCALE` are found in its module, not the kernel's; its
    // ops point into its file (`FileId(2)`).
    assert_eq!(op_files(&m), vec![0, 2]);
    let ir = tritonc_ir::print_module(&m, tritonc_ir::PrintOptions::default());
    assert!(ir.contains("arith.mulf"), "{ir}");
}

#[test]
fn relative_imports_climb_from_the_importing_module() {
    let kernel = KERNEL_ABS.replace("from pkg.ops import scaled", "from ..ops import scaled");
    let scope = project_scope(
        "pkg.sub.kernels",
        &kernel,
        &[
            ("pkg", true, ""),
            ("pkg.sub", true, ""),
            ("pkg.ops", false, OPS),
        ],
    );
    assert_eq!(
        op_files(&lower(&scope, "k", "*fp32, *fp32, 64").unwrap()),
        vec![0, 3]
    );
    assert_eq!(
        absolute(".ops", "pkg.mod", false).as_deref(),
        Some("pkg.ops")
    );
    assert_eq!(absolute(".ops", "pkg", true).as_deref(), Some("pkg.ops"));
    assert_eq!(
        absolute("..ops.f", "a.b.c", false).as_deref(),
        Some("a.ops.f")
    );
    assert_eq!(absolute("...x", "a.b", false), None);
}

#[test]
fn module_imports_and_reexports_through_a_package() {
    // `import pkg.ops as ops; ops.scaled(...)` and `from pkg import scaled` where
    // `pkg/__init__.py` re-exports it relatively.
    let kernel = KERNEL_ABS
        .replace(
            "from pkg.ops import scaled",
            "import pkg.ops as ops\nfrom pkg import scaled as s2",
        )
        .replace(
            "scaled(tl.load(X + offs))",
            "ops.scaled(tl.load(X + offs)) + s2(1.0)",
        );
    let scope = project_scope(
        "kern",
        &kernel,
        &[
            ("pkg", true, "from .ops import scaled\n"),
            ("pkg.ops", false, OPS),
        ],
    );
    assert_eq!(
        op_files(&lower(&scope, "k", "*fp32, *fp32, 64").unwrap()),
        vec![0, 2]
    );
}

#[test]
fn star_imports_and_constexpr_globals_of_other_files() {
    // consts and kernels star-import each other: the cycle ends, the names are found.
    let consts = "\
import triton.language as tl
from .kernels import *
BLOCK_DEFAULT = tl.constexpr(128)
TWICE = tl.constexpr(BLOCK_DEFAULT * 2)
";
    let kernel = "\
import triton
import triton.language as tl
from .consts import *

@triton.jit
def k(X):
    offs = tl.arange(0, TWICE)
    tl.store(X + offs, tl.load(X + offs) + MISSING_EVERYWHERE)
";
    let scope = project_scope(
        "pkg.kernels",
        kernel,
        &[("pkg", true, ""), ("pkg.consts", false, consts)],
    );
    let d = lower(&scope, "k", "*fp32").unwrap_err();
    assert!(d.message.contains("MISSING_EVERYWHERE"), "{}", d.message);
    let ok = kernel.replace(" + MISSING_EVERYWHERE", "");
    let scope = project_scope(
        "pkg.kernels",
        &ok,
        &[("pkg", true, ""), ("pkg.consts", false, consts)],
    );
    let ir = tritonc_ir::print_module(&lower(&scope, "k", "*fp32").unwrap(), Default::default());
    assert!(ir.contains("tensor<256xf32>"), "{ir}");
}

#[test]
fn import_cycles_between_globals_end() {
    let a = "import triton.language as tl\nfrom .b import Y\nX = tl.constexpr(Y + 1)\n";
    let b = "import triton.language as tl\nfrom .a import X\nY = tl.constexpr(X + 1)\n";
    let kernel = "\
import triton
import triton.language as tl
from pkg.a import X

@triton.jit
def k(P):
    tl.store(P, X)
";
    let scope = project_scope(
        "kern",
        kernel,
        &[("pkg", true, ""), ("pkg.a", false, a), ("pkg.b", false, b)],
    );
    // Neither global has a value; the error names the global, nothing hangs.
    let d = lower(&scope, "k", "*i32").unwrap_err();
    assert!(d.message.contains('X'), "{}", d.message);
}

#[test]
fn missing_names_and_code_outside_the_project() {
    let missing = KERNEL_ABS
        .replace("import scaled", "import scaled, nope")
        .replace("scaled(tl.load(X + offs))", "nope(tl.load(X + offs))");
    let scope = project_scope(
        "kern",
        &missing,
        &[("pkg", true, ""), ("pkg.ops", false, OPS)],
    );
    let d = lower(&scope, "k", "*fp32, *fp32, 64").unwrap_err();
    assert_eq!(
        d.message,
        "`nope` is imported as `pkg.ops.nope`, but `pkg.ops` has no `nope`"
    );

    let outside = KERNEL_ABS.replace(
        "from pkg.ops import scaled",
        "from vendor.ops import scaled",
    );
    let scope = project_scope(
        "kern",
        &outside,
        &[("pkg", true, ""), ("pkg.ops", false, OPS)],
    );
    let d = lower(&scope, "k", "*fp32, *fp32, 64").unwrap_err();
    assert!(
        d.message
            .starts_with("`vendor.ops.scaled` is defined outside the project tritonc can see"),
        "{}",
        d.message
    );
    // Generic analysis takes the call as opaque and goes on.
    let root = module(FileId(0), "kern", false, &outside);
    let kernel = root.index.kernel("k").unwrap().clone();
    let r = lower_kernel_generic(&scope, &kernel, &PartialSpecialization::default())
        .expect("generic analysis accepts an opaque call");
    assert!(r
        .assumptions
        .iter()
        .any(|a| a.diagnostic.message.contains("outside the project")));
}

#[test]
fn helpers_with_one_name_in_two_modules_are_not_recursion() {
    let inner = "import triton\n@triton.jit\ndef f(x):\n    return x + 1\n";
    let outer =
        "import triton\nfrom .inner import f as g\n@triton.jit\ndef f(x):\n    return g(x) * 2\n";
    let kernel = KERNEL_ABS.replace(
        "from pkg.ops import scaled",
        "from pkg.outer import f as scaled",
    );
    let scope = project_scope(
        "kern",
        &kernel,
        &[
            ("pkg", true, ""),
            ("pkg.inner", false, inner),
            ("pkg.outer", false, outer),
        ],
    );
    assert_eq!(
        op_files(&lower(&scope, "k", "*fp32, *fp32, 64").unwrap()),
        vec![0, 2, 3]
    );
}

#[test]
fn a_plain_function_of_the_project_is_named_as_such() {
    let host = "\
import triton
import triton.language as tl

def libentry():
    def wrap(f):
        return f
    return wrap

def scaled(x):
    return x * 2
";
    let scope = project_scope(
        "kern",
        KERNEL_ABS,
        &[("pkg", true, ""), ("pkg.ops", false, host)],
    );
    let d = lower(&scope, "k", "*fp32, *fp32, 64").unwrap_err();
    assert_eq!(
        d.message,
        "`pkg.ops.scaled` is not a `@triton.jit` function; kernels cannot call it"
    );
}

#[test]
fn the_amd_device_library_is_opaque_not_missing() {
    let src = "\
import triton
import triton.language as tl
from triton.language.extra.hip import libdevice as hiplib

@triton.jit
def k(X):
    tl.store(X, hiplib.fast_expf(tl.load(X)))
";
    let scope = project_scope("kern", src, &[]);
    let d = lower(&scope, "k", "*fp32").unwrap_err();
    assert_eq!(
        d.message,
        "`triton.language.extra.hip.libdevice.fast_expf` is outside the modules tritonc models"
    );
    let root = module(FileId(0), "kern", false, src);
    let kernel = root.index.kernel("k").unwrap().clone();
    assert!(lower_kernel_generic(&scope, &kernel, &PartialSpecialization::default()).is_ok());
}
