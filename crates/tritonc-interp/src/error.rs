//! Runtime errors of the interpreter, and the `E06xx` codes they carry.

use std::fmt;

use tritonc_diagnostics::registry::{CodeDoc, CodeRegistry};
use tritonc_diagnostics::{Code, Diagnostic};
use tritonc_ir::Location;

/// An access outside every buffer.
pub const OUT_OF_BOUNDS: Code = Code("E0601");
/// Two programs touch the same bytes without atomics.
pub const DATA_RACE: Code = Code("E0602");
/// A loop ran past the step bound.
pub const NO_PROGRESS: Code = Code("E0603");
/// An op or type the interpreter does not execute.
pub const UNSUPPORTED: Code = Code("E0604");
/// A launch that does not fit the kernel (argument count or type, grid).
pub const BAD_LAUNCH: Code = Code("E0605");
/// A misaligned access.
pub const MISALIGNED: Code = Code("E0606");
/// A `tt.assert` that failed.
pub const ASSERT_FAILED: Code = Code("E0607");

/// The interpreter's codes.
pub static REGISTRY: CodeRegistry = CodeRegistry::new(
    "interpreter",
    &[
        CodeDoc {
            code: OUT_OF_BOUNDS,
            name: "out-of-bounds-access",
            summary: "a load, store or atomic touched memory outside every argument buffer",
            explanation: "An active (unmasked) lane addressed bytes that belong to no argument \
                tensor. On a GPU this reads garbage or faults.\n\n## Example\n\n```python\n\
                offs = pid * BLOCK + tl.arange(0, BLOCK)\nx = tl.load(x_ptr + offs)  # no mask on the tail\n```\n\n\
                ## Use instead\n\n```python\nx = tl.load(x_ptr + offs, mask=offs < n)\n```\n",
        },
        CodeDoc {
            code: DATA_RACE,
            name: "data-race",
            summary: "two programs of one launch wrote, or wrote and read, the same bytes without atomics",
            explanation: "Programs of a launch run in no defined order on a GPU, so the result \
                depends on scheduling.\n\n## Example\n\n```python\ntl.store(out_ptr + tl.arange(0, BLOCK), x)  # every program writes the same block\n```\n\n\
                ## Use instead\n\nOffset each program's block by its program id, or use `tl.atomic_add`.\n",
        },
        CodeDoc {
            code: NO_PROGRESS,
            name: "no-progress",
            summary: "a loop ran past the interpreter's step bound",
            explanation: "A `while` loop (or a very long `for`) did not finish within the bound, \
                which usually means its condition never changes, e.g. a spin lock waiting on a \
                program that runs later.\n\n## Example\n\n```python\nwhile tl.atomic_cas(lock, 0, 1) == 1:\n    pass\n```\n\n\
                ## Use instead\n\nMake the condition depend on values the loop changes.\n",
        },
        CodeDoc {
            code: UNSUPPORTED,
            name: "unsupported-in-interpreter",
            summary: "the interpreter cannot execute this op or type",
            explanation: "The op is valid IR but the CPU interpreter has no implementation for \
                it (for example an unknown libdevice symbol or generic IR).\n\n## Example\n\n\
                ```python\nlibdevice.j0(x)\n```\n\n## Use instead\n\nUse a function the \
                interpreter supports, or run on the GPU.\n",
        },
        CodeDoc {
            code: BAD_LAUNCH,
            name: "bad-launch",
            summary: "the launch does not match the kernel's parameters",
            explanation: "The number or kinds of launch arguments, or the grid, do not fit the \
                kernel.\n\n## Example\n\nA pointer parameter given an integer.\n\n## Use instead\n\n\
                Pass one argument per runtime parameter, of its type.\n",
        },
        CodeDoc {
            code: MISALIGNED,
            name: "misaligned-access",
            summary: "an access was not aligned to its element size",
            explanation: "GPUs require natural alignment of global loads and stores.\n\n\
                ## Example\n\n```python\np = (x_ptr.to(tl.uint8, bitcast=True) + 1).to(tl.pointer_type(tl.float32), bitcast=True)\n```\n\n\
                ## Use instead\n\nKeep pointers aligned to their element size.\n",
        },
        CodeDoc {
            code: ASSERT_FAILED,
            name: "device-assert",
            summary: "a device assertion failed",
            explanation: "A `tl.device_assert` (or `assert`) condition was false for some lane. \
                Asserts are compiled only in debug mode (`@triton.jit(debug=True)`, \
                `TRITON_DEBUG=1`, `--debug`, `debug = true` in a launch spec); the interpreter \
                reports the first failing program and lane, and the element's index in a \
                block of two or more dims. On the GPU every failing lane prints \
                `file:line: unknown: block: [...], thread: [...] Assertion `msg` failed.` and \
                the launch fails with `CUDA_ERROR_ASSERT` (710).\n\n## Example\n\n\
                ```python\ntl.device_assert(x >= 0)\n```\n\n## Use instead\n\nFix the input or the \
                kernel so the condition holds.\n",
        },
    ],
);

/// What went wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum RuntimeErrorKind {
    /// An active lane addressed memory outside every buffer.
    OutOfBounds {
        /// The flat address.
        address: u64,
        /// The access size in bytes.
        size: u32,
        /// What the address is near (`12 bytes past the end of x (4096 bytes)`).
        detail: String,
    },
    /// A misaligned access.
    Misaligned {
        /// The flat address.
        address: u64,
        /// The access size in bytes.
        size: u32,
    },
    /// Two programs touched the same bytes.
    Race {
        /// `write/write` or `write/read`.
        what: &'static str,
        /// The other program's id.
        other_program: [u32; 3],
        /// The other program's op location.
        other_loc: Location,
        /// A byte both touched.
        address: u64,
        /// The buffer it is in.
        buffer: String,
    },
    /// A loop exceeded the step bound.
    NoProgress {
        /// The bound.
        steps: u64,
    },
    /// Something the interpreter does not execute.
    Unsupported(String),
    /// A launch that does not fit the kernel.
    BadLaunch(String),
    /// A failed device assertion (`tl.device_assert` or `assert` in debug mode).
    AssertFailed {
        /// The assert's message (empty when none was given).
        message: String,
        /// The multi-index of the first failing element in its block (empty for a
        /// scalar condition).
        element: Vec<usize>,
    },
}

/// A runtime error with where and in which program it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    /// What went wrong.
    pub kind: RuntimeErrorKind,
    /// The op's location (with the inlining chain), if an op caused it.
    pub loc: Option<Location>,
    /// The op's name (`tt.load`).
    pub op_name: Option<&'static str>,
    /// The program id (x, y, z).
    pub program: Option<[u32; 3]>,
    /// The element index within the block.
    pub lane: Option<usize>,
}

impl RuntimeError {
    /// An error with no location yet.
    pub fn new(kind: RuntimeErrorKind) -> Self {
        RuntimeError {
            kind,
            loc: None,
            op_name: None,
            program: None,
            lane: None,
        }
    }

    /// An unsupported-construct error.
    pub fn unsupported(msg: impl Into<String>) -> Self {
        Self::new(RuntimeErrorKind::Unsupported(msg.into()))
    }

    /// A bad-launch error.
    pub fn bad_launch(msg: impl Into<String>) -> Self {
        Self::new(RuntimeErrorKind::BadLaunch(msg.into()))
    }

    /// The same error at `lane`.
    pub fn at_lane(mut self, lane: usize) -> Self {
        self.lane.get_or_insert(lane);
        self
    }

    /// The diagnostic code.
    pub fn code(&self) -> Code {
        match self.kind {
            RuntimeErrorKind::OutOfBounds { .. } => OUT_OF_BOUNDS,
            RuntimeErrorKind::Misaligned { .. } => MISALIGNED,
            RuntimeErrorKind::Race { .. } => DATA_RACE,
            RuntimeErrorKind::NoProgress { .. } => NO_PROGRESS,
            RuntimeErrorKind::Unsupported(_) => UNSUPPORTED,
            RuntimeErrorKind::BadLaunch(_) => BAD_LAUNCH,
            RuntimeErrorKind::AssertFailed { .. } => ASSERT_FAILED,
        }
    }

    fn headline(&self) -> String {
        let op = self.op_name.map(|o| format!("`{o}` ")).unwrap_or_default();
        match &self.kind {
            RuntimeErrorKind::OutOfBounds {
                address,
                size,
                detail,
            } => format!(
                "{op}accessed {size} byte(s) at {address:#x} outside every buffer ({detail})"
            ),
            RuntimeErrorKind::Misaligned { address, size } => {
                format!("{op}accessed {size} byte(s) at the misaligned address {address:#x}")
            }
            RuntimeErrorKind::Race {
                what,
                other_program,
                address,
                buffer,
                ..
            } => format!(
                "data race ({what}) on `{buffer}` at {address:#x} with program {}",
                fmt_pid(*other_program)
            ),
            RuntimeErrorKind::NoProgress { steps } => {
                format!("a loop made no progress within {steps} steps")
            }
            RuntimeErrorKind::Unsupported(m) => format!("the interpreter does not support {m}"),
            RuntimeErrorKind::BadLaunch(m) => format!("bad launch: {m}"),
            RuntimeErrorKind::AssertFailed { message, .. } if message.is_empty() => {
                "device assertion failed".to_string()
            }
            RuntimeErrorKind::AssertFailed { message, .. } => {
                format!("device assertion failed: {message}")
            }
        }
    }

    /// The error as a diagnostic: the op's span as the primary label, the inlining call
    /// sites and the other side of a race as secondary labels, program and lane as notes.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code(), self.headline());
        if let Some(loc) = &self.loc {
            if let Some(span) = loc.known_span() {
                d = d.with_primary(span, self.op_name.unwrap_or("here"));
                for (i, c) in loc.call_sites.iter().enumerate() {
                    let label = if i == 0 {
                        "inlined from this call"
                    } else {
                        "called from here"
                    };
                    d = d.with_secondary(*c, label);
                }
            }
        }
        if let RuntimeErrorKind::Race {
            other_loc,
            other_program,
            ..
        } = &self.kind
        {
            if let Some(span) = other_loc.known_span() {
                d = d.with_secondary(
                    span,
                    format!("program {} accessed it here", fmt_pid(*other_program)),
                );
            }
        }
        let mut where_ = Vec::new();
        if let Some(p) = self.program {
            where_.push(format!("program {}", fmt_pid(p)));
        }
        if let Some(l) = self.lane {
            where_.push(format!("lane {l}"));
        }
        if let RuntimeErrorKind::AssertFailed { element, .. } = &self.kind {
            // A block of two or more dims: the lane is its flat index; say which element.
            if element.len() > 1 {
                let idx: Vec<String> = element.iter().map(|i| i.to_string()).collect();
                where_.push(format!("element ({})", idx.join(", ")));
            }
        }
        if !where_.is_empty() {
            d = d.with_note(format!("in {}", where_.join(", ")));
        }
        match &self.kind {
            RuntimeErrorKind::OutOfBounds { .. } => {
                d = d.with_help("mask the access (`mask=offs < n`) or fix the offset arithmetic")
            }
            RuntimeErrorKind::Race { .. } => {
                d = d.with_help("give each program its own block, or use an atomic")
            }
            RuntimeErrorKind::AssertFailed { .. } => {
                d = d.with_note(
                    "on the GPU every failing lane prints this message and the launch fails \
                     with CUDA_ERROR_ASSERT (710)",
                )
            }
            _ => {}
        }
        d
    }
}

/// `(x, y, z)` with trailing zero axes dropped: `3`, `(3, 1)`.
pub fn fmt_pid(p: [u32; 3]) -> String {
    if p[1] == 0 && p[2] == 0 {
        p[0].to_string()
    } else if p[2] == 0 {
        format!("({}, {})", p[0], p[1])
    } else {
        format!("({}, {}, {})", p[0], p[1], p[2])
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code().0, self.headline())?;
        if let Some(p) = self.program {
            write!(f, " (program {}", fmt_pid(p))?;
            if let Some(l) = self.lane {
                write!(f, ", lane {l}")?;
            }
            f.write_str(")")?;
        }
        if let Some(loc) = &self.loc {
            if !loc.is_unknown() {
                write!(f, " at {loc}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}

impl From<RuntimeError> for Diagnostic {
    fn from(e: RuntimeError) -> Diagnostic {
        e.to_diagnostic()
    }
}

/// Shorthand result type.
pub type RtResult<T> = Result<T, RuntimeError>;
