//! Generic IR of every `@triton.jit` function in `examples/*.py`, with no signature: the
//! IR with its dtype variables and symbolic dims, then the parameters' origins and the
//! assumptions, snapshotted per file.

use std::fmt::Write;
use std::path::Path;

use tritonc_diagnostics::FileId;
use tritonc_sema::generic::{lower_kernel_generic, PartialSpecialization};
use tritonc_sema::ModuleScope;
use tritonc_syntax::{discover, parse_module};

#[test]
fn example_kernels_lower_generically() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("py"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).expect("example is readable");
        let parsed = parse_module(FileId(0), &text);
        let index = discover(&parsed.module);
        let scope = ModuleScope::from_index(&index);
        let mut out = String::new();
        for k in &index.kernels {
            let r = lower_kernel_generic(&scope, k, &PartialSpecialization::default())
                .unwrap_or_else(|ds| panic!("{}: {}: {:?}", path.display(), k.name, ds));
            writeln!(out, "// {}", k.name).unwrap();
            for (name, spec, origin) in &r.params {
                writeln!(out, "//   {name}: {spec} ({origin:?})").unwrap();
            }
            for a in &r.assumptions {
                writeln!(out, "//   assumption: {}", a.diagnostic.message).unwrap();
            }
            writeln!(out, "{}", r.module).unwrap();
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        insta::assert_snapshot!(format!("generic_{name}"), out);
    }
}
