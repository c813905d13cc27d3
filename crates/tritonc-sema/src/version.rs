//! The Triton language version a kernel is compiled against.
//!
//! torch 2.10–2.11 pin Triton 3.6, 2.12–2.13 pin 3.7, 2.14 pins 3.8 and 2.15 pins 3.9, so
//! users run all four. tritonc implements Triton 3.6 and, where a later version changes
//! what a kernel means or whether it compiles, that version's rule behind
//! [`TritonVersion::at_least`]. Each such rule is decided by the version's wheel
//! (`scripts/triton_versions.py` records `tests/fixtures/triton/versions.json`).

use std::fmt;
use std::str::FromStr;

/// A Triton minor version tritonc can compile for (patch releases do not change the
/// language).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(into = "String", try_from = "String")]
pub enum TritonVersion {
    /// Triton 3.6 (torch 2.10, 2.11): the default.
    #[default]
    V3_6,
    /// Triton 3.7 (torch 2.12, 2.13).
    V3_7,
    /// Triton 3.8 (torch 2.14).
    V3_8,
    /// Triton 3.9 (torch 2.15).
    V3_9,
}

impl TritonVersion {
    /// Every version, oldest first.
    pub const ALL: [TritonVersion; 4] = [
        TritonVersion::V3_6,
        TritonVersion::V3_7,
        TritonVersion::V3_8,
        TritonVersion::V3_9,
    ];

    /// `"3.6"`, `"3.7"`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            TritonVersion::V3_6 => "3.6",
            TritonVersion::V3_7 => "3.7",
            TritonVersion::V3_8 => "3.8",
            TritonVersion::V3_9 => "3.9",
        }
    }

    /// Whether this version is `other` or later.
    pub fn at_least(self, other: TritonVersion) -> bool {
        self >= other
    }

    /// Whether this is the default version (3.6).
    pub fn is_default(&self) -> bool {
        *self == TritonVersion::default()
    }
}

/// The error for a construct whose meaning `version` changed in a way tritonc does not
/// model yet: refusing it is the alternative to compiling it with another version's
/// meaning.
pub(crate) fn not_modelled(
    version: TritonVersion,
    span: tritonc_diagnostics::Span,
    what: &str,
    change: &str,
) -> tritonc_diagnostics::Diagnostic {
    tritonc_diagnostics::Diagnostic::error(
        crate::codes::UNSUPPORTED_TL_OP,
        format!("{what} under Triton {version} is not yet supported by tritonc"),
    )
    .with_primary(span, format!("its meaning changed in Triton {version}"))
    .with_note(change.to_string())
    .with_help("compile for Triton 3.6–3.8 (`--triton-version`), where tritonc models it")
}

impl fmt::Display for TritonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TritonVersion {
    type Err = String;

    /// `3.6`, `3.7`, `3.8`, `3.9`, or a release of one (`3.7.1`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let minor = t.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
        let patch_ok = t
            .splitn(3, '.')
            .nth(2)
            .is_none_or(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        TritonVersion::ALL
            .into_iter()
            .find(|v| v.as_str() == minor && patch_ok)
            .ok_or_else(|| format!("unknown Triton version `{s}`; expected 3.6, 3.7, 3.8 or 3.9"))
    }
}

impl From<TritonVersion> for String {
    fn from(v: TritonVersion) -> String {
        v.as_str().to_string()
    }
}

impl TryFrom<String> for TritonVersion {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::TritonVersion;

    #[test]
    fn parses_minor_versions_and_releases() {
        assert_eq!("3.6".parse(), Ok(TritonVersion::V3_6));
        assert_eq!("3.7.1".parse(), Ok(TritonVersion::V3_7));
        assert_eq!(" 3.9 ".parse(), Ok(TritonVersion::V3_9));
        for bad in ["3.5", "3.10", "3", "3.8.", "3.8.x", "4.0", ""] {
            assert!(bad.parse::<TritonVersion>().is_err(), "{bad}");
        }
        assert!(TritonVersion::V3_9.at_least(TritonVersion::V3_8));
        assert!(!TritonVersion::V3_7.at_least(TritonVersion::V3_8));
        assert_eq!(TritonVersion::default().to_string(), "3.6");
    }
}
