# Pod-level rules of pod-bearing objects (upstream: `kind: Pod` only).
package sv.k8s

import data.sv.lib.finding
import data.sv.lib.k8s
import data.sv.lib.pod

# K8S_003: one finding per hostPath volume.
deny contains f if {
	volumes := pod.spec.volumes
	is_array(volumes)
	some i, volume in volumes
	is_object(volume)
	volume.hostPath != null
	message := sprintf("%s mounts host path %v through volume %v", [
		k8s.display(input.object),
		object.get(k8s.as_object(volume.hostPath), "path", "?"),
		object.get(volume, "name", "?"),
	])
	f := finding.at("K8S_003", message, sprintf("%s/volumes/%d", [pod.pointer, i]))
}

