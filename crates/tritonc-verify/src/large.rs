//! Stage 3's large-input check: a launch past 2^31 elements (`[verify.large]`), run in
//! full on the device and on sampled program ids in the interpreter, compared at the
//! elements the sampled programs wrote.
//!
//! A kernel that computes its offsets in int32 (`pid * BLOCK_SIZE + tl.arange(…)`)
//! wraps them negative past element 2^31, in Triton as in tritonc; this check exists to
//! catch that. The interpreter's int32 arithmetic wraps the same way and its memory is
//! bounds-checked, so a sampled program past the boundary faults there ("… bytes before
//! the start of `x`"); on the GPU the launch faults or the sampled elements differ.
//!
//! Which programs: the first, the last, the three around the boundary of every buffer
//! past it (estimated as `boundary · programs / elements`: exact when each program owns
//! an equal contiguous share, as blocks and rows do; taken in every order of the grid's
//! axes, since a tile grid's x may walk rows, the data's slowest axis), and a few seeded
//! random ones.

use std::collections::BTreeMap;

use tritonc_interp::{launch_programs, BufferId, InterpOptions, ProgramRun, RuntimeErrorKind};
use tritonc_spec::parse::{Expr, ExprValue, Init, Specials};
use tritonc_spec::rng::SplitMix64;
use tritonc_spec::LaunchSpec;

use crate::compare::{compare, unflatten, OutputTensor};
use crate::config::{LargeConfig, VerifyConfig};
use crate::exec::{ByteRange, ExecErrorKind, Executor, PreparedCase};
use crate::plan::Case;
use crate::report::Check;
use crate::tolerance::KernelNumerics;

/// The case label of the large-input check.
pub const LABEL: &str = "large (> 2^31 elements)";

/// What to do about int32 offsets, for failures of the large check.
pub const INT64_HINT: &str = "past 2^31 elements an offset computed in int32 (`pid * \
     BLOCK_SIZE + tl.arange(…)`) wraps negative, in Triton as here: compute it in int64, \
     e.g. `tl.program_id(0).to(tl.int64) * BLOCK_SIZE`";

/// The large launch: `spec` with `[verify.large]`'s dims and arguments.
pub fn large_spec(spec: &LaunchSpec, large: &LargeConfig) -> Result<LaunchSpec, String> {
    let mut s = spec.clone();
    for (dim, n) in &large.dims {
        let t = s
            .tensors
            .iter_mut()
            .find(|t| t.name == dim.tensor)
            .ok_or_else(|| {
                format!(
                    "`[verify.large] dims` names `{dim}`, but the spec has no tensor `{}`",
                    dim.tensor
                )
            })?;
        let rank = t.shape.len();
        let e = t.shape.get_mut(dim.dim).ok_or_else(|| {
            format!(
                "`[verify.large] dims` names `{dim}`, but `{}` has {rank} dim(s)",
                dim.tensor
            )
        })?;
        if !matches!(e.value, ExprValue::Int(_)) {
            return Err(format!(
                "`[verify.large] dims` names `{dim}`, which is an expression: it follows \
                 the dims it is written in; give those instead"
            ));
        }
        e.value =
            ExprValue::Int(i64::try_from(*n).map_err(|_| format!("`{dim}`: {n} is too large"))?);
    }
    for (name, value) in &large.args {
        let (_, e) = s.args.iter_mut().find(|(n, _)| n == name).ok_or_else(|| {
            format!("`[verify.large] args` sets `{name}`, which `[args]` does not give")
        })?;
        *e = Expr {
            value: value.clone(),
            span: e.span,
        };
    }
    Ok(s)
}

/// Checks `[verify.large]` against the spec when it is loaded.
pub fn check_large(spec: &LaunchSpec, config: &VerifyConfig) -> Result<(), String> {
    match &config.large {
        Some(large) => large_spec(spec, large).map(|_| ()),
        None => Ok(()),
    }
}

/// `spec` with every tensor zero-initialized, and the initializers to put back: the
/// plan's form of the large case, so that whoever only needs its specialization
/// (`tritonc compile --spec`) allocates gigabytes of zero pages that stay unmapped
/// instead of generating them.
pub fn zeroed(spec: &LaunchSpec) -> (LaunchSpec, Vec<(Init, Specials)>) {
    let mut s = spec.clone();
    let mut inits = Vec::with_capacity(s.tensors.len());
    for t in &mut s.tensors {
        inits.push((
            std::mem::replace(&mut t.init, Init::Zeros),
            std::mem::take(&mut t.specials),
        ));
    }
    (s, inits)
}

/// `spec` with the initializers [`zeroed`] took out put back.
pub fn restored(spec: &LaunchSpec, inits: &[(Init, Specials)]) -> LaunchSpec {
    let mut s = spec.clone();
    for (t, (init, specials)) in s.tensors.iter_mut().zip(inits) {
        t.init = init.clone();
        t.specials = specials.clone();
    }
    s
}

/// One sampled program id and why it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampledProgram {
    /// The program id (x, y, z).
    pub program: [u32; 3],
    /// `first`, `last`, `at element 2^31 of x`, `random`.
    pub why: String,
}

/// The program ids to interpret of a launch over `grid` whose buffers hold `sizes`
/// elements (name, count): see the module documentation.
pub fn sample_programs(
    grid: [u32; 3],
    sizes: &[(String, u64)],
    boundary: u64,
    random: usize,
    seed: u64,
) -> Vec<SampledProgram> {
    let total = grid.iter().map(|&g| g as u64).product::<u64>();
    if total == 0 {
        return Vec::new();
    }
    // Program ids in the linear order with `order[0]` fastest.
    let program = |lin: u64, order: [usize; 3]| {
        let mut pid = [0u32; 3];
        let mut rest = lin;
        for axis in order {
            let g = grid[axis] as u64;
            pid[axis] = (rest % g) as u32;
            rest /= g;
        }
        pid
    };
    const X_FASTEST: [usize; 3] = [0, 1, 2];
    let mut chosen: Vec<([u32; 3], String)> = vec![
        (program(0, X_FASTEST), "first".into()),
        (program(total - 1, X_FASTEST), "last".into()),
    ];
    let shown = if boundary == LargeConfig::BOUNDARY {
        "2^31".to_string()
    } else {
        boundary.to_string()
    };
    // Which grid axis walks the data slowest is the kernel's choice (x over blocks of a
    // row-major tensor is fastest; x over the rows of a tile grid is slowest), so the
    // boundary is estimated in every order of the axes.
    const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for (name, n) in sizes.iter().filter(|(_, n)| *n > boundary) {
        let at = (boundary as u128 * total as u128 / *n as u128) as u64;
        for order in ORDERS {
            for lin in [at.saturating_sub(1), at, at + 1] {
                if lin < total {
                    chosen.push((
                        program(lin, order),
                        format!("at element {shown} of `{name}`"),
                    ));
                }
            }
        }
    }
    let mut rng = SplitMix64::new(seed ^ 0x6c61_7267_6521);
    for _ in 0..random {
        chosen.push((program(rng.next_u64() % total, X_FASTEST), "random".into()));
    }
    // The first reason for each program, in the order of its x-fastest linear id.
    let linear =
        |p: &[u32; 3]| p[0] as u64 + grid[0] as u64 * (p[1] as u64 + grid[1] as u64 * p[2] as u64);
    let mut out: BTreeMap<u64, SampledProgram> = BTreeMap::new();
    for (program, why) in chosen {
        out.entry(linear(&program))
            .or_insert(SampledProgram { program, why });
    }
    out.into_values().collect()
}

/// Bytes the sampled programs wrote: one entry per maximal run of written bytes of a
/// buffer, with the bytes (a later write of the same byte wins).
pub fn written_ranges(
    runs: &[ProgramRun],
    memory: &tritonc_interp::Memory,
) -> Vec<(ByteRange, Vec<u8>)> {
    let mut bytes: BTreeMap<(u32, usize), u8> = BTreeMap::new();
    for run in runs {
        for w in &run.writes {
            // Deferred writes were bounds-checked lane by lane; a run lies in one buffer.
            let Ok((idx, off)) = memory.resolve(w.start, 1) else {
                continue;
            };
            for (i, &b) in w.bytes.iter().enumerate() {
                bytes.insert((idx as u32, off + i), b);
            }
        }
    }
    let mut out: Vec<(ByteRange, Vec<u8>)> = Vec::new();
    for ((buffer, off), b) in bytes {
        match out.last_mut() {
            Some((r, v)) if r.buffer.0 == buffer && r.start + r.len == off => {
                r.len += 1;
                v.push(b);
            }
            _ => out.push((
                ByteRange {
                    buffer: BufferId(buffer),
                    start: off,
                    len: 1,
                },
                vec![b],
            )),
        }
    }
    out
}

/// One buffer's sampled elements: the interpreter's bytes, the device's bytes, and the
/// element indices (in the buffer's storage).
type Sampled = (Vec<u8>, Vec<u8>, Vec<usize>);

fn program_list(samples: &[SampledProgram]) -> String {
    samples
        .iter()
        .map(|s| {
            let [x, y, z] = s.program;
            let pid = if y == 0 && z == 0 {
                x.to_string()
            } else {
                format!("({x}, {y}, {z})")
            };
            format!("{pid} ({})", s.why)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the large case: the sampled programs in the interpreter and, when `full` (the
/// device runs whole launches), the launch on the device, compared at the elements the
/// sampled programs wrote. Without `full` (the interpreter as the device, no GPU) the
/// inputs are zeros and only the sampled programs' memory accesses are checked.
pub(crate) fn run_large(
    case: &Case,
    prepared: &PreparedCase,
    config: &VerifyConfig,
    numerics: &KernelNumerics,
    device: &mut dyn Executor,
    full: bool,
    checks: &mut Vec<Check>,
) {
    let (stage, label) = (case.stage, case.label.as_str());
    let boundary = config
        .large
        .as_ref()
        .map_or(LargeConfig::BOUNDARY, |l| l.boundary);
    let random = config.large.as_ref().map_or(4, |l| l.random_programs);
    let launch = &prepared.launch;
    let sizes: Vec<(String, u64)> = launch
        .tensors
        .iter()
        .map(|t| {
            let bytes = launch.memory.buffer(t.buffer).bytes.len() as u64;
            (
                t.name.clone(),
                bytes / t.dtype.size_bytes().unwrap_or(1).max(1) as u64,
            )
        })
        .collect();
    let (big, most) = sizes
        .iter()
        .max_by_key(|(_, n)| *n)
        .cloned()
        .unwrap_or_else(|| ("(none)".into(), 0));
    if most <= boundary {
        checks.push(Check::outcome(
            stage,
            label,
            "-",
            "-",
            false,
            format!(
                "the `[verify.large]` launch has no tensor past {boundary} elements (the \
                 largest, `{big}`, holds {most}): raise its `dims`"
            ),
        ));
        return;
    }
    let samples = sample_programs(launch.grid, &sizes, boundary, random, case.spec.seed);
    let pids: Vec<[u32; 3]> = samples.iter().map(|s| s.program).collect();
    let opts = InterpOptions {
        num_warps: prepared.num_warps,
        detect_races: false,
        ..InterpOptions::default()
    };
    let runs = match launch_programs(
        &prepared.function,
        &launch.runtime_args,
        launch.grid,
        &pids,
        &launch.memory,
        &opts,
    ) {
        Ok(r) => r,
        Err(e) => {
            checks.push(Check::outcome(
                stage,
                label,
                "-",
                "interpreter",
                false,
                format!("{}: {}", e.code().0, e.to_diagnostic().message),
            ));
            return;
        }
    };
    let mut ran = Vec::new();
    for (s, r) in samples.iter().zip(runs) {
        match r {
            Ok(run) => ran.push(run),
            Err(e) => {
                // An address before a buffer is what a wrapped int32 offset produces.
                let wrapped = matches!(&e.kind, RuntimeErrorKind::OutOfBounds { detail, .. }
                    if detail.contains("before the start"));
                let message = format!("{}: {}", e.code().0, e.to_diagnostic().message);
                checks.push(Check::outcome(
                    stage,
                    label,
                    &format!("program {}", program_list(std::slice::from_ref(s))),
                    "interpreter",
                    false,
                    if wrapped {
                        format!("{message}; {INT64_HINT}")
                    } else {
                        message
                    },
                ));
            }
        }
    }
    let sampled = format!(
        "{} sampled programs: {}",
        samples.len(),
        program_list(&samples)
    );
    if !full {
        if ran.len() == samples.len() {
            checks.push(Check::outcome(
                stage,
                label,
                "memory accesses",
                "interpreter",
                true,
                format!(
                    "{sampled}; every one ran in bounds (on zero inputs: comparing their \
                     results needs a device that runs the whole launch, a GPU)"
                ),
            ));
        }
        return;
    }
    let written = written_ranges(&ran, &launch.memory);
    let ranges: Vec<ByteRange> = written.iter().map(|(r, _)| *r).collect();
    let got = match device.run_gathering(prepared, &ranges) {
        Ok(g) => g,
        Err(e) => {
            // Even "unavailable" (out of device memory for tensors this large) is this
            // check's failure: the other cases already ran on the device.
            let message = match e.kind {
                ExecErrorKind::Failed => {
                    format!("the whole launch failed: {}; {INT64_HINT}", e.message)
                }
                ExecErrorKind::Unavailable => {
                    format!("the device cannot run the large launch: {}", e.message)
                }
                ExecErrorKind::Refused | ExecErrorKind::Race => {
                    format!("the large launch was refused: {}", e.message)
                }
            };
            checks.push(Check::outcome(stage, label, "-", "device", false, message));
            return;
        }
    };
    // One comparison per buffer, over the elements the sampled programs wrote.
    let mut by_buffer: BTreeMap<u32, Sampled> = BTreeMap::new();
    for ((r, want), got) in written.iter().zip(&got) {
        let Some(t) = launch
            .tensors
            .iter()
            .filter(|t| t.buffer == r.buffer)
            .max_by_key(|t| t.output)
        else {
            continue;
        };
        let elem = t.dtype.size_bytes().unwrap_or(1).max(1) as usize;
        let entry = by_buffer.entry(r.buffer.0).or_default();
        // Whole elements only (a kernel writes whole elements; bitcast views aside).
        let first = r.start.div_ceil(elem);
        let end = (r.start + r.len) / elem;
        for e in first..end {
            let lo = e * elem - r.start;
            entry.0.extend_from_slice(&want[lo..lo + elem]);
            entry
                .1
                .extend_from_slice(got.get(lo..lo + elem).unwrap_or(&[0xff; 8][..elem]));
            entry.2.push(e);
        }
    }
    for (buffer, (want, got, elements)) in by_buffer {
        let Some(t) = launch
            .tensors
            .iter()
            .filter(|t| t.buffer.0 == buffer)
            .max_by_key(|t| t.output)
        else {
            continue;
        };
        let values = |bytes: Vec<u8>| {
            tritonc_interp::Buffer {
                name: t.name.clone(),
                dtype: t.dtype,
                bytes,
            }
            .to_f64_vec()
        };
        let tensor = |values: Vec<f64>| OutputTensor {
            name: t.name.clone(),
            dtype: t.dtype,
            shape: vec![values.len()],
            values,
        };
        let want = tensor(values(want));
        let got = tensor(values(got));
        let tol = crate::verify::tolerance_for(config, numerics, &want);
        let mut cmp = compare(&got, &want, &tol);
        // Report the worst element by its index in the tensor, not in the sample.
        if let Some(w) = &mut cmp.worst {
            let storage = elements[w.index[0]];
            let row_major = tritonc_interp::data::row_major_strides(&t.shape);
            w.index = if t.strides == row_major && storage >= t.offset {
                unflatten(storage - t.offset, &t.shape)
            } else {
                vec![storage]
            };
        }
        let mut note = format!("{} elements written by {sampled}", elements.len());
        if !cmp.passed() {
            note = format!("{note}; {INT64_HINT}");
        }
        let c = Check::compared(
            stage,
            label,
            &t.name,
            "interpreter, sampled programs",
            cmp,
            crate::verify::describe_tolerance(&tol),
        )
        .with_note(note);
        checks.push(c);
    }
    if written.is_empty() && !ran.is_empty() {
        // Not a pass: nothing was compared.
        checks.push(Check::outcome(
            stage,
            label,
            "-",
            "interpreter, sampled programs",
            false,
            format!("{sampled}; they wrote nothing, so nothing could be compared"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_samples_are_the_ends_the_boundary_and_seeded_random_ones() {
        // 2^31 + 5000 elements in blocks of 1024: program 2^21 starts at element 2^31.
        let n = (1u64 << 31) + 5000;
        let programs = n.div_ceil(1024) as u32;
        let sizes = vec![("x".to_string(), n), ("small".to_string(), 100)];
        let s = sample_programs([programs, 1, 1], &sizes, 1 << 31, 3, 7);
        let pids: Vec<u32> = s.iter().map(|p| p.program[0]).collect();
        let at = 1u32 << 21;
        for want in [0, at - 1, at, at + 1, programs - 1] {
            assert!(pids.contains(&want), "{want} in {pids:?}");
        }
        assert_eq!(s.iter().filter(|p| p.why == "random").count(), 3);
        assert!(s.iter().any(|p| p.why == "at element 2^31 of `x`"));
        assert!(pids.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        // The same seed samples the same programs; another seed others.
        assert_eq!(s, sample_programs([programs, 1, 1], &sizes, 1 << 31, 3, 7));
        assert_ne!(s, sample_programs([programs, 1, 1], &sizes, 1 << 31, 3, 8));
    }

    #[test]
    fn rows_of_a_two_dimensional_grid_are_estimated_too() {
        // One program per row of 3000 elements, rows over grid x, 2 batches over y:
        // element 2^31 lies in row ⌊2^31 / 3000⌋ of the first batch.
        let rows = 1_000_000u32;
        let n = rows as u64 * 3000 * 2;
        let s = sample_programs([rows, 2, 1], &[("x".into(), n)], 1 << 31, 0, 0);
        let lin = ((1u64 << 31) / 3000) as u32;
        assert!(s
            .iter()
            .any(|p| p.program == [lin, 0, 0] && p.why.contains("2^31")));
        assert_eq!(s.last().map(|p| p.program), Some([rows - 1, 1, 0]));
        assert!(sample_programs([0, 1, 1], &[], 1 << 31, 4, 0).is_empty());
    }

    #[test]
    fn a_tile_grid_whose_x_axis_is_the_slow_one_gets_its_boundary_program() {
        // Program (m, n) owns row m, columns n·1024 .. (n+1)·1024 of a 4096-column
        // matrix: x walks rows (the slow axis of the data), y the four column blocks.
        // Element 2^31 is row 2^31 / 4096, column 0: program (2^19, 0, 0).
        let (rows, cols) = ((1u32 << 19) + 10, 4096u64);
        let n = rows as u64 * cols;
        let s = sample_programs([rows, 4, 1], &[("x".into(), n)], 1 << 31, 0, 0);
        let at = 1u32 << 19;
        for want in [[at - 1, 3, 0], [at, 0, 0]] {
            assert!(
                s.iter()
                    .any(|p| p.program == want && p.why.contains("2^31")),
                "{want:?} in {s:?}"
            );
        }
        // Every sample lies in the grid, once.
        assert!(s.iter().all(|p| p.program[0] < rows && p.program[1] < 4));
        for (i, a) in s.iter().enumerate() {
            assert!(s[i + 1..].iter().all(|b| b.program != a.program), "{s:?}");
        }
    }
}
