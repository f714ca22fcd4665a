# Rules on Services, ConfigMaps and every namespaced object.
package sv.k8s

import data.sv.lib.configmap
import data.sv.lib.finding
import data.sv.lib.k8s
import data.sv.lib.secrets

# K8S_004: a core Service port whose `port` or numeric `targetPort` is SSH
# (22) or RDP (3389); upstream ignored targetPort. A string targetPort is a
# port name, not a number.
deny contains f if {
	input.object.apiVersion == "v1"
	input.object.kind == "Service"
	ports := input.object.spec.ports
	is_array(ports)
	some i, port in ports
	is_object(port)
	exposed := sort({n | some field in ["port", "targetPort"]; n := port[field]; is_number(n); n in {22, 3389}})
	count(exposed) > 0
	message := sprintf("%s exposes remote-administration port %s", [
		k8s.display(input.object),
		concat(", ", [sprintf("%v", [n]) | some n in exposed]),
	])
	f := finding.at("K8S_004", message, sprintf("/spec/ports/%d", [i]))
}

# K8S_005: a ConfigMap entry whose *key* names a secret and has a value, or
# whose value holds a private key. Both bodies build the same element, so a
# key matching both is one finding.
deny contains f if {
	some [field, key, value] in configmap.entries
	secrets.secret_name(key)
	secrets.non_empty(value)
	f := k8s.configmap_finding(field, key)
}

deny contains f if {
	some [field, key, value] in configmap.entries
	secrets.private_key(value)
	f := k8s.configmap_finding(field, key)
}

# GEN_002: a namespaced object without a namespace or in `default`.
# Cluster-scoped kinds have no namespace and are exempt (upstream flagged them).
deny contains f if {
	not k8s.cluster_scoped(input.object.kind)
	not k8s.has_namespace(input.object)
	path := k8s.object_path_or_root(input.object, "metadata")
	f := finding.at("GEN_002", sprintf("%s has no namespace (it lands in \"default\")", [k8s.display(input.object)]), path)
}

deny contains f if {
	not k8s.cluster_scoped(input.object.kind)
	input.object.metadata.namespace == "default"
	f := finding.at("GEN_002", sprintf("%s is in the \"default\" namespace", [k8s.display(input.object)]), "/metadata/namespace")
}

