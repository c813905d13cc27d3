//! No panic crosses the library's API: hostile input through every public entry point a
//! program calls without a GPU — malformed bundle bytes (seeded mutations of the example
//! bundle's metadata, PTX and cubin), bundles whose public fields were built by hand
//! without validation, wrong argument counts and kinds, extreme grids, zero-size and
//! null buffers, impossible parameter layouts, device ordinals past the last — gives an
//! error value (a device-needing path ends at the "no driver"/"no device" error). The
//! library installs no signal handler.
//!
//! `TRITONC_FUZZ_SEED` picks the mutation seed (default 1), `TRITONC_FUZZ_SCALE`
//! multiplies the number of cases, as for the binary's fuzz suite.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use serde_json::Value;
use tritonc_bundle::{Bundle, ParamRole, PtxParamKind};
use tritonc_runtime::{
    check_and_marshal, check_ptx_driver, code_for_device, select_variant, select_variant_on,
    specialization_score, Arg, Backend, DType, Device, DevicePtr, EmbeddedBundle, Grid,
    ParamBuffer, RuntimeError, Variants,
};

/// xorshift64*: small, seeded, reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn example() -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rust/kernels/add_kernel.tcb");
    let read = |f: &str| std::fs::read(dir.join(f)).expect("the example bundle");
    (
        read("bundle.json"),
        read("kernel.ptx"),
        read("kernel.cubin"),
    )
}

/// Values a hostile writer puts in a field.
fn hostile_value(rng: &mut Rng) -> Value {
    let pick: [Value; 16] = [
        Value::from(0),
        Value::from(-1),
        Value::from(1),
        Value::from(u32::MAX),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(1u64 << 40),
        Value::from(1e300),
        Value::from(""),
        Value::from("sm_"),
        Value::from("sm_99999999999"),
        Value::from("gfx942"),
        Value::from("*fp32:0"),
        Value::Null,
        Value::Array(vec![]),
        Value::Object(Default::default()),
    ];
    pick[rng.below(pick.len())].clone()
}

/// Every leaf of `v` (as a JSON pointer), for picking one to change.
fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, c)| leaves(c, format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, c)| leaves(c, format!("{at}/{i}"), out)),
        _ => out.push(at),
    }
}

/// One mutation of the example's files: a field replaced or removed, bytes flipped or
/// cut, the PTX's text edited.
fn mutate(rng: &mut Rng, meta: &[u8], ptx: &[u8], cubin: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (mut meta, mut ptx, mut cubin) = (meta.to_vec(), ptx.to_vec(), cubin.to_vec());
    match rng.below(6) {
        0 | 1 => {
            let mut v: Value = serde_json::from_slice(&meta).unwrap();
            let mut paths = Vec::new();
            leaves(&v, String::new(), &mut paths);
            for _ in 0..1 + rng.below(3) {
                let p = &paths[rng.below(paths.len())];
                if let Some(slot) = v.pointer_mut(p) {
                    *slot = hostile_value(rng);
                }
            }
            meta = serde_json::to_vec(&v).unwrap();
        }
        2 => {
            let at = rng.below(meta.len());
            meta[at] = rng.next() as u8;
        }
        3 => {
            let cut = rng.below(meta.len());
            meta.truncate(cut);
        }
        4 => {
            // PTX text edits: a token duplicated, dropped or replaced.
            let text = String::from_utf8_lossy(&ptx).to_string();
            let edits: [(&str, &str); 8] = [
                (".param .u64", ".param .b8"),
                (".param .u32", ""),
                (".entry add_kernel", ".entry"),
                (".entry add_kernel(", ".entry add_kernel"),
                (".target sm_90", ".target"),
                (".version", ".version 99999999999999999999."),
                ("(", ""),
                (".align", ".align 99999999999999"),
            ];
            let (from, to) = edits[rng.below(edits.len())];
            ptx = text.replacen(from, to, 1).into_bytes();
        }
        _ => {
            let at = rng.below(cubin.len());
            cubin[at] ^= 1 + rng.next() as u8 % 255;
            let cut = rng.below(cubin.len() + 1);
            cubin.truncate(cut);
            if rng.below(2) == 0 {
                let at = rng.below(ptx.len());
                ptx[at] = 0xff;
            }
        }
    }
    (meta, ptx, cubin)
}

/// Launch arguments of every kind, sized for `n` parameters, some wrong.
fn hostile_args(rng: &mut Rng, n: usize) -> Vec<Arg> {
    let count = match rng.below(4) {
        0 => rng.below(n + 3),
        _ => n,
    };
    (0..count)
        .map(|_| match rng.below(9) {
            0 => Arg::Pointer(DevicePtr {
                addr: 0,
                dtype: DType::F32,
                bytes: 0,
            }),
            1 => Arg::Pointer(DevicePtr {
                addr: u64::MAX - rng.below(16) as u64,
                dtype: DType::F32,
                bytes: u64::MAX,
            }),
            2 => Arg::Pointer(DevicePtr {
                addr: 1 << 20,
                dtype: DType::F16,
                bytes: 1 << 20,
            }),
            3 => Arg::Int([0, 1, -1, i64::MIN, i64::MAX, 1024][rng.below(6)]),
            4 => Arg::Float([f64::NAN, -0.0, f64::INFINITY, 1e308][rng.below(4)]),
            5 => Arg::Bool(rng.below(2) == 0),
            _ => Arg::AsCompiled,
        })
        .collect()
}

/// Every GPU-free public call on `bundle` with hostile arguments; a device-needing
/// call must end at an error value.
fn exercise(rng: &mut Rng, bundle: &Bundle) {
    let _ = bundle.validate();
    let _ = tritonc_bundle::c_source::c_sources("kernels", std::slice::from_ref(bundle));
    let _ = bundle.min_driver_version();
    let _ = bundle.dir_name();
    let _ = bundle.hsaco();
    let meta = &bundle.meta;
    let _ = meta.ptx_params();
    let _ = meta.ptx_param_count();
    let _ = meta.target_capability();
    let _ = specialization_score(meta);
    for cc in [(0, 0), (9, 0), (u32::MAX, u32::MAX)] {
        let _ = code_for_device(meta, bundle.cubin.is_some(), cc);
    }
    for driver in [0, 12080, u32::MAX] {
        let _ = check_ptx_driver(bundle, driver);
    }
    for _ in 0..4 {
        let args = hostile_args(rng, meta.params.len());
        let _ = check_and_marshal(meta, &args);
        let bundles = [bundle.clone(), bundle.clone()];
        let _ = select_variant(&bundles, &args, Some((9, 0)));
        let _ = select_variant(&bundles, &args, None);
        let _ = select_variant_on(&bundles, &args, None);
    }
}

#[test]
fn mutated_bundle_bytes_are_error_values_never_panics() {
    let (meta, ptx, cubin) = example();
    // The unmutated example loads: the mutations start from a bundle that works.
    let good = Bundle::from_bytes(&meta, &ptx, Some(&cubin)).expect("the example loads");
    let seed = env_u64("TRITONC_FUZZ_SEED", 1);
    let cases = 400 * env_u64("TRITONC_FUZZ_SCALE", 1);
    let mut rng = Rng::new(seed);
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..cases {
        let (m, p, c) = mutate(&mut rng, &meta, &ptx, &cubin);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let binary = (rng.below(3) > 0).then_some(c.as_slice());
            match Bundle::from_bytes(&m, &p, binary) {
                Ok(b) => {
                    exercise(&mut rng, &b);
                    // The same bytes through the embedded-variants API.
                    let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
                    let embedded = EmbeddedBundle {
                        name: "v0",
                        meta: leak(m.clone()),
                        ptx: leak(p.clone()),
                        binary: binary.map(|b| leak(b.to_vec())),
                    };
                    let variants = Variants::unloaded("add_kernel", &[embedded, embedded])
                        .expect("bytes that load as a bundle load as a variant");
                    let args = hostile_args(&mut rng, b.meta.params.len());
                    let _ = variants.select(&args);
                    for index in [0, 1, 2, usize::MAX] {
                        match variants.launch_variant(
                            index,
                            tritonc_runtime::Stream::DEFAULT,
                            Grid::xyz(u32::MAX, u32::MAX, u32::MAX),
                            &args,
                        ) {
                            Ok(()) => panic!("an unloaded variant launched"),
                            Err(_) => {}
                        }
                    }
                    true
                }
                Err(e) => {
                    // The error names what is wrong; its text is never empty.
                    assert!(!e.to_string().is_empty());
                    let e = RuntimeError::from(e);
                    assert!(e.exit_code() != 0);
                    false
                }
            }
        }));
        match outcome {
            Ok(true) => loaded += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!(
                "case {case} (TRITONC_FUZZ_SEED={seed}) panicked:\nbundle.json: {}\nkernel.ptx: {}",
                String::from_utf8_lossy(&m),
                String::from_utf8_lossy(&p)
            ),
        }
    }
    eprintln!("seed {seed}: {cases} mutations, {loaded} loaded, {refused} refused");
    // Both outcomes were reached: the mutations are neither all harmless nor all fatal.
    assert!(
        loaded > 0 && refused > 0,
        "{loaded} loaded, {refused} refused"
    );
    exercise(&mut rng, &good);
}

/// A bundle whose public fields a program built or edited by hand, skipping
/// validation, is refused or checked as any other: never a panic or an overflow.
#[test]
fn hand_built_bundles_that_skip_validation_do_not_panic() {
    let (meta, ptx, cubin) = example();
    let good = Bundle::from_bytes(&meta, &ptx, Some(&cubin)).unwrap();
    let mut rng = Rng::new(env_u64("TRITONC_FUZZ_SEED", 1));
    let edits: Vec<Box<dyn Fn(&mut Bundle)>> = vec![
        Box::new(|b| b.meta.num_warps = u32::MAX),
        Box::new(|b| b.meta.num_warps = 0),
        Box::new(|b| b.meta.dynamic_shared_bytes = u32::MAX),
        Box::new(|b| b.meta.static_shared_bytes = u32::MAX),
        Box::new(|b| b.meta.target = "sm_4294967295".into()),
        Box::new(|b| b.meta.target = String::new()),
        Box::new(|b| b.meta.params.clear()),
        Box::new(|b| b.ptx.clear()),
        Box::new(|b| b.cubin = Some(Vec::new())),
        // Parameter indices past the PTX's list, repeated, or huge.
        Box::new(|b| {
            for p in &mut b.meta.params {
                if let ParamRole::Passed { index, .. } = &mut p.role {
                    *index = u32::MAX;
                }
            }
        }),
        Box::new(|b| {
            for p in &mut b.meta.params {
                if let ParamRole::Passed { index, .. } = &mut p.role {
                    *index = 0;
                }
            }
        }),
        // Alignments and divisors of zero (a division by zero if used as-is).
        Box::new(|b| {
            for p in &mut b.meta.params {
                match &mut p.role {
                    ParamRole::Passed {
                        kind: PtxParamKind::Pointer { align, .. },
                        ..
                    } => *align = 0,
                    ParamRole::Passed {
                        kind: PtxParamKind::Scalar { divisibility, .. },
                        ..
                    } => *divisibility = Some(0),
                    _ => {}
                }
            }
        }),
    ];
    for (i, edit) in edits.iter().enumerate() {
        let mut b = good.clone();
        edit(&mut b);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            exercise(&mut rng, &b);
            // Arguments that would satisfy the unedited bundle.
            let args = [
                Arg::ptr(f32_ptr(0x1000)),
                Arg::ptr(f32_ptr(0x2000)),
                Arg::ptr(f32_ptr(0x3000)),
                Arg::Int(4096),
                Arg::Int(1024),
            ];
            let _ = check_and_marshal(&b.meta, &args);
        }));
        assert!(outcome.is_ok(), "edit {i} panicked");
    }
    // A binary cut short or with its section table past its end is refused before the
    // driver, which reads it by address alone, could see it.
    assert_eq!(good.check_binary(), Ok(()));
    let mut cut = good.clone();
    cut.cubin.as_mut().unwrap().truncate(200);
    assert!(cut.check_binary().is_err());
    assert!(cut.validate().is_err());
    let mut forged = good.clone();
    // e_shoff, the section table's offset, far past the end.
    forged.cubin.as_mut().unwrap()[40..48].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(forged.check_binary().unwrap_err().contains("ELF"));
    assert!(matches!(
        Device::open(0).and_then(|d| d.load(&forged).map(drop)),
        Err(_)
    ));
    // Duplicate indices are a refusal, not a silently dropped argument.
    let mut b = good.clone();
    edits[10](&mut b);
    let args = [
        Arg::ptr(f32_ptr(0x1000)),
        Arg::ptr(f32_ptr(0x2000)),
        Arg::ptr(f32_ptr(0x3000)),
        Arg::Int(4096),
        Arg::Int(1024),
    ];
    assert!(b.validate().is_err());
    let mut huge = good.clone();
    edits[9](&mut huge);
    assert!(
        check_and_marshal(&huge.meta, &args).is_err(),
        "a parameter index past the PTX's parameter list must be refused"
    );
}

fn f32_ptr(addr: u64) -> DevicePtr {
    DevicePtr {
        addr,
        dtype: DType::F32,
        bytes: 4096 * 4,
    }
}

#[test]
fn extreme_grids_pointers_and_layouts_are_values() {
    // Grids: the number of programs of the largest grid does not overflow.
    let g = Grid::xyz(u32::MAX, u32::MAX, u32::MAX);
    assert_eq!(g.programs(), u64::MAX, "saturates at u64::MAX");
    assert!(g.check().is_err());
    assert!(Grid::xyz(0, 1, 1).check().is_err());
    assert_eq!(Grid::x(0).programs(), 0);
    assert!(Grid::xyz(i32::MAX as u32, 65535, 65535).check().is_ok());
    // Views: past the end, or overflowing the address space, are `None`.
    let p = DevicePtr {
        addr: u64::MAX - 3,
        dtype: DType::F32,
        bytes: 8,
    };
    assert_eq!(p.offset(u64::MAX), None);
    assert_eq!(p.offset(1), None, "the address would wrap");
    assert_eq!(f32_ptr(0).offset(4097), None);
    assert_eq!(f32_ptr(0).offset(4096).map(|q| q.bytes), Some(0));
    // Parameter layouts: sizes the CUDA parameter space cannot hold are refused.
    for bad in [&[0usize][..], &[3], &[16], &[usize::MAX], &[8, usize::MAX]] {
        assert!(ParamBuffer::layout(bad).is_none(), "{bad:?}");
    }
    let mut empty = ParamBuffer::layout(&[]).unwrap();
    assert!(empty.is_empty() && empty.bytes().is_empty());
    assert!(empty.kernel_params().is_empty());
    assert_eq!(empty.param(usize::MAX), None);
    assert!(!empty.set(usize::MAX, 1));
    // Argument lists of the wrong length, against a kernel that takes none.
    let (meta, ptx, cubin) = example();
    let mut b = Bundle::from_bytes(&meta, &ptx, Some(&cubin)).unwrap();
    b.meta.params.clear();
    assert!(check_and_marshal(&b.meta, &[Arg::Int(1)]).is_err());
    assert!(check_and_marshal(&b.meta, &[]).is_ok());
}

#[test]
fn without_a_gpu_every_device_path_is_an_error_value() {
    for ordinal in [0, 1, usize::MAX] {
        let outcome = catch_unwind(|| Device::open(ordinal).map(drop));
        match outcome {
            Ok(Err(e)) => assert!(e.exit_code() != 0 && !e.to_string().is_empty()),
            Ok(Ok(())) if ordinal == 0 => {} // a machine with a GPU
            Ok(Ok(())) => panic!("opened GPU {ordinal}"),
            Err(_) => panic!("Device::open({ordinal}) panicked"),
        }
        let hip = catch_unwind(|| Device::open_on(Backend::Hip, ordinal).map(drop));
        assert!(hip.is_ok(), "Device::open_on(Hip, {ordinal}) panicked");
    }
}

/// The signals this process catches, from `/proc/self/status` (`SigCgt`, a hex mask,
/// bit `n - 1` for signal `n`).
#[cfg(target_os = "linux")]
fn caught_signals() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("SigCgt:")).unwrap();
    u64::from_str_radix(line["SigCgt:".len()..].trim(), 16).unwrap()
}

/// A library must leave signals to the program: nothing it does — reading bundles,
/// checking launches, opening (or failing to open) a device, which loads the driver
/// library when there is one — installs a handler, and its sources name no signal API.
#[test]
fn the_library_installs_no_signal_handlers() {
    #[cfg(target_os = "linux")]
    {
        let before = caught_signals();
        let (meta, ptx, cubin) = example();
        let b = Bundle::from_bytes(&meta, &ptx, Some(&cubin)).unwrap();
        let _ = check_and_marshal(&b.meta, &[]);
        let _ = Device::open(0);
        let _ = Device::open_on(Backend::Hip, 0);
        let after = caught_signals();
        assert_eq!(
            before, after,
            "signal handlers changed: {before:x} -> {after:x}"
        );
        for sig in [2u32, 15] {
            assert_eq!(after & (1 << (sig - 1)), 0, "signal {sig} is caught");
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // Every source file, in subdirectories too (`c_source/tuned.rs`).
    let mut files = Vec::new();
    let mut dirs: Vec<std::path::PathBuf> = ["tritonc-runtime/src", "tritonc-bundle/src"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert!(files.iter().any(|f| f.ends_with("c_source/tuned.rs")), "subdirectories are read");
    {
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            for api in [
                "sigaction",
                "signal_hook",
                "ctrlc",
                "libc::signal",
                "SIGINT",
                "SIGTERM",
            ] {
                assert!(!text.contains(api), "{} names `{api}`", path.display());
            }
        }
    }
}
