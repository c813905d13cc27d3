//! Placeholder.

use super::{BuiltinCall, BuiltinFn};

/// The builtins of this family, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[];

/// Python's `print`.
pub(super) fn route(_call: &BuiltinCall) -> Option<BuiltinFn> {
    None
}
