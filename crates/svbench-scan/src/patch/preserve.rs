//! Semantic preservation (spec E2 §4.3): a patch may fix a configuration,
//! not delete, rename or replace what is being audited, swap images, or
//! silence the analyzers.
//!
//! Kubernetes: documents that decoded (kube-linter sense) still decode; the
//! multiset of (kind, namespace, name) is unchanged, except that absent
//! namespaces may all be set to one value; per pod-bearing object the
//! (list, name) containers are unchanged and images change only by pinning;
//! no suppression annotation or `nosemgrep` comment is added; each
//! object's semantic core (below) is kept. Terraform: the
//! file still parses, every original block (type + labels) still exists,
//! and no `count`/`for_each` is added or changed on an existing block.

//!
//! **Semantic core** (an extension of §4.3 in its spirit: a patch may fix
//! what an object says, not delete what was audited). For each object the
//! parts below, when present and non-empty (not null, `""`, `{}` or `[]`)
//! before the patch, must still be present and non-empty after it. Values
//! may change (a port restricted, a verb removed, a selector corrected, a
//! role reference narrowed); they may not be deleted or emptied wholesale:
//!
//! - every kind: `spec`;
//! - Service: `spec.ports` (each port keeps its `port`), `spec.selector`,
//!   `spec.externalName`;
//! - Ingress: `spec.rules` (and one of rules / default backend);
//! - Role, ClusterRole: `rules`, each rule keeping `verbs` and `resources`
//!   or `nonResourceURLs`; a ClusterRole's `aggregationRule`;
//! - RoleBinding, ClusterRoleBinding: `roleRef.kind`, `roleRef.name`,
//!   `subjects` (each keeping its `name`);
//! - NetworkPolicy: `spec.policyTypes` (removing it changes which
//!   directions are isolated);
//! - PodDisruptionBudget: `spec.selector` and one of `minAvailable` /
//!   `maxUnavailable`;
//! - HorizontalPodAutoscaler: `spec.maxReplicas`, and the target
//!   (`spec.scaleTargetRef` kind and name) unchanged — retargeting is not a
//!   fix; KEDA ScaledObject: target name unchanged, `spec.triggers`;
//! - ServiceMonitor: `spec.selector`, `spec.endpoints`;
//! - Secret, ConfigMap: no key of `data`/`stringData` (`binaryData`)
//!   removed; values may change, a key may move between the two maps.
//!
//! Workloads keep their containers and images by the rules above;
//! SecurityContextConstraints have no core beyond their identity (every
//! field defaults to the restrictive value, so removing one only
//! tightens). Emptying a list item by item is the same as deleting it:
//! removing some RBAC rules, ports or subjects is a fix, removing all of
//! them is not.

use std::collections::{BTreeMap, BTreeSet};

use hcl_edit::structure::Body;

use super::{budget_failure, PatchFailure, PatchStatus, PatchStop};
use crate::k8s::{decode_document, K8sObject};
use crate::scan::FileType;
use crate::terraform::parse_module;
use crate::{parse_documents_within, Deadline, Limits, Node, NodeBudget, YamlError};

fn reparse(reason: impl Into<String>) -> PatchFailure {
    PatchFailure::new(PatchStatus::ReparseFailed, reason)
}

fn broken(reason: impl Into<String>) -> PatchFailure {
    PatchFailure::new(PatchStatus::PreservationFailed, reason)
}

/// Checks the patched text against the original.
///
/// # Errors
/// `reparse_failed` when the patched file no longer parses where the
/// original did, `preservation_failed` for any other §4.3 violation.
pub fn check(original: &str, patched: &str, file_type: FileType) -> Result<(), PatchFailure> {
    let limits = Limits::default();
    check_within(
        original,
        patched,
        file_type,
        &Deadline::NONE,
        &NodeBudget::for_input(&limits, original.len()),
        &NodeBudget::for_input(&limits, patched.len()),
    )
    .map_err(PatchStop::into_failure)
}

/// [`check`] that stops by `deadline` (between the files and between the
/// documents decoded) and reads the original's documents from
/// `original_nodes`, the patched file's from `patched_nodes` (`too_large`
/// when one runs out).
///
/// # Errors
/// As [`check`]; [`PatchStop::TimeBudget`] when `deadline` passed.
pub fn check_within(
    original: &str,
    patched: &str,
    file_type: FileType,
    deadline: &Deadline,
    original_nodes: &NodeBudget,
    patched_nodes: &NodeBudget,
) -> Result<(), PatchStop> {
    match file_type {
        FileType::K8s => check_k8s(original, patched, deadline, original_nodes, patched_nodes),
        FileType::Tf => Ok(check_tf(original, patched)?),
    }
}

// ---------------------------------------------------------------- Kubernetes

/// A file read the way the kube-linter model reads it.
struct K8sFile {
    /// Per document index: the tree, or the YAML error.
    parsed: BTreeMap<usize, Result<Node, YamlError>>,
    /// A separator error that stopped reading, with its line.
    separator: Option<YamlError>,
    /// Per document index that parsed: the decoded objects or the error.
    decoded: BTreeMap<usize, Result<Vec<K8sObject>, String>>,
}

impl K8sFile {
    fn read(
        which: &str,
        text: &str,
        deadline: &Deadline,
        nodes: &NodeBudget,
    ) -> Result<K8sFile, PatchStop> {
        let mut parsed = BTreeMap::new();
        let mut separator = None;
        for doc in parse_documents_within(text, &Limits::default(), nodes) {
            match (doc.doc_index, doc.result) {
                (_, Err(YamlError::BudgetExceeded { .. })) => {
                    return Err(budget_failure(which, nodes).into())
                }
                (Some(i), result) => {
                    parsed.insert(i, result);
                }
                (None, result) => separator = result.err(),
            }
        }
        let mut decoded = BTreeMap::new();
        for (i, r) in &parsed {
            let Ok(node) = r else { continue };
            deadline.check()?;
            decoded.insert(
                *i,
                decode_document(node, Some(*i)).map_err(|e| e.to_string()),
            );
        }
        Ok(K8sFile {
            parsed,
            separator,
            decoded,
        })
    }

    fn objects(&self) -> Vec<&K8sObject> {
        self.decoded
            .values()
            .filter_map(|r| r.as_ref().ok())
            .flatten()
            .collect()
    }
}

fn check_k8s(
    original: &str,
    patched: &str,
    deadline: &Deadline,
    original_nodes: &NodeBudget,
    patched_nodes: &NodeBudget,
) -> Result<(), PatchStop> {
    let before = K8sFile::read("original", original, deadline, original_nodes)?;
    deadline.check()?;
    let after = K8sFile::read("patched", patched, deadline, patched_nodes)?;
    deadline.check()?;
    Ok(check_k8s_files(original, patched, &before, &after)?)
}

fn check_k8s_files(
    original: &str,
    patched: &str,
    before: &K8sFile,
    after: &K8sFile,
) -> Result<(), PatchFailure> {
    if before.separator.is_none() {
        if let Some(e) = &after.separator {
            return Err(reparse(format!(
                "the patched file has a bad document separator: {e}"
            )));
        }
    }
    for (i, r) in &after.parsed {
        if let Err(e) = r {
            if !matches!(before.parsed.get(i), Some(Err(_))) {
                return Err(reparse(format!(
                    "document {i} of the patched file is not valid YAML: {e}"
                )));
            }
        }
    }
    for (i, r) in &before.decoded {
        if r.is_err() {
            continue;
        }
        match after.decoded.get(i) {
            Some(Err(e)) => {
                return Err(broken(format!(
                    "document {i} decoded as a Kubernetes object before the patch and no longer does: {e}"
                )))
            }
            Some(Ok(_)) => {}
            None => {
                if !after.parsed.contains_key(i) {
                    return Err(broken(format!("document {i} was removed")));
                }
            }
        }
    }
    let old = before.objects();
    let new = after.objects();
    check_object_set(&old, &new)?;
    let pairs = pair_objects(&old, &new);
    for (o, n) in &pairs {
        check_containers(o, n)?;
        check_annotations(o, n)?;
        check_core(o, n)?;
    }
    check_nosemgrep(original, patched)
}

/// Kinds that have no namespace (the refinement of §4.3 only concerns
/// namespaced objects).
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "CustomResourceDefinition",
    "PriorityClass",
    "PodSecurityPolicy",
    "SecurityContextConstraints",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "APIService",
    "CSIDriver",
    "CSINode",
    "RuntimeClass",
    "IngressClass",
    "VolumeAttachment",
    "ComponentStatus",
    "CertificateSigningRequest",
    "FlowSchema",
    "PriorityLevelConfiguration",
    "IPAddress",
    "ServiceCIDR",
];

fn namespaced(o: &K8sObject) -> bool {
    !CLUSTER_SCOPED.contains(&o.gvk.kind.as_str())
}

type Identity = (String, Option<String>, Option<String>);

fn identity(o: &K8sObject, ns: Option<&str>) -> Identity {
    (
        o.gvk.kind.clone(),
        ns.map(str::to_owned),
        o.metadata.name.clone(),
    )
}

fn describe(id: &Identity) -> String {
    let (kind, ns, name) = id;
    format!(
        "{kind} {}{}",
        ns.as_deref().map(|n| format!("{n}/")).unwrap_or_default(),
        name.as_deref().unwrap_or("<unnamed>")
    )
}

/// The (kind, namespace, name) multiset is unchanged, or becomes so once
/// every namespaced object that lacked a namespace gets one common value.
fn check_object_set(old: &[&K8sObject], new: &[&K8sObject]) -> Result<(), PatchFailure> {
    let mut after: Vec<Identity> = new
        .iter()
        .map(|o| identity(o, o.metadata.namespace.as_deref()))
        .collect();
    after.sort();
    let with_default = |v: Option<&str>| -> Vec<Identity> {
        let mut ids: Vec<Identity> = old
            .iter()
            .map(|o| {
                let ns = o.metadata.namespace.as_deref();
                identity(o, if ns.is_none() && namespaced(o) { v } else { ns })
            })
            .collect();
        ids.sort();
        ids
    };
    let before = with_default(None);
    if before == after {
        return Ok(());
    }
    let candidates: std::collections::BTreeSet<&str> = new
        .iter()
        .filter_map(|o| o.metadata.namespace.as_deref())
        .collect();
    if candidates.iter().any(|v| with_default(Some(v)) == after) {
        return Ok(());
    }
    let missing: Vec<String> = multiset_minus(&before, &after)
        .iter()
        .map(describe)
        .collect();
    let added: Vec<String> = multiset_minus(&after, &before)
        .iter()
        .map(describe)
        .collect();
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("removed or renamed: {}", missing.join(", ")));
    }
    if !added.is_empty() {
        parts.push(format!("added: {}", added.join(", ")));
    }
    Err(broken(format!(
        "the set of objects (kind, namespace, name) changed — {} (only setting the same namespace on every object that had none is allowed)",
        parts.join("; ")
    )))
}

fn multiset_minus(a: &[Identity], b: &[Identity]) -> Vec<Identity> {
    let mut rest: Vec<&Identity> = b.iter().collect();
    a.iter()
        .filter(|x| match rest.iter().position(|y| y == x) {
            Some(p) => {
                rest.remove(p);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

/// Pairs each original object with its patched counterpart by kind and
/// name (and occurrence), the object set being already known equal.
fn pair_objects<'a>(
    old: &[&'a K8sObject],
    new: &[&'a K8sObject],
) -> Vec<(&'a K8sObject, &'a K8sObject)> {
    let mut used = vec![false; new.len()];
    let mut pairs = Vec::new();
    for o in old {
        let found = new.iter().enumerate().find(|(j, n)| {
            !used[*j]
                && n.gvk.kind == o.gvk.kind
                && n.metadata.name == o.metadata.name
                && (n.metadata.namespace == o.metadata.namespace || o.metadata.namespace.is_none())
        });
        if let Some((j, n)) = found {
            used[j] = true;
            pairs.push((*o, *n));
        }
    }
    pairs
}

fn containers(o: &K8sObject) -> Vec<(&'static str, String, String)> {
    let Some(t) = o.pod_template() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (list, cs) in [
        ("initContainers", &t.spec.init_containers),
        ("containers", &t.spec.containers),
        ("ephemeralContainers", &t.spec.ephemeral_containers),
    ] {
        for c in cs {
            out.push((list, c.name.clone(), c.image.clone()));
        }
    }
    out
}

fn check_containers(old: &K8sObject, new: &K8sObject) -> Result<(), PatchFailure> {
    let who = describe(&identity(old, old.metadata.namespace.as_deref()));
    let before = containers(old);
    let after = containers(new);
    let mut names_before: Vec<(&str, &str)> =
        before.iter().map(|(l, n, _)| (*l, n.as_str())).collect();
    let mut names_after: Vec<(&str, &str)> =
        after.iter().map(|(l, n, _)| (*l, n.as_str())).collect();
    names_before.sort_unstable();
    names_after.sort_unstable();
    if names_before != names_after {
        let fmt = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(l, n)| format!("{l}/{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(broken(format!(
            "{who}: containers changed from [{}] to [{}]",
            fmt(&names_before),
            fmt(&names_after)
        )));
    }
    for (list, name, image) in &before {
        let Some((_, _, new_image)) = after.iter().find(|(l, n, _)| l == list && n == name) else {
            continue;
        };
        if let Err(why) = pinning_allowed(image, new_image) {
            return Err(broken(format!(
                "{who}: {list} {name:?} image changed from {image:?} to {new_image:?}: {why}"
            )));
        }
    }
    Ok(())
}

/// An image reference split into repository, tag and digest.
#[derive(Debug, PartialEq, Eq)]
struct ImageRef<'a> {
    repository: String,
    tag: Option<&'a str>,
    digest: Option<&'a str>,
}

fn parse_image(image: &str) -> ImageRef<'_> {
    let (name, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match name[last_slash..].rfind(':') {
        Some(c) => (&name[..last_slash + c], Some(&name[last_slash + c + 1..])),
        None => (name, None),
    };
    ImageRef {
        repository: canonical_repository(repo),
        tag,
        digest,
    }
}

/// `docker.io/library/x` ≡ `docker.io/x` ≡ `library/x` ≡ `x`.
fn canonical_repository(repo: &str) -> String {
    let r = repo
        .strip_prefix("docker.io/")
        .or_else(|| repo.strip_prefix("index.docker.io/"))
        .unwrap_or(repo);
    let r = r.strip_prefix("library/").unwrap_or(r);
    r.to_owned()
}

fn valid_digest(d: &str) -> bool {
    let Some((algo, hex)) = d.split_once(':') else {
        return false;
    };
    !algo.is_empty()
        && algo
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+._-".contains(&b))
        && hex.len() >= 32
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `new` is `old` or a pinned form of it (§4.3 "Images").
fn pinning_allowed(old: &str, new: &str) -> Result<(), String> {
    if old == new {
        return Ok(());
    }
    let o = parse_image(old);
    let n = parse_image(new);
    if o.repository != n.repository {
        return Err(format!(
            "repository {:?} is not {:?} (only pinning the same image is allowed)",
            n.repository, o.repository
        ));
    }
    if let Some(d) = n.digest {
        if !valid_digest(d) {
            return Err(format!("{d:?} is not a digest (algorithm:hex)"));
        }
    }
    match (o.tag, o.digest) {
        (_, Some(_)) => Err("the old image already had a digest".to_owned()),
        (None | Some("latest"), None) => {
            if n.digest.is_some() || n.tag.is_some_and(|t| t != "latest" && !t.is_empty()) {
                Ok(())
            } else {
                Err("pinning needs a non-latest tag or a digest".to_owned())
            }
        }
        (Some(tag), None) => {
            if n.tag == Some(tag) && n.digest.is_some() {
                Ok(())
            } else {
                Err(format!(
                    "a tagged image may only gain a digest on the same tag {tag:?}"
                ))
            }
        }
    }
}

fn is_suppression(key: &str) -> bool {
    key == "kube-linter.io/ignore-all" || key.starts_with("ignore-check.kube-linter.io/")
}

fn check_annotations(old: &K8sObject, new: &K8sObject) -> Result<(), PatchFailure> {
    for (key, value) in &new.metadata.annotations {
        if !is_suppression(key) {
            continue;
        }
        let verb = match old.metadata.annotations.get(key) {
            Some(v) if v == value => continue,
            Some(_) => "changed",
            None => "added",
        };
        return Err(broken(format!(
            "{}: suppression annotation {key:?} {verb}",
            describe(&identity(old, old.metadata.namespace.as_deref()))
        )));
    }
    Ok(())
}

// ------------------------------------------------------------ semantic core

/// One requirement of an object's semantic core (module docs); paths are
/// keys from the object's own mapping.
enum Core {
    /// Present and non-empty before → present and non-empty after.
    Kept(&'static [&'static str]),
    /// If one of them was present and non-empty, one still is.
    OneOf(&'static [&'static [&'static str]]),
    /// Present before → the same value after.
    Same(&'static [&'static str]),
    /// If the list was non-empty, every item after the patch keeps one of
    /// the fields non-empty.
    EachItem(&'static [&'static str], &'static [&'static str]),
    /// No key of these mappings (taken together) is removed.
    Keys(&'static [&'static [&'static str]]),
}

const EVERY_KIND: &[Core] = &[Core::Kept(&["spec"])];

const RULES: &[Core] = &[
    Core::Kept(&["rules"]),
    Core::EachItem(&["rules"], &["verbs"]),
    Core::EachItem(&["rules"], &["resources", "nonResourceURLs"]),
];

const CLUSTER_ROLE: &[Core] = &[
    Core::Kept(&["rules"]),
    Core::EachItem(&["rules"], &["verbs"]),
    Core::EachItem(&["rules"], &["resources", "nonResourceURLs"]),
    Core::Kept(&["aggregationRule"]),
];

/// The kind-specific part of the semantic core (module docs).
fn kind_core(kind: &str) -> &'static [Core] {
    use Core::{EachItem, Kept, Keys, OneOf, Same};
    match kind {
        "Service" => &[
            Kept(&["spec", "ports"]),
            EachItem(&["spec", "ports"], &["port"]),
            Kept(&["spec", "selector"]),
            Kept(&["spec", "externalName"]),
        ],
        "Ingress" => &[
            Kept(&["spec", "rules"]),
            OneOf(&[
                &["spec", "rules"],
                &["spec", "defaultBackend"],
                &["spec", "backend"],
            ]),
        ],
        "Role" => RULES,
        "ClusterRole" => CLUSTER_ROLE,
        "RoleBinding" | "ClusterRoleBinding" => &[
            Kept(&["roleRef", "kind"]),
            Kept(&["roleRef", "name"]),
            Kept(&["subjects"]),
            EachItem(&["subjects"], &["name"]),
        ],
        "NetworkPolicy" => &[Kept(&["spec", "policyTypes"])],
        "PodDisruptionBudget" => &[
            Kept(&["spec", "selector"]),
            OneOf(&[&["spec", "minAvailable"], &["spec", "maxUnavailable"]]),
        ],
        "HorizontalPodAutoscaler" => &[
            Same(&["spec", "scaleTargetRef", "kind"]),
            Same(&["spec", "scaleTargetRef", "name"]),
            Kept(&["spec", "maxReplicas"]),
        ],
        "ScaledObject" => &[
            Same(&["spec", "scaleTargetRef", "name"]),
            Kept(&["spec", "triggers"]),
        ],
        "ServiceMonitor" => &[Kept(&["spec", "selector"]), Kept(&["spec", "endpoints"])],
        "Secret" => &[Keys(&[&["data"], &["stringData"]])],
        "ConfigMap" => &[Keys(&[&["data"], &["binaryData"]])],
        _ => &[],
    }
}

fn at<'n>(node: &'n Node, path: &[&str]) -> Option<&'n Node> {
    path.iter().try_fold(node, |n, k| n.get(k))
}

/// Present and not null, `""`, `{}` or `[]`.
fn filled(node: Option<&Node>) -> bool {
    let Some(n) = node else {
        return false;
    };
    if let Some(m) = n.as_mapping() {
        return !m.is_empty();
    }
    if let Some(items) = n.as_sequence() {
        return !items.is_empty();
    }
    !n.is_null() && n.as_str() != Some("")
}

fn dotted(path: &[&str]) -> String {
    path.join(".")
}

fn keys_of<'n>(node: &'n Node, maps: &[&[&str]]) -> BTreeSet<&'n str> {
    maps.iter()
        .filter_map(|p| at(node, p)?.as_mapping())
        .flatten()
        .filter_map(|(k, _)| k.as_scalar().map(|s| s.text.as_str()))
        .collect()
}

/// Why `new` lost part of `old`'s semantic core, if it did.
fn core_violation(old: &Node, new: &Node, req: &Core) -> Option<String> {
    match req {
        Core::Kept(p) => (filled(at(old, p)) && !filled(at(new, p)))
            .then(|| format!("`{}` was removed or emptied", dotted(p))),
        Core::OneOf(ps) => (ps.iter().any(|p| filled(at(old, p)))
            && !ps.iter().any(|p| filled(at(new, p))))
        .then(|| {
            let names: Vec<String> = ps.iter().map(|p| format!("`{}`", dotted(p))).collect();
            format!("none of {} is left", names.join(", "))
        }),
        Core::Same(p) => {
            let before = at(old, p)?.to_json().ok();
            let after = at(new, p).and_then(|n| n.to_json().ok());
            (before != after).then(|| {
                format!(
                    "`{}` changed (it names what the object is about)",
                    dotted(p)
                )
            })
        }
        Core::EachItem(list, fields) => {
            if !filled(at(old, list)) {
                return None;
            }
            let items = at(new, list)?.as_sequence()?;
            items.iter().enumerate().find_map(|(i, item)| {
                (!fields.iter().any(|f| filled(item.get(f)))).then(|| {
                    let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
                    format!("`{}[{i}]` has no {}", dotted(list), names.join(" or "))
                })
            })
        }
        Core::Keys(maps) => {
            let after = keys_of(new, maps);
            let lost: Vec<&str> = keys_of(old, maps)
                .into_iter()
                .filter(|k| !after.contains(k))
                .collect();
            let names: Vec<String> = maps.iter().map(|p| format!("`{}`", dotted(p))).collect();
            (!lost.is_empty()).then(|| format!("key(s) {lost:?} removed from {}", names.join("/")))
        }
    }
}

/// The object's semantic core (module docs) is kept.
fn check_core(old: &K8sObject, new: &K8sObject) -> Result<(), PatchFailure> {
    let kind = old.gvk.kind.as_str();
    for req in EVERY_KIND.iter().chain(kind_core(kind)) {
        if let Some(why) = core_violation(&old.node, &new.node, req) {
            return Err(broken(format!(
                "{}: {why}; a patch may change the content being audited, not delete it",
                describe(&identity(old, old.metadata.namespace.as_deref()))
            )));
        }
    }
    Ok(())
}

/// Counts `nosemgrep` comments: a `#` starting a comment (line start or
/// after whitespace) followed by `nosemgrep` in any case.
fn nosemgrep_count(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            line.match_indices('#').any(|(i, _)| {
                (i == 0 || line[..i].ends_with([' ', '\t']))
                    && line[i..].to_ascii_lowercase().contains("nosemgrep")
            })
        })
        .count()
}

fn check_nosemgrep(original: &str, patched: &str) -> Result<(), PatchFailure> {
    let (b, a) = (nosemgrep_count(original), nosemgrep_count(patched));
    if a > b {
        return Err(broken(format!(
            "a `nosemgrep` comment was added ({b} before, {a} after)"
        )));
    }
    Ok(())
}

// ----------------------------------------------------------------- Terraform

/// A top-level block's identity and its `count`/`for_each` source text.
struct TfBlockInfo {
    ident: String,
    labels: Vec<String>,
    count: Option<String>,
    for_each: Option<String>,
}

fn tf_blocks(text: &str) -> Option<Vec<TfBlockInfo>> {
    let body: Body = hcl_edit::parser::parse_body(text).ok()?;
    Some(
        body.blocks()
            .map(|b| {
                let attr = |k: &str| {
                    b.body
                        .get_attribute(k)
                        .map(|a| a.value.to_string().trim().to_owned())
                };
                TfBlockInfo {
                    ident: b.ident.as_str().to_owned(),
                    labels: b.labels.iter().map(|l| l.as_str().to_owned()).collect(),
                    count: attr("count"),
                    for_each: attr("for_each"),
                }
            })
            .collect(),
    )
}

fn check_tf(original: &str, patched: &str) -> Result<(), PatchFailure> {
    let was_valid = parse_module(original).is_ok();
    if let Err(e) = parse_module(patched) {
        if was_valid {
            return Err(reparse(format!(
                "the patched Terraform file does not parse: {e}"
            )));
        }
    }
    let Some(before) = tf_blocks(original) else {
        return Ok(()); // nothing to preserve in a file that never parsed
    };
    let Some(after) = tf_blocks(patched) else {
        return Err(reparse("the patched Terraform file is not valid HCL"));
    };
    let mut used = vec![false; after.len()];
    for b in &before {
        let name = if b.labels.is_empty() {
            b.ident.clone()
        } else {
            format!("{} \"{}\"", b.ident, b.labels.join("\" \""))
        };
        let Some(j) = (0..after.len())
            .find(|j| !used[*j] && after[*j].ident == b.ident && after[*j].labels == b.labels)
        else {
            return Err(broken(format!("block {name} was removed or renamed")));
        };
        used[j] = true;
        let a = &after[j];
        for (meta, old, new) in [
            ("count", &b.count, &a.count),
            ("for_each", &b.for_each, &a.for_each),
        ] {
            if let Some(new) = new {
                if old.as_ref() != Some(new) {
                    let verb = if old.is_some() { "changed" } else { "added" };
                    return Err(broken(format!(
                        "block {name}: `{meta} = {new}` {verb} (it would change how many instances exist)"
                    )));
                }
            }
        }
    }
    Ok(())
}
