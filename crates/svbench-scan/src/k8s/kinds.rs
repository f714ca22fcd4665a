//! Typed bodies of the non-workload kinds that policy and cross-object
//! checks read: RBAC roles and bindings, NetworkPolicy, autoscalers,
//! Ingress, ServiceMonitor, PodDisruptionBudget, OpenShift SCC, Secret and
//! ConfigMap. Declared like [`crate::k8s::types`], so every field here is
//! type-checked whenever a document of that kind is decoded.

use std::collections::BTreeMap;

use crate::k8s::decode::{k8s_struct, Base64Bytes, IntOrString};
use crate::k8s::selector::LabelSelector;

// ---- RBAC (`rbac.authorization.k8s.io`, every version: same shape) -------

k8s_struct! {
    /// A Role: its top-level `rules`.
    pub struct RoleBody {
        /// `rules`.
        rules: Vec<PolicyRule> = "rules",
    }
}

k8s_struct! {
    /// A ClusterRole: `rules` plus the aggregation of other ClusterRoles.
    pub struct ClusterRoleBody {
        /// `rules`.
        rules: Vec<PolicyRule> = "rules",
        /// `aggregationRule`.
        aggregation_rule: Option<AggregationRule> = "aggregationRule",
    }
}

k8s_struct! {
    /// `rbacv1.PolicyRule`.
    pub struct PolicyRule {
        /// `verbs`.
        verbs: Vec<String> = "verbs",
        /// `apiGroups`.
        api_groups: Vec<String> = "apiGroups",
        /// `resources`.
        resources: Vec<String> = "resources",
        /// `resourceNames`.
        resource_names: Vec<String> = "resourceNames",
        /// `nonResourceURLs`.
        non_resource_urls: Vec<String> = "nonResourceURLs",
    }
}

k8s_struct! {
    /// `rbacv1.AggregationRule`.
    pub struct AggregationRule {
        /// `clusterRoleSelectors`: ClusterRoles whose labels match any of
        /// them are aggregated.
        cluster_role_selectors: Vec<LabelSelector> = "clusterRoleSelectors",
    }
}

k8s_struct! {
    /// A RoleBinding or ClusterRoleBinding: top-level `roleRef` and
    /// `subjects`.
    pub struct BindingBody {
        /// `roleRef`.
        role_ref: RoleRef = "roleRef",
        /// `subjects`.
        subjects: Vec<Subject> = "subjects",
    }
}

k8s_struct! {
    /// `rbacv1.RoleRef`.
    pub struct RoleRef {
        /// `apiGroup`.
        api_group: String = "apiGroup",
        /// `kind` (`Role` or `ClusterRole`).
        kind: String = "kind",
        /// `name`.
        name: String = "name",
    }
}

k8s_struct! {
    /// `rbacv1.Subject`.
    pub struct Subject {
        /// `kind`.
        kind: String = "kind",
        /// `apiGroup`.
        api_group: String = "apiGroup",
        /// `name`.
        name: String = "name",
        /// `namespace`.
        namespace: String = "namespace",
    }
}

// ---- NetworkPolicy ---------------------------------------------------------

k8s_struct! {
    /// `networkingv1.NetworkPolicySpec` (the selectors checks read).
    pub struct NetworkPolicySpec {
        /// `podSelector` (a Go value: absent is the empty selector, which
        /// selects every pod of the namespace).
        pod_selector: LabelSelector = "podSelector",
        /// `ingress`.
        ingress: Vec<NetworkPolicyIngressRule> = "ingress",
        /// `egress`.
        egress: Vec<NetworkPolicyEgressRule> = "egress",
        /// `policyTypes`.
        policy_types: Vec<String> = "policyTypes",
    }
}

k8s_struct! {
    /// `networkingv1.NetworkPolicyIngressRule`.
    pub struct NetworkPolicyIngressRule {
        /// `from`.
        from: Vec<NetworkPolicyPeer> = "from",
    }
}

k8s_struct! {
    /// `networkingv1.NetworkPolicyEgressRule`.
    pub struct NetworkPolicyEgressRule {
        /// `to`.
        to: Vec<NetworkPolicyPeer> = "to",
    }
}

k8s_struct! {
    /// `networkingv1.NetworkPolicyPeer`.
    pub struct NetworkPolicyPeer {
        /// `podSelector`.
        pod_selector: Option<LabelSelector> = "podSelector",
        /// `namespaceSelector`.
        namespace_selector: Option<LabelSelector> = "namespaceSelector",
    }
}

// ---- Autoscalers -----------------------------------------------------------

k8s_struct! {
    /// HorizontalPodAutoscaler spec (`autoscaling/v1`, `v2`, `v2beta1`,
    /// `v2beta2` share these fields).
    pub struct HpaSpec {
        /// `scaleTargetRef`.
        scale_target_ref: CrossVersionObjectReference = "scaleTargetRef",
        /// `minReplicas` (absent → 1).
        min_replicas: Option<i32> = "minReplicas",
        /// `maxReplicas`.
        max_replicas: i32 = "maxReplicas",
    }
}

k8s_struct! {
    /// `autoscaling.CrossVersionObjectReference`.
    pub struct CrossVersionObjectReference {
        /// `kind`.
        kind: String = "kind",
        /// `name`.
        name: String = "name",
        /// `apiVersion`.
        api_version: String = "apiVersion",
    }
}

k8s_struct! {
    /// KEDA `ScaledObject` spec (`keda.sh/v1alpha1`).
    pub struct ScaledObjectSpec {
        /// `scaleTargetRef` (a pointer in KEDA's types).
        scale_target_ref: Option<CrossVersionObjectReference> = "scaleTargetRef",
        /// `minReplicaCount`.
        min_replica_count: Option<i32> = "minReplicaCount",
        /// `maxReplicaCount`.
        max_replica_count: Option<i32> = "maxReplicaCount",
    }
}

// ---- Ingress (`networking.k8s.io/v1`) -----------------------------------

k8s_struct! {
    /// `networkingv1.IngressSpec`.
    pub struct IngressSpec {
        /// `ingressClassName`.
        ingress_class_name: Option<String> = "ingressClassName",
        /// `defaultBackend`.
        default_backend: Option<IngressBackend> = "defaultBackend",
        /// `rules`.
        rules: Vec<IngressRule> = "rules",
    }
}

k8s_struct! {
    /// `networkingv1.IngressRule`.
    pub struct IngressRule {
        /// `host`.
        host: String = "host",
        /// `http`.
        http: Option<HttpIngressRuleValue> = "http",
    }
}

k8s_struct! {
    /// `networkingv1.HTTPIngressRuleValue`.
    pub struct HttpIngressRuleValue {
        /// `paths`.
        paths: Vec<HttpIngressPath> = "paths",
    }
}

k8s_struct! {
    /// `networkingv1.HTTPIngressPath`.
    pub struct HttpIngressPath {
        /// `path`.
        path: String = "path",
        /// `pathType`.
        path_type: Option<String> = "pathType",
        /// `backend`.
        backend: IngressBackend = "backend",
    }
}

k8s_struct! {
    /// `networkingv1.IngressBackend` (a service or a resource backend).
    pub struct IngressBackend {
        /// `service`.
        service: Option<IngressServiceBackend> = "service",
    }
}

k8s_struct! {
    /// `networkingv1.IngressServiceBackend`.
    pub struct IngressServiceBackend {
        /// `name` of the Service.
        name: String = "name",
        /// `port`.
        port: ServiceBackendPort = "port",
    }
}

k8s_struct! {
    /// `networkingv1.ServiceBackendPort`: a name or a number.
    pub struct ServiceBackendPort {
        /// `name`.
        name: String = "name",
        /// `number` (0 when unset).
        number: i32 = "number",
    }
}

// ---- ServiceMonitor (`monitoring.coreos.com/v1`) ------------------------

k8s_struct! {
    /// Prometheus operator `ServiceMonitorSpec` (the selectors).
    pub struct ServiceMonitorSpec {
        /// `selector` (a Go value).
        selector: LabelSelector = "selector",
        /// `namespaceSelector`.
        namespace_selector: NamespaceSelector = "namespaceSelector",
    }
}

k8s_struct! {
    /// Prometheus operator `NamespaceSelector`.
    pub struct NamespaceSelector {
        /// `any`: every namespace.
        any: bool = "any",
        /// `matchNames`.
        match_names: Vec<String> = "matchNames",
    }
}

// ---- PodDisruptionBudget (`policy`) ---------------------------------------

k8s_struct! {
    /// `policyv1.PodDisruptionBudgetSpec`.
    pub struct PdbSpec {
        /// `minAvailable`.
        min_available: Option<IntOrString> = "minAvailable",
        /// `maxUnavailable`.
        max_unavailable: Option<IntOrString> = "maxUnavailable",
        /// `selector`.
        selector: Option<LabelSelector> = "selector",
        /// `unhealthyPodEvictionPolicy` (a pointer: `""` is set).
        unhealthy_pod_eviction_policy: Option<String> = "unhealthyPodEvictionPolicy",
    }
}

// ---- OpenShift SecurityContextConstraints --------------------------------

k8s_struct! {
    /// `securityv1.SecurityContextConstraints` (top-level fields).
    pub struct SccBody {
        /// `allowPrivilegedContainer`.
        allow_privileged_container: bool = "allowPrivilegedContainer",
    }
}

// ---- Secret / ConfigMap (core `v1`) --------------------------------------

k8s_struct! {
    /// A Secret's keys.
    pub struct SecretBody {
        /// `data` (base64 values).
        data: BTreeMap<String, Base64Bytes> = "data",
        /// `stringData`.
        string_data: BTreeMap<String, String> = "stringData",
        /// `type`.
        type_: String = "type",
    }
}

impl SecretBody {
    /// Whether `key` is one of the Secret's keys.
    #[must_use]
    pub fn has_key(&self, key: &str) -> bool {
        self.data.contains_key(key) || self.string_data.contains_key(key)
    }
}

k8s_struct! {
    /// A ConfigMap's keys.
    pub struct ConfigMapBody {
        /// `data`.
        data: BTreeMap<String, String> = "data",
        /// `binaryData` (base64 values).
        binary_data: BTreeMap<String, Base64Bytes> = "binaryData",
    }
}

impl ConfigMapBody {
    /// Whether `key` is one of the ConfigMap's keys.
    #[must_use]
    pub fn has_key(&self, key: &str) -> bool {
        self.data.contains_key(key) || self.binary_data.contains_key(key)
    }
}
