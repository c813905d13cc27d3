//! The codes the command line itself emits: `E05xx`, input errors.
//!
//! Each code is a `pub const` used at the emit site and a [`CodeDoc`] in [`REGISTRY`];
//! [`catalog`] joins this registry with those of the other stages for `tritonc rule`.

use tritonc_diagnostics::{Code, CodeCatalog, CodeDoc, CodeRegistry};

/// A path named on the command line does not exist.
pub const PATH_NOT_FOUND: Code = Code("E0501");
/// A directory, FIFO, socket or device where a regular file is required.
pub const NOT_A_FILE: Code = Code("E0502");
/// The file exists but cannot be read.
pub const UNREADABLE_FILE: Code = Code("E0503");
/// The file is not valid UTF-8.
pub const NOT_UTF8: Code = Code("E0504");
/// The file is empty.
pub const EMPTY_FILE: Code = Code("E0505");
/// The file has no `@triton.jit` kernel.
pub const NO_KERNELS: Code = Code("E0506");
/// `--kernel NAME` names no kernel of the file.
pub const UNKNOWN_KERNEL: Code = Code("E0507");
/// The file has several kernels and `--kernel` was not given.
pub const AMBIGUOUS_KERNEL: Code = Code("E0508");
/// `num_warps` is not a power of two between 1 and 32, or makes a block of more threads
/// than the target allows.
pub const INVALID_NUM_WARPS: Code = Code("E0509");
/// `--target` names no known target.
pub const UNKNOWN_TARGET: Code = Code("E0510");
/// `--emit` names no known stage.
pub const UNKNOWN_EMIT_STAGE: Code = Code("E0511");
/// `tritonc rule CODE` with a code no registry documents.
pub const UNKNOWN_RULE_CODE: Code = Code("E0512");
/// The paths given to `lint` hold no Python files.
pub const NO_PYTHON_FILES: Code = Code("E0513");
/// An output file or directory cannot be written.
pub const CANNOT_WRITE_OUTPUT: Code = Code("E0514");
/// ptxas ran past its time or memory bound, or a bound's variable is malformed.
pub const PTXAS_BOUND: Code = Code("E0515");
/// `tritonc tune` was given a kernel it cannot tune: no `@triton.autotune`, or a part of
/// the decorator tritonc cannot evaluate.
pub const NOT_AUTOTUNED: Code = Code("E0516");
/// The per-thread code of a kernel would define more registers than the back end's
/// budget (`TRITONC_REGISTER_BUDGET`), or that variable is malformed.
pub const REGISTER_BUDGET: Code = Code("E0517");
/// A tuning table given to `tritonc compile --emit c --tuned DIR` could not be used as a
/// whole (a warning): its entries measured on other code than the variants compiled now
/// are left out, and a table whose key is not an integer argument, or whose configs set
/// values that are not numbers, gives the kernel no tuned dispatch (docs/c.md).
pub const TUNE_TABLE_UNUSED: Code = Code("E0518");
/// The requested feature is not available in this build.
pub const NOT_IMPLEMENTED: Code = Code("E0590");
/// The back end cannot lower the kernel yet.
pub const BACKEND_UNSUPPORTED: Code = Code("E0591");
/// No GPU or driver to run on.
pub const NO_GPU: Code = Code("E0592");
/// A launch refused before it reached the GPU, or a bundle that cannot run.
pub const LAUNCH_REFUSED: Code = Code("E0593");
/// A failure inside tritonc's own generated code or the driver.
pub const INTERNAL_FAILURE: Code = Code("E0594");

/// The registry of the command line's input errors.
pub static REGISTRY: CodeRegistry = CodeRegistry::new("input", CODES);

/// Every registry of this build, for `tritonc rule`.
pub fn catalog() -> CodeCatalog {
    CodeCatalog::new()
        .with(tritonc_syntax::codes::REGISTRY)
        .with(tritonc_sema::codes::REGISTRY)
        .with(tritonc_lint::REGISTRY)
        .with(tritonc_spec::codes::REGISTRY)
        .with(tritonc_interp::REGISTRY)
        .with(REGISTRY)
}

static CODES: &[CodeDoc] = &[
    CodeDoc {
        code: PATH_NOT_FOUND,
        name: "path-not-found",
        summary: "a path named on the command line does not exist",
        explanation: "\
A file or directory given on the command line does not exist. `tritonc lint` still checks
the other paths it was given, but exits with status 2.

## Example

```sh
tritonc lint kernals/
```

## Use instead

```sh
tritonc lint kernels/
```
",
    },
    CodeDoc {
        code: NOT_A_FILE,
        name: "not-a-file",
        summary: "a directory was given where a file is required",
        explanation: "\
`tritonc compile` works on one Python file; it was given a directory (or a special file).
`tritonc lint` is the command that walks directories. A FIFO, socket or device named on
the command line (`mkfifo k.py`, a process substitution `<(…)`, `/dev/stdin` from a pipe)
is refused at once, by `lint` and `compile` alike, rather than read: reading it could wait
for a writer forever.

## Example

```sh
tritonc compile kernels/
```

## Use instead

```sh
tritonc compile kernels/softmax.py --kernel softmax_kernel
```
",
    },
    CodeDoc {
        code: UNREADABLE_FILE,
        name: "unreadable-file",
        summary: "a file exists but cannot be read",
        explanation: "\
The operating system refused to read the file (permissions, a broken link, an I/O error).
The message carries the system's reason.

## Example

```sh
chmod 000 kernel.py && tritonc lint kernel.py
```

## Use instead

Make the file readable by the user running tritonc.
",
    },
    CodeDoc {
        code: NOT_UTF8,
        name: "not-utf8",
        summary: "a source file is not valid UTF-8",
        explanation: "\
Python 3 source is UTF-8 unless a coding declaration says otherwise; tritonc reads UTF-8
only. The label points at the first byte that is not valid UTF-8.

## Example

A file saved as Latin-1 containing `# café` (the `é` is the single byte `0xE9`).

## Use instead

Re-save the file as UTF-8 (`iconv -f latin1 -t utf-8`).
",
    },
    CodeDoc {
        code: EMPTY_FILE,
        name: "empty-file",
        summary: "the file to compile is empty",
        explanation: "\
`tritonc compile` was given a file with no content (or only whitespace), so there is no
kernel to compile.

## Example

```sh
touch kernel.py && tritonc compile kernel.py
```

## Use instead

Point `compile` at the file that defines the kernel.
",
    },
    CodeDoc {
        code: NO_KERNELS,
        name: "no-kernels",
        summary: "the file defines no `@triton.jit` kernel",
        explanation: "\
`tritonc compile` looks for functions decorated with `@triton.jit` (in any spelling:
`@triton.jit`, `@jit` after `from triton import jit`, `@triton.jit(...)`); the file has none.

## Example

```python
def add(x, y):
    return x + y
```

## Use instead

```python
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    ...
```
",
    },
    CodeDoc {
        code: UNKNOWN_KERNEL,
        name: "unknown-kernel",
        summary: "`--kernel` names no kernel of the file",
        explanation: "\
The name given to `--kernel` is not a `@triton.jit` function of the file. The help line
lists the kernels the file does define.

## Example

```sh
tritonc compile softmax.py --kernel softmax
```

## Use instead

```sh
tritonc compile softmax.py --kernel softmax_kernel
```
",
    },
    CodeDoc {
        code: AMBIGUOUS_KERNEL,
        name: "ambiguous-kernel",
        summary: "the file has several kernels and `--kernel` was not given",
        explanation: "\
When a file defines more than one `@triton.jit` function, `tritonc compile` cannot guess
which one to compile. Helpers called from a kernel are `@triton.jit` functions too.

## Example

```sh
tritonc compile attention.py
```

## Use instead

```sh
tritonc compile attention.py --kernel attn_fwd
```
",
    },
    CodeDoc {
        code: INVALID_NUM_WARPS,
        name: "invalid-num-warps",
        summary: "`num_warps` is not a power of two between 1 and 32, or makes a block \
                  larger than the target allows",
        explanation: "\
A Triton program runs as one CTA of `num_warps` warps. Triton requires a power of two, and
a CTA holds at most 1024 threads: 32 warps of 32 threads on NVIDIA GPUs, 16 waves of 64
lanes on AMD's gfx90a and gfx942. A variant compiled for more (`--num-warps`, an autotune
config's `num_warps`, a project configuration's `num_warps`) could never launch: Triton
3.6 compiles `num_warps=32` for gfx942 without a word, into a code object that allows
1024 threads per block, and the launch of 2048 fails on the device. tritonc refuses it
when it compiles (exit 2).

## Example

```sh
tritonc compile kernel.py --num-warps 6
tritonc compile kernel.py --target gfx942 --num-warps 32
```

## Use instead

```sh
tritonc compile kernel.py --num-warps 8
tritonc compile kernel.py --target gfx942 --num-warps 16
```
",
    },
    CodeDoc {
        code: UNKNOWN_TARGET,
        name: "unknown-target",
        summary: "`--target` names no known target",
        explanation: "\
Targets are named by architecture: `sm_80`, `sm_86`, `sm_89`, `sm_90`, `sm_90a` for NVIDIA,
`gfx90a`, `gfx942` for AMD.

## Example

```sh
tritonc compile kernel.py --target h100
```

## Use instead

```sh
tritonc compile kernel.py --target sm_90
```
",
    },
    CodeDoc {
        code: UNKNOWN_EMIT_STAGE,
        name: "unknown-emit-stage",
        summary: "`--emit` names no known stage",
        explanation: "\
`--emit` takes a comma-separated list of pipeline stages: `ttir` (the tile IR), `ttgir`
(with layouts), `mlir`, `llir`, then `ptx`, `cubin`, `c` for NVIDIA targets or `amdgcn`
for AMD ones. A stage of the other vendor's targets (`--emit ptx --target gfx942`) is
refused with this code too.

## Example

```sh
tritonc compile kernel.py --emit ir
```

## Use instead

```sh
tritonc compile kernel.py --emit ttir
```
",
    },
    CodeDoc {
        code: UNKNOWN_RULE_CODE,
        name: "unknown-rule-code",
        summary: "`tritonc rule` was given a code no registry documents",
        explanation: "\
Every diagnostic tritonc emits has a documented code. `tritonc rule --all` lists them.

## Example

```sh
tritonc rule E9999
```

## Use instead

```sh
tritonc rule --all
```
",
    },
    CodeDoc {
        code: NO_PYTHON_FILES,
        name: "no-python-files",
        summary: "the paths given to `lint` hold no Python files",
        explanation: "\
`tritonc lint` walks directories for `*.py` files, skipping what `.gitignore` and `.ignore`
exclude and hidden directories. None were found, so nothing was checked. This is a warning:
the exit status stays 0.

## Example

```sh
tritonc lint docs/
```

## Use instead

```sh
tritonc lint kernels/
```
",
    },
    CodeDoc {
        code: CANNOT_WRITE_OUTPUT,
        name: "cannot-write-output",
        summary: "an output file cannot be written",
        explanation: "\
`tritonc compile -o DIR` creates `DIR` if needed and writes one file per emitted stage
(`KERNEL.ttir`, `KERNEL.ptx`, ...). The operating system refused; the message carries its
reason.

## Example

```sh
tritonc compile kernel.py --emit ttir -o /read-only/out
```

## Use instead

```sh
tritonc compile kernel.py --emit ttir -o build/kernels
```
",
    },
    CodeDoc {
        code: PTXAS_BOUND,
        name: "ptxas-bound",
        summary: "ptxas ran past its time or memory bound",
        explanation: "\
ptxas, which assembles the PTX into a cubin, runs under a time bound (`TRITONC_PTXAS_TIMEOUT`,
default 600 seconds) and a memory bound (`TRITONC_PTXAS_MEMORY`, its address space, default
16 GiB). A ptxas past either is stopped, its files removed, and the compile ends with exit
status 5. `ptxas --version`, which the compile cache asks, is given 10 seconds at most.
The bounds are generous: large tensor-core kernels take ptxas minutes and gigabytes, but a
kernel past them is nearly always a block size larger than meant (Triton allows up to 2^20
elements, which ptxas may take many minutes over).

The time bound is seconds (`600`, `2.5`) or with a unit (`90s`, `10m`, `1h`); the memory
bound a size (`512M`, `16G`); `none` removes a bound. A malformed value is this code too,
with exit status 2.

## Example

```text
TRITONC_PTXAS_TIMEOUT=1 tritonc compile kernel.py --signature \"*fp32, 1048576\"
error[E0515]: `ptxas -arch=sm_90` ran past its time bound of 1 s and was stopped
```

## Use instead

Check the block sizes, or allow more: `TRITONC_PTXAS_TIMEOUT=30m TRITONC_PTXAS_MEMORY=64G`.
",
    },
    CodeDoc {
        code: NOT_AUTOTUNED,
        name: "not-autotuned",
        summary: "`tritonc tune` cannot tune this kernel",
        explanation: "\
`tritonc tune` times the configs of a kernel's `@triton.autotune` decorator. It reports
this error when the kernel has no such decorator, or when a part of the decorator would
make the configs run differently than tritonc can run them: configs it cannot read, a
`pre_hook` or `post_hook` (Python code around every run), a `prune_configs_by` that is not
a dict display, an `early_config_prune` whose body the compile-time evaluator cannot run,
or `reset_to_zero`/`restore_value` naming no parameter. The label points at the part.

## Example

```python
@triton.autotune(configs=[...], key=['n'], pre_hook=zero_y)
```

## Use instead

```python
@triton.autotune(configs=[...], key=['n'], reset_to_zero=['y_ptr'])
```
",
    },
    CodeDoc {
        code: REGISTER_BUDGET,
        name: "register-budget",
        summary: "the code one thread runs would be too large to build in reasonable time",
        explanation: "\
The back end gives every element a thread holds of every block value a register of its
own, so the per-thread code grows with the block. Before it builds anything, tritonc
counts the 32-bit registers the code of one thread would define (every block value of the
GPU IR, elements per thread times 32-bit words per element) and refuses a kernel past a
budget: `TRITONC_REGISTER_BUDGET`, default 65536 (2^16). The project's examples at their
own warp counts and its tensor-core tests define at most 6,678, the matmul example forced
onto one warp 54,648. An elementwise add with a block
of 2^17 elements over 4 warps defines 20,480 and keeps LLVM busy for 12.5 s, with 2^18
for 51 s: fourfold per doubling of the block. With Triton's largest block, `BLOCK =
2**20` elements, each thread holds 8192 elements of every value (32 times the 255
registers a thread has) and the code defines 163,840 registers: LLVM would run for about
a quarter of an hour, in process, where no time bound can stop it, and ptxas for many
minutes and gigabytes after that (Triton 3.6 accepts such a block and hands ptxas that
code). The
compile ends at once with exit status 5, as for a ptxas past its bounds; nothing is
cached and no bundle is written.

The budget is a number of registers; `none` removes it. A malformed value is this code
too, with exit status 2.

## Example

```text
tritonc compile add.py --signature \"*fp32:16, *fp32:16, *fp32:16, i32, 1048576\"
error[E0517]: the code one thread of `add_kernel` runs would define 163840 registers, past the budget of 65536 …
```

## Use instead

Use a smaller block and more programs (`BLOCK = 1024` to `8192` is Triton's usual range),
or more warps; or, to build it anyway, `TRITONC_REGISTER_BUDGET=none`.
",
    },
    CodeDoc {
        code: TUNE_TABLE_UNUSED,
        name: "tune-table-unused",
        summary: "a tuning table given to `--emit c --tuned` could not be used as a whole",
        explanation: "\
`tritonc compile --emit c --tuned DIR` reads the tuning tables `tritonc tune` wrote into
DIR (`KERNEL.tune-*.json`) and gives each autotuned kernel `KERNEL_tuned_config` and
`KERNEL_launch_config` (docs/c.md). As a warning, this code says what of a table was
left out: no table of the file's kernels in DIR; entries measured on other code than the
variants compiled now (each entry records the code digests of the variants it timed; a
recompile with another signature, option or toolchain gives other code, and an entry
timed on other code is never trusted, by any launcher); a table whose key is not an
integer argument of the launch, or whose configs set values that are not numbers, which
gives the kernel no tuned functions. As an error: `--tuned` without `--emit c`.

## Example

```text
tritonc compile matmul.py --signature \"*fp16, *fp16, *fp16, i32, i32, i32\" --emit c -o build --tuned tuned/
warning[E0518]: `matmul_kernel` on NVIDIA H200: 3 of 3 tuned entries were measured on other code than the variants compiled now, and are left out
```

## Use instead

Compile with the signature and options the tuning compiled with (`tritonc tune` prints
them; `--signature` as in the spec's arguments, `:16` included), or tune again.
",
    },
    CodeDoc {
        code: NOT_IMPLEMENTED,
        name: "not-implemented",
        summary: "the requested feature is not available in this build",
        explanation: "\
The command or pipeline stage exists in tritonc's interface but is not available in this
build: the back end (`--emit ttgir`, `mlir`, `llir`, `ptx`, `cubin`), `tritonc run` and
`tritonc verify` are still being built. The exit status is 4, so scripts can tell this
apart from an error in their input.

## Example

```sh
tritonc compile kernel.py --emit ptx
```

## Use instead

Use the stages this build has (`--emit ttir`) and check `tritonc --version` for updates.
",
    },
    CodeDoc {
        code: BACKEND_UNSUPPORTED,
        name: "backend-unsupported",
        summary: "the NVIDIA back end cannot lower this kernel yet",
        explanation: "\
The kernel is valid Triton, but the back end does not lower one of its constructs yet
(the message names the stage and, where known, points at the op). The exit status is 4,
as for other features missing from this build. The interpreter (`tritonc run SPEC
--interpret`) runs every kernel the front end accepts.

## Example

```python
acc = tl.dot(a, b, acc)  # before the tensor-core path
```

## Use instead

Run the kernel on the interpreter, or compile it with upstream Triton for now.
",
    },
    CodeDoc {
        code: NO_GPU,
        name: "no-gpu",
        summary: "no CUDA driver or GPU to run on",
        explanation: "\
`tritonc run` and `tritonc verify` launch kernels through the CUDA driver (libcuda, loaded
at run time). Without a driver or a GPU they stop with exit status 3.

## Example

```text
tritonc run examples/softmax.toml      # on a machine without a GPU
```

## Use instead

```text
tritonc run examples/softmax.toml --interpret
tritonc verify examples/softmax.toml --interpret
```
",
    },
    CodeDoc {
        code: LAUNCH_REFUSED,
        name: "launch-refused",
        summary: "the arguments break an assumption the bundle was compiled with",
        explanation: "\
A bundle is compiled for a specialization: `:16` pointers are 16-byte aligned, `:16`
integers are multiples of 16, `:1` integers equal 1, dtypes and constexprs are fixed.
Before a launch every assumption is checked against the actual arguments; a launch that
breaks one is refused (exit status 2) rather than run with wrong results.

## Example

```toml
[tensors.x]
offset = 1          # x is no longer 16-byte aligned; the bundle says `*fp32:16`
```

## Use instead

Compile the variant the launch needs: `tritonc compile --spec SPEC -o DIR`.
",
    },
    CodeDoc {
        code: INTERNAL_FAILURE,
        name: "internal-failure",
        summary: "generated code was rejected by ptxas or the driver, or faulted",
        explanation: "\
ptxas or the CUDA driver rejected PTX that tritonc generated, or a kernel faulted on the
GPU. This is a bug in tritonc (exit status 70); please report it with the kernel and the
command line.

## Example

```text
error[E0594]: ptxas rejected the generated PTX for sm_90
```

## Use instead

Run the kernel on the interpreter (`--interpret`) meanwhile.
",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_input_code_is_documented_once_in_range() {
        for doc in CODES {
            assert!(
                doc.code.0.starts_with("E05"),
                "{} is not an input-error code",
                doc.code
            );
            assert!(doc.explanation.contains("## Example"), "{}", doc.code);
            assert!(doc.explanation.contains("## Use instead"), "{}", doc.code);
        }
        assert!(
            catalog().duplicate_codes().is_empty(),
            "{:?}",
            catalog().duplicate_codes()
        );
    }
}
