//! Decoded Kubernetes objects and the per-kind views checks use: is it
//! deployment-like, where is its pod spec, what are its pod labels, replicas
//! and selector (spec E2 §1.4).

use crate::k8s::decode::{expect_object, field, Decode, DecodeError, FieldPath};
use crate::k8s::gvk::Gvk;
use crate::k8s::kinds::{
    BindingBody, ClusterRoleBody, ConfigMapBody, HpaSpec, IngressSpec, NetworkPolicySpec, PdbSpec,
    RoleBody, ScaledObjectSpec, SccBody, SecretBody, ServiceMonitorSpec,
};
use crate::k8s::selector::{LabelSelector, Labels};
use crate::k8s::types::{
    ControllerSpec, CronJobSpec, DaemonSetSpec, JobSpec, ObjectMeta, PodSpec, PodTemplateSpec,
    ReplicatedSpec, RolloutStrategy, ServiceSpec, StrategySpec, UpdateStrategySpec,
};
use std::sync::Arc;

use crate::{Node, ObjectRef};

/// One decoded object of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct K8sObject {
    /// The YAML document it came from (a List's items share it).
    pub doc_index: Option<usize>,
    /// 1-based line of the object's mapping.
    pub line: usize,
    /// `apiVersion` as written.
    pub api_version: String,
    /// Parsed group/version/kind.
    pub gvk: Gvk,
    /// `metadata`.
    pub metadata: ObjectMeta,
    /// The typed spec for kinds checks look into.
    pub body: Body,
    /// The rollout strategy of kinds that have one: `spec.strategy` of
    /// Deployment and DeploymentConfig, `spec.updateStrategy` of DaemonSet
    /// and StatefulSet; `None` for other kinds. Kept outside [`Body`]
    /// because Deployment and StatefulSet share a spec shape but not this
    /// field, and only the kind that has it may fail on its type.
    pub rollout_strategy: Option<RolloutStrategy>,
    /// The object's YAML mapping (a List item's own mapping), for checks on
    /// the text rather than the schema (`sorted-keys`). Shared, so cloning
    /// an object stays cheap.
    pub node: Arc<Node>,
}

/// The typed part of an object beyond its metadata, by schema shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// core Pod: `spec`.
    Pod(PodSpec),
    /// Deployment, ReplicaSet, StatefulSet (`apps`, `extensions`).
    Replicated(ReplicatedSpec),
    /// DaemonSet (`apps`, `extensions`).
    DaemonSet(DaemonSetSpec),
    /// core ReplicationController, OpenShift DeploymentConfig.
    Controller(ControllerSpec),
    /// `batch` Job.
    Job(JobSpec),
    /// `batch` CronJob.
    CronJob(CronJobSpec),
    /// core Service.
    Service(ServiceSpec),
    /// RBAC Role (any version).
    Role(RoleBody),
    /// RBAC ClusterRole (any version).
    ClusterRole(ClusterRoleBody),
    /// RBAC RoleBinding (any version).
    RoleBinding(BindingBody),
    /// RBAC ClusterRoleBinding (any version).
    ClusterRoleBinding(BindingBody),
    /// NetworkPolicy (`networking.k8s.io`, `extensions`).
    NetworkPolicy(NetworkPolicySpec),
    /// HorizontalPodAutoscaler (every `autoscaling` version).
    Hpa(HpaSpec),
    /// KEDA ScaledObject.
    ScaledObject(ScaledObjectSpec),
    /// `networking.k8s.io/v1` Ingress (older versions have another shape
    /// and are [`Body::Other`]).
    Ingress(IngressSpec),
    /// Prometheus operator ServiceMonitor.
    ServiceMonitor(ServiceMonitorSpec),
    /// PodDisruptionBudget (`policy`, any version).
    Pdb(PdbSpec),
    /// OpenShift SecurityContextConstraints.
    Scc(SccBody),
    /// core Secret.
    Secret(SecretBody),
    /// core ConfigMap.
    ConfigMap(ConfigMapBody),
    /// Anything else: only metadata is typed.
    Other,
}

/// How an object selects its pods.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorkloadSelector<'a> {
    /// A `metav1.LabelSelector` (possibly absent).
    Label(Option<&'a LabelSelector>),
    /// A plain `map[string]string` (ReplicationController, DeploymentConfig).
    Map(&'a Labels),
}

/// A pod template view: the pods' labels and spec.
#[derive(Debug, Clone, Copy)]
pub struct PodTemplate<'a> {
    /// Labels the pods get.
    pub labels: &'a Labels,
    /// The pod spec.
    pub spec: &'a PodSpec,
}

impl K8sObject {
    /// The object reference of findings about this object.
    #[must_use]
    pub fn object_ref(&self) -> ObjectRef {
        ObjectRef::K8s {
            api_version: Some(self.api_version.clone()),
            kind: self.gvk.kind.clone(),
            name: self.metadata.name.clone(),
            namespace: self.metadata.namespace.clone(),
        }
    }

    /// Deployment-like: matched by API group and kind, any version.
    /// `extensions/v1beta1` workloads are not (their group differs).
    #[must_use]
    pub fn is_deployment_like(&self) -> bool {
        let g = &self.gvk;
        g.is("", "Pod")
            || g.is("", "ReplicationController")
            || ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"]
                .iter()
                .any(|k| g.is("apps", k))
            || g.is("batch", "Job")
            || g.is("batch", "CronJob")
            || g.is("apps.openshift.io", "DeploymentConfig")
    }

    /// The pod template of any pod-bearing object (including non-DL
    /// `extensions/v1beta1` workloads): what cross-object lookups search.
    /// A Pod is its own template.
    #[must_use]
    pub fn pod_template(&self) -> Option<PodTemplate<'_>> {
        fn from(tpl: &PodTemplateSpec) -> PodTemplate<'_> {
            PodTemplate {
                labels: &tpl.metadata.labels,
                spec: &tpl.spec,
            }
        }
        match &self.body {
            Body::Pod(spec) => Some(PodTemplate {
                labels: &self.metadata.labels,
                spec,
            }),
            Body::Replicated(s) => Some(from(&s.template)),
            Body::DaemonSet(s) => Some(from(&s.template)),
            Body::Controller(s) => s.template.as_ref().map(from),
            Body::Job(s) => Some(from(&s.template)),
            Body::CronJob(s) => Some(from(&s.job_template.spec.template)),
            _ => None,
        }
    }

    /// The pod spec of a deployment-like object (what most checks read).
    #[must_use]
    pub fn pod_spec(&self) -> Option<&PodSpec> {
        if self.is_deployment_like() {
            self.pod_template().map(|t| t.spec)
        } else {
            None
        }
    }

    /// `spec.replicas` (absent → 1) for kinds that have the field.
    #[must_use]
    pub fn replicas(&self) -> Option<i32> {
        match &self.body {
            Body::Replicated(s) => Some(s.replicas.unwrap_or(1)),
            Body::Controller(s) => Some(s.replicas.unwrap_or(1)),
            _ => None,
        }
    }

    /// How the object selects its pods, for kinds with a selector.
    #[must_use]
    pub fn selector(&self) -> Option<WorkloadSelector<'_>> {
        match &self.body {
            Body::Replicated(s) => Some(WorkloadSelector::Label(s.selector.as_ref())),
            Body::DaemonSet(s) => Some(WorkloadSelector::Label(s.selector.as_ref())),
            Body::Job(s) => Some(WorkloadSelector::Label(s.selector.as_ref())),
            Body::CronJob(s) => Some(WorkloadSelector::Label(
                s.job_template.spec.selector.as_ref(),
            )),
            Body::Controller(s) => Some(WorkloadSelector::Map(&s.selector)),
            _ => None,
        }
    }

    /// Whether the object's own annotations switch `check` off
    /// (`ignore-check.kube-linter.io/<check>` or `kube-linter.io/ignore-all`).
    #[must_use]
    pub fn ignores(&self, check: &str) -> bool {
        let a = &self.metadata.annotations;
        a.contains_key("kube-linter.io/ignore-all")
            || a.contains_key(&format!("ignore-check.kube-linter.io/{check}"))
    }
}

/// Decodes one YAML document into objects: one, or a core `v1` List's
/// items (all or nothing).
///
/// # Errors
/// [`DecodeError`] when the document (or any List item) is not a
/// decodable Kubernetes object.
pub fn decode_document(
    node: &Node,
    doc_index: Option<usize>,
) -> Result<Vec<K8sObject>, DecodeError> {
    // kube-linter's deserializer first converts the whole document to JSON
    // (sigs.k8s.io/yaml): values JSON cannot hold fail it, even in fields
    // nobody reads.
    if let Err(e) = node.to_json() {
        return Err(DecodeError {
            line: e.line().unwrap_or(node.line),
            path: String::new(),
            what: format!("cannot convert to JSON: {e}"),
        });
    }
    let (api_version, gvk) = type_meta(node)?;
    if gvk.group.is_empty() && gvk.version == "v1" && gvk.kind == "List" {
        let mut path = FieldPath::default();
        let pairs = expect_object(node, &path)?;
        let items: Vec<ItemNode> = field(pairs, "items", &mut path)?;
        return items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                path.with(format!("items[{i}]"), |p| {
                    let Some(item) = &item.0 else {
                        return Err(DecodeError {
                            line: node.line,
                            path: p.to_string(),
                            what: "List item is null".to_owned(),
                        });
                    };
                    let (api_version, gvk) = type_meta(item)?;
                    decode_object(item, api_version, gvk, doc_index, p)
                })
            })
            .collect();
    }
    decode_object(node, api_version, gvk, doc_index, &mut FieldPath::default()).map(|o| vec![o])
}

/// A List item kept as a raw node (decoded on its own afterwards).
#[derive(Debug, Clone, Default)]
struct ItemNode(Option<Node>);

impl crate::k8s::decode::Decode for ItemNode {
    fn decode(node: &Node, _path: &mut FieldPath) -> Result<Self, DecodeError> {
        Ok(ItemNode(Some(node.clone())))
    }
}

/// Reads `apiVersion` and `kind` and checks the kind is registered.
fn type_meta(node: &Node) -> Result<(String, Gvk), DecodeError> {
    let mut path = FieldPath::default();
    let pairs = expect_object(node, &path)?;
    let api_version: String = field(pairs, "apiVersion", &mut path)?;
    let kind: String = field(pairs, "kind", &mut path)?;
    let missing = |what: &str| DecodeError {
        line: node.line,
        path: String::new(),
        what: format!("Object '{what}' is missing"),
    };
    if kind.is_empty() {
        return Err(missing("Kind"));
    }
    if api_version.is_empty() {
        return Err(missing("apiVersion"));
    }
    let gvk = Gvk::parse(&api_version, &kind).ok_or_else(|| DecodeError {
        line: node.line,
        path: "apiVersion".to_owned(),
        what: format!("unexpected GroupVersion string {api_version:?}"),
    })?;
    if !gvk.is_decodable() {
        return Err(DecodeError {
            line: node.line,
            path: String::new(),
            what: format!("no kind {kind:?} is registered for version {api_version:?}"),
        });
    }
    Ok((api_version, gvk))
}

fn decode_object(
    node: &Node,
    api_version: String,
    gvk: Gvk,
    doc_index: Option<usize>,
    path: &mut FieldPath,
) -> Result<K8sObject, DecodeError> {
    let pairs = expect_object(node, path)?;
    let metadata: ObjectMeta = field(pairs, "metadata", path)?;
    let g = (gvk.group.as_str(), gvk.kind.as_str());
    let body = match g {
        ("", "Pod") => Body::Pod(field(pairs, "spec", path)?),
        ("apps" | "extensions", "Deployment" | "ReplicaSet" | "StatefulSet") => {
            Body::Replicated(field(pairs, "spec", path)?)
        }
        ("apps" | "extensions", "DaemonSet") => Body::DaemonSet(field(pairs, "spec", path)?),
        ("", "ReplicationController") | ("apps.openshift.io", "DeploymentConfig") => {
            Body::Controller(field(pairs, "spec", path)?)
        }
        ("batch", "Job") => Body::Job(field(pairs, "spec", path)?),
        ("batch", "CronJob") => Body::CronJob(field(pairs, "spec", path)?),
        ("", "Service") => Body::Service(field(pairs, "spec", path)?),
        ("rbac.authorization.k8s.io", "Role") => Body::Role(RoleBody::decode(node, path)?),
        ("rbac.authorization.k8s.io", "ClusterRole") => {
            Body::ClusterRole(ClusterRoleBody::decode(node, path)?)
        }
        ("rbac.authorization.k8s.io", "RoleBinding") => {
            Body::RoleBinding(BindingBody::decode(node, path)?)
        }
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            Body::ClusterRoleBinding(BindingBody::decode(node, path)?)
        }
        ("networking.k8s.io" | "extensions", "NetworkPolicy") => {
            Body::NetworkPolicy(field(pairs, "spec", path)?)
        }
        ("autoscaling", "HorizontalPodAutoscaler") => Body::Hpa(field(pairs, "spec", path)?),
        ("keda.sh", "ScaledObject") => Body::ScaledObject(field(pairs, "spec", path)?),
        ("networking.k8s.io", "Ingress") if gvk.version == "v1" => {
            Body::Ingress(field(pairs, "spec", path)?)
        }
        ("monitoring.coreos.com", "ServiceMonitor") => {
            Body::ServiceMonitor(field(pairs, "spec", path)?)
        }
        ("policy", "PodDisruptionBudget") => Body::Pdb(field(pairs, "spec", path)?),
        ("security.openshift.io", "SecurityContextConstraints") => {
            Body::Scc(SccBody::decode(node, path)?)
        }
        ("", "Secret") => Body::Secret(SecretBody::decode(node, path)?),
        ("", "ConfigMap") => Body::ConfigMap(ConfigMapBody::decode(node, path)?),
        _ => Body::Other,
    };
    let rollout_strategy = match g {
        ("apps" | "extensions", "Deployment") | ("apps.openshift.io", "DeploymentConfig") => {
            Some(field::<StrategySpec>(pairs, "spec", path)?.strategy)
        }
        ("apps" | "extensions", "DaemonSet" | "StatefulSet") => {
            Some(field::<UpdateStrategySpec>(pairs, "spec", path)?.update_strategy)
        }
        _ => None,
    };
    Ok(K8sObject {
        doc_index,
        line: node.line,
        api_version,
        gvk,
        metadata,
        body,
        rollout_strategy,
        node: Arc::new(node.clone()),
    })
}
