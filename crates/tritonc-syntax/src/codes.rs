//! The diagnostic codes this crate emits, with their documentation.
//!
//! `E0001` is a syntax error, `E01xx` a construct Triton 3.6 does not accept inside a
//! `@triton.jit` body (one code per construct family), `E02xx` a problem with the
//! arguments of `@triton.jit`, `@triton.autotune` or `@triton.heuristics`.

use tritonc_diagnostics::{Code, CodeDoc, CodeRegistry};

/// The file is not valid Python.
pub const SYNTAX_ERROR: Code = Code("E0001");
/// `break` or `continue` inside a kernel.
pub const LOOP_CONTROL: Code = Code("E0101");
/// `for ... else` or `while ... else` inside a kernel.
pub const LOOP_ELSE: Code = Code("E0102");
/// `lambda` inside a kernel.
pub const LAMBDA: Code = Code("E0103");
/// `try` inside a kernel.
pub const TRY: Code = Code("E0104");
/// `raise` inside a kernel.
pub const RAISE: Code = Code("E0105");
/// A `def` or `class` inside a kernel.
pub const NESTED_DEFINITION: Code = Code("E0106");
/// A chained comparison `a < b < c` inside a kernel.
pub const CHAINED_COMPARISON: Code = Code("E0107");
/// `del` inside a kernel.
pub const DEL: Code = Code("E0108");
/// `global` or `nonlocal` inside a kernel.
pub const GLOBAL_DECLARATION: Code = Code("E0109");
/// `yield`, `await` or an `async` construct inside a kernel.
pub const GENERATOR_OR_ASYNC: Code = Code("E0110");
/// A dict, set, dict/set comprehension or generator expression inside a kernel.
pub const DICT_OR_SET: Code = Code("E0111");
/// `**kwargs` in a call, or `*x` outside a call's positional arguments.
pub const UNSUPPORTED_UNPACKING: Code = Code("E0112");
/// `in` or `not in` inside a kernel.
pub const MEMBERSHIP_TEST: Code = Code("E0113");
/// The `@` operator inside a kernel.
pub const MATMUL_OPERATOR: Code = Code("E0114");
/// A list comprehension Triton cannot evaluate as written.
pub const UNSUPPORTED_COMPREHENSION: Code = Code("E0115");
/// An assignment expression `:=` inside a kernel.
pub const WALRUS: Code = Code("E0116");
/// Assignment to a subscript, an attribute or a starred target inside a kernel.
pub const ASSIGNMENT_TARGET: Code = Code("E0117");
/// `return` inside a `for`, `while` or `with` body.
pub const RETURN_IN_LOOP: Code = Code("E0118");
/// A `match` or `type` statement inside a kernel.
pub const OTHER_STATEMENT: Code = Code("E0119");
/// An `import` inside a kernel.
pub const IMPORT_IN_KERNEL: Code = Code("E0120");
/// A `for` loop not of the form `for name in range(...)`.
pub const FOR_FORM: Code = Code("E0121");
/// Positional-only parameters (`/`) in a kernel signature.
pub const POSITIONAL_ONLY_PARAMS: Code = Code("E0122");
/// An argument of `@triton.jit(...)` tritonc cannot read.
pub const MALFORMED_JIT: Code = Code("E0201");
/// A `@triton.autotune(...)` whose configs or key tritonc cannot read.
pub const MALFORMED_AUTOTUNE: Code = Code("E0202");
/// A `@triton.heuristics(...)` whose argument is not a dict of name to function.
pub const MALFORMED_HEURISTICS: Code = Code("E0203");
/// `@triton.jit` is not the innermost Triton decorator.
pub const DECORATOR_ORDER: Code = Code("E0204");
/// A `@triton.jit` function defined inside a function or class (a warning: not checked).
pub const NESTED_KERNEL: Code = Code("E0205");

/// This crate's codes as a registry for the CLI's code catalog.
pub static REGISTRY: CodeRegistry = CodeRegistry::new("syntax", CODES);

/// Every code this crate emits, in code order.
pub fn codes() -> &'static [CodeDoc] {
    CODES
}

/// The documentation of `code` (ASCII case-insensitive), if this crate defines it.
pub fn lookup(code: &str) -> Option<&'static CodeDoc> {
    REGISTRY.lookup(code)
}

static CODES: &[CodeDoc] = &[
    CodeDoc {
        code: SYNTAX_ERROR,
        name: "syntax-error",
        summary: "the file is not valid Python",
        explanation: "The parser could not read the file; nothing in it is analysed until the \
error is fixed.\n\n## Example\n\n```python\n@triton.jit\ndef k(x_ptr\n    pass\n```\n\n\
## Use instead\n\n```python\n@triton.jit\ndef k(x_ptr):\n    pass\n```\n",
    },
    CodeDoc {
        code: LOOP_CONTROL,
        name: "unsupported-loop-control",
        summary: "`break` or `continue` inside a kernel",
        explanation: "Triton 3.6 lowers loops to structured `scf.for`/`scf.while` regions that have no early exit, so `break` and `continue` are rejected (`unsupported AST node type: Break`).\n\n## Example\n\n```python\nfor i in range(n):\n    if i >= limit:\n        break\n    acc += tl.load(p + i)\n```\n\n## Use instead\n\n```python\nfor i in range(n):\n    acc += tl.load(p + i, mask=i < limit, other=0.0)\n```\n",
    },
    CodeDoc {
        code: LOOP_ELSE,
        name: "unsupported-loop-else",
        summary: "`for ... else` or `while ... else` inside a kernel",
        explanation: "Triton 3.6 has no lowering for a loop's `else:` block and fails with an assertion.\n\n## Example\n\n```python\nfor i in range(n):\n    acc += i\nelse:\n    done = 1\n```\n\n## Use instead\n\n```python\nfor i in range(n):\n    acc += i\ndone = 1\n```\n",
    },
    CodeDoc {
        code: LAMBDA,
        name: "unsupported-lambda",
        summary: "`lambda` inside a kernel",
        explanation: "Kernels cannot create function objects; Triton 3.6 rejects `lambda` (`unsupported AST node type: Lambda`).\n\n## Example\n\n```python\nf = lambda v: v * 2\ny = f(x)\n```\n\n## Use instead\n\n```python\n@triton.jit\ndef double(v):\n    return v * 2\n\n# in the kernel\ny = double(x)\n```\n",
    },
    CodeDoc {
        code: TRY,
        name: "unsupported-try",
        summary: "`try` inside a kernel",
        explanation: "GPU code has no exceptions; Triton 3.6 rejects `try` (`unsupported AST node type: Try`).\n\n## Example\n\n```python\ntry:\n    x = tl.load(p)\nexcept Exception:\n    x = 0\n```\n\n## Use instead\n\n```python\nx = tl.load(p, mask=ok, other=0)\n```\n",
    },
    CodeDoc {
        code: RAISE,
        name: "unsupported-raise",
        summary: "`raise` inside a kernel",
        explanation: "GPU code has no exceptions; Triton 3.6 rejects `raise` wherever code generation reaches it (a `raise` in a branch removed by constexpr folding is never visited). tritonc reports a `raise` outside any `if` while checking the kernel, and one under an `if` when lowering a specialization reaches it (an `if` on a runtime value reaches both branches).\n\n## Example\n\n```python\nif BLOCK > 1024:\n    raise ValueError(\"BLOCK too large\")\n```\n\n## Use instead\n\n```python\ntl.static_assert(BLOCK <= 1024, \"BLOCK too large\")\n```\n",
    },
    CodeDoc {
        code: NESTED_DEFINITION,
        name: "unsupported-nested-definition",
        summary: "a `def` or `class` inside a kernel",
        explanation: "Triton 3.6 compiles one function at a time; nested function and class definitions are rejected.\n\n## Example\n\n```python\n@triton.jit\ndef k(p):\n    def helper(v):\n        return v + 1\n    tl.store(p, helper(1.0))\n```\n\n## Use instead\n\n```python\n@triton.jit\ndef helper(v):\n    return v + 1\n\n@triton.jit\ndef k(p):\n    tl.store(p, helper(1.0))\n```\n",
    },
    CodeDoc {
        code: CHAINED_COMPARISON,
        name: "unsupported-chained-comparison",
        summary: "a chained comparison `a < b < c` inside a kernel",
        explanation: "Triton 3.6 rejects comparisons with more than one operator (`simultaneous multiple comparison is not supported`).\n\n## Example\n\n```python\nm = 0 <= offs < n\n```\n\n## Use instead\n\n```python\nm = (0 <= offs) & (offs < n)\n```\n",
    },
    CodeDoc {
        code: DEL,
        name: "unsupported-del",
        summary: "`del` inside a kernel",
        explanation: "Triton 3.6 rejects `del` (`unsupported AST node type: Delete`); values die when they are no longer used.\n\n## Example\n\n```python\ntmp = x * 2\ndel tmp\n```\n\n## Use instead\n\n```python\ntmp = x * 2  # simply stop using it\n```\n",
    },
    CodeDoc {
        code: GLOBAL_DECLARATION,
        name: "unsupported-global-declaration",
        summary: "`global` or `nonlocal` inside a kernel",
        explanation: "Kernels cannot rebind module state; Triton 3.6 rejects `global` and `nonlocal`.\n\n## Example\n\n```python\nglobal COUNTER\nCOUNTER += 1\n```\n\n## Use instead\n\n```python\n# pass the value as an argument, or read a `tl.constexpr` global\n```\n",
    },
    CodeDoc {
        code: GENERATOR_OR_ASYNC,
        name: "unsupported-generator-or-async",
        summary: "`yield`, `await` or an `async` construct inside a kernel",
        explanation: "Kernels are not generators or coroutines; Triton 3.6 rejects `yield`, `yield from`, `await`, `async for`, `async with` and `async def`.\n\n## Example\n\n```python\nyield x\n```\n\n## Use instead\n\n```python\nreturn x\n```\n",
    },
    CodeDoc {
        code: DICT_OR_SET,
        name: "unsupported-dict-or-set",
        summary: "a dict, set, dict/set comprehension or generator expression inside a kernel",
        explanation: "Triton 3.6 has values for tensors, scalars and tuples only; dict and set displays, their comprehensions and generator expressions are rejected.\n\n## Example\n\n```python\nd = {\"a\": 1}\nt = tuple(v for v in (1, 2))\n```\n\n## Use instead\n\n```python\na = 1\nt = [v for v in (1, 2)]  # a tuple comprehension\n```\n",
    },
    CodeDoc {
        code: UNSUPPORTED_UNPACKING,
        name: "unsupported-unpacking",
        summary: "`**kwargs` in a call, or `*x` outside a call's positional arguments",
        explanation: "Triton 3.6 expands `*t` of a tuple in a call's positional arguments only; `**kw` and starred items in displays are rejected.\n\n## Example\n\n```python\ntl.store(p, v, **opts)\n```\n\n## Use instead\n\n```python\ntl.store(p, v, mask=mask)\n```\n",
    },
    CodeDoc {
        code: MEMBERSHIP_TEST,
        name: "unsupported-membership-test",
        summary: "`in` or `not in` inside a kernel",
        explanation: "Triton 3.6 implements only `==`, `!=`, `<`, `<=`, `>`, `>=`, `is` and `is not`.\n\n## Example\n\n```python\nif BLOCK in (16, 32):\n    ...\n```\n\n## Use instead\n\n```python\nif (BLOCK == 16) or (BLOCK == 32):\n    ...\n```\n",
    },
    CodeDoc {
        code: MATMUL_OPERATOR,
        name: "unsupported-matmul-operator",
        summary: "the `@` operator inside a kernel",
        explanation: "Triton 3.6 does not map `@` to a method; matrix products are written with `tl.dot`.\n\n## Example\n\n```python\nc = a @ b\n```\n\n## Use instead\n\n```python\nc = tl.dot(a, b)\n```\n",
    },
    CodeDoc {
        code: UNSUPPORTED_COMPREHENSION,
        name: "unsupported-comprehension",
        summary: "a list comprehension Triton cannot evaluate as written",
        explanation: "Triton 3.6 evaluates a list comprehension at compile time over a tuple only: one `for` clause, a plain name as target, no nested comprehension, and a tuple (not `range`) as iterable. It **ignores** `if` filters, giving every element; tritonc rejects a filter rather than compute something else than the source says.\n\n## Example\n\n```python\nvals = [v for v in range(4)]\nodd = [v for v in (1, 2, 3) if v % 2]\n```\n\n## Use instead\n\n```python\nvals = [v for v in (0, 1, 2, 3)]\nodd = [v for v in (1, 3)]\n```\n",
    },
    CodeDoc {
        code: WALRUS,
        name: "unsupported-walrus",
        summary: "an assignment expression `:=` inside a kernel",
        explanation: "Triton 3.6 rejects assignment expressions (`unsupported AST node type: NamedExpr`).\n\n## Example\n\n```python\nif (m := n + 1) > 2:\n    ...\n```\n\n## Use instead\n\n```python\nm = n + 1\nif m > 2:\n    ...\n```\n",
    },
    CodeDoc {
        code: ASSIGNMENT_TARGET,
        name: "unsupported-assignment-target",
        summary: "assignment to a subscript, an attribute or a starred target inside a kernel",
        explanation: "Triton 3.6 assigns only to names and tuples of names: values are immutable (`__setitem__ is not supported in triton`, `Attribute assignment is not supported in triton`).\n\n## Example\n\n```python\nt[0] = 3\nx.attr = 1\na, *b = t\n```\n\n## Use instead\n\n```python\nt = (3, t[1])\na, b0, b1 = t\n```\n",
    },
    CodeDoc {
        code: RETURN_IN_LOOP,
        name: "unsupported-return-in-loop",
        summary: "`return` inside a `for`, `while` or `with` body",
        explanation: "Triton 3.6 lowers loops and `with` bodies to structured regions without early exit (`Cannot have return statements inside while or for statements`).\n\n## Example\n\n```python\nfor i in range(n):\n    if i == stop:\n        return\n```\n\n## Use instead\n\n```python\nfor i in range(n):\n    active = i < stop\n    # guard the work with `active` masks\n```\n",
    },
    CodeDoc {
        code: OTHER_STATEMENT,
        name: "unsupported-statement",
        summary: "a `match` or `type` statement inside a kernel",
        explanation: "Triton 3.6 has no lowering for these statements.\n\n## Example\n\n```python\nmatch mode:\n    case 0:\n        ...\n```\n\n## Use instead\n\n```python\nif mode == 0:\n    ...\n```\n",
    },
    CodeDoc {
        code: IMPORT_IN_KERNEL,
        name: "unsupported-import",
        summary: "an `import` inside a kernel",
        explanation: "Imports are module-level; Triton 3.6 rejects them inside a kernel body.\n\n## Example\n\n```python\nimport math\ny = x * math.pi\n```\n\n## Use instead\n\n```python\n# at module level\nPI: tl.constexpr = 3.141592653589793\n```\n",
    },
    CodeDoc {
        code: FOR_FORM,
        name: "unsupported-for-loop",
        summary: "a `for` loop not of the form `for name in range(...)`",
        explanation: "Triton 3.6 loops only over `range`, `tl.range` and `tl.static_range` calls, with a single name as the loop variable.\n\n## Example\n\n```python\nfor v in (1, 2):\n    ...\nfor a, b in pairs:\n    ...\n```\n\n## Use instead\n\n```python\nfor i in tl.static_range(2):\n    ...\n```\n",
    },
    CodeDoc {
        code: POSITIONAL_ONLY_PARAMS,
        name: "unsupported-positional-only-params",
        summary: "positional-only parameters (`/`) in a kernel signature",
        explanation: "Triton 3.6 binds only ordinary and keyword-only parameters; positional-only ones are undefined in the body (`NameError: x is not defined`).\n\n## Example\n\n```python\n@triton.jit\ndef k(x_ptr, n, /, BLOCK: tl.constexpr):\n    ...\n```\n\n## Use instead\n\n```python\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    ...\n```\n",
    },
    CodeDoc {
        code: MALFORMED_JIT,
        name: "malformed-jit-arguments",
        summary: "an argument of `@triton.jit(...)` tritonc cannot read",
        explanation: "`@triton.jit` takes keyword options (`do_not_specialize`, `do_not_specialize_on_alignment`, `noinline`, `debug`, ...). `do_not_specialize*` must be a list of parameter names or indices of the kernel; `noinline` and `debug` must be `True`/`False` literals.\n\n## Example\n\n```python\n@triton.jit(do_not_specialize=[\"missing\"])\ndef k(x_ptr, n):\n    ...\n```\n\n## Use instead\n\n```python\n@triton.jit(do_not_specialize=[\"n\"])\ndef k(x_ptr, n):\n    ...\n```\n",
    },
    CodeDoc {
        code: MALFORMED_AUTOTUNE,
        name: "malformed-autotune-arguments",
        summary: "a `@triton.autotune(...)` whose configs or key tritonc cannot read",
        explanation: "`@triton.autotune(configs=[triton.Config({...}, num_warps=..., num_stages=...), ...], key=[...])`: `configs` must be a list (or a list comprehension) of `triton.Config` calls whose first argument is a dict with string keys, and `key` a list of string literals. (A key that names no parameter of the kernel is not this error: Triton accepts it at import and fails at launch; `tritonc lint` reports it as TRI304.)\n\n## Example\n\n```python\n@triton.autotune(configs=[{\"BLOCK\": 128}], key=\"n\")\n```\n\n## Use instead\n\n```python\n@triton.autotune(configs=[triton.Config({\"BLOCK\": 128}, num_warps=4)], key=[\"n\"])\n```\n",
    },
    CodeDoc {
        code: MALFORMED_HEURISTICS,
        name: "malformed-heuristics-arguments",
        summary: "a `@triton.heuristics(...)` whose argument is not a dict of name to function",
        explanation: "`@triton.heuristics` takes one dict mapping a parameter name (a string) to a function of the launch arguments, usually `lambda args: ...`.\n\n## Example\n\n```python\n@triton.heuristics([lambda args: 128])\n```\n\n## Use instead\n\n```python\n@triton.heuristics({\"BLOCK\": lambda args: triton.next_power_of_2(args[\"n\"])})\n```\n",
    },
    CodeDoc {
        code: DECORATOR_ORDER,
        name: "misordered-triton-decorators",
        summary: "`@triton.jit` is not the innermost Triton decorator",
        explanation: "Triton applies decorators bottom-up and expects `@triton.autotune` above `@triton.heuristics` above `@triton.jit`; `autotune` and `heuristics` wrap a `JITFunction`, so `@triton.jit` must be the decorator closest to `def`.\n\n## Example\n\n```python\n@triton.jit\n@triton.autotune(configs=[...], key=[\"n\"])\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    ...\n```\n\n## Use instead\n\n```python\n@triton.autotune(configs=[...], key=[\"n\"])\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    ...\n```\n",
    },
    CodeDoc {
        code: NESTED_KERNEL,
        name: "nested-jit-function",
        summary: "a `@triton.jit` function defined inside a function or class is not checked",
        explanation: "A warning. tritonc reads the module-level functions of a file: a `@triton.jit` function defined inside another function (a closure, compiled by Triton when it is launched, with the enclosing call's local variables among its globals) or inside a class body (launched as `Cls.kernel[grid](...)`) is neither linted nor compiled, and `tritonc compile --kernel NAME` does not find it. The warning names it so that it is never skipped silently.\n\n## Example\n\n```python\ndef make_kernel(scale):\n    @triton.jit\n    def k(x_ptr):\n        tl.store(x_ptr, tl.load(x_ptr) * scale)\n    return k\n```\n\n## Use instead\n\n```python\n@triton.jit\ndef k(x_ptr, scale: tl.constexpr):\n    tl.store(x_ptr, tl.load(x_ptr) * scale)\n```\n",
    },
];
