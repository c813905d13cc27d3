//! Compilation targets and pipeline stages, as named on the command line.

/// The target type is the one every stage shares (`tritonc-target`).
pub use tritonc_target::{Target, Vendor, TARGETS};

/// A pipeline stage `--emit` can print or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// The tile IR (Triton's TTIR analogue).
    Ttir,
    /// The tile IR with layouts (TTGIR analogue).
    Ttgir,
    /// Upstream MLIR dialects.
    Mlir,
    /// LLVM IR.
    Llir,
    /// PTX assembly.
    Ptx,
    /// AMDGCN assembly (AMD targets).
    Amdgcn,
    /// A cubin (binary).
    Cubin,
    /// C: a header and a source file embedding the cubin and PTX, one launch function
    /// per variant (docs/c.md).
    C,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 8] = [
        Stage::Ttir,
        Stage::Ttgir,
        Stage::Mlir,
        Stage::Llir,
        Stage::Ptx,
        Stage::Amdgcn,
        Stage::Cubin,
        Stage::C,
    ];

    /// The name `--emit` accepts.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Ttir => "ttir",
            Stage::Ttgir => "ttgir",
            Stage::Mlir => "mlir",
            Stage::Llir => "llir",
            Stage::Ptx => "ptx",
            Stage::Amdgcn => "amdgcn",
            Stage::Cubin => "cubin",
            Stage::C => "c",
        }
    }

    /// The file extension used with `-o DIR`.
    pub fn extension(self) -> &'static str {
        match self {
            Stage::Llir => "ll",
            other => other.name(),
        }
    }

    /// How a line comment starts in the stage's text: `;` in LLVM IR and AMDGCN, `//` in
    /// MLIR (the tile IR and ttgir are printed as MLIR) and PTX.
    pub fn comment(self) -> &'static str {
        match self {
            Stage::Llir | Stage::Amdgcn => ";",
            _ => "//",
        }
    }

    /// The stage called `name` (case-insensitive, surrounding spaces ignored).
    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for stage in Stage::ALL {
            assert_eq!(Stage::parse(stage.name()), Some(stage));
        }
        for target in TARGETS {
            assert_eq!(Target::parse(&target.name()), Some(*target));
        }
        assert!(Stage::parse("ir").is_none());
    }
}
