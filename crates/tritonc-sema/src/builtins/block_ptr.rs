//! Placeholder.

use super::{BuiltinCall, BuiltinFn};

/// The builtins of this family, by short name.
pub(super) const BUILTINS: &[(&str, BuiltinFn)] = &[];

/// Block-pointer loads and stores.
pub(super) fn route(_call: &BuiltinCall) -> Option<BuiltinFn> {
    None
}
