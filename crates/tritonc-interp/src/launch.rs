//! A launch: every program of the grid, in parallel where that cannot change results,
//! then race detection over the programs' access logs.

use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use tritonc_ir::{Function, OpId, OpKind, Type};

use crate::data::{storage_of, Data, Storage, Val};
use crate::error::{RtResult, RuntimeError, RuntimeErrorKind};
use crate::exec::Program;
use crate::memory::{apply_runs, buffer_name, AccessLog, Memory, ProgramMemory, WriteRun};
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

/// Runs `func` over `grid` against `memory`.
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
    // A record per program: sized by the grid, so reserved fallibly (a grid past host
    // memory is an error, not an abort).
    let mut logs: Vec<AccessLog> = Vec::new();
    if usize::try_from(total)
        .ok()
        .and_then(|n| logs.try_reserve_exact(n).ok())
        .is_none()
    {
        return Err(RuntimeError::bad_launch(format!(
            "a grid of {total} programs is more than the interpreter can keep a record of \
             in this host's memory"
        )));
    }
    if mode == ExecutionMode::Parallel {
        // The parallel run collects every program's outcome before applying them.
        let mut outcomes: Vec<RtResult<ProgramOutcome>> = Vec::new();
        if outcomes.try_reserve_exact(total as usize).is_err() {
            return Err(RuntimeError::bad_launch(format!(
                "a grid of {total} programs is more than the interpreter can keep a record \
                 of in this host's memory"
            )));
        }
    }
    let mut prints = Vec::new();
    match mode {
        ExecutionMode::Parallel => {
            let base: &Memory = memory;
            let outcomes: Vec<RtResult<ProgramOutcome>> = (0..total)
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
                all_runs.push(runs);
                logs.push(log);
                prints.extend(pr);
            }
            if opts.detect_races {
                detect_races(func, &logs, memory, pid_of)?;
            }
            for runs in &all_runs {
                apply_runs(memory, runs);
            }
        }
        ExecutionMode::Sequential => {
            for lin in 0..total {
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
                logs.push(std::mem::take(&mut p.log));
                prints.append(&mut p.prints);
            }
            if opts.detect_races {
                detect_races(func, &logs, memory, pid_of)?;
            }
        }
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

/// One range of a program's access, for the race sweep.
#[derive(Clone, Copy)]
struct Range {
    start: u64,
    end: u64,
    prog: u64,
    op: OpId,
}

/// Reports the first write/write or write/read overlap between two programs.
fn detect_races(
    func: &Function,
    logs: &[AccessLog],
    memory: &Memory,
    pid_of: impl Fn(u64) -> [u32; 3],
) -> RtResult<()> {
    // Every range of every program, in program order (collected in parallel).
    let ranges = |write: bool| -> Vec<Range> {
        logs.par_iter()
            .enumerate()
            .flat_map_iter(|(prog, log)| {
                log.accesses
                    .iter()
                    .filter(move |a| a.write == write)
                    .map(move |a| Range {
                        start: a.start,
                        end: a.end,
                        prog: prog as u64,
                        op: a.op,
                    })
            })
            .collect()
    };
    let mut writes = ranges(true);
    let reads = ranges(false);
    let race = |what: &'static str, later: Range, earlier: Range, addr: u64| {
        let (later, earlier) = if later.prog >= earlier.prog {
            (later, earlier)
        } else {
            (earlier, later)
        };
        let mut e = RuntimeError::new(RuntimeErrorKind::Race {
            what,
            other_program: pid_of(earlier.prog),
            other_loc: func.op(earlier.op).loc.clone(),
            address: addr,
            buffer: buffer_name(memory, addr),
        });
        e.loc = Some(func.op(later.op).loc.clone());
        e.op_name = Some(func.kind(later.op).name());
        e.program = Some(pid_of(later.prog));
        e
    };
    // A stable sort: ties keep program order, so the race reported is the same on any
    // number of threads.
    writes.par_sort_by_key(|r| (r.start, r.prog));
    // Sweep keeping the furthest-reaching range and the furthest from another program.
    let mut best: Option<Range> = None;
    let mut best_other: Option<Range> = None;
    for &w in &writes {
        if let Some(b) = best {
            if b.prog != w.prog && w.start < b.end {
                return Err(race("write/write", w, b, w.start));
            }
            if let Some(o) = best_other {
                if o.prog != w.prog && w.start < o.end {
                    return Err(race("write/write", w, o, w.start));
                }
            }
        }
        match best {
            Some(b) if w.end <= b.end => {
                if w.prog != b.prog && best_other.is_none_or(|o| w.end > o.end) {
                    best_other = Some(w);
                }
            }
            Some(b) => {
                if b.prog != w.prog {
                    best_other = Some(b);
                }
                best = Some(w);
            }
            None => best = Some(w),
        }
    }
    // Writes of different programs are now disjoint: merge into segments.
    let mut segs: Vec<Range> = Vec::new();
    for &w in &writes {
        match segs.last_mut() {
            Some(s) if w.start <= s.end && s.prog == w.prog => s.end = s.end.max(w.end),
            _ => segs.push(w),
        }
    }
    // The first racing read in program order, whichever thread finds it.
    let racing = reads.par_iter().find_map_first(|r| {
        let mut i = segs.partition_point(|s| s.end <= r.start);
        while i < segs.len() && segs[i].start < r.end {
            let s = segs[i];
            if s.prog != r.prog {
                return Some((*r, s));
            }
            i += 1;
        }
        None
    });
    if let Some((r, s)) = racing {
        return Err(race("write/read", r, s, r.start.max(s.start)));
    }
    Ok(())
}
