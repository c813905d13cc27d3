//! Placeholder.

use super::BuiltinFn;

/// The builtins of this family, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[];
