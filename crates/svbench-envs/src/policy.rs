//! Builtin policies.
