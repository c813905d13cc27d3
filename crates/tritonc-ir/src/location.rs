//! Source locations of ops: the span an op came from and, for inlined helpers, the calls.

use tritonc_diagnostics::{FileId, Span};

/// Where an op came from.
///
/// `span` is the expression in the function the op was written in. When that function is
/// an `@jit` helper inlined into the kernel, `call_sites` lists the calls that inlined it,
/// innermost first: `call_sites[0]` is the call of the helper that holds `span`, and the
/// last entry is the call written in the kernel itself. Ops made by the compiler with no
/// source (e.g. in tests) use [`Location::unknown`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Location {
    /// The source range of the op.
    pub span: Span,
    /// The chain of inlining call sites, innermost first.
    pub call_sites: Vec<Span>,
}

/// The file id an unknown location points at; no source map holds it.
const UNKNOWN_FILE: FileId = FileId(u32::MAX);

impl Location {
    /// A location at `span` outside any inlined helper.
    pub fn new(span: Span) -> Self {
        Location {
            span,
            call_sites: Vec::new(),
        }
    }

    /// A location with no source (printed `loc(unknown)`).
    pub fn unknown() -> Self {
        Location::new(Span::point(UNKNOWN_FILE, 0))
    }

    /// Whether this location has no source.
    pub fn is_unknown(&self) -> bool {
        self.span.file == UNKNOWN_FILE
    }

    /// The span, unless the location is unknown.
    pub fn known_span(&self) -> Option<Span> {
        (!self.is_unknown()).then_some(self.span)
    }

    /// This location seen through one more call: used when inlining a helper whose body
    /// holds this location at the call `call_site`.
    pub fn inlined_at(&self, call_site: Span) -> Location {
        let mut loc = self.clone();
        loc.call_sites.push(call_site);
        loc
    }
}

impl Default for Location {
    fn default() -> Self {
        Location::unknown()
    }
}

impl std::fmt::Display for Location {
    /// `loc(FILE:START..END)`, with ` at FILE:START..END` per call site, innermost first.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_unknown() {
            return f.write_str("loc(unknown)");
        }
        let s = self.span;
        write!(f, "loc({}:{}..{}", s.file.0, s.start, s.end)?;
        for c in &self.call_sites {
            write!(f, " at {}:{}..{}", c.file.0, c.start, c.end)?;
        }
        f.write_str(")")
    }
}
