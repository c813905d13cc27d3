//! What tuning runs configs on: [`TuneBench`], implemented by the GPU ([`GpuBench`]:
//! one device through the runtime, timed by [`tritonc_runtime::TimingMethod`]) and by the
//! CPU interpreter ([`InterpreterBench`]: for testing the tuning logic without a GPU;
//! its times are the interpreter's, which say nothing about a GPU's).

use std::time::Instant;

use tritonc_bundle::Bundle;
use tritonc_interp::BufferId;
use tritonc_runtime::{Backend, TimingMethod};
use tritonc_verify::{
    BundleSource, ExecError, ExecErrorKind, Executor, GpuExecutor, InterpreterExecutor,
    OutputTensor, PreparedCase,
};

/// A device configs run and are timed on.
pub trait TuneBench {
    /// The device model winners are recorded for (`NVIDIA H200`, `interpreter`).
    fn device(&mut self) -> Result<String, ExecError>;

    /// Runs `case` once from its initial memory with `bundle` (the config's variant;
    /// `None` on the interpreter) and returns its outputs.
    fn run(
        &mut self,
        case: &PreparedCase,
        bundle: Option<&Bundle>,
    ) -> Result<Vec<OutputTensor>, ExecError>;

    /// Times `case` by `method`, the buffers `restore` names put back before every
    /// launch; each round in milliseconds.
    fn time(
        &mut self,
        case: &PreparedCase,
        bundle: Option<&Bundle>,
        method: &TimingMethod,
        restore: &[BufferId],
    ) -> Result<Vec<f64>, ExecError>;
}

/// The interpreter as a tuning bench: every run starts from the case's memory, and a
/// round's time is the interpreter's wall time.
#[derive(Debug, Clone)]
pub struct InterpreterBench {
    interp: InterpreterExecutor,
}

impl InterpreterBench {
    /// The interpreter replaying `target`'s reduction order (`None`: the default).
    pub fn new(target: Option<tritonc_target::Target>) -> Self {
        InterpreterBench {
            interp: InterpreterExecutor::for_target(false, false, target),
        }
    }
}

impl TuneBench for InterpreterBench {
    fn device(&mut self) -> Result<String, ExecError> {
        Ok("interpreter".into())
    }

    fn run(
        &mut self,
        case: &PreparedCase,
        _bundle: Option<&Bundle>,
    ) -> Result<Vec<OutputTensor>, ExecError> {
        self.interp.run_once(case)
    }

    fn time(
        &mut self,
        case: &PreparedCase,
        _bundle: Option<&Bundle>,
        method: &TimingMethod,
        _restore: &[BufferId],
    ) -> Result<Vec<f64>, ExecError> {
        for _ in 0..method.warmup {
            self.interp.run_once(case)?;
        }
        (0..method.rounds.max(1))
            .map(|_| {
                let t = Instant::now();
                self.interp.run_once(case)?;
                Ok(t.elapsed().as_secs_f64() * 1e3)
            })
            .collect()
    }
}

/// The bundle a config runs with: exactly one, set before each config.
#[derive(Debug, Default)]
pub struct ConfigBundle {
    /// The current config's variant.
    pub bundle: Option<Bundle>,
}

impl BundleSource for ConfigBundle {
    fn bundles_for(&mut self, _case: &PreparedCase) -> Result<Vec<Bundle>, String> {
        self.bundle
            .clone()
            .map(|b| vec![b])
            .ok_or_else(|| "no compiled variant for this config".to_string())
    }
}

/// One GPU as a tuning bench.
pub struct GpuBench {
    gpu: GpuExecutor<ConfigBundle>,
}

impl GpuBench {
    /// GPU `ordinal` of `backend`.
    pub fn new(backend: Backend, ordinal: usize) -> Self {
        GpuBench {
            gpu: GpuExecutor::on(backend, ordinal, ConfigBundle::default()),
        }
    }

    fn set(&mut self, bundle: Option<&Bundle>) -> Result<(), ExecError> {
        let b = bundle.ok_or_else(|| {
            ExecError::new(ExecErrorKind::Refused, "no compiled variant for this config")
        })?;
        self.gpu.source_mut().bundle = Some(b.clone());
        Ok(())
    }
}

impl TuneBench for GpuBench {
    fn device(&mut self) -> Result<String, ExecError> {
        Ok(self.gpu.open()?.name().to_string())
    }

    fn run(
        &mut self,
        case: &PreparedCase,
        bundle: Option<&Bundle>,
    ) -> Result<Vec<OutputTensor>, ExecError> {
        self.set(bundle)?;
        let mut out = None;
        self.gpu.run(case, 1, &mut |_, o| out = Some(o))?;
        Ok(out.unwrap_or_default())
    }

    fn time(
        &mut self,
        case: &PreparedCase,
        bundle: Option<&Bundle>,
        method: &TimingMethod,
        restore: &[BufferId],
    ) -> Result<Vec<f64>, ExecError> {
        self.set(bundle)?;
        self.gpu.time(case, method, restore)
    }
}

/// The GPUs of `backend` on this host that are the same model as GPU 0 (one tuning
/// worker each), with that model's name; GPUs of other models are left out, so every
/// winner is measured on the model the table names. No GPU: the error of opening GPU 0.
pub fn same_model_gpus(backend: Backend, limit: Option<usize>) -> Result<(Vec<usize>, String), ExecError> {
    let first = tritonc_runtime::Device::open_on(backend, 0).map_err(|e| {
        let kind = if e.exit_code() == 3 {
            ExecErrorKind::Unavailable
        } else {
            ExecErrorKind::Failed
        };
        ExecError::new(kind, e.to_string())
    })?;
    let model = first.name().to_string();
    let mut ordinals = vec![0];
    for i in 1..limit.unwrap_or(64) {
        match tritonc_runtime::Device::open_on(backend, i) {
            Ok(d) if d.name() == model => ordinals.push(i),
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok((ordinals, model))
}
