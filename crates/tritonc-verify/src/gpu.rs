//! The GPU as an executor: buffers uploaded byte for byte, arguments built from the
//! launch's specialization, the variant chosen by the runtime's launch-time checks, and
//! the outputs copied back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tritonc_bundle::{list_bundle_dirs, Bundle, ConstValue};
use tritonc_interp::{ArgValue, BufferId};
use tritonc_ir::DType;
use tritonc_runtime::{
    select_variant_on, Arg, Backend, Device, DeviceBuffer, DevicePtr, Grid, Kernel,
};
use tritonc_sema::{ArgSpec, Constexpr};

use crate::compare::OutputTensor;
use crate::exec::{ByteRange, ExecError, ExecErrorKind, Executor, PreparedCase, RunStats};

/// Where the GPU executor gets compiled variants of a case's kernel.
pub trait BundleSource {
    /// The bundles that may run `case` (the runtime picks the one whose assumptions
    /// hold, or refuses).
    fn bundles_for(&mut self, case: &PreparedCase) -> Result<Vec<Bundle>, String>;
}

/// Bundles read from a directory (`tritonc compile -o DIR`).
#[derive(Debug, Clone)]
pub struct BundleDir {
    /// The directory.
    pub dir: PathBuf,
    /// Every bundle in it.
    pub bundles: Vec<Bundle>,
}

impl BundleDir {
    /// Reads every bundle directly under `dir` (or `dir` itself when it is a bundle).
    pub fn read(dir: &Path) -> Result<BundleDir, String> {
        let dirs = if dir.join(tritonc_bundle::META_FILE).is_file() {
            vec![dir.to_path_buf()]
        } else {
            list_bundle_dirs(dir).map_err(|e| e.to_string())?
        };
        let bundles = dirs
            .iter()
            .map(|d| Bundle::read_dir(d).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(BundleDir {
            dir: dir.to_path_buf(),
            bundles,
        })
    }
}

impl BundleSource for BundleDir {
    fn bundles_for(&mut self, case: &PreparedCase) -> Result<Vec<Bundle>, String> {
        let name = &case.launch.kernel_name;
        let found: Vec<Bundle> = self
            .bundles
            .iter()
            .filter(|b| &b.meta.key.kernel == name && b.meta.num_warps == case.num_warps)
            .cloned()
            .collect();
        if found.is_empty() {
            return Err(format!(
                "`{}` holds no bundle of `{name}` with num_warps = {}; compile one with \
                 `tritonc compile --spec SPEC -o {}`",
                self.dir.display(),
                case.num_warps,
                self.dir.display()
            ));
        }
        Ok(found)
    }
}

/// The launch arguments of `case`, positional over the kernel's source parameters,
/// with each tensor at `base(buffer) + offset`: the device address of the buffer the
/// interpreter calls `buffer`. No device is needed, so the launch-time checks can be
/// tested anywhere.
pub fn launch_args(
    case: &PreparedCase,
    base: impl Fn(BufferId) -> u64,
) -> Result<Vec<Arg>, String> {
    let launch = &case.launch;
    let mut runtime = launch.runtime_args.iter();
    let mut args = Vec::with_capacity(launch.specialization.params.len());
    for (name, spec) in &launch.specialization.params {
        let arg = match spec {
            ArgSpec::Pointer { pointee, .. } => {
                let Some(ArgValue::Ptr(addr)) = runtime.next() else {
                    return Err(format!("`{name}`: expected a tensor argument"));
                };
                let t = launch
                    .tensors
                    .iter()
                    .find(|t| t.data_ptr() == *addr)
                    .ok_or_else(|| format!("`{name}`: no tensor at {addr:#x}"))?;
                let offset = addr - t.buffer.base_address();
                let len = launch.memory.buffer(t.buffer).bytes.len() as u64;
                Arg::Pointer(DevicePtr {
                    addr: base(t.buffer) + offset,
                    dtype: *pointee,
                    bytes: len.saturating_sub(offset),
                })
            }
            ArgSpec::Scalar { dtype, .. } => match runtime.next() {
                Some(ArgValue::Int(i)) if *dtype == DType::I1 => Arg::Bool(*i != 0),
                Some(ArgValue::Int(i)) => Arg::Int(
                    i64::try_from(*i)
                        .or_else(|_| u64::try_from(*i).map(|u| u as i64))
                        .map_err(|_| format!("`{name}`: {i} does not fit in 64 bits"))?,
                ),
                Some(ArgValue::Float(f)) => Arg::Float(*f),
                _ => return Err(format!("`{name}`: expected a scalar argument")),
            },
            ArgSpec::Constexpr(c) => match c {
                Constexpr::Int(i) => i64::try_from(*i).map(Arg::Int).unwrap_or(Arg::AsCompiled),
                Constexpr::Float(f) => Arg::Float(*f),
                Constexpr::Bool(b) => Arg::Bool(*b),
                other => ConstValue::from_constexpr(other)
                    .map(Arg::Const)
                    .unwrap_or(Arg::AsCompiled),
            },
        };
        args.push(arg);
    }
    Ok(args)
}

/// The launch grid of a case.
pub fn grid(case: &PreparedCase) -> Grid {
    let [x, y, z] = case.launch.grid;
    Grid::xyz(x, y, z)
}

/// Runs cases on a GPU (CUDA, or HIP in a build with the runtime's `hip` feature).
pub struct GpuExecutor<S: BundleSource> {
    device: Option<Device>,
    backend: Backend,
    ordinal: usize,
    source: S,
    kernels: HashMap<String, Kernel>,
    /// The L2 flush buffer of [`GpuExecutor::time`], by size.
    flush: Option<(u64, tritonc_runtime::L2Flush)>,
}

impl<S: BundleSource> GpuExecutor<S> {
    /// An executor for CUDA GPU `ordinal`, taking bundles from `source`. The device is
    /// opened at the first run (or by [`GpuExecutor::open`]).
    pub fn new(ordinal: usize, source: S) -> Self {
        Self::on(Backend::Cuda, ordinal, source)
    }

    /// An executor for GPU `ordinal` of `backend`.
    pub fn on(backend: Backend, ordinal: usize, source: S) -> Self {
        GpuExecutor {
            device: None,
            backend,
            ordinal,
            source,
            kernels: HashMap::new(),
            flush: None,
        }
    }

    /// Opens the device now (no GPU, no driver: [`ExecErrorKind::Unavailable`]).
    pub fn open(&mut self) -> Result<&Device, ExecError> {
        if self.device.is_none() {
            let dev = Device::open_on(self.backend, self.ordinal).map_err(|e| runtime_error(&e))?;
            self.device = Some(dev);
        }
        Ok(self.device.as_ref().expect("opened just above"))
    }
}

/// A runtime error as an executor error, by the runtime's exit code.
fn runtime_error(e: &tritonc_runtime::RuntimeError) -> ExecError {
    if let tritonc_runtime::RuntimeError::DeviceAssert { .. } = e {
        // The kernel's own check failed, as the interpreter's E0607: a finding (exit 1),
        // not a fault of tritonc.
        let mut err = ExecError::new(ExecErrorKind::Failed, e.to_string());
        err.diagnostic = Some(
            tritonc_diagnostics::Diagnostic::error(
                tritonc_interp::error::ASSERT_FAILED,
                e.to_string(),
            )
            .with_note("the device printed each failing lane's `file:line` and message")
            .with_help("run the spec with `--interpret` to see the first failing program and lane"),
        );
        return err;
    }
    let kind = match e.exit_code() {
        3 => ExecErrorKind::Unavailable,
        2 => ExecErrorKind::Refused,
        _ => ExecErrorKind::Failed,
    };
    ExecError::new(kind, e.to_string())
}

/// What to do with the device buffers after launch `i`.
type AfterLaunch<'a> =
    dyn FnMut(usize, &[DeviceBuffer]) -> Result<(), tritonc_runtime::RuntimeError> + 'a;

/// A case's buffers on the device, its launch arguments and the key of its loaded kernel.
struct Staged<'c> {
    device: Device,
    host: Vec<&'c [u8]>,
    buffers: Vec<DeviceBuffer>,
    args: Vec<Arg>,
    cache_key: String,
}

impl<S: BundleSource> GpuExecutor<S> {
    /// Uploads `case`'s buffers (byte for byte; the dtype is put back on the pointer
    /// arguments), picks its variant and loads it (once per variant and target).
    fn stage<'c>(&mut self, case: &'c PreparedCase) -> Result<Staged<'c>, ExecError> {
        let device = self.open()?.clone();
        let rt = |e: tritonc_runtime::RuntimeError| runtime_error(&e);
        let host: Vec<&[u8]> = case
            .launch
            .memory
            .buffers()
            .iter()
            .map(|b| b.bytes.as_slice())
            .collect();
        let buffers: Vec<DeviceBuffer> = host
            .iter()
            .map(|bytes| device.upload::<u8>(bytes))
            .collect::<Result<_, _>>()
            .map_err(rt)?;
        let args = launch_args(case, |id| buffers[id.0 as usize].ptr().addr)
            .map_err(|m| ExecError::new(ExecErrorKind::Failed, m))?;
        let bundles = self
            .source
            .bundles_for(case)
            .map_err(|m| ExecError::new(ExecErrorKind::Refused, m))?;
        let chosen = select_variant_on(&bundles, &args, Some(&device)).map_err(rt)?;
        let bundle = &bundles[chosen];
        let cache_key = format!("{}-{}", bundle.meta.key_hash, bundle.meta.target);
        if !self.kernels.contains_key(&cache_key) {
            let kernel = device.load(bundle).map_err(rt)?;
            self.kernels.insert(cache_key.clone(), kernel);
        }
        Ok(Staged {
            device,
            host,
            buffers,
            args,
            cache_key,
        })
    }

    /// Uploads `case`'s buffers, launches it `runs` times (buffers reset before each
    /// run after the first) and hands `after(run, buffers)` the device buffers after each.
    fn launch_runs(
        &mut self,
        case: &PreparedCase,
        runs: usize,
        after: &mut AfterLaunch<'_>,
    ) -> Result<RunStats, ExecError> {
        let rt = |e: tritonc_runtime::RuntimeError| runtime_error(&e);
        let Staged {
            device,
            host,
            buffers,
            args,
            cache_key,
        } = self.stage(case)?;
        let kernel = &self.kernels[&cache_key];
        let mut stats = RunStats {
            note: kernel
                .cubin_error()
                .map(|e| format!("cubin not loaded, PTX used: {e}")),
            ..RunStats::default()
        };
        let mut prepared = kernel.prepare(grid(case), &args).map_err(rt)?;
        let used = |d: &Device| d.memory_info().ok().map(|(free, total)| total - free);
        let mut first_used = None;
        for i in 0..runs {
            if i > 0 {
                for (buf, bytes) in buffers.iter().zip(&host) {
                    buf.copy_from_host::<u8>(bytes).map_err(rt)?;
                }
            }
            prepared.launch().map_err(rt)?;
            device.synchronize().map_err(rt)?;
            after(i, &buffers).map_err(rt)?;
            if i == 0 {
                first_used = used(&device);
            }
        }
        if let (Some(first), Some(last)) = (first_used, used(&device)) {
            stats.memory_used = Some((first, last));
        }
        Ok(stats)
    }
}

impl<S: BundleSource> GpuExecutor<S> {
    /// Where the bundles come from (to change what the next case runs with).
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// Times `case` by `method` ([`tritonc_runtime::TimingMethod`]: warm-up, L2 flushed,
    /// GPU events around each launch), with the buffers `restore` names put back to the
    /// case's initial bytes before every launch. Returns each round in milliseconds.
    pub fn time(
        &mut self,
        case: &PreparedCase,
        method: &tritonc_runtime::TimingMethod,
        restore: &[BufferId],
    ) -> Result<Vec<f64>, ExecError> {
        let rt = |e: tritonc_runtime::RuntimeError| runtime_error(&e);
        let Staged {
            device,
            host,
            buffers,
            args,
            cache_key,
        } = self.stage(case)?;
        if self.flush.as_ref().is_none_or(|(bytes, _)| *bytes != method.flush_bytes) {
            self.flush = None;
            let flush = tritonc_runtime::L2Flush::new(&device, method.flush_bytes).map_err(rt)?;
            self.flush = Some((method.flush_bytes, flush));
        }
        let flush = &self.flush.as_ref().expect("set just above").1;
        let kernel = &self.kernels[&cache_key];
        let mut prepared = kernel.prepare(grid(case), &args).map_err(rt)?;
        let mut put_back = || -> Result<(), tritonc_runtime::RuntimeError> {
            for id in restore {
                let i = id.0 as usize;
                if let (Some(buf), Some(bytes)) = (buffers.get(i), host.get(i)) {
                    buf.copy_from_host::<u8>(bytes)?;
                }
            }
            Ok(())
        };
        let rounds = prepared
            .time_rounds(method, flush, &mut put_back)
            .map_err(rt)?;
        device.synchronize().map_err(rt)?;
        Ok(rounds)
    }
}

impl<S: BundleSource> Executor for GpuExecutor<S> {
    fn code_target(&mut self, case: &PreparedCase) -> Option<tritonc_target::Target> {
        let bundles = self.source.bundles_for(case).ok()?;
        tritonc_target::Target::parse(&bundles.first()?.meta.target)
    }

    fn describe(&mut self) -> String {
        match self.open() {
            Ok(d) => format!("{} ({})", d.name(), d.arch()),
            Err(e) => format!("no GPU: {}", e.message),
        }
    }

    fn run(
        &mut self,
        case: &PreparedCase,
        runs: usize,
        each: &mut dyn FnMut(usize, Vec<OutputTensor>),
    ) -> Result<RunStats, ExecError> {
        self.launch_runs(case, runs, &mut |i, buffers| {
            let downloaded: Vec<Option<Vec<u8>>> = buffers
                .iter()
                .enumerate()
                .map(|(b, buf)| {
                    let wanted = case
                        .launch
                        .tensors
                        .iter()
                        .any(|t| t.output && t.buffer.0 as usize == b);
                    if wanted {
                        buf.to_vec::<u8>().map(Some)
                    } else {
                        Ok(None)
                    }
                })
                .collect::<Result<_, _>>()?;
            each(
                i,
                case.outputs_from_bytes(|b| downloaded[b].clone().unwrap_or_default()),
            );
            Ok(())
        })
    }

    fn runs_large_launches(&self) -> bool {
        true
    }

    fn run_gathering(
        &mut self,
        case: &PreparedCase,
        ranges: &[ByteRange],
    ) -> Result<Vec<Vec<u8>>, ExecError> {
        let mut out = Vec::new();
        self.launch_runs(case, 1, &mut |_, buffers| {
            // Each buffer a range touches comes back once, whole (a few GiB at most).
            let mut downloaded: HashMap<u32, Vec<u8>> = HashMap::new();
            for r in ranges {
                if let std::collections::hash_map::Entry::Vacant(slot) =
                    downloaded.entry(r.buffer.0)
                {
                    if let Some(buf) = buffers.get(r.buffer.0 as usize) {
                        slot.insert(buf.to_vec::<u8>()?);
                    }
                }
            }
            out = ranges
                .iter()
                .map(|r| {
                    downloaded
                        .get(&r.buffer.0)
                        .and_then(|b| b.get(r.start..r.start + r.len))
                        .map(<[u8]>::to_vec)
                        .unwrap_or_default()
                })
                .collect();
            Ok(())
        })?;
        Ok(out)
    }
}
