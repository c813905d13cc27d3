//! The GPU pass list: tile IR in, GPU IR out (Triton's `make_ttgir`).
//!
//! [`gpu_passes`] is the one list every compile runs, in order; [`GpuPassList::run`]
//! checks the tile-IR invariants and the encoding rules ([`crate::verify_encodings`])
//! after every pass when asked (tests, debug builds, `TRITONC_GPU_IR_VERIFY=1`), so a
//! pass that breaks the IR is named. Each pass is tested from IR text: parse a
//! function, run the pass, compare the printout.

use tritonc_ir::{verify_function, Function};
use tritonc_target::Target;

use crate::allocate::AllocateShared;
use crate::barriers::PlaceBarriers;
use crate::fold::FoldConversions;
use crate::hoist_operands::HoistDotOperands;
use crate::software_pipeline::PipelineLoops;
use crate::wgmma_waits::WgmmaWaits;
use crate::sink::SinkConversions;
use crate::materialize::AssignLayouts;
use crate::verify::verify_encodings;
use crate::TtgirError;

/// What the GPU passes build for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuOptions {
    /// Warps per CTA (Triton's `num_warps`).
    pub num_warps: u32,
    /// The target: its lane count, tensor-core generation and shared memory. `None`
    /// builds for no particular GPU: NVIDIA's warps of 32 lanes, the FMA path for every
    /// dot, no pipelining.
    pub target: Option<Target>,
    /// Triton's `num_stages`: K loops feeding tensor-core dots keep `max(2, num_stages −
    /// 1)` shared buffers per operand (`tritonc-pipeline-loops`); below 2, no pipelining.
    pub num_stages: u32,
}

impl GpuOptions {
    /// NVIDIA's warps of 32 lanes, no particular GPU.
    pub fn nvidia(num_warps: u32) -> Self {
        GpuOptions {
            num_warps,
            target: None,
            num_stages: 0,
        }
    }

    /// NVIDIA's warps of 32 lanes on a GPU of compute capability `capability` (`80` for
    /// `sm_80`): dots take tensor-core layouts where the target has them.
    pub fn nvidia_sm(num_warps: u32, capability: u32) -> Self {
        Self::for_target(num_warps, Target::nvidia(capability))
    }

    /// `num_warps` warps on `target` (its lane count: 64 on AMD).
    pub fn for_target(num_warps: u32, target: Target) -> Self {
        GpuOptions {
            target: Some(target),
            ..Self::nvidia(num_warps)
        }
    }

    /// The same options with `num_stages` pipelining stages.
    pub fn with_stages(self, num_stages: u32) -> Self {
        GpuOptions { num_stages, ..self }
    }

    /// Lanes per warp: the target's (32 on NVIDIA, 64 on AMD's wave64 targets); 32 for
    /// no particular target.
    pub fn warp_size(&self) -> u32 {
        self.target.map_or(crate::WARP_SIZE, |t| t.warp_size())
    }

    /// The NVIDIA compute capability (`90` for `sm_90`); `0` where no NVIDIA tensor-core
    /// layout may be chosen (AMD, or no particular target).
    pub fn capability(&self) -> u32 {
        self.target.map_or(0, |t| t.capability())
    }

    /// Bytes of shared memory one block may use on this target.
    pub fn shared_memory_per_block(&self) -> u64 {
        self.target
            .unwrap_or(Target::nvidia(0))
            .shared_memory_per_block()
    }
}

/// A transformation of a function in the GPU IR (or, for the first, into it).
pub trait GpuPass {
    /// The pass's name in the list and in error messages (`tritonc-…`).
    fn name(&self) -> &'static str;
    /// Runs the pass on `func`.
    fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError>;
}

/// An ordered list of GPU passes.
pub struct GpuPassList {
    passes: Vec<Box<dyn GpuPass>>,
    verify_each: bool,
}

impl GpuPassList {
    /// An empty list; verification after each pass follows [`verify_by_default`].
    pub fn new() -> Self {
        GpuPassList {
            passes: Vec::new(),
            verify_each: verify_by_default(),
        }
    }

    /// Appends a pass.
    pub fn add(mut self, pass: impl GpuPass + 'static) -> Self {
        self.passes.push(Box::new(pass));
        self
    }

    /// Whether the verifiers run after each pass.
    pub fn verify_each(mut self, on: bool) -> Self {
        self.verify_each = on;
        self
    }

    /// The passes' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Runs every pass in order on `func`.
    pub fn run(&self, func: &mut Function, options: &GpuOptions) -> Result<(), TtgirError> {
        for pass in &self.passes {
            pass.run(func, options).map_err(|e| TtgirError {
                message: format!("{}: {}", pass.name(), e.message),
                span: e.span,
            })?;
            if self.verify_each {
                verify_after(pass.name(), func)?;
            }
        }
        Ok(())
    }
}

impl Default for GpuPassList {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether pass lists verify after each pass unless told otherwise: in debug builds, or
/// with `TRITONC_GPU_IR_VERIFY=1`.
pub fn verify_by_default() -> bool {
    cfg!(debug_assertions) || std::env::var_os("TRITONC_GPU_IR_VERIFY").is_some_and(|v| v == "1")
}

fn verify_after(pass: &'static str, func: &Function) -> Result<(), TtgirError> {
    if let Err(diagnostics) = verify_function(func) {
        let d = &diagnostics[0];
        return Err(TtgirError {
            message: format!("after {pass}: {}", d.message),
            span: d.labels.first().map(|l| l.span),
        });
    }
    verify_encodings(func).map_err(|e| TtgirError {
        message: format!("after {pass}: {}", e.message),
        span: e.span,
    })
}

/// The GPU pass list, in order: layouts for every block, redundant conversions folded
/// away, conversions moved after narrowing casts, the K loops of tensor-core dots
/// pipelined, loop-invariant tensor-core operands read from buffers filled once, the
/// shared buffers placed, and the barriers between shared-memory accesses.
pub fn gpu_passes() -> GpuPassList {
    GpuPassList::new()
        .add(AssignLayouts)
        .add(FoldConversions)
        .add(SinkConversions)
        .add(PipelineLoops)
        .add(HoistDotOperands)
        .add(WgmmaWaits)
        .add(AllocateShared)
        .add(PlaceBarriers)
}

/// `func` (tile IR) lowered to the GPU IR by [`gpu_passes`].
pub fn lower_to_gpu_ir(func: &Function, options: &GpuOptions) -> Result<Function, TtgirError> {
    let mut gpu = func.clone();
    gpu_passes().run(&mut gpu, options)?;
    Ok(gpu)
}

/// The `--emit ttgir` text of a GPU-IR function: the function in a module whose
/// attributes say what the layouts were made for (as Triton prints them), encodings as
/// aliases, in the IR's text form (which `tritonc_ir::parse_module` reads back).
pub fn print_gpu_module(func: &Function, options: &GpuOptions) -> String {
    // Triton's `backend:arch` form: `cuda:90` (for sm_90a too, as Triton writes it),
    // `hip:gfx942`.
    let target = match options.target {
        Some(t) if t.is_amd() => format!(", \"ttg.target\" = \"hip:{}\"", t.chip()),
        Some(t) if t.capability() != 0 => {
            format!(", \"ttg.target\" = \"cuda:{}\"", t.capability())
        }
        _ => String::new(),
    };
    let module = format!(
        "module attributes {{\"ttg.num-warps\" = {} : i32, \"ttg.threads-per-warp\" = {} : i32, \"ttg.num-stages\" = {} : i32{target}}} {{\n{}}}\n",
        options.num_warps,
        options.warp_size(),
        options.num_stages,
        tritonc_ir::print_function(func, tritonc_ir::PrintOptions::default())
    );
    tritonc_ir::aliases::alias_encodings(&module)
}
