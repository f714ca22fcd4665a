//! Group/version/kind: parsing `apiVersion` and the table of kinds
//! kube-linter 0.7.6 can decode (spec E2 §1.4).
//!
//! kube-linter decodes with client-go's scheme (the built-in kinds of
//! Kubernetes 1.33 in every version client-go still registers) plus four
//! third-party kinds it registers itself. Anything else — Istio, Kustomize
//! `Component`, CRDs — is a decode error, and so produces no findings.

/// A parsed `apiVersion` + `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Gvk {
    /// API group (`""` for core).
    pub group: String,
    /// Version (`v1`, `v1beta1`).
    pub version: String,
    /// Kind (`Deployment`).
    pub kind: String,
}

impl Gvk {
    /// Splits `apiVersion` like apimachinery's `ParseGroupVersion`: `v1` is
    /// core, `group/version` otherwise; `None` for more than one `/` or an
    /// empty part.
    #[must_use]
    pub fn parse(api_version: &str, kind: &str) -> Option<Gvk> {
        let (group, version) = match api_version.split_once('/') {
            None => ("", api_version),
            Some((g, v)) if !v.contains('/') && !g.is_empty() && !v.is_empty() => (g, v),
            Some(_) => return None,
        };
        if version.is_empty() {
            return None;
        }
        Some(Gvk {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
        })
    }

    /// Whether this is `kind` in `group` (any version).
    #[must_use]
    pub fn is(&self, group: &str, kind: &str) -> bool {
        self.group == group && self.kind == kind
    }

    /// Whether kube-linter's scheme can decode this kind at this version.
    #[must_use]
    pub fn is_decodable(&self) -> bool {
        if self.group.is_empty() && self.version == "v1" && self.kind == "List" {
            return true;
        }
        let base = self.kind.strip_suffix("List").unwrap_or(&self.kind);
        KINDS.iter().any(|(group, versions, kinds)| {
            *group == self.group
                && versions.contains(&self.version.as_str())
                && (kinds.contains(&self.kind.as_str()) || kinds.contains(&base))
        }) || (META_KINDS.contains(&self.kind.as_str()) && self.group_version_known())
    }

    fn group_version_known(&self) -> bool {
        KINDS
            .iter()
            .any(|(g, vs, _)| *g == self.group && vs.contains(&self.version.as_str()))
    }
}

/// Kinds registered in every group version by `metav1.AddToGroupVersion`
/// and the options types (rarely seen in manifests, but decodable).
const META_KINDS: &[&str] = &[
    "WatchEvent",
    "DeleteOptions",
    "ListOptions",
    "GetOptions",
    "CreateOptions",
    "UpdateOptions",
    "PatchOptions",
];

/// `(group, versions, kinds)`: every kind is also decodable as `<Kind>List`.
type KindRow = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// client-go 1.33's scheme plus kube-linter's own registrations.
const KINDS: &[KindRow] = &[
    (
        "",
        &["v1"],
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "Endpoints",
            "Event",
            "LimitRange",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
            "RangeAllocation",
            "PodStatusResult",
            "SerializedReference",
            "PodLogOptions",
            "PodAttachOptions",
            "PodExecOptions",
            "PodPortForwardOptions",
            "PodProxyOptions",
            "NodeProxyOptions",
            "ServiceProxyOptions",
            "Status",
        ],
    ),
    (
        "admissionregistration.k8s.io",
        &["v1", "v1beta1"],
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
        ],
    ),
    (
        "admissionregistration.k8s.io",
        &["v1alpha1"],
        &[
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding",
        ],
    ),
    (
        "internal.apiserver.k8s.io",
        &["v1alpha1"],
        &["StorageVersion"],
    ),
    (
        "apps",
        &["v1", "v1beta2"],
        &[
            "ControllerRevision",
            "DaemonSet",
            "Deployment",
            "ReplicaSet",
            "StatefulSet",
        ],
    ),
    ("apps", &["v1beta2"], &["Scale"]),
    (
        "apps",
        &["v1beta1"],
        &[
            "ControllerRevision",
            "Deployment",
            "DeploymentRollback",
            "StatefulSet",
            "Scale",
        ],
    ),
    (
        "authentication.k8s.io",
        &["v1"],
        &["TokenReview", "TokenRequest", "SelfSubjectReview"],
    ),
    (
        "authentication.k8s.io",
        &["v1alpha1", "v1beta1"],
        &["SelfSubjectReview", "TokenReview"],
    ),
    (
        "authorization.k8s.io",
        &["v1", "v1beta1"],
        &[
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SelfSubjectRulesReview",
            "SubjectAccessReview",
        ],
    ),
    (
        "autoscaling",
        &["v1"],
        &["HorizontalPodAutoscaler", "Scale"],
    ),
    (
        "autoscaling",
        &["v2", "v2beta1", "v2beta2"],
        &["HorizontalPodAutoscaler"],
    ),
    ("batch", &["v1"], &["Job", "CronJob"]),
    ("batch", &["v1beta1"], &["CronJob"]),
    (
        "certificates.k8s.io",
        &["v1"],
        &["CertificateSigningRequest"],
    ),
    (
        "certificates.k8s.io",
        &["v1beta1"],
        &["CertificateSigningRequest", "ClusterTrustBundle"],
    ),
    (
        "certificates.k8s.io",
        &["v1alpha1"],
        &["ClusterTrustBundle"],
    ),
    ("coordination.k8s.io", &["v1"], &["Lease"]),
    (
        "coordination.k8s.io",
        &["v1beta1"],
        &["Lease", "LeaseCandidate"],
    ),
    ("coordination.k8s.io", &["v1alpha2"], &["LeaseCandidate"]),
    ("discovery.k8s.io", &["v1", "v1beta1"], &["EndpointSlice"]),
    ("events.k8s.io", &["v1", "v1beta1"], &["Event"]),
    (
        "extensions",
        &["v1beta1"],
        &[
            "DaemonSet",
            "Deployment",
            "DeploymentRollback",
            "Ingress",
            "NetworkPolicy",
            "PodSecurityPolicy",
            "ReplicaSet",
            "Scale",
        ],
    ),
    (
        "flowcontrol.apiserver.k8s.io",
        &["v1", "v1beta1", "v1beta2", "v1beta3"],
        &["FlowSchema", "PriorityLevelConfiguration"],
    ),
    (
        "networking.k8s.io",
        &["v1"],
        &[
            "Ingress",
            "IngressClass",
            "NetworkPolicy",
            "IPAddress",
            "ServiceCIDR",
        ],
    ),
    (
        "networking.k8s.io",
        &["v1beta1"],
        &["Ingress", "IngressClass", "IPAddress", "ServiceCIDR"],
    ),
    (
        "networking.k8s.io",
        &["v1alpha1"],
        &["IPAddress", "ServiceCIDR"],
    ),
    (
        "node.k8s.io",
        &["v1", "v1alpha1", "v1beta1"],
        &["RuntimeClass"],
    ),
    ("policy", &["v1"], &["Eviction", "PodDisruptionBudget"]),
    (
        "policy",
        &["v1beta1"],
        &["Eviction", "PodDisruptionBudget", "PodSecurityPolicy"],
    ),
    (
        "rbac.authorization.k8s.io",
        &["v1", "v1beta1", "v1alpha1"],
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
    ),
    (
        "resource.k8s.io",
        &["v1alpha3", "v1beta1", "v1beta2"],
        &[
            "DeviceClass",
            "ResourceClaim",
            "ResourceClaimTemplate",
            "ResourceSlice",
        ],
    ),
    ("resource.k8s.io", &["v1alpha3"], &["DeviceTaintRule"]),
    (
        "scheduling.k8s.io",
        &["v1", "v1alpha1", "v1beta1"],
        &["PriorityClass"],
    ),
    (
        "storage.k8s.io",
        &["v1", "v1beta1"],
        &[
            "CSIDriver",
            "CSINode",
            "CSIStorageCapacity",
            "StorageClass",
            "VolumeAttachment",
        ],
    ),
    (
        "storage.k8s.io",
        &["v1beta1", "v1alpha1"],
        &["VolumeAttributesClass"],
    ),
    (
        "storage.k8s.io",
        &["v1alpha1"],
        &["CSIStorageCapacity", "VolumeAttachment"],
    ),
    (
        "storagemigration.k8s.io",
        &["v1alpha1"],
        &["StorageVersionMigration"],
    ),
    // Registered by kube-linter itself.
    ("apps.openshift.io", &["v1"], &["DeploymentConfig"]),
    (
        "security.openshift.io",
        &["v1"],
        &["SecurityContextConstraints"],
    ),
    ("monitoring.coreos.com", &["v1"], &["ServiceMonitor"]),
    ("keda.sh", &["v1alpha1"], &["ScaledObject"]),
];
