//! Kernel discovery: import spellings, decorator forms, autotune/heuristics, globals.

use tritonc_diagnostics::{FileId, Span};
use tritonc_syntax::ast::{Expr, ExprKind, Stmt, StmtKind};
use tritonc_syntax::discovery::{ConstexprGlobalKind, JitBinding};
use tritonc_syntax::{discover, parse_module, ModuleIndex};

const FILE: FileId = FileId(0);

fn index(src: &str) -> ModuleIndex {
    let parsed = parse_module(FILE, src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    discover(&parsed.module)
}

fn text(src: &str, span: Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

/// The expression of the last statement of `src` (an expression statement).
fn last_expr(src: &str) -> Expr {
    let parsed = parse_module(FILE, src);
    match parsed.module.body.last().map(|s: &Stmt| &s.kind) {
        Some(StmtKind::Expr(e)) => e.clone(),
        other => panic!("last statement is not an expression: {other:?}"),
    }
}

#[test]
fn every_import_spelling_resolves() {
    let src = "\
import triton
import triton.language as tl
import triton.language as language
from triton import jit
from triton.language import core
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice
import torch
import triton.language.math
";
    let idx = index(src);
    let cases = [
        ("triton.jit", Some("triton.jit")),
        ("jit", Some("triton.jit")),
        ("tl.math.exp", Some("triton.language.math.exp")),
        ("language.sum", Some("triton.language.sum")),
        ("core.program_id", Some("triton.language.core.program_id")),
        ("tl.core.arange", Some("triton.language.core.arange")),
        (
            "libdevice.rsqrt",
            Some("triton.language.extra.libdevice.rsqrt"),
        ),
        (
            "cuda_libdevice.rsqrt",
            Some("triton.language.extra.cuda.libdevice.rsqrt"),
        ),
        (
            "tl.extra.cuda.libdevice.pow",
            Some("triton.language.extra.cuda.libdevice.pow"),
        ),
        ("torch.float16", None),
        ("unknown.name", None),
    ];
    for (expr_src, want) in cases {
        let e = last_expr(&format!("{src}{expr_src}\n"));
        assert_eq!(
            idx.resolver.resolve_triton(&e).as_deref(),
            want,
            "{expr_src}"
        );
    }
    // Non-Triton imports resolve too, but are not Triton names.
    let e = last_expr(&format!("{src}torch.float16\n"));
    assert_eq!(idx.resolver.resolve(&e).as_deref(), Some("torch.float16"));
}

#[test]
fn conditional_imports_record_every_alternative() {
    let src = "\
import triton.language as tl
try:
    from triton.language.extra.cuda.libdevice import rsqrt
except ImportError:
    from triton.language.math import rsqrt
if hasattr(tl, 'math'):
    exp = tl.math.exp
else:
    exp = tl.exp
";
    let idx = index(src);
    let rsqrt = idx.resolver.resolve_name("rsqrt");
    assert_eq!(
        rsqrt,
        vec![
            "triton.language.extra.cuda.libdevice.rsqrt".to_string(),
            "triton.language.math.rsqrt".to_string()
        ]
    );
    assert!(idx.resolver.bindings("rsqrt").iter().all(|b| b.conditional));
    assert_eq!(
        idx.resolver.resolve_name("exp"),
        vec![
            "triton.language.math.exp".to_string(),
            "triton.language.exp".to_string()
        ]
    );
}

#[test]
fn decorator_forms() {
    let src = "\
import triton
import triton.language as tl
from triton import jit
import functools

@triton.jit
def a(x):
    pass

@jit
def b(x):
    pass

@triton.jit(do_not_specialize=['n', 0], do_not_specialize_on_alignment=[1], noinline=True, debug=True)
def c(x, n):
    pass

@functools.lru_cache
@triton.jit
def d(x):
    pass

def plain(x):
    return x

def e(x):
    pass

e = triton.jit(e, noinline=True)
";
    let idx = index(src);
    let names: Vec<&str> = idx.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, vec!["a", "b", "c", "d", "e"]);
    let c = idx.kernel("c").unwrap();
    let dns: Vec<&str> = c
        .jit
        .do_not_specialize
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(dns, vec!["n", "x"]);
    assert_eq!(text(src, c.jit.do_not_specialize[1].span), "0");
    assert_eq!(c.jit.do_not_specialize_on_alignment[0].name, "n");
    assert!(c.jit.noinline);
    assert_eq!(c.jit.debug, Some(true));
    let d = idx.kernel("d").unwrap();
    assert_eq!(d.other_decorators.len(), 1);
    assert_eq!(text(src, d.other_decorators[0].span), "functools.lru_cache");
    let e = idx.kernel("e").unwrap();
    assert!(
        matches!(e.binding, JitBinding::Rebinding(s) if text(src, s) == "e = triton.jit(e, noinline=True)")
    );
    assert!(e.jit.noinline);
    let jit_flags: Vec<(&str, bool)> = idx
        .functions
        .iter()
        .map(|f| (f.def.name.name.as_str(), f.is_jit))
        .collect();
    assert_eq!(
        jit_flags,
        vec![
            ("a", true),
            ("b", true),
            ("c", true),
            ("d", true),
            ("plain", false),
            ("e", true)
        ]
    );
    assert!(idx.diagnostics.is_empty(), "{:?}", idx.diagnostics);
}

#[test]
fn autotune_literal_list_and_comprehension() {
    let src = "\
import triton
import triton.language as tl

CONFIGS = [triton.Config({'BLOCK': b, 'GROUP': g}, num_warps=w, num_stages=3)
           for b in [64, 128] for g in range(1, 3) for w in (4, 8) if b * w <= 512]

@triton.autotune(configs=[triton.Config({'BLOCK': 32}, num_warps=2, num_stages=1, num_ctas=1, maxnreg=128, pre_hook=hook)], key=['n'], reset_to_zero=['y'])
@triton.jit
def k1(x, y, n, BLOCK: tl.constexpr):
    pass

@triton.autotune(CONFIGS, key=['n'])
@triton.jit
def k2(x, n, BLOCK: tl.constexpr, GROUP: tl.constexpr):
    pass

@triton.autotune(configs=get_configs(), key=[])
@triton.jit
def k3(x):
    pass
";
    let idx = index(src);
    let k1 = idx.kernel("k1").unwrap().autotune.as_ref().unwrap();
    assert_eq!(k1.configs.len(), 1);
    let cfg = &k1.configs[0];
    assert_eq!(cfg.kwarg("BLOCK").unwrap().as_int_literal(), Some(32));
    assert_eq!(cfg.num_warps.as_ref().unwrap().as_int_literal(), Some(2));
    assert_eq!(cfg.num_stages.as_ref().unwrap().as_int_literal(), Some(1));
    assert_eq!(cfg.maxnreg.as_ref().unwrap().as_int_literal(), Some(128));
    assert_eq!(cfg.pre_hook.as_ref().unwrap().as_name(), Some("hook"));
    assert_eq!(
        k1.key.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        vec!["n"]
    );
    assert_eq!(k1.other[0].name.as_ref().unwrap().name, "reset_to_zero");

    // 2 blocks x 2 groups x 2 warps, minus (128, *, 8): b * w <= 512 drops 2 of 8.
    let k2 = idx.kernel("k2").unwrap().autotune.as_ref().unwrap();
    let got: Vec<(i128, i128, i128)> = k2
        .configs
        .iter()
        .map(|c| {
            (
                c.kwarg("BLOCK").unwrap().as_int_literal().unwrap(),
                c.kwarg("GROUP").unwrap().as_int_literal().unwrap(),
                c.num_warps.as_ref().unwrap().as_int_literal().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (64, 1, 4),
            (64, 1, 8),
            (64, 2, 4),
            (64, 2, 8),
            (128, 1, 4),
            (128, 2, 4)
        ]
    );
    assert!(k2.unexpanded.is_empty());

    let k3 = idx.kernel("k3").unwrap().autotune.as_ref().unwrap();
    assert!(k3.configs.is_empty());
    assert_eq!(k3.unexpanded.len(), 1);
    assert_eq!(text(src, k3.unexpanded[0].expr.span), "get_configs()");
    assert!(idx.diagnostics.is_empty(), "{:?}", idx.diagnostics);
}

#[test]
fn heuristics_entries() {
    let src = "\
import triton
@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0, 'BLOCK': lambda a: 128})
@triton.jit
def k(x, n, BLOCK, EVEN):
    pass
";
    let idx = index(src);
    let h = &idx.kernel("k").unwrap().heuristics;
    assert_eq!(h.len(), 2);
    assert_eq!(h[0].name, "EVEN");
    assert_eq!(text(src, h[0].name_span), "'EVEN'");
    assert!(matches!(h[0].value.kind, ExprKind::Lambda { .. }));
    assert_eq!(text(src, h[1].value.span), "lambda a: 128");
}

#[test]
fn unknown_autotune_key_is_recorded_without_error() {
    // Triton accepts a key that names no parameter when the module is imported and fails
    // only at launch, so discovery keeps the name (for lint) and reports nothing; a key
    // that is not a string literal is still malformed.
    let src = "\
import triton
@triton.autotune(configs=[triton.Config({'BLOCK': 1})], key=['n_col', 'n', 3])
@triton.jit
def k(x, n_cols, n):
    pass
";
    let idx = index(src);
    let got: Vec<(&str, &str)> = idx
        .diagnostics
        .iter()
        .map(|d| (d.code.0, text(src, d.primary_span().unwrap())))
        .collect();
    assert_eq!(got, vec![("E0202", "3")]);
    let key: Vec<(&str, &str)> = idx
        .kernel("k")
        .unwrap()
        .autotune
        .as_ref()
        .unwrap()
        .key
        .iter()
        .map(|(name, span)| (name.as_str(), text(src, *span)))
        .collect();
    assert_eq!(key, vec![("n_col", "'n_col'"), ("n", "'n'")]);
}

#[test]
fn malformed_arguments_are_diagnosed() {
    let src = "\
import triton
@triton.autotune(configs=[{'BLOCK': 1}], key='n')
@triton.heuristics([1])
@triton.jit(do_not_specialize=['missing'], noinline=maybe)
def k(x, n):
    pass

@triton.jit
@triton.autotune(configs=[], key=[])
def wrong_order(x):
    pass
";
    let idx = index(src);
    let got: Vec<(&str, &str)> = idx
        .diagnostics
        .iter()
        .map(|d| (d.code.0, text(src, d.primary_span().unwrap())))
        .collect();
    assert_eq!(
        got,
        vec![
            ("E0202", "{'BLOCK': 1}"),
            ("E0202", "'n'"),
            ("E0203", "[1]"),
            ("E0201", "'missing'"),
            ("E0204", "triton.autotune(configs=[], key=[])"),
        ]
    );
    // Triton ignores a `do_not_specialize` entry that matches no parameter
    // (tests/fixtures/triton/coverage.json, `do_not_specialize_unknown_names`).
    let severities: Vec<_> = idx.diagnostics.iter().map(|d| d.severity).collect();
    use tritonc_diagnostics::Severity::{Error, Warning};
    assert_eq!(severities, vec![Error, Error, Error, Warning, Error]);
    // `noinline=maybe` reads a variable: valid Python, opaque to tritonc.
    let k = idx.kernel("k").unwrap();
    let opaque: Vec<&str> = k
        .opaque_arguments
        .iter()
        .map(|o| text(src, o.span))
        .collect();
    assert_eq!(opaque, vec!["maybe"]);
}

#[test]
fn computed_decorator_arguments_are_opaque_not_errors() {
    // Shapes seen in published kernel packages: a heuristics dict merged from a
    // module-level one, config kwargs from a variable, `do_not_specialize` chosen at
    // import time, configs from a helper, `**` options.
    let src = "\
import triton
BASE = {'X_LINEAR': lambda args: args['sx'] == args['D']}
EXTRA = {**BASE, 'Y_LINEAR': lambda args: True}
cfg = {'grf_mode': 'large'} if INTEL else {}
@triton.heuristics(EXTRA)
@triton.heuristics(make_heuristics())
@triton.autotune(
    configs=[triton.Config(cfg, num_warps=w) for w in [2, 4]] + [make_config(8)],
    key=KEYS,
    **cache_kwargs,
)
@triton.jit(do_not_specialize=['T', 'scale'] if HOPPER else ['T'], **jit_kwargs)
def k(x, T, scale, D, sx, X_LINEAR, Y_LINEAR):
    pass
";
    let idx = index(src);
    assert!(idx.diagnostics.is_empty(), "{:?}", idx.diagnostics);
    let k = idx.kernel("k").unwrap();
    let names: Vec<&str> = k.heuristics.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, vec!["X_LINEAR", "Y_LINEAR"]);
    let what: Vec<&str> = k.opaque_arguments.iter().map(|o| o.what.as_str()).collect();
    assert_eq!(
        what,
        vec![
            "heuristics",
            "autotune key",
            "do_not_specialize",
            "jit options"
        ]
    );
    let tune = k.autotune.as_ref().unwrap();
    assert!(tune.configs.is_empty());
    let unexpanded: Vec<&str> = tune
        .unexpanded
        .iter()
        .map(|u| text(src, u.expr.span))
        .collect();
    assert_eq!(
        unexpanded,
        vec!["triton.Config(cfg, num_warps=w)", "make_config(8)"]
    );
}

#[test]
fn constexpr_globals() {
    let src = "\
import triton.language as tl
from triton.language import constexpr
BLOCK = tl.constexpr(128)
WIDTH: tl.constexpr = 64
EPS: constexpr = 1e-5
MODE: tl.constexpr = tl.constexpr(1)
X = 3
NEG = -2
NAME = 'fp16'
NOT_LITERAL = compute()
try:
    FAST = tl.constexpr(True)
except ImportError:
    FAST = tl.constexpr(False)
";
    let idx = index(src);
    let got: Vec<(&str, ConstexprGlobalKind, bool, &str)> = idx
        .constexpr_globals
        .iter()
        .map(|g| {
            (
                g.name.name.as_str(),
                g.kind,
                g.conditional,
                text(src, g.value.span),
            )
        })
        .collect();
    use ConstexprGlobalKind::*;
    assert_eq!(
        got,
        vec![
            ("BLOCK", Wrapped, false, "128"),
            ("WIDTH", Annotated, false, "64"),
            ("EPS", Annotated, false, "1e-5"),
            // Triton 3.6 reads it (tests/fixtures/triton/coverage.json,
            // `constexpr_global_from_call`).
            ("MODE", Wrapped, false, "1"),
            ("X", Plain, false, "3"),
            ("NEG", Plain, false, "-2"),
            ("NAME", Plain, false, "'fp16'"),
            ("FAST", Wrapped, true, "True"),
            ("FAST", Wrapped, true, "False"),
        ]
    );
}

#[test]
fn example_kernels_are_discovered() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut total = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("py") {
            continue;
        }
        let src = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_module(FILE, &src);
        assert!(
            parsed.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            parsed.diagnostics
        );
        let idx = discover(&parsed.module);
        assert!(
            idx.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            idx.diagnostics
        );
        // Every `@triton.jit` in the text is found, and every kernel body is in the subset.
        let decorated = src.matches("@triton.jit").count();
        assert_eq!(idx.kernels.len(), decorated, "{}", path.display());
        for k in &idx.kernels {
            let d = tritonc_syntax::check_kernel_subset(&k.def);
            assert!(d.is_empty(), "{}::{}: {:?}", path.display(), k.name, d);
        }
        total += idx.kernels.len();
    }
    assert!(total >= 10, "only {total} kernels in examples/");
}

#[test]
fn jit_functions_inside_functions_and_classes_are_reported() {
    let src = "import triton\nimport triton.language as tl\n\n\
def make(scale):\n    if scale:\n        @triton.jit\n        def inner(x_ptr):\n            tl.store(x_ptr, 1)\n    return inner\n\n\
class Ops:\n    @staticmethod\n    @triton.jit\n    def method_kernel(x_ptr):\n        tl.store(x_ptr, 2)\n\n    def helper(self):\n        pass\n\n\
@triton.jit\ndef top(x_ptr):\n    tl.store(x_ptr, 3)\n";
    let idx = index(src);
    let names: Vec<&str> = idx.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["top"]);
    let found: Vec<(&str, &str, &str)> = idx
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.0,
                text(src, d.primary_span().unwrap()),
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "E0205",
                "inner",
                "`@triton.jit` function `inner` is defined inside function `make`; tritonc checks and compiles module-level kernels only"
            ),
            (
                "E0205",
                "method_kernel",
                "`@triton.jit` function `method_kernel` is defined inside class `Ops`; tritonc checks and compiles module-level kernels only"
            ),
        ]
    );
    assert!(idx
        .diagnostics
        .iter()
        .all(|d| d.severity == tritonc_diagnostics::Severity::Warning));
}

/// A project module that re-exports Triton (`pkg.triton_utils`), as the driver's lookup
/// answers for it: `triton` and `tl` are Triton's, `HAS_TRITON` is not a re-export.
fn triton_utils_reexports(path: &str) -> tritonc_syntax::Reexport {
    use tritonc_syntax::Reexport;
    let names = |p: &str| -> Option<&'static str> {
        match p {
            "triton" => Some("triton"),
            "tl" => Some("triton.language"),
            _ => None,
        }
    };
    if path == "pkg.triton_utils" {
        return Reexport::Module(
            [("triton", "triton"), ("tl", "triton.language")]
                .into_iter()
                .map(|(n, p)| (n.to_string(), vec![p.to_string()]))
                .collect(),
        );
    }
    let Some(rest) = path.strip_prefix("pkg.triton_utils.") else {
        return Reexport::None;
    };
    let (first, tail) = rest.split_once('.').unwrap_or((rest, ""));
    match names(first) {
        Some(p) if tail.is_empty() => Reexport::Paths(vec![p.to_string()]),
        Some(p) => Reexport::Paths(vec![format!("{p}.{tail}")]),
        None => Reexport::None,
    }
}

#[test]
fn names_reexported_from_a_project_module_are_triton_names() {
    let src = "\
from pkg.triton_utils import HAS_TRITON, tl, triton
import pkg.triton_utils as tu
libdevice = tl.extra.cuda.libdevice

@triton.autotune(configs=[triton.Config({'BLOCK': 64})], key=['n'])
@triton.jit
def a(x, n, BLOCK: tl.constexpr):
    pass

@tu.triton.jit
def b(x):
    pass

@triton.heuristics({'EVEN': lambda args: True})
@triton.jit
def c(x, EVEN: tl.constexpr):
    pass
";
    let parsed = parse_module(FILE, src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    // Alone, the module imports nothing from Triton: no kernels.
    assert!(discover(&parsed.module).kernels.is_empty());
    let idx = tritonc_syntax::discover_following(&parsed.module, &triton_utils_reexports);
    let names: Vec<&str> = idx.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let a = idx.kernel("a").unwrap();
    assert_eq!(a.autotune.as_ref().map(|t| t.configs.len()), Some(1));
    assert_eq!(idx.kernel("c").unwrap().heuristics.len(), 1);
    for (expr_src, want) in [
        ("tl.arange", Some("triton.language.arange")),
        (
            "libdevice.rsqrt",
            Some("triton.language.extra.cuda.libdevice.rsqrt"),
        ),
        ("tu.tl.sum", Some("triton.language.sum")),
        ("HAS_TRITON", None),
    ] {
        let e = last_expr(&format!("{src}{expr_src}\n"));
        assert_eq!(
            idx.resolver.resolve_triton(&e).as_deref(),
            want,
            "{expr_src}"
        );
    }
    // The binding keeps the import's span in this module.
    let b = &idx.resolver.bindings("tl")[0];
    assert_eq!(text(src, b.span), "tl");
}
