//! One launch as the Python side describes it (JSON): the kernel's file and name, every
//! parameter's value, the grid and the launch options; and what comes back.

use serde::{Deserialize, Serialize};

/// A launch request.
#[derive(Debug, Deserialize)]
pub struct Request {
    /// The kernel's source file.
    pub file: String,
    /// The `@triton.jit` function's name in it.
    pub kernel: String,
    /// The line its definition starts on (Python's `co_firstlineno`: its first decorator),
    /// which finds a kernel defined inside a function; `None`: the module-level `kernel`.
    #[serde(default)]
    pub line: Option<u32>,
    /// The enclosing function's variables the kernel reads (Python's
    /// `inspect.getclosurevars(fn).nonlocals`): for a kernel defined inside a function,
    /// its view of the names beside the module's globals, as Triton's capture scope.
    #[serde(default)]
    pub closure: Vec<(String, ClosureIn)>,
    /// Every parameter by name (defaults already applied by the caller).
    pub args: Vec<(String, ArgIn)>,
    /// Parameters Triton does not specialize (`do_not_specialize`).
    #[serde(default)]
    pub do_not_specialize: Vec<String>,
    /// The grid: 1 to 3 program counts.
    pub grid: Vec<i64>,
    /// Warps per program (decides the reduction order, as on the GPU).
    #[serde(default = "four")]
    pub num_warps: u32,
    /// Pipelining stages (part of the specialization; no effect on results).
    #[serde(default = "three")]
    pub num_stages: u32,
    /// Triton's debug mode: device asserts are checked.
    #[serde(default)]
    pub debug: bool,
    /// Worker threads (0: every core, or `RAYON_NUM_THREADS`).
    #[serde(default)]
    pub threads: usize,
    /// One entry per host buffer passed beside the request: a name for messages and
    /// the dtype of its first pointer.
    pub buffers: Vec<BufferIn>,
}

fn four() -> u32 {
    4
}

fn three() -> u32 {
    3
}

/// A host buffer's description.
#[derive(Debug, Deserialize)]
pub struct BufferIn {
    /// Shown in diagnostics (the first parameter pointing into it).
    pub name: String,
    /// Triton dtype name (`float16`).
    pub dtype: String,
}

/// One parameter's value.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArgIn {
    /// A tensor: a pointer into host buffer `buffer` at byte `offset`.
    Tensor {
        /// Index into the buffers.
        buffer: usize,
        /// Byte offset of the tensor's first element in the buffer.
        offset: u64,
        /// Triton dtype name of the elements.
        dtype: String,
        /// Whether the host address is a multiple of 16 (Triton's `:16`).
        aligned16: bool,
    },
    /// A Python int (as text: it may exceed 64 bits).
    Int(String),
    /// A Python float.
    Float(f64),
    /// A Python bool.
    Bool(bool),
    /// `None`.
    None,
    /// Any other compile-time value as a Python expression over the kernel module's
    /// globals (`tl.float16`, `'relu'`, `(1, 2)`).
    Expr(String),
}

/// One variable of the enclosing function a nested kernel reads.
#[derive(Debug, Deserialize, Serialize, Clone, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum ClosureIn {
    /// A `@triton.jit` function: its name and the line its definition starts on in
    /// `file` (a helper defined beside the kernel, or a module-level one).
    Jit {
        /// The function's own name.
        name: String,
        /// Its source file.
        file: String,
        /// `co_firstlineno`.
        line: u32,
    },
    /// A value Triton reads at compile time (a `tl.constexpr`, a dtype, `None`), as a
    /// Python expression over the module's globals.
    Constexpr(String),
    /// A module (`import triton.language as tl` inside the enclosing function).
    Module(String),
    /// Any other value (a plain `int`, a tensor): Triton refuses to read it in a kernel;
    /// the payload is its Python type's name.
    Other(String),
}

/// What a launch returns.
#[derive(Debug, Serialize, Default)]
pub struct Reply {
    /// Whether the launch ran to completion.
    pub ok: bool,
    /// Programs run.
    pub programs: u64,
    /// `tl.device_print` / `print` output, in program order.
    pub prints: Vec<String>,
    /// The failure's class: `out_of_bounds`, `misaligned`, `race`, `assert`,
    /// `no_progress`, `unsupported`, `launch`, `compile`, `internal`.
    pub kind: String,
    /// The diagnostic's code (`E0701`).
    pub code: String,
    /// The diagnostic's headline.
    pub message: String,
    /// The full diagnostic as tritonc prints it (source lines, program, lane).
    pub rendered: String,
    /// The failing program's id.
    pub program: Option<[u32; 3]>,
    /// The failing lane (element index in the block).
    pub lane: Option<usize>,
}
