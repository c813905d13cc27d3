//! The `E07xx` codes of launch specs.

use tritonc_diagnostics::registry::{CodeDoc, CodeRegistry};
use tritonc_diagnostics::Code;

/// The spec is not valid TOML or has a wrong key or value.
pub const MALFORMED_SPEC: Code = Code("E0701");
/// An expression of the spec failed to evaluate or has the wrong type.
pub const BAD_EXPRESSION: Code = Code("E0702");
/// The arguments do not match the kernel's parameters.
pub const ARGUMENT_MISMATCH: Code = Code("E0703");
/// A file the spec names cannot be read.
pub const UNREADABLE_FILE: Code = Code("E0704");
/// A tensor's shape, strides or data do not fit together.
pub const BAD_TENSOR: Code = Code("E0705");
/// A grid dimension is 0: the launch would run no program.
pub const EMPTY_GRID: Code = Code("E0706");
/// A grid dimension is past what a launch allows.
pub const GRID_TOO_LARGE: Code = Code("E0707");

/// The launch-spec codes.
pub static REGISTRY: CodeRegistry = CodeRegistry::new(
    "launch-spec",
    &[
        CodeDoc {
            code: MALFORMED_SPEC,
            name: "malformed-launch-spec",
            summary: "the launch spec is not valid TOML or has an unknown key or a wrong value",
            explanation: "See docs/launch-specs.md for the format.\n\n## Example\n\n```toml\nnum_warp = 4\n```\n\n## Use instead\n\n```toml\nnum_warps = 4\n```\n",
        },
        CodeDoc {
            code: BAD_EXPRESSION,
            name: "bad-spec-expression",
            summary: "an expression in the launch spec failed to evaluate",
            explanation: "Sizes, constexprs and the grid are compile-time Python over the spec's tensors.\n\n## Example\n\n```toml\nn = \"x.shape[2]\"  # x is 2-D\n```\n\n## Use instead\n\n```toml\nn = \"x.shape[1]\"\n```\n",
        },
        CodeDoc {
            code: ARGUMENT_MISMATCH,
            name: "argument-mismatch",
            summary: "the spec's arguments do not match the kernel's parameters",
            explanation: "Every kernel parameter needs a value (or a default), and every argument must name a parameter.\n\n## Example\n\n```toml\n[args]\nn_elems = 1024  # the parameter is n_elements\n```\n\n## Use instead\n\n```toml\n[args]\nn_elements = 1024\n```\n",
        },
        CodeDoc {
            code: UNREADABLE_FILE,
            name: "unreadable-spec-file",
            summary: "a file named by the launch spec cannot be read",
            explanation: "Paths are relative to the spec file.\n\n## Example\n\n```toml\nkernel = \"missing.py\"\n```\n\n## Use instead\n\nName an existing file.\n",
        },
        CodeDoc {
            code: BAD_TENSOR,
            name: "bad-tensor",
            summary: "a tensor's shape, strides, offset or data do not fit together",
            explanation: "Shapes are non-negative integers; an `.npy` initializer must have the declared shape; a reference must match its output's shape. Every tensor is allocated in host memory before the launch, so a tensor past the interpreter's 1 TiB per buffer, or tensors that together pass the host's physical memory, are refused here rather than allocated.\n\n## Example\n\n```toml\nshape = [-1, 4]\n```\n\n## Use instead\n\n```toml\nshape = [8, 4]\n```\n",
        },
        CodeDoc {
            code: EMPTY_GRID,
            name: "empty-grid",
            summary: "a grid dimension of the launch spec is 0, so no program would run",
            explanation: "Triton launches nothing for a grid with a 0 dimension, and nothing would be run, compared or verified; a spec must launch at least one program.\n\n## Example\n\n```toml\ngrid = [\"triton.cdiv(n, BLOCK)\", 0]\n```\n\n## Use instead\n\n```toml\ngrid = [\"triton.cdiv(n, BLOCK)\", 1]\n```\n",
        },
        CodeDoc {
            code: GRID_TOO_LARGE,
            name: "grid-too-large",
            summary: "a grid dimension of the launch spec is past what a launch allows",
            explanation: "A launch has at most 2^31 - 1 programs along x and 65535 along y and z (CUDA's limits, which Triton's launcher shares). A larger grid fails on the GPU, and the interpreter, which keeps a record per program, would exhaust memory; the spec is refused instead.\n\n## Example\n\n```toml\ngrid = [1000000, 1000000]\n```\n\n## Use instead\n\n```toml\ngrid = [1000000, 1]   # and a loop in the kernel over the rest\n```\n",
        },
    ],
);
