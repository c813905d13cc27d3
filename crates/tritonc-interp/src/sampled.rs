//! Some programs of a launch, not all: for launches too large to interpret whole (inputs
//! past 2^31 elements), the verifier runs a few sampled program ids and compares what
//! they wrote with the device's full launch.
//!
//! Each sampled program runs against the launch's memory as it is, plus its own writes,
//! exactly as in a parallel launch ([`crate::ExecutionMode::Parallel`]); its writes are
//! handed back instead of applied, so the memory is only read (a 4 GiB input is neither
//! copied nor touched beyond the bytes the programs load).

use std::rc::Rc;

use rayon::prelude::*;
use tritonc_ir::{Function, OpKind};

use crate::data::Val;
use crate::error::{RtResult, RuntimeError};
use crate::exec::Program;
use crate::launch::{bind_args, ArgValue};
use crate::memory::{Memory, ProgramMemory, WriteRun};
use crate::InterpOptions;

/// What one program of a sampled launch did.
#[derive(Debug, Clone)]
pub struct ProgramRun {
    /// Its program id (x, y, z).
    pub program: [u32; 3],
    /// Its writes in program order (later runs win where they overlap), not applied.
    pub writes: Vec<WriteRun>,
    /// Its `tt.print` output.
    pub prints: Vec<String>,
}

/// Runs the programs `programs` of a launch of `func` over `grid` against `memory`,
/// each on its own (in parallel), and returns each one's outcome in the order given.
///
/// Programs do not see each other's writes, so this is the launch's result only for
/// kernels whose programs do not communicate: kernels with atomics are refused (their
/// results depend on every program). A program id outside the grid is an error of
/// that program.
pub fn launch_programs(
    func: &Function,
    args: &[ArgValue],
    grid: [u32; 3],
    programs: &[[u32; 3]],
    memory: &Memory,
    opts: &InterpOptions,
) -> RtResult<Vec<RtResult<ProgramRun>>> {
    let arg_vals = bind_args(func, args)?;
    let has_atomics = func.walk().iter().any(|&o| {
        matches!(
            func.kind(o),
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. }
        )
    });
    if has_atomics {
        return Err(RuntimeError::unsupported(
            "a kernel with atomics cannot run on sampled program ids: its results depend \
             on every program of the launch",
        ));
    }
    let orders =
        crate::order::CombineOrders::for_function(&opts.reduction_orders, func, opts.num_warps);
    let run_one = |&pid: &[u32; 3]| -> RtResult<ProgramRun> {
        if pid.iter().zip(&grid).any(|(p, g)| p >= g) {
            return Err(RuntimeError::bad_launch(format!(
                "program {pid:?} is outside the grid {grid:?}"
            )));
        }
        let mem = ProgramMemory::Deferred {
            base: memory,
            runs: Vec::new(),
            hull: None,
        };
        let mut p = Program::new(func, pid, grid, mem, opts, &orders);
        let args: Vec<Rc<Val>> = arg_vals.iter().cloned().map(Rc::new).collect();
        p.run(&args)?;
        Ok(ProgramRun {
            program: pid,
            writes: p.mem.into_runs(),
            prints: p.prints,
        })
    };
    Ok(if opts.parallel {
        programs.par_iter().map(run_one).collect()
    } else {
        programs.iter().map(run_one).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Buffer;
    use crate::RuntimeErrorKind;
    use tritonc_ir::{parse_module, DType};

    /// `out[i] = x[i] + x[i]` over blocks of 1024 fp16, with the block's offsets in
    /// `offset_type` (`i32`: `pid * 1024` wraps past 2^31, as in Triton).
    fn doubling_kernel(offset_type: &str) -> Function {
        let offsets = if offset_type == "i32" {
            "    %2 = arith.muli %0, %1 : i32
    %4 = tt.splat %2 : i32 -> tensor<1024xi32>
    %5 = arith.addi %4, %3 : tensor<1024xi32>
    %6 = arith.extsi %5 : tensor<1024xi32> -> tensor<1024xi64>"
        } else {
            "    %20 = arith.extsi %0 : i32 -> i64
    %21 = arith.extsi %1 : i32 -> i64
    %2 = arith.muli %20, %21 : i64
    %4 = tt.splat %2 : i64 -> tensor<1024xi64>
    %22 = arith.extsi %3 : tensor<1024xi32> -> tensor<1024xi64>
    %5 = arith.addi %4, %22 : tensor<1024xi64>"
        };
        let ot = if offset_type == "i32" { "i32" } else { "i64" };
        // The mask compares the offsets as i64 (widened when they are i32).
        let cmp_lhs = if offset_type == "i32" { "%6" } else { "%5" };
        let text = format!(
            "module {{
  tt.func public @double(%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<f16>, %arg2: i64) {{
    %0 = tt.get_program_id {{axis = 0 : i32}} : i32
    %1 = arith.constant 1024 : i32
    %3 = tt.make_range {{start = 0 : i32, end = 1024 : i32}} : tensor<1024xi32>
{offsets}
    %7 = tt.splat %arg2 : i64 -> tensor<1024xi64>
    %8 = arith.cmpi {cmp_lhs}, %7 {{predicate = slt}} : tensor<1024xi64>, tensor<1024xi64> -> tensor<1024xi1>
    %9 = tt.splat %arg0 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %10 = tt.addptr %9, %5 : tensor<1024x!tt.ptr<f16>>, tensor<1024x{ot}> -> tensor<1024x!tt.ptr<f16>>
    %11 = tt.load %10, %8 : tensor<1024x!tt.ptr<f16>>, tensor<1024xi1> -> tensor<1024xf16>
    %12 = arith.addf %11, %11 : tensor<1024xf16>
    %13 = tt.splat %arg1 : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>>
    %14 = tt.addptr %13, %5 : tensor<1024x!tt.ptr<f16>>, tensor<1024x{ot}> -> tensor<1024x!tt.ptr<f16>>
    tt.store %14, %12, %8 : tensor<1024x!tt.ptr<f16>>, tensor<1024xf16>, tensor<1024xi1>
    tt.return
  }}
}}"
        );
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        m.functions.into_iter().next().expect("one function")
    }

    /// A launch over `n` fp16 elements: `x` and `out` allocated zeroed (untouched pages
    /// cost no memory), `x[i] = marker(i)` written only where `marked` says.
    fn memory(n: usize, marked: &[usize]) -> (Memory, Vec<ArgValue>) {
        let mut mem = Memory::new();
        let mut x = Buffer::zeros("x", DType::F16, n);
        for &i in marked {
            let v = half::f16::from_f32((i % 1000) as f32 + 0.5);
            x.bytes[2 * i..2 * i + 2].copy_from_slice(&v.to_bits().to_le_bytes());
        }
        let xid = mem.add(x);
        let out = mem.add(Buffer::zeros("out", DType::F16, n));
        let args = vec![
            ArgValue::Ptr(xid.base_address()),
            ArgValue::Ptr(out.base_address()),
            ArgValue::Int(n as i128),
        ];
        (mem, args)
    }

    #[test]
    fn only_the_sampled_programs_run_and_their_writes_come_back_unapplied() {
        let n = 10 * 1024 + 100;
        let (mem, args) = memory(n, &[0, 3 * 1024 + 7, 10 * 1024 + 99]);
        let func = doubling_kernel("i32");
        let before = mem.clone();
        let runs = launch_programs(
            &func,
            &args,
            [11, 1, 1],
            &[[3, 0, 0], [10, 0, 0], [0, 0, 0]],
            &mem,
            &InterpOptions::default(),
        )
        .expect("the launch binds");
        assert_eq!(mem, before, "memory is only read");
        let runs: Vec<ProgramRun> = runs.into_iter().map(|r| r.expect("runs")).collect();
        assert_eq!(runs[0].program, [3, 0, 0]);
        let out = out_base();
        // Program 3 writes its whole block, in one run at out + 3·1024 elements.
        assert_eq!(runs[0].writes.len(), 1);
        assert_eq!(runs[0].writes[0].start, out + 2 * 3 * 1024);
        assert_eq!(runs[0].writes[0].bytes.len(), 2 * 1024);
        let at = |r: &ProgramRun, i: usize| {
            let b = &r.writes[0].bytes[2 * i..2 * i + 2];
            half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32()
        };
        assert_eq!(at(&runs[0], 7), 2.0 * (3.0 * 1024.0 + 7.0 - 3000.0 + 0.5));
        assert_eq!(at(&runs[0], 8), 0.0);
        // The last program is masked to its 100 elements.
        assert_eq!(runs[1].writes[0].bytes.len(), 2 * 100);
        assert_eq!(
            at(&runs[1], 99),
            2.0 * ((10 * 1024 + 99) % 1000) as f32 + 1.0
        );
        assert_eq!(at(&runs[2], 0), 1.0);
        // A program id outside the grid is that program's error only.
        let r = launch_programs(
            &func,
            &args,
            [11, 1, 1],
            &[[11, 0, 0], [1, 0, 0]],
            &mem,
            &InterpOptions::default(),
        )
        .expect("binds");
        assert!(r[0]
            .as_ref()
            .is_err_and(|e| e.to_string().contains("outside the grid")));
        assert!(r[1].is_ok());
    }

    /// The address of `out` (buffer 1) in [`memory`]'s layout.
    fn out_base() -> u64 {
        crate::BufferId(1).base_address()
    }

    /// Past 2^31 elements: int32 offsets wrap negative, as on the GPU, and the sampled
    /// program that straddles the boundary faults before `x`; int64 offsets run. The
    /// buffers are 4 GiB each but only the pages the programs touch are ever resident.
    #[test]
    fn past_two_to_the_31_elements_int32_offsets_fault_and_int64_offsets_run() {
        let n = (1usize << 31) + 3000;
        let boundary_pid = (1u32 << 31) / 1024; // first element 2^31
        let marked = [(1usize << 31) - 1, 1 << 31, n - 1];
        let (mem, args) = memory(n, &marked);
        let grid = [n.div_ceil(1024) as u32, 1, 1];
        let pids = [
            [boundary_pid - 1, 0, 0],
            [boundary_pid, 0, 0],
            [grid[0] - 1, 0, 0],
        ];
        let opts = InterpOptions::default();

        let wide = launch_programs(&doubling_kernel("i64"), &args, grid, &pids, &mem, &opts)
            .expect("binds");
        let runs: Vec<ProgramRun> = wide.into_iter().map(|r| r.expect("in bounds")).collect();
        let out = out_base();
        assert_eq!(runs[1].writes[0].start, out + 2 * (1u64 << 31));
        let last = &runs[0].writes[0].bytes;
        let v = half::f16::from_bits(u16::from_le_bytes([last[2046], last[2047]])).to_f32();
        assert_eq!(v, 2.0 * (((1usize << 31) - 1) % 1000) as f32 + 1.0);
        // The last program's 3000 - 2·1024 elements.
        assert_eq!(runs[2].writes[0].bytes.len(), 2 * (3000 - 2048));

        let narrow = launch_programs(&doubling_kernel("i32"), &args, grid, &pids, &mem, &opts)
            .expect("binds");
        // Below the boundary the int32 kernel is right.
        assert!(narrow[0].is_ok());
        // At it, pid · 1024 wraps to -2^31: the load lands 4 GiB before `x`.
        for r in &narrow[1..] {
            let e = r.as_ref().expect_err("wrapped offsets fault");
            match &e.kind {
                RuntimeErrorKind::OutOfBounds { detail, .. } => {
                    assert!(detail.contains("before the start of `x`"), "{detail}")
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            narrow[1].as_ref().err().and_then(|e| e.program),
            Some([boundary_pid, 0, 0])
        );
    }
}
