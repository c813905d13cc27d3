//! Where `run` and `verify` take kernels from: a bundle directory (`--bundle DIR`), or
//! the driver's back end, compiling each specialization on demand.

use tritonc_bundle::Bundle;
use tritonc_diagnostics::SourceMap;
use tritonc_driver::backend::{
    compile_bundle, unavailable_message, BackendError, BackendOptions, AVAILABLE,
};
use tritonc_driver::target::{Target, Vendor};

/// Bundles compiled on demand for each case (`tritonc run`/`verify` without `--bundle`).
/// Each specialization is compiled once per process: `verify` runs most of its cases
/// (correctness, edge-case sizes, determinism, stress) on the same variant.
#[derive(Debug)]
pub struct CompilingSource {
    /// How to compile.
    pub options: BackendOptions,
    /// Bundles compiled so far, by kernel name and specialization key.
    compiled: std::collections::HashMap<(String, String), Bundle>,
}

impl CompilingSource {
    /// A source compiling with `options`.
    pub fn new(options: BackendOptions) -> Self {
        CompilingSource {
            options,
            compiled: Default::default(),
        }
    }
}

impl tritonc_verify::BundleSource for CompilingSource {
    fn bundles_for(&mut self, case: &tritonc_verify::PreparedCase) -> Result<Vec<Bundle>, String> {
        let constexprs: Vec<&str> = case.constexpr_params.iter().map(String::as_str).collect();
        let mut spec = case.launch.specialization.clone();
        spec.options.target = self.options.target;
        let key = (case.function.name.clone(), spec.key().to_string());
        if let Some(bundle) = self.compiled.get(&key) {
            return Ok(vec![bundle.clone()]);
        }
        let bundle = compile_bundle(
            &case.function,
            &SourceMap::new(),
            &spec,
            &constexprs,
            &self.options,
        )
        .map(|c| c.bundle)
        .map_err(|e| match e {
            BackendError::Unavailable(m) | BackendError::Internal(m) => m,
            BackendError::Unsupported(d)
            | BackendError::Environment(d)
            | BackendError::TargetLimit(d)
            | BackendError::Bound(d) => d.message,
            BackendError::Interrupted => "interrupted".to_string(),
        })?;
        self.compiled.insert(key, bundle.clone());
        Ok(vec![bundle])
    }
}

/// Where `run` and `verify` take kernels from: a bundle directory or the back end.
pub enum KernelSource {
    /// `--bundle DIR`.
    Dir(tritonc_verify::BundleDir),
    /// Compiled on demand.
    Compile(CompilingSource),
}

impl tritonc_verify::BundleSource for KernelSource {
    fn bundles_for(&mut self, case: &tritonc_verify::PreparedCase) -> Result<Vec<Bundle>, String> {
        match self {
            KernelSource::Dir(d) => d.bundles_for(case),
            KernelSource::Compile(c) => c.bundles_for(case),
        }
    }
}

/// The target whose reduction and scan orders `run --interpret`/`verify --interpret`
/// replay: the bundle's (`--bundle DIR`, its first variant's), else `--target`'s.
pub fn interpret_target(bundle: Option<&std::path::Path>, target: &str) -> Option<Target> {
    match bundle {
        Some(dir) => {
            let dir = tritonc_verify::BundleDir::read(dir).ok()?;
            Target::parse(&dir.bundles.first()?.meta.target)
        }
        None => Target::parse(target),
    }
}

/// The kernel source for `--bundle DIR` (read now) or, without it, the back end for
/// `target`; an error message with its exit status otherwise.
pub fn kernel_source(
    bundle: Option<&std::path::Path>,
    target: &str,
) -> Result<KernelSource, (String, crate::exit::Exit)> {
    use crate::exit::Exit;
    if let Some(dir) = bundle {
        return tritonc_verify::BundleDir::read(dir)
            .map(KernelSource::Dir)
            .map_err(|m| (format!("cannot read the bundles: {m}"), Exit::InputError));
    }
    if !AVAILABLE {
        return Err((
            unavailable_message("running a kernel from its source on the GPU"),
            Exit::NotImplemented,
        ));
    }
    let target = Target::parse(target)
        .filter(|t| t.vendor() == Vendor::Nvidia)
        .ok_or_else(|| {
            (
                format!("`{target}` is not an NVIDIA target"),
                Exit::InputError,
            )
        })?;
    Ok(KernelSource::Compile(CompilingSource::new(
        BackendOptions {
            target,
            fp_fusion: true,
            cubin: false,
        },
    )))
}

#[cfg(all(test, feature = "mlir"))]
mod tests {
    use super::*;
    use tritonc_verify::BundleSource;

    /// A prepared case of examples/vector_add.toml (its first spec, as planned).
    fn vector_add_case() -> tritonc_verify::PreparedCase {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vector_add.toml");
        let mut sources = SourceMap::new();
        let input = tritonc_verify::load_spec(&path, &mut sources).expect("the spec loads");
        tritonc_verify::PreparedCase::prepare(&input.spec, &path, &mut sources)
            .expect("the spec prepares")
    }

    #[test]
    fn on_demand_compiles_each_specialization_once() {
        let mut source = CompilingSource::new(BackendOptions {
            target: Target::parse("sm_90").expect("a known target"),
            fp_fusion: true,
            cubin: false,
        });
        let case = vector_add_case();
        let first = source.bundles_for(&case).expect("vector add compiles");
        assert_eq!(first.len(), 1);
        assert!(
            first[0].ptx.contains(".entry add_kernel"),
            "{}",
            first[0].ptx
        );
        assert_eq!(source.compiled.len(), 1);
        let again = source.bundles_for(&case).expect("vector add compiles");
        assert_eq!(again, first, "the second case gets the same bundle");
        assert_eq!(source.compiled.len(), 1, "and no second compile");
        // Another specialization (another num_warps) is compiled on its own.
        let mut other = vector_add_case();
        other.launch.specialization.options.num_warps = 8;
        source.bundles_for(&other).expect("vector add compiles");
        assert_eq!(source.compiled.len(), 2);
    }
}
