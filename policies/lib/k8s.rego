# Kubernetes helpers: which objects run pods, where their pod spec is, and
# their containers with JSON Pointers (so findings get the container's line).
#
# Input objects are arbitrary YAML: every helper checks types before calling
# a builtin, because regorus reports a builtin's type error as an evaluation
# error where OPA would just make the expression undefined.
package sv.lib.k8s

import data.sv.lib.finding

# The API group ("" for core). Undefined for a malformed apiVersion.
api_group(obj) := parts[0] if {
	is_string(obj.apiVersion)
	parts := split(obj.apiVersion, "/")
	count(parts) == 2
}

api_group(obj) := "" if {
	is_string(obj.apiVersion)
	not contains(obj.apiVersion, "/")
}

# kube-linter's deployment-like kinds (spec E2 §1.4), plus the legacy
# `extensions` workloads, which kube-linter does not treat as DL but which
# run pods all the same (our policies are intentionally broader); `apps`
# already covers apps/v1beta1 and apps/v1beta2.
pod_bearing(obj) if [api_group(obj), obj.kind] in {
	["", "Pod"],
	["", "ReplicationController"],
	["apps", "Deployment"],
	["apps", "DaemonSet"],
	["apps", "StatefulSet"],
	["apps", "ReplicaSet"],
	["batch", "Job"],
	["batch", "CronJob"],
	["apps.openshift.io", "DeploymentConfig"],
	["extensions", "Deployment"],
	["extensions", "DaemonSet"],
	["extensions", "ReplicaSet"],
}

# Where the pod spec is, as a JSON Pointer.
pod_spec_pointer(obj) := "/spec" if obj.kind == "Pod"

pod_spec_pointer(obj) := "/spec/jobTemplate/spec/template/spec" if obj.kind == "CronJob"

pod_spec_pointer(obj) := "/spec/template/spec" if not obj.kind in {"Pod", "CronJob"}

# The pod spec of a pod-bearing object; undefined when it has none.
pod_spec(obj) := spec if {
	pod_bearing(obj)
	obj.kind == "Pod"
	spec := obj.spec
	is_object(spec)
}

pod_spec(obj) := spec if {
	pod_bearing(obj)
	obj.kind == "CronJob"
	spec := obj.spec.jobTemplate.spec.template.spec
	is_object(spec)
}

pod_spec(obj) := spec if {
	pod_bearing(obj)
	not obj.kind in {"Pod", "CronJob"}
	spec := obj.spec.template.spec
	is_object(spec)
}

# {"container", "name", "path"} for each container listed under `fields`.
containers_in(obj, fields) := {entry |
	spec := pod_spec(obj)
	some field in fields
	list := spec[field]
	is_array(list)
	some i, c in list
	is_object(c)
	entry := {
		"container": c,
		"name": container_name(c),
		"path": sprintf("%s/%s/%d", [pod_spec_pointer(obj), field, i]),
	}
}

# Init and regular containers (what GEN_001 checks: ephemeral containers
# cannot have resources).
containers(obj) := containers_in(obj, ["initContainers", "containers"])

# Init, regular and ephemeral containers (K8S_001/002: an ephemeral
# container can be privileged too).
all_containers(obj) := containers_in(obj, ["initContainers", "containers", "ephemeralContainers"])

container_name(c) := c.name if is_string(c.name)

container_name(c) := "" if not is_string(c.name)

# `Kind "name"` for messages.
display(obj) := sprintf("%v %q", [obj.kind, obj.metadata.name]) if is_string(obj.metadata.name)

display(obj) := sprintf("%v (unnamed)", [obj.kind]) if not is_string(obj.metadata.name)

# A container finding in the shape of the deny contract.
container_finding(id, message, c) := finding.in_container(id, message, c.path, c.name)

# Rule helpers (kept out of package sv.k8s so that user policies, which add
# to sv.k8s.deny, can use any other name there).

# K8S_001's capabilities: ALL, or SYS_ADMIN/NET_ADMIN with an optional CAP_
# prefix, in any case.
dangerous_capability(cap) if {
	is_string(cap)
	upper(cap) == "ALL"
}

dangerous_capability(cap) if {
	is_string(cap)
	trim_prefix(upper(cap), "CAP_") in {"SYS_ADMIN", "NET_ADMIN"}
}

# A container's own limit for `resource` (cpu, memory) with a value.
has_limit(container, resource) if {
	limits := container.resources.limits
	is_object(limits)
	value := limits[resource]
	value != null
	value != ""
}

as_object(x) := x if is_object(x)

as_object(x) := {} if not is_object(x)

# One K8S_005 element per entry, whichever body found it.
configmap_finding(field, key) := finding.at(
	"K8S_005",
	sprintf("%s holds a secret in %s key %q; use a Secret", [display(input.object), field, key]),
	sprintf("/%s/%s", [field, finding.token(key)]),
)

# Kinds that have no namespace (exempt from GEN_002). Functions, not rules,
# hold the constant sets here: regorus evaluates every rule of a package
# when one is referenced, and this package is referenced for every object.
cluster_scoped(kind) if kind in {
	"Namespace", "Node", "PersistentVolume", "StorageClass", "ClusterRole",
	"ClusterRoleBinding", "CustomResourceDefinition", "PriorityClass",
	"IngressClass", "RuntimeClass", "CSIDriver", "CSINode", "VolumeAttachment",
	"PodSecurityPolicy", "SecurityContextConstraints",
	"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "APIService",
}

has_namespace(obj) if {
	ns := obj.metadata.namespace
	is_string(ns)
	ns != ""
}

# `/key` when obj[key] is an object, else "" (the object's own line).
object_path_or_root(obj, key) := concat("", ["/", key]) if is_object(obj[key])

object_path_or_root(obj, key) := "" if not is_object(obj[key])
