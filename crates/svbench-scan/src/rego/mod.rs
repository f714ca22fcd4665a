//! Rego policies evaluated in-process with `regorus` (spec E2 §1.7); in progress.
