//! The `opa` namespace: project Rego policies (embedded from `policies/`)
//! and user policy directories, evaluated with `regorus` (spec E2 §1.7).
//!
//! **Kubernetes.** Every YAML document that is a mapping with `apiVersion`
//! and `kind` is one object (no schema typing); a core `v1` `List` is
//! replaced by those of its items that are objects in the same sense. Each
//! object is evaluated once against `data.sv.k8s.deny` with
//! `input = {"object", "doc_index", "file", "objects": [every object of the file]}`.
//! Documents that are not objects are skipped; documents that could not be
//! read are recorded as errors of this tool (each analyzer reports what it
//! could not analyse).
//!
//! **Terraform.** Each `resource` and `variable` block is evaluated once
//! against `data.sv.tf.deny` with `input = {"block", "file", "module"}`
//! ([`TfModule::policy_inputs`]; the module view also holds `data` sources,
//! a project extension documented in [`crate::terraform`]).
//!
//! **Findings.** A valid deny element becomes a finding of the object or
//! block under evaluation; its `path` (JSON Pointer into `input.object` or
//! `input.block.config`) gives the line: the key of the deepest YAML node it
//! reaches, or the longest recorded prefix of a Terraform block
//! ([`crate::terraform::TfBlock::line_of`]); without a path, the object's or
//! block's first line. An empty `container` is no container. The severity is
//! the rule's catalogue severity from `data.sv.meta.rules` when registered,
//! else the first severity observed for the id (which is then registered).
//! Invalid elements, evaluation errors and timeouts are [`ScanError`]s.
//!
//! **Cost of `Clone`.** An [`Opa`] holds a [`PolicySet`], i.e. two regorus
//! engines whose modules, compiled policy and data are reference-counted, so
//! a clone copies a few pointers and small maps, not the policies; each clone
//! prepares its engine (analysis of the modules, about a millisecond for the
//! built-ins) on its first evaluation. Severities first observed by one clone
//! are not seen by the others.

mod embedded;
mod pointer;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::rego::{
    DenyFinding, PolicySet, RegoError, RegoInput, RuleMeta, K8S_DENY_QUERY, TF_DENY_QUERY,
};
use crate::terraform::{TfBlock, TfModule};
use crate::{
    Analysis, Deadline, Finding, Node, ObjectRef, ParsedDocument, ScanError, Severity,
    TimeBudgetExceeded, Tool,
};

/// A rule known to the opa namespace: built in, or registered by a user
/// policy's `data.sv.meta.rules`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpaRule {
    /// Rule id (`K8S_001`).
    pub id: String,
    /// Catalogue severity.
    pub severity: Severity,
    /// One-line title (the id itself when none was registered).
    pub title: String,
}

/// The loaded policies.
#[derive(Debug, Clone)]
pub struct Opa {
    policies: PolicySet,
    /// Rules registered by `data.sv.meta.rules`.
    catalogue: BTreeMap<String, OpaRule>,
    /// Rules first seen in a deny set without a catalogue entry.
    observed: BTreeMap<String, OpaRule>,
}

impl Opa {
    /// The project's built-in policies.
    ///
    /// # Errors
    /// Only if an embedded policy does not load (a build defect, tested).
    pub fn builtin() -> Result<Opa, RegoError> {
        Opa::builtin_with(PolicySet::new())
    }

    /// The built-in policies in `policies` (e.g. a set with another
    /// execution limit, [`PolicySet::with_limit`]).
    ///
    /// # Errors
    /// As [`Opa::builtin`].
    pub fn builtin_with(mut policies: PolicySet) -> Result<Opa, RegoError> {
        policies.add_policies(embedded::POLICIES)?;
        let mut opa = Opa {
            policies,
            catalogue: BTreeMap::new(),
            observed: BTreeMap::new(),
        };
        if let Some(error) = opa.reload_catalogue().into_iter().next() {
            return Err(error);
        }
        Ok(opa)
    }

    /// The names of the embedded policy modules (paths relative to the
    /// repository root), in load order.
    #[must_use]
    pub fn builtin_policy_names() -> Vec<&'static str> {
        embedded::POLICIES.iter().map(|(name, _)| *name).collect()
    }

    /// Adds every `*.rego` under `dir` (recursive, `*_test.rego` excluded).
    ///
    /// Files that load are kept even when others fail. User policies add to
    /// `deny` in packages `sv.k8s` / `sv.tf` and may register their ids with
    /// `rules.MY_ID := {"severity": …, "title": …}` in package `sv.meta`.
    ///
    /// # Errors
    /// Every file that could not be read or loaded, and a
    /// `data.sv.meta.rules` that no longer evaluates or has bad entries.
    pub fn add_policy_dir(&mut self, dir: &Path) -> Result<(), Vec<RegoError>> {
        // A file that makes `data.sv.meta.rules` fail to evaluate (e.g. a
        // complete `rules := {…}` beside the built-in per-id entries) would
        // break every built-in rule, whose elements read their severity
        // there: such a file is rejected.
        let (_, mut errors) = self.policies.add_policy_dir_checked(dir, |trial| {
            let (_, errors) = trial.meta_rules();
            match errors
                .into_iter()
                .find(|e| !matches!(e, RegoError::InvalidDeny { .. }))
            {
                Some(RegoError::Eval { query, message }) => Err(RegoError::Eval {
                    query,
                    message: format!(
                        "{message}\nhint: register rules one by one, `rules.MY_ID := {{\"severity\": …}}`"
                    ),
                }),
                Some(other) => Err(other),
                None => Ok(()),
            }
        });
        errors.extend(self.reload_catalogue());
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Built-in rules plus those registered by loaded user policies (or
    /// first observed in a scan), sorted by id.
    #[must_use]
    pub fn rules(&self) -> Vec<OpaRule> {
        let mut rules: BTreeMap<&str, &OpaRule> = BTreeMap::new();
        for rule in self.observed.values().chain(self.catalogue.values()) {
            rules.insert(&rule.id, rule);
        }
        rules.into_values().cloned().collect()
    }

    /// Version string: crate version and the SHA-256 of the loaded `.rego` set.
    #[must_use]
    pub fn version(&self) -> String {
        format!(
            "svbench-scan {} (rego sha256:{})",
            env!("CARGO_PKG_VERSION"),
            self.policies.policies_sha256()
        )
    }

    /// The policy set (e.g. for its [`PolicySet::sources`]).
    #[must_use]
    pub fn policies(&self) -> &PolicySet {
        &self.policies
    }

    /// The loaded modules for the external `opa` binary: built-ins as text,
    /// user policies as their files (spec E2 §1.8).
    #[must_use]
    pub fn external_policies(&self) -> Vec<crate::external::RegoPolicy> {
        use crate::external::RegoPolicy;
        let builtin = embedded::POLICIES
            .iter()
            .map(|(name, text)| RegoPolicy::Text {
                name: (*name).to_owned(),
                text: (*text).to_owned(),
            });
        // Built-ins load first, in this order; everything after is a user file.
        let user = self
            .policies
            .sources()
            .iter()
            .skip(embedded::POLICIES.len())
            .map(|s| RegoPolicy::File(s.name.clone().into()));
        builtin.chain(user).collect()
    }

    /// The inputs [`Opa::scan_k8s`] evaluates, as JSON, for the external
    /// `opa` binary (so both backends see identical inputs), plus the
    /// documents that could not become inputs.
    #[must_use]
    pub fn k8s_inputs(
        file: &str,
        docs: &[ParsedDocument],
    ) -> (Vec<crate::external::OpaInput>, Vec<ScanError>) {
        let mut errors = Vec::new();
        let mut objects = Vec::new();
        for doc in docs {
            let (Ok(root), Some(doc_index)) = (&doc.result, doc.doc_index) else {
                continue;
            };
            match k8s_objects(root, doc_index) {
                Ok(found) => objects.extend(found),
                Err(message) => errors.push(ScanError {
                    file: file.to_owned(),
                    doc_index: Some(doc_index),
                    tool: Some(Tool::Opa),
                    message,
                }),
            }
        }
        let all: Vec<Value> = objects.iter().map(|o| o.json.clone()).collect();
        let inputs = objects
            .iter()
            .map(|o| crate::external::OpaInput {
                input: serde_json::json!({
                    "object": o.json,
                    "doc_index": o.doc_index,
                    "file": file,
                    "objects": all,
                }),
                doc_index: Some(o.doc_index),
                object: Some(k8s_object_ref(&o.json)),
                line: Some(o.node.line),
            })
            .collect();
        (inputs, errors)
    }

    /// The inputs [`Opa::scan_tf`] evaluates, as JSON, for the external `opa` binary.
    #[must_use]
    pub fn tf_inputs(file: &str, module: &TfModule) -> Vec<crate::external::OpaInput> {
        let view = module.module_view();
        module
            .blocks
            .iter()
            .map(|b| crate::external::OpaInput {
                input: serde_json::json!({"block": b.to_json(), "file": file, "module": view}),
                doc_index: None,
                object: Some(ObjectRef::terraform(b.address.clone())),
                line: Some(b.line),
            })
            .collect()
    }

    /// Evaluates `data.sv.k8s.deny` once per object of a YAML file.
    pub fn scan_k8s(
        &mut self,
        file: &str,
        docs: &[ParsedDocument],
        excluded: &BTreeSet<String>,
    ) -> Analysis {
        match self.scan_k8s_within(file, docs, excluded, &Deadline::NONE) {
            Ok(analysis) => analysis,
            Err(e) => unreachable!("no deadline, yet {e}"),
        }
    }

    /// [`Opa::scan_k8s`] inside a total time budget, read before each
    /// object and given to each evaluation.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when `deadline` passes before the last object
    /// is evaluated (what was found so far is dropped).
    pub fn scan_k8s_within(
        &mut self,
        file: &str,
        docs: &[ParsedDocument],
        excluded: &BTreeSet<String>,
        deadline: &Deadline,
    ) -> Result<Analysis, TimeBudgetExceeded> {
        let mut analysis = Analysis::default();
        let error = |doc_index: Option<usize>, message: String| ScanError {
            file: file.to_owned(),
            doc_index,
            tool: Some(Tool::Opa),
            message,
        };
        let mut objects = Vec::new();
        for doc in docs {
            let root = match &doc.result {
                Ok(root) => root,
                Err(e) => {
                    analysis.errors.push(error(doc.doc_index, e.to_string()));
                    continue;
                }
            };
            let Some(doc_index) = doc.doc_index else {
                continue;
            };
            match k8s_objects(root, doc_index) {
                Ok(found) => objects.extend(found),
                Err(message) => analysis.errors.push(error(Some(doc_index), message)),
            }
        }
        let mut converted = Vec::with_capacity(objects.len());
        for object in &objects {
            match RegoInput::from_json(&object.json) {
                Ok(input) => converted.push(Some(input)),
                Err(e) => {
                    analysis
                        .errors
                        .push(error(Some(object.doc_index), e.to_string()));
                    converted.push(None);
                }
            }
        }
        let all = RegoInput::array(converted.iter().flatten().cloned().collect());
        let file_input = RegoInput::from_json(&Value::from(file)).expect("a string converts");
        for (object, input) in objects.iter().zip(converted) {
            let Some(input) = input else { continue };
            let doc_index =
                RegoInput::from_json(&Value::from(object.doc_index)).expect("an index converts");
            let input = RegoInput::object([
                ("object", input),
                ("doc_index", doc_index),
                ("file", file_input.clone()),
                ("objects", all.clone()),
            ]);
            let (denied, errors) =
                self.policies
                    .eval_deny_input_within(K8S_DENY_QUERY, &input, deadline)?;
            analysis.errors.extend(
                errors
                    .into_iter()
                    .map(|e| error(Some(object.doc_index), e.to_string())),
            );
            for deny in denied {
                if excluded.contains(&deny.id) {
                    continue;
                }
                let line = pointer::yaml_line(object.node, deny.path.as_deref().unwrap_or(""));
                let finding = self.finding(
                    deny,
                    file,
                    line,
                    Some(object.doc_index),
                    k8s_object_ref(&object.json),
                );
                analysis.findings.push(finding);
            }
        }
        Ok(analysis)
    }

    /// Evaluates `data.sv.tf.deny` once per resource and variable block.
    pub fn scan_tf(
        &mut self,
        file: &str,
        module: &TfModule,
        excluded: &BTreeSet<String>,
    ) -> Analysis {
        match self.scan_tf_within(file, module, excluded, &Deadline::NONE) {
            Ok(analysis) => analysis,
            Err(e) => unreachable!("no deadline, yet {e}"),
        }
    }

    /// [`Opa::scan_tf`] inside a total time budget, read while the module
    /// view is built, before each block, and given to each evaluation.
    ///
    /// # Errors
    /// [`TimeBudgetExceeded`] when `deadline` passes before the last block
    /// is evaluated (what was found so far is dropped).
    pub fn scan_tf_within(
        &mut self,
        file: &str,
        module: &TfModule,
        excluded: &BTreeSet<String>,
        deadline: &Deadline,
    ) -> Result<Analysis, TimeBudgetExceeded> {
        let mut analysis = Analysis::default();
        let error = |message: String| ScanError {
            file: file.to_owned(),
            doc_index: None,
            tool: Some(Tool::Opa),
            message,
        };
        let view = match RegoInput::from_json(&module.module_view_within(deadline)?) {
            Ok(view) => view,
            Err(e) => {
                analysis.errors.push(error(e.to_string()));
                return Ok(analysis);
            }
        };
        let file_input = RegoInput::from_json(&Value::from(file)).expect("a string converts");
        for block in &module.blocks {
            let block_input = match RegoInput::from_json(&block.to_json()) {
                Ok(input) => input,
                Err(e) => {
                    analysis
                        .errors
                        .push(error(format!("{}: {e}", block.address)));
                    continue;
                }
            };
            let input = RegoInput::object([
                ("block", block_input),
                ("file", file_input.clone()),
                ("module", view.clone()),
            ]);
            let (denied, errors) =
                self.policies
                    .eval_deny_input_within(TF_DENY_QUERY, &input, deadline)?;
            analysis.errors.extend(
                errors
                    .into_iter()
                    .map(|e| error(format!("{}: {e}", block.address))),
            );
            for deny in denied {
                if excluded.contains(&deny.id) {
                    continue;
                }
                let line = tf_line(block, deny.path.as_deref());
                let finding = self.finding(
                    deny,
                    file,
                    line,
                    None,
                    ObjectRef::terraform(block.address.clone()),
                );
                analysis.findings.push(finding);
            }
        }
        Ok(analysis)
    }

    /// A finding for a valid deny element, with the catalogue severity.
    fn finding(
        &mut self,
        deny: DenyFinding,
        file: &str,
        line: usize,
        doc_index: Option<usize>,
        object: ObjectRef,
    ) -> Finding {
        let severity = match self.catalogue.get(&deny.id) {
            Some(rule) => rule.severity,
            None => {
                self.observed
                    .entry(deny.id.clone())
                    .or_insert_with(|| OpaRule {
                        id: deny.id.clone(),
                        severity: deny.severity,
                        title: deny.id.clone(),
                    })
                    .severity
            }
        };
        Finding {
            tool: Tool::Opa,
            rule_id: deny.id,
            severity,
            message: deny.message,
            file: file.to_owned(),
            line: Some(line),
            doc_index,
            object: Some(object),
            container: deny.container.filter(|c| !c.is_empty()),
        }
    }

    /// Re-reads `data.sv.meta.rules` into the catalogue; on an evaluation
    /// error the catalogue is left as it was.
    fn reload_catalogue(&mut self) -> Vec<RegoError> {
        let (rules, errors) = self.policies.meta_rules();
        let failed = errors
            .iter()
            .any(|e| !matches!(e, RegoError::InvalidDeny { .. }));
        if !failed {
            self.catalogue = rules
                .into_iter()
                .map(|(id, RuleMeta { severity, title })| {
                    let title = title.unwrap_or_else(|| id.clone());
                    (
                        id.clone(),
                        OpaRule {
                            id,
                            severity,
                            title,
                        },
                    )
                })
                .collect();
        }
        errors
    }
}

/// One Kubernetes object of a file: its JSON, its tree (for lines) and its
/// document.
struct K8sObject<'a> {
    json: Value,
    node: &'a Node,
    doc_index: usize,
}

/// The objects of one document: itself, or the items of a core `v1` List.
fn k8s_objects(root: &Node, doc_index: usize) -> Result<Vec<K8sObject<'_>>, String> {
    let json = root.to_json().map_err(|e| e.to_string())?;
    if !is_object(&json) {
        return Ok(Vec::new());
    }
    let is_list = json["apiVersion"] == "v1" && json["kind"] == "List";
    if !is_list {
        return Ok(vec![K8sObject {
            json,
            node: root,
            doc_index,
        }]);
    }
    let (Some(items), Some(nodes)) = (
        json["items"].as_array(),
        root.get("items").and_then(Node::as_sequence),
    ) else {
        return Ok(Vec::new());
    };
    Ok(items
        .iter()
        .zip(nodes)
        .filter(|(item, _)| is_object(item))
        .map(|(item, node)| K8sObject {
            json: item.clone(),
            node,
            doc_index,
        })
        .collect())
}

/// A mapping with `apiVersion` and `kind`.
fn is_object(json: &Value) -> bool {
    json.get("apiVersion").is_some() && json.get("kind").is_some()
}

/// The object reference of a finding, fields as written.
fn k8s_object_ref(json: &Value) -> ObjectRef {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    };
    let metadata = json.get("metadata");
    let field = |key: &str| metadata.and_then(|m| m.get(key)).and_then(text);
    ObjectRef::K8s {
        api_version: json.get("apiVersion").and_then(text),
        kind: json.get("kind").and_then(text).unwrap_or_default(),
        name: field("name"),
        namespace: field("namespace"),
    }
}

/// The line of a deny element's path in a Terraform block.
fn tf_line(block: &TfBlock, path: Option<&str>) -> usize {
    match path {
        Some(path) if !path.is_empty() => block.line_of(path),
        _ => block.line,
    }
}
