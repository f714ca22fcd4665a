//! Typed Kubernetes structs: every field a check reads, declared once with
//! its JSON key and Go type. Decoding them is what type-checks a document
//! (a wrong type anywhere here fails the document, as in kube-linter).
//!
//! Go pointers (`*bool`, `*int32`) are `Option`s, so "absent" and "false"
//! stay distinct; Go values (`string`, slices, maps, structs) default to
//! their zero value.

use std::collections::BTreeMap;

use crate::k8s::decode::{k8s_struct, IntOrString};
use crate::k8s::quantity::Quantity;
use crate::k8s::selector::{LabelSelector, Labels};

k8s_struct! {
    /// `metav1.ObjectMeta` (the fields kube-linter reads).
    pub struct ObjectMeta {
        /// `name`; `None` when absent or null.
        name: Option<String> = "name",
        /// `namespace` as written; `None` when absent (compares as `""`).
        namespace: Option<String> = "namespace",
        /// `labels` (string → string; an unquoted number fails decoding).
        labels: Labels = "labels",
        /// `annotations` (string → string).
        annotations: Labels = "annotations",
    }
}

impl ObjectMeta {
    /// The namespace as kube-linter compares it: absent is `""`.
    #[must_use]
    pub fn namespace_raw(&self) -> &str {
        self.namespace.as_deref().unwrap_or("")
    }

    /// The name, absent being `""`.
    #[must_use]
    pub fn name_raw(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }
}

k8s_struct! {
    /// `v1.PodTemplateSpec`.
    pub struct PodTemplateSpec {
        /// The template's metadata (its labels are the pods' labels).
        metadata: ObjectMeta = "metadata",
        /// The pod spec.
        spec: PodSpec = "spec",
    }
}

k8s_struct! {
    /// `v1.PodSpec`.
    pub struct PodSpec {
        /// `initContainers`.
        init_containers: Vec<Container> = "initContainers",
        /// `containers`.
        containers: Vec<Container> = "containers",
        /// `ephemeralContainers` (same fields as containers for our checks).
        ephemeral_containers: Vec<Container> = "ephemeralContainers",
        /// `volumes`.
        volumes: Vec<Volume> = "volumes",
        /// `hostNetwork`.
        host_network: bool = "hostNetwork",
        /// `hostPID`.
        host_pid: bool = "hostPID",
        /// `hostIPC`.
        host_ipc: bool = "hostIPC",
        /// `securityContext`.
        security_context: Option<PodSecurityContext> = "securityContext",
        /// `serviceAccountName`.
        service_account_name: String = "serviceAccountName",
        /// `serviceAccount` (deprecated alias).
        service_account: String = "serviceAccount",
        /// `automountServiceAccountToken`.
        automount_service_account_token: Option<bool> = "automountServiceAccountToken",
        /// `affinity`.
        affinity: Option<Affinity> = "affinity",
        /// `restartPolicy` (empty when unset: kube-linter does not default it).
        restart_policy: String = "restartPolicy",
        /// `priorityClassName`.
        priority_class_name: String = "priorityClassName",
        /// `dnsConfig`.
        dns_config: Option<PodDnsConfig> = "dnsConfig",
    }
}

k8s_struct! {
    /// `v1.PodDNSConfig` (the fields checks read).
    pub struct PodDnsConfig {
        /// `options`.
        options: Vec<PodDnsConfigOption> = "options",
    }
}

k8s_struct! {
    /// `v1.PodDNSConfigOption`.
    pub struct PodDnsConfigOption {
        /// `name`.
        name: String = "name",
        /// `value` (a pointer: absent differs from empty).
        value: Option<String> = "value",
    }
}

impl PodSpec {
    /// Init, then regular, then ephemeral containers (kube-linter's
    /// `AllContainers`).
    pub fn all_containers(&self) -> impl Iterator<Item = &Container> {
        self.init_containers
            .iter()
            .chain(&self.containers)
            .chain(&self.ephemeral_containers)
    }
}

k8s_struct! {
    /// `v1.PodSecurityContext` (pod level).
    pub struct PodSecurityContext {
        /// `runAsUser`.
        run_as_user: Option<i64> = "runAsUser",
        /// `runAsGroup`.
        run_as_group: Option<i64> = "runAsGroup",
        /// `runAsNonRoot`.
        run_as_non_root: Option<bool> = "runAsNonRoot",
        /// `sysctls`.
        sysctls: Vec<Sysctl> = "sysctls",
    }
}

k8s_struct! {
    /// `v1.Sysctl`.
    pub struct Sysctl {
        /// `name`.
        name: String = "name",
        /// `value`.
        value: String = "value",
    }
}

k8s_struct! {
    /// `v1.Container` (also used for ephemeral containers).
    pub struct Container {
        /// `name`.
        name: String = "name",
        /// `image`.
        image: String = "image",
        /// `securityContext`.
        security_context: Option<SecurityContext> = "securityContext",
        /// `resources`.
        resources: ResourceRequirements = "resources",
        /// `env`.
        env: Vec<EnvVar> = "env",
        /// `volumeMounts`.
        volume_mounts: Vec<VolumeMount> = "volumeMounts",
        /// `ports`.
        ports: Vec<ContainerPort> = "ports",
        /// `livenessProbe`.
        liveness_probe: Option<Probe> = "livenessProbe",
        /// `readinessProbe`.
        readiness_probe: Option<Probe> = "readinessProbe",
        /// `startupProbe`.
        startup_probe: Option<Probe> = "startupProbe",
    }
}

k8s_struct! {
    /// `v1.Probe`: its presence is what `no-liveness-probe` and
    /// `no-readiness-probe` read; add the handler fields other checks need.
    pub struct Probe {
        /// `httpGet`.
        http_get: Option<HttpGetAction> = "httpGet",
        /// `tcpSocket`.
        tcp_socket: Option<TcpSocketAction> = "tcpSocket",
        /// `grpc`.
        grpc: Option<GrpcAction> = "grpc",
    }
}

k8s_struct! {
    /// `v1.HTTPGetAction` (the port probe checks read).
    pub struct HttpGetAction {
        /// `port` (a number or a port name).
        port: IntOrString = "port",
    }
}

k8s_struct! {
    /// `v1.TCPSocketAction`.
    pub struct TcpSocketAction {
        /// `port` (a number or a port name).
        port: IntOrString = "port",
    }
}

k8s_struct! {
    /// `v1.GRPCAction`.
    pub struct GrpcAction {
        /// `port` (a number only).
        port: i32 = "port",
    }
}

k8s_struct! {
    /// `v1.SecurityContext` (container level).
    pub struct SecurityContext {
        /// `runAsUser`.
        run_as_user: Option<i64> = "runAsUser",
        /// `runAsGroup`.
        run_as_group: Option<i64> = "runAsGroup",
        /// `runAsNonRoot`.
        run_as_non_root: Option<bool> = "runAsNonRoot",
        /// `readOnlyRootFilesystem`.
        read_only_root_filesystem: Option<bool> = "readOnlyRootFilesystem",
        /// `privileged`.
        privileged: Option<bool> = "privileged",
        /// `allowPrivilegeEscalation`.
        allow_privilege_escalation: Option<bool> = "allowPrivilegeEscalation",
        /// `capabilities`.
        capabilities: Option<Capabilities> = "capabilities",
        /// `procMount`.
        proc_mount: Option<String> = "procMount",
    }
}

k8s_struct! {
    /// `v1.Capabilities`.
    pub struct Capabilities {
        /// `add`.
        add: Vec<String> = "add",
        /// `drop`.
        drop: Vec<String> = "drop",
    }
}

k8s_struct! {
    /// `v1.ResourceRequirements`: quantities must parse.
    pub struct ResourceRequirements {
        /// `limits`.
        limits: BTreeMap<String, Quantity> = "limits",
        /// `requests`.
        requests: BTreeMap<String, Quantity> = "requests",
    }
}

k8s_struct! {
    /// `v1.EnvVar`.
    pub struct EnvVar {
        /// `name`.
        name: String = "name",
        /// `value` (literal).
        value: String = "value",
        /// `valueFrom`.
        value_from: Option<EnvVarSource> = "valueFrom",
    }
}

k8s_struct! {
    /// `v1.EnvVarSource` (the references cross-object checks follow).
    pub struct EnvVarSource {
        /// `secretKeyRef`.
        secret_key_ref: Option<KeyRef> = "secretKeyRef",
        /// `configMapKeyRef`.
        config_map_key_ref: Option<KeyRef> = "configMapKeyRef",
    }
}

k8s_struct! {
    /// `v1.SecretKeySelector` / `v1.ConfigMapKeySelector`.
    pub struct KeyRef {
        /// `name` of the Secret/ConfigMap.
        name: String = "name",
        /// `key`.
        key: String = "key",
        /// `optional`.
        optional: Option<bool> = "optional",
    }
}

k8s_struct! {
    /// `v1.VolumeMount`.
    pub struct VolumeMount {
        /// `name` of the volume.
        name: String = "name",
        /// `mountPath`.
        mount_path: String = "mountPath",
        /// `readOnly`.
        read_only: bool = "readOnly",
    }
}

k8s_struct! {
    /// `v1.ContainerPort`.
    pub struct ContainerPort {
        /// `name`.
        name: String = "name",
        /// `containerPort`.
        container_port: i32 = "containerPort",
        /// `protocol` (empty = TCP).
        protocol: String = "protocol",
    }
}

k8s_struct! {
    /// `v1.Volume` (only the sources checks read).
    pub struct Volume {
        /// `name`.
        name: String = "name",
        /// `hostPath`.
        host_path: Option<HostPathVolumeSource> = "hostPath",
    }
}

k8s_struct! {
    /// `v1.HostPathVolumeSource`.
    pub struct HostPathVolumeSource {
        /// `path` on the node.
        path: String = "path",
    }
}

k8s_struct! {
    /// `v1.Affinity`.
    pub struct Affinity {
        /// `nodeAffinity` (presence only is read).
        node_affinity: Option<crate::k8s::types::Presence> = "nodeAffinity",
        /// `podAntiAffinity`.
        pod_anti_affinity: Option<PodAntiAffinity> = "podAntiAffinity",
    }
}

k8s_struct! {
    /// An object whose fields no check reads: only its presence matters
    /// (it must still be a JSON object).
    pub struct Presence {}
}

k8s_struct! {
    /// `v1.PodAntiAffinity`.
    pub struct PodAntiAffinity {
        /// `requiredDuringSchedulingIgnoredDuringExecution`.
        required: Vec<PodAffinityTerm> = "requiredDuringSchedulingIgnoredDuringExecution",
        /// `preferredDuringSchedulingIgnoredDuringExecution`.
        preferred: Vec<WeightedPodAffinityTerm> = "preferredDuringSchedulingIgnoredDuringExecution",
    }
}

k8s_struct! {
    /// `v1.WeightedPodAffinityTerm`.
    pub struct WeightedPodAffinityTerm {
        /// `weight`.
        weight: i32 = "weight",
        /// `podAffinityTerm`.
        pod_affinity_term: PodAffinityTerm = "podAffinityTerm",
    }
}

k8s_struct! {
    /// `v1.PodAffinityTerm`.
    pub struct PodAffinityTerm {
        /// `labelSelector` (absent matches nothing).
        label_selector: Option<LabelSelector> = "labelSelector",
        /// `namespaces`.
        namespaces: Vec<String> = "namespaces",
        /// `topologyKey`.
        topology_key: String = "topologyKey",
    }
}

// ---- Workload specs, one per schema shape -------------------------------

k8s_struct! {
    /// Deployment / ReplicaSet / StatefulSet spec (`apps`, `extensions`).
    pub struct ReplicatedSpec {
        /// `replicas` (absent → 1).
        replicas: Option<i32> = "replicas",
        /// `selector`.
        selector: Option<LabelSelector> = "selector",
        /// `template` (a value: present even when absent).
        template: PodTemplateSpec = "template",
    }
}

k8s_struct! {
    /// DaemonSet spec (no replicas).
    pub struct DaemonSetSpec {
        /// `selector`.
        selector: Option<LabelSelector> = "selector",
        /// `template`.
        template: PodTemplateSpec = "template",
    }
}

k8s_struct! {
    /// ReplicationController / DeploymentConfig spec: a plain-map selector
    /// and an optional template.
    pub struct ControllerSpec {
        /// `replicas` (absent → 1).
        replicas: Option<i32> = "replicas",
        /// `selector` (`map[string]string`).
        selector: Labels = "selector",
        /// `template` (a pointer: may be absent).
        template: Option<PodTemplateSpec> = "template",
    }
}

k8s_struct! {
    /// `batch` Job spec.
    pub struct JobSpec {
        /// `selector`.
        selector: Option<LabelSelector> = "selector",
        /// `template`.
        template: PodTemplateSpec = "template",
        /// `ttlSecondsAfterFinished`.
        ttl_seconds_after_finished: Option<i32> = "ttlSecondsAfterFinished",
    }
}

k8s_struct! {
    /// `batch` CronJob spec.
    pub struct CronJobSpec {
        /// `jobTemplate`.
        job_template: JobTemplateSpec = "jobTemplate",
    }
}

k8s_struct! {
    /// `batch` JobTemplateSpec.
    pub struct JobTemplateSpec {
        /// `metadata`.
        metadata: ObjectMeta = "metadata",
        /// `spec`.
        spec: JobSpec = "spec",
    }
}

k8s_struct! {
    /// `v1` Service spec.
    pub struct ServiceSpec {
        /// `type` (empty = ClusterIP).
        type_: String = "type",
        /// `selector` (`map[string]string`).
        selector: Labels = "selector",
        /// `ports`.
        ports: Vec<ServicePort> = "ports",
    }
}

k8s_struct! {
    /// `v1.ServicePort`.
    pub struct ServicePort {
        /// `name`.
        name: String = "name",
        /// `port`.
        port: i32 = "port",
        /// `targetPort`.
        target_port: Option<IntOrString> = "targetPort",
        /// `protocol`.
        protocol: String = "protocol",
    }
}

k8s_struct! {
    /// `spec` of kinds whose rollout is `spec.strategy` (Deployment,
    /// DeploymentConfig): decoded on its own so only those kinds type-check
    /// the field.
    pub struct StrategySpec {
        /// `strategy` (a Go value: present even when absent).
        strategy: RolloutStrategy = "strategy",
    }
}

k8s_struct! {
    /// `spec` of kinds whose rollout is `spec.updateStrategy` (DaemonSet,
    /// StatefulSet).
    pub struct UpdateStrategySpec {
        /// `updateStrategy` (a Go value: present even when absent).
        update_strategy: RolloutStrategy = "updateStrategy",
    }
}

k8s_struct! {
    /// `DeploymentStrategy` / `DaemonSetUpdateStrategy` /
    /// `StatefulSetUpdateStrategy` / OpenShift `DeploymentStrategy`: the
    /// field checks read.
    pub struct RolloutStrategy {
        /// `type` (empty when unset).
        type_: String = "type",
    }
}
