//! The cache key: the kernel's code with locations stripped, its location table, the
//! options that steer code generation, and the toolchain.

use blake3::{Hash, Hasher};

use super::Toolchain;
use tritonc_diagnostics::SourceMap;
use tritonc_ir::{Function, Location, PrintOptions};

/// Writes one named, length-prefixed field, so that no two different field sequences
/// hash the same bytes.
pub(super) fn field(hasher: &mut Hasher, name: &str, value: &[u8]) {
    hasher.update(name.as_bytes());
    hasher.update(&[0]);
    hasher.update(&(value.len() as u64).to_le_bytes());
    hasher.update(value);
}

/// What one kernel variant's key is computed from.
#[derive(Debug, Clone, Copy)]
pub struct KeyInputs<'a> {
    /// The kernel after sema, as code generation receives it.
    pub func: &'a Function,
    /// The files its locations point into.
    pub sources: &'a SourceMap,
    /// The specialization key (`SpecializationKey::to_string()`).
    pub specialization: &'a str,
    /// The variant's compile options ([`crate::options::Options::key_text`]): every field
    /// of the one options struct, so an option added later is part of the key without
    /// being listed here.
    pub options: &'a str,
    /// Whether a cubin is assembled.
    pub cubin: bool,
}

/// A cache key and the three hashes it is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheKey {
    /// The tile IR printed without locations, with the specialization and options.
    pub code: Hash,
    /// The location table ([`location_table_hash`]).
    pub locations: Hash,
    /// The toolchain ([`Toolchain::hash`]).
    pub toolchain: Hash,
}

impl CacheKey {
    /// The key of `inputs` compiled by `toolchain`.
    pub fn new(inputs: &KeyInputs<'_>, toolchain: &Toolchain) -> CacheKey {
        let mut h = Hasher::new();
        let ir = tritonc_ir::print_function(inputs.func, PrintOptions::default());
        field(&mut h, "ir", ir.as_bytes());
        field(&mut h, "specialization", inputs.specialization.as_bytes());
        field(&mut h, "options", inputs.options.as_bytes());
        field(&mut h, "cubin", &[inputs.cubin as u8]);
        CacheKey {
            code: h.finalize(),
            locations: location_table_hash(inputs.func, inputs.sources),
            toolchain: toolchain.hash(),
        }
    }

    /// The entry's name: the hash of the three parts, in hex.
    pub fn hex(&self) -> String {
        let mut h = Hasher::new();
        field(&mut h, "code", self.code.as_bytes());
        field(&mut h, "locations", self.locations.as_bytes());
        field(&mut h, "toolchain", self.toolchain.as_bytes());
        h.finalize().to_hex().to_string()
    }
}

/// The hash of the function's location table: the function's and then every op's
/// location (in print order), each as the `file:line:col` of its span and of every
/// inlining call site, resolved the way the back end resolves them for the PTX's `.loc`
/// lines. Moving a kernel down a line changes it; editing a comment on the same line
/// after the code does not.
pub fn location_table_hash(func: &Function, sources: &SourceMap) -> Hash {
    let mut h = Hasher::new();
    write_location(&mut h, &func.loc, sources);
    for op in func.walk() {
        write_location(&mut h, &func.op(op).loc, sources);
    }
    h.finalize()
}

fn write_location(h: &mut Hasher, loc: &Location, sources: &SourceMap) {
    let Some(span) = loc.known_span() else {
        h.update(b"?;");
        return;
    };
    for s in std::iter::once(span).chain(loc.call_sites.iter().copied()) {
        match sources.try_get(s.file) {
            Some(file) => {
                let lc = file.line_col(s.start);
                let path = file.path().display().to_string();
                field(h, "file", path.as_bytes());
                h.update(&lc.line.to_le_bytes());
                h.update(&lc.col_utf8.to_le_bytes());
            }
            None => {
                h.update(b"?");
            }
        }
    }
    h.update(b";");
}

#[cfg(test)]
mod tests {
    use super::*;
    use tritonc_diagnostics::Span;
    use tritonc_ir::Type;

    fn toolchain() -> Toolchain {
        Toolchain {
            tritonc: "0.1.0".into(),
            commit: None,
            executable: "1 2".into(),
            llvm: "22.1.0".into(),
            ptxas: None,
            libdevice: None,
        }
    }

    fn inputs<'a>(func: &'a Function, sources: &'a SourceMap) -> KeyInputs<'a> {
        KeyInputs {
            func,
            sources,
            specialization: "k[x=i32]",
            options: "Options { num_warps: 4, num_stages: 3, fp_fusion: true }",
            cubin: true,
        }
    }

    /// A function located at `offset` of a two-line file.
    fn located(offset: u32) -> (Function, SourceMap) {
        let mut sources = SourceMap::new();
        let file = sources.add("k.py", "def k():\n    pass\n");
        let mut f = Function::new("k", vec![Type::Scalar(tritonc_ir::DType::I32)], vec![]);
        f.loc = Location::new(Span::new(file, offset, offset + 1));
        (f, sources)
    }

    #[test]
    fn a_moved_location_changes_only_the_location_hash() {
        let (a, sa) = located(0);
        let (b, sb) = located(13);
        let ka = CacheKey::new(&inputs(&a, &sa), &toolchain());
        let kb = CacheKey::new(&inputs(&b, &sb), &toolchain());
        assert_eq!(ka.code, kb.code);
        assert_ne!(ka.locations, kb.locations);
        assert_ne!(ka.hex(), kb.hex());
    }

    #[test]
    fn every_option_and_the_toolchain_are_in_the_key() {
        let (f, s) = located(0);
        let base = CacheKey::new(&inputs(&f, &s), &toolchain()).hex();
        let mut changed = Vec::new();
        let mut i = inputs(&f, &s);
        i.options = "Options { num_warps: 4, num_stages: 3, fp_fusion: false }";
        changed.push(CacheKey::new(&i, &toolchain()).hex());
        let mut i = inputs(&f, &s);
        i.specialization = "k[x=i64]";
        changed.push(CacheKey::new(&i, &toolchain()).hex());
        let mut i = inputs(&f, &s);
        i.cubin = false;
        changed.push(CacheKey::new(&i, &toolchain()).hex());
        let mut t = toolchain();
        t.ptxas = Some("V13.0.88".into());
        changed.push(CacheKey::new(&inputs(&f, &s), &t).hex());
        for k in &changed {
            assert_ne!(*k, base);
        }
        assert_eq!(CacheKey::new(&inputs(&f, &s), &toolchain()).hex(), base);
    }
}
