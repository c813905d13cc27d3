//! A launch: every program of the grid, streamed in chunks of programs, each chunk in
//! parallel where that cannot change results, with race detection over the programs'
//! access logs.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use tritonc_ir::{Function, OpKind, Type};

use crate::data::{storage_of, Data, Storage, Val};
use crate::error::{RtResult, RuntimeError};
use crate::exec::Program;
use crate::memory::{apply_runs, AccessLog, Memory, ProgramMemory, WriteRun};
use crate::race::RaceCheck;
use crate::InterpOptions;

/// The value passed for one runtime parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgValue {
    /// A pointer (a flat address, e.g. [`crate::BufferId::base_address`] plus an offset).
    Ptr(u64),
    /// An integer (wrapped to the parameter's width).
    Int(i128),
    /// A float (rounded to the parameter's dtype).
    Float(f64),
}

/// How the programs of a launch ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionMode {
    /// In parallel, each program seeing memory as at launch plus its own writes.
    Parallel,
    /// One after another in program-id order (kernels with atomics, or on request).
    Sequential,
}

/// What a successful launch reports.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchReport {
    /// Programs run.
    pub programs: u64,
    /// How they ran.
    pub mode: ExecutionMode,
    /// `tt.print` output, in program-id order.
    pub prints: Vec<String>,
}

/// What a parallel program leaves behind: its deferred writes, accesses and prints.
type ProgramOutcome = (Vec<WriteRun>, AccessLog, Vec<String>);

/// Programs in a launch's first chunk.
const FIRST_CHUNK: u64 = 256;
/// The most programs in one chunk.
const MAX_CHUNK: u64 = 1 << 16;
/// What one chunk's writes and access logs may take, roughly, in bytes.
const CHUNK_BYTES: u64 = 64 << 20;

/// The size of the chunk after one of `programs` programs that kept `bytes` bytes of
/// writes and access records: a function of the programs' behaviour only (never of the
/// thread count), so chunk boundaries, and with them every result and every reported
/// race, are the same on any number of threads.
fn next_chunk(programs: u64, bytes: u64) -> u64 {
    let per_program = bytes / programs.max(1) + 64;
    (CHUNK_BYTES / per_program).clamp(FIRST_CHUNK, MAX_CHUNK)
}

/// Bytes a program's deferred writes and access log take.
fn kept_bytes(runs: &[WriteRun], log: &AccessLog) -> u64 {
    let runs: usize = runs
        .iter()
        .map(|r| r.bytes.len() + std::mem::size_of::<WriteRun>())
        .sum();
    (runs + log.accesses.len() * std::mem::size_of::<crate::memory::Access>()) as u64
}

/// Runs `func` over `grid` against `memory`.
///
/// The programs run in chunks, in program-id order; a chunk's programs run in parallel
/// (or one after another, see [`ExecutionMode`]), then its writes are applied and its
/// access logs checked for races with each other and with the chunks before (kept as
/// [`crate::footprint::Footprint`]s) and dropped. Memory therefore grows with the data
/// the launch touches, not with its grid. In a launch without races no program reads a
/// byte another program wrote, so applying a chunk's writes before the next chunk runs
/// gives the same result as applying all writes at the end.
/// The most programs one interpreted launch runs (2^32: over an hour at a microsecond
/// a program). A larger grid is refused before anything runs instead of running for
/// days; `tritonc verify` checks such launches on sampled programs.
pub const MAX_PROGRAMS: u64 = 1 << 32;

pub fn launch(
    func: &Function,
    args: &[ArgValue],
    grid: [u32; 3],
    memory: &mut Memory,
    opts: &InterpOptions,
) -> RtResult<LaunchReport> {
    let arg_vals = bind_args(func, args)?;
    if grid.contains(&0) {
        return Ok(LaunchReport {
            programs: 0,
            mode: ExecutionMode::Sequential,
            prints: Vec::new(),
        });
    }
    let total = grid[0] as u64 * grid[1] as u64 * grid[2] as u64;
    if total > MAX_PROGRAMS {
        return Err(RuntimeError::unsupported(format!(
            "a grid of {} × {} × {} = {total} programs: more than the interpreter runs in one \
             launch ({MAX_PROGRAMS}); run it on the GPU, or let `tritonc verify` check it on \
             sampled programs",
            grid[0], grid[1], grid[2]
        )));
    }
    let has_atomics = func.walk().iter().any(|&o| {
        matches!(
            func.kind(o),
            OpKind::AtomicRmw { .. } | OpKind::AtomicCas { .. }
        )
    });
    let mode = if opts.parallel && !has_atomics && total > 1 {
        ExecutionMode::Parallel
    } else {
        ExecutionMode::Sequential
    };
    let pid_of = |lin: u64| -> [u32; 3] {
        let (gx, gy) = (grid[0] as u64, grid[1] as u64);
        [
            (lin % gx) as u32,
            ((lin / gx) % gy) as u32,
            (lin / (gx * gy)) as u32,
        ]
    };
    let orders =
        crate::order::CombineOrders::for_function(&opts.reduction_orders, func, opts.num_warps);
    let orders = &orders;
    let done = AtomicU64::new(0);
    let tick = || {
        if let Some(p) = &opts.progress {
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if d == total || d % 64 == 0 {
                p(d, total);
            }
        }
    };
    let mut races = RaceCheck::default();
    let mut prints = Vec::new();
    let mut first = 0u64;
    let mut chunk = FIRST_CHUNK;
    while first < total {
        let end = total.min(first + chunk);
        let mut logs: Vec<AccessLog> = Vec::with_capacity((end - first) as usize);
        let mut kept = 0u64;
        match mode {
            ExecutionMode::Parallel => {
                let base: &Memory = memory;
                let outcomes: Vec<RtResult<ProgramOutcome>> = (first..end)
                    .into_par_iter()
                    .map(|lin| {
                        let mem = ProgramMemory::Deferred {
                            base,
                            runs: Vec::new(),
                            hull: None,
                        };
                        let mut p = Program::new(func, pid_of(lin), grid, mem, opts, orders);
                        let args: Vec<Rc<Val>> = arg_vals.iter().cloned().map(Rc::new).collect();
                        let r = p.run(&args);
                        tick();
                        r.map(|_| (p.mem.into_runs(), p.log, p.prints))
                    })
                    .collect();
                let mut all_runs = Vec::with_capacity(outcomes.len());
                for o in outcomes {
                    let (runs, log, pr) = o?;
                    kept += kept_bytes(&runs, &log);
                    all_runs.push(runs);
                    logs.push(log);
                    prints.extend(pr);
                }
                if opts.detect_races {
                    races.chunk(func, &logs, first, memory, pid_of)?;
                }
                for runs in &all_runs {
                    apply_runs(memory, runs);
                }
            }
            ExecutionMode::Sequential => {
                for lin in first..end {
                    let mut p = Program::new(
                        func,
                        pid_of(lin),
                        grid,
                        ProgramMemory::Direct(memory),
                        opts,
                        orders,
                    );
                    let args: Vec<Rc<Val>> = arg_vals.iter().cloned().map(Rc::new).collect();
                    p.run(&args)?;
                    tick();
                    kept += kept_bytes(&[], &p.log);
                    logs.push(std::mem::take(&mut p.log));
                    prints.append(&mut p.prints);
                }
                if opts.detect_races {
                    races.chunk(func, &logs, first, memory, pid_of)?;
                }
            }
        }
        chunk = next_chunk(end - first, kept);
        first = end;
    }
    Ok(LaunchReport {
        programs: total,
        mode,
        prints,
    })
}

/// Converts launch arguments to values of the function's parameter types.
pub(crate) fn bind_args(func: &Function, args: &[ArgValue]) -> RtResult<Vec<Val>> {
    let params = func.args();
    if params.len() != args.len() {
        return Err(RuntimeError::bad_launch(format!(
            "`{}` takes {} runtime argument(s) but {} were given",
            func.name,
            params.len(),
            args.len()
        )));
    }
    let mut out = Vec::with_capacity(args.len());
    for (i, (&p, a)) in params.iter().zip(args).enumerate() {
        let ty = func.value_type(p);
        if ty.is_generic() {
            return Err(RuntimeError::unsupported(
                "generic (unspecialized) IR; specialize the kernel first",
            ));
        }
        let data = match (ty, a) {
            (Type::Ptr(_), ArgValue::Ptr(addr)) => Data::Ptr(vec![*addr]),
            (Type::Scalar(d), ArgValue::Int(v)) if d.is_int() => match storage_of(*d) {
                Storage::Bool => Data::Bool(vec![*v != 0]),
                Storage::I8 => Data::I8(vec![*v as i8]),
                Storage::I16 => Data::I16(vec![*v as i16]),
                Storage::I32 => Data::I32(vec![*v as i32]),
                _ => Data::I64(vec![*v as i64]),
            },
            (Type::Scalar(d), ArgValue::Float(v)) if d.is_float() => {
                crate::elementwise::float_from_f64_vec(&[*v], *d, tritonc_ir::RoundingMode::Rtne)?
            }
            (Type::Scalar(d), ArgValue::Int(v)) if d.is_float() => {
                crate::elementwise::float_from_f64_vec(
                    &[*v as f64],
                    *d,
                    tritonc_ir::RoundingMode::Rtne,
                )?
            }
            (ty, a) => {
                return Err(RuntimeError::bad_launch(format!(
                    "argument {i} of `{}` has type `{ty}` but was given {a:?}",
                    func.name
                )))
            }
        };
        out.push(Val::scalar(data));
    }
    Ok(out)
}
