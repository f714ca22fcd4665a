# The containers of input.object, computed once per evaluation.
#
# Rules rather than calls to the sv.lib.k8s functions (regorus does not
# memoise function calls, and several rules walk the same containers), in a
# package of their own (regorus evaluates every rule of a package whenever
# one of them is referenced).
package sv.lib.pod

import data.sv.lib.k8s

# The pod spec of input.object and its JSON Pointer (undefined when the
# object bears no pods).
spec := k8s.pod_spec(input.object)

pointer := k8s.pod_spec_pointer(input.object)

# Init, regular and ephemeral containers: {"container", "name", "path", "field"}.
all_containers := {entry |
	some field in ["initContainers", "containers", "ephemeralContainers"]
	list := spec[field]
	is_array(list)
	some i, c in list
	is_object(c)
	entry := {
		"container": c,
		"name": k8s.container_name(c),
		"path": concat("/", [pointer, field, format_int(i, 10)]),
		"field": field,
	}
}

# Init and regular containers (ephemeral ones cannot have resources).
containers := {c | some c in all_containers; c.field != "ephemeralContainers"}
