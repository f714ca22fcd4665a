//! The Kubernetes object model of spec E2 §1.4 (being implemented, issue 4).
