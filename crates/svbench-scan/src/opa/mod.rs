//! The `opa` namespace: project Rego policies (embedded from `policies/`)
//! and user policy directories, evaluated with `regorus` (spec E2 §1.7).
//!
//! INTERFACE ONLY — being implemented (issue 4).

use std::collections::BTreeSet;
use std::path::Path;

use crate::rego::RegoError;
use crate::terraform::TfModule;
use crate::{Analysis, ParsedDocument, Severity};

/// A rule known to the opa namespace: built in, or registered by a user
/// policy's `data.sv.meta.rules`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpaRule {
    /// Rule id (`K8S_001`).
    pub id: String,
    /// Catalogue severity.
    pub severity: Severity,
    /// One-line title.
    pub title: String,
}

/// The loaded policies.
#[derive(Debug, Clone)]
pub struct Opa {
    _private: (),
}

impl Opa {
    /// The project's built-in policies.
    ///
    /// # Errors
    /// Only if an embedded policy does not load (a build defect, tested).
    pub fn builtin() -> Result<Opa, RegoError> {
        unimplemented!("opa policies are not implemented yet")
    }

    /// Adds every `*.rego` under `dir` (recursive, `*_test.rego` excluded).
    ///
    /// # Errors
    /// Every file that could not be read or loaded.
    pub fn add_policy_dir(&mut self, dir: &Path) -> Result<(), Vec<RegoError>> {
        let _ = dir;
        unimplemented!()
    }

    /// Built-in rules plus those registered by loaded user policies, sorted by id.
    #[must_use]
    pub fn rules(&self) -> Vec<OpaRule> {
        unimplemented!()
    }

    /// Version string: crate version and the SHA-256 of the loaded `.rego` set.
    #[must_use]
    pub fn version(&self) -> String {
        unimplemented!()
    }

    /// Evaluates `data.sv.k8s.deny` once per object of a YAML file.
    pub fn scan_k8s(
        &mut self,
        file: &str,
        docs: &[ParsedDocument],
        excluded: &BTreeSet<String>,
    ) -> Analysis {
        let _ = (file, docs, excluded);
        unimplemented!()
    }

    /// Evaluates `data.sv.tf.deny` once per resource and variable block.
    pub fn scan_tf(
        &mut self,
        file: &str,
        module: &TfModule,
        excluded: &BTreeSet<String>,
    ) -> Analysis {
        let _ = (file, module, excluded);
        unimplemented!()
    }
}
