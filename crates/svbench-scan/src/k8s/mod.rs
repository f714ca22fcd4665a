//! The Kubernetes object model of spec E2 §1.4, as kube-linter 0.7.6 sees
//! manifests: documents decoded one by one into typed objects (or dropped
//! with an error), `List`s expanded, and per-kind views (deployment-like,
//! pod spec, pod labels, replicas, selectors) for the checks.
//!
//! # Adding a field a check reads
//! 1. Add it to the struct in [`types`] (`rust_name: Type = "jsonKey"`): Go
//!    pointers are `Option<T>`, Go values are `T` (zero value when absent);
//!    quantities are [`quantity::Quantity`], int-or-string is
//!    [`decode::IntOrString`]. Its type is now checked on every document of
//!    that kind, as the real decoder does.
//! 2. For a new kind, add a `k8s_struct!` spec type in [`types`], a
//!    [`object::Body`] variant and a row in `decode_object`'s match in
//!    [`object`] (non-workload kinds go in [`kinds`]); add view accessors
//!    on [`object::K8sObject`] if several checks share them.

pub mod decode;
pub mod gvk;
pub mod kinds;
pub mod object;
pub mod quantity;
pub mod selector;
pub mod types;

pub use object::{decode_document, Body, K8sObject, PodTemplate, WorkloadSelector};
