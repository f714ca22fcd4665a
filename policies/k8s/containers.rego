# Container-level rules: one finding per offending container, init and
# regular containers alike (upstream looked at `kind: Pod` and its
# `containers` only, with one verdict per pod).
package sv.k8s

import data.sv.lib.finding
import data.sv.lib.k8s
import data.sv.lib.pod

# K8S_001: SYS_ADMIN or NET_ADMIN (with or without the CAP_ prefix, in any
# case) or ALL in capabilities.add.
deny contains f if {
	some c in pod.all_containers
	added := c.container.securityContext.capabilities.add
	is_array(added)
	bad := sort({upper(cap) | some cap in added; k8s.dangerous_capability(cap)})
	count(bad) > 0
	message := sprintf("container %q adds capabilities %s", [c.name, concat(", ", bad)])
	f := finding.in_container("K8S_001", message, concat("", [c.path, "/securityContext/capabilities/add"]), c.name)
}

# K8S_002: privileged: true (the boolean; the string "true" is a schema
# error kube-linter reports, not a privileged container).
deny contains f if {
	some c in pod.all_containers
	c.container.securityContext.privileged == true
	message := sprintf("container %q runs privileged", [c.name])
	f := finding.in_container("K8S_002", message, concat("", [c.path, "/securityContext/privileged"]), c.name)
}

# GEN_001: each container needs both a cpu and a memory limit of its own
# (upstream fired on every object with an apiVersion, and a cpu limit in one
# container plus a memory limit in another satisfied it).
deny contains f if {
	some c in pod.containers
	missing := [r | some r in ["cpu", "memory"]; not k8s.has_limit(c.container, r)]
	count(missing) > 0
	message := sprintf("container %q has no %s limit", [c.name, concat(" or ", missing)])
	f := k8s.container_finding("GEN_001", message, c)
}

