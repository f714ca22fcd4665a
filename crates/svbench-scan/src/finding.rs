//! The finding model shared by every analyzer (spec E2 §1.1).

use std::cmp::Ordering;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::Severity;

/// An analyzer family: the namespace of its rule ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tool {
    /// Native kube-linter 0.7.6 checks.
    KubeLinter,
    /// Native equivalents of semgrep's `yaml.kubernetes.security` registry rules.
    Semgrep,
    /// The project's Rego policies (and user policies) under `regorus`.
    Opa,
}

impl Tool {
    /// Every namespace, in output order.
    pub const ALL: [Tool; 3] = [Tool::KubeLinter, Tool::Semgrep, Tool::Opa];

    /// The namespace name: `kube-linter`, `semgrep` or `opa`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Tool::KubeLinter => "kube-linter",
            Tool::Semgrep => "semgrep",
            Tool::Opa => "opa",
        }
    }

    /// The namespace named `name`, if any.
    #[must_use]
    pub fn parse(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Tool {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The object a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(untagged)]
pub enum ObjectRef {
    /// A Kubernetes object (fields as written; absent ones are null).
    K8s {
        /// `apiVersion`.
        api_version: Option<String>,
        /// `kind`.
        kind: String,
        /// `metadata.name`.
        name: Option<String>,
        /// `metadata.namespace` as written (absent is null, not `default`).
        namespace: Option<String>,
    },
    /// A Terraform block, by address (`aws_s3_bucket.b`, `var.x`).
    Terraform {
        /// Always `terraform_resource`.
        kind: TerraformKind,
        /// The block's address.
        name: String,
    },
}

impl ObjectRef {
    /// A Terraform block's reference.
    #[must_use]
    pub fn terraform(address: impl Into<String>) -> ObjectRef {
        ObjectRef::Terraform {
            kind: TerraformKind,
            name: address.into(),
        }
    }
}

/// The constant `kind` of Terraform object references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TerraformKind;

impl Serialize for TerraformKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("terraform_resource")
    }
}

/// One diagnostic of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The analyzer family.
    pub tool: Tool,
    /// Rule id within the namespace (`latest-tag`, `K8S_001`).
    pub rule_id: String,
    /// The project severity of the rule.
    pub severity: Severity,
    /// What is wrong, in the project's words.
    pub message: String,
    /// The file's name as scanned (`manifest.yaml`, `main.tf`, a path).
    pub file: String,
    /// 1-based line, if known.
    pub line: Option<usize>,
    /// Index of the YAML document (null for Terraform).
    pub doc_index: Option<usize>,
    /// The object, if the finding is about one.
    pub object: Option<ObjectRef>,
    /// The container, for container-level findings.
    pub container: Option<String>,
}

impl Finding {
    /// The full id `namespace/rule_id`.
    #[must_use]
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.tool, self.rule_id)
    }

    /// `file:line`, or just the file when the line is unknown.
    #[must_use]
    pub fn location(&self) -> String {
        location(&self.file, self.line)
    }

    /// The output order: file, line, tool, rule_id, object, container
    /// (unknown lines last within a file).
    #[must_use]
    pub fn output_order(&self, other: &Finding) -> Ordering {
        let line = |f: &Finding| (f.line.is_none(), f.line);
        self.file
            .cmp(&other.file)
            .then_with(|| line(self).cmp(&line(other)))
            .then_with(|| self.tool.cmp(&other.tool))
            .then_with(|| self.rule_id.cmp(&other.rule_id))
            .then_with(|| self.object.cmp(&other.object))
            .then_with(|| self.container.cmp(&other.container))
    }
}

impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Finding", 11)?;
        st.serialize_field("id", &self.full_id())?;
        st.serialize_field("tool", &self.tool)?;
        st.serialize_field("rule_id", &self.rule_id)?;
        st.serialize_field("severity", &self.severity)?;
        st.serialize_field("message", &self.message)?;
        st.serialize_field("file", &self.file)?;
        st.serialize_field("line", &self.line)?;
        st.serialize_field("doc_index", &self.doc_index)?;
        st.serialize_field("object", &self.object)?;
        st.serialize_field("container", &self.container)?;
        st.serialize_field("location", &self.location())?;
        st.end()
    }
}

/// Why (part of) a file could not be analysed: a recorded error, never a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanError {
    /// The file's name as scanned.
    pub file: String,
    /// The document, when only one document failed.
    pub doc_index: Option<usize>,
    /// The analyzer that failed, or null when the file could not be read at all.
    pub tool: Option<Tool>,
    /// What went wrong, with a line where one is known.
    pub message: String,
}

/// What one analyzer produced for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Findings, in any order (the scan sorts them).
    pub findings: Vec<Finding>,
    /// Per-file or per-document errors.
    pub errors: Vec<ScanError>,
}

impl Analysis {
    /// Appends another analyzer's output.
    pub fn extend(&mut self, other: Analysis) {
        self.findings.extend(other.findings);
        self.errors.extend(other.errors);
    }
}

/// `file:line`, or `file` when the line is unknown (findings and dedupe rows).
pub(crate) fn location(file: &str, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_string(),
    }
}
